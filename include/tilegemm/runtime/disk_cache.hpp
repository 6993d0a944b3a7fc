// disk_cache: compiled programs kept on disk, so that a new process loads them (clCreateProgramWithBinary) instead of
// compiling them again.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "../config/fnv1a.hpp"
#include "../config/linkage.hpp"
#include "../config/version.hpp"
#include "../kernels/program_text.hpp"
#include "cache_file.hpp"
#include "cache_location.hpp"
#include "error.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// 16 hexadecimal digits.
inline std::string hex64(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 0xfU];
  return text;
}

// The cache keeps one file per program and device: <cache folder>/<tilegemm version>/<hash of the key>.bin, whose key
// names the kernel text, the build options, the platform and its version, the device and its OpenCL version, the
// driver's version and tilegemm's version. A file is used only when it is whole and its key is this one; anything
// else is ignored, and replaced when the program compiled instead is stored.
//
// A program this process compiles is stored after a kernel of it has run, not right after the build: some drivers
// (PoCL) compile a kernel for its work-group size only when it first runs, and put that code in the program's binary
// only when asked for it after the run (and only the first time). And it is stored only while no tilegemm kernel is
// running, with launches held back meanwhile: asking PoCL for a binary also compiles each kernel anew and puts it
// into PoCL's table of loaded kernels, and a kernel of the same program that finishes meanwhile releases the wrong
// entry of that table (an assertion in PoCL 3.1). So a program is stored when gpu_gemm has its result (store_ran),
// before a later launch that finds every earlier one finished, or when its context is let go of while no kernel runs,
// whichever comes first. Never at exit: the driver's own static objects may be gone by then (PoCL's compiler crashed
// there). Launches are recorded only while some program waits to be stored: a kernel of the same program text
// launched in another context before this one was compiled, and still running when this one is stored, is the one
// case not covered.
class DiskCache final : public ContextResources {
 public:
  // The process-wide cache (leaked on purpose, like the program cache).
  static DiskCache& instance();

  // The program for `text` on `device`, built from the binary this cache holds for it; nullopt when the cache is
  // off, has no whole file for this key, or the driver refuses the binary.
  std::optional<cl::Program> load(const cl::Context& context, const cl::Device& device, const ProgramText& text) {
    try {
      return load_or_throw(context, device, text);
    } catch (const std::exception&) {
      return std::nullopt;  // e.g. no memory for the file: compiling it is still possible
    }
  }

  // Takes `program`, just compiled from `text` for `device` in `context`, to store it once a kernel of it has run.
  void compiled(const cl::Program& program, const cl::Context& context, const cl::Device& device,
                const ProgramText& text) {
    const CacheLocation where = location();
    if (!where.enabled && where.problem.empty()) return;  // TILEGEMM_CACHE=off
    // A context let go of meanwhile is not kept: its program is not held here either, so that the context is freed.
    if (!KeptContexts::instance().keeps(context())) return;
    std::optional<std::string> key = key_of(device, text);
    if (!key) return;
    Unstored entry{program, device, context(), std::move(*key), false};
    std::lock_guard<std::mutex> lock(mutex_);
    unstored_.push_back(std::move(entry));
    ++unstored_count_;
  }

  // Every kernel launch holds this from before its enqueue until launched() has noted it, so that no launch starts
  // while a binary is asked for (see above).
  std::shared_lock<std::shared_mutex> launching() { return std::shared_lock<std::shared_mutex>(gate_); }

  // Notes a launch of `kernel` (`done` is its event) while some program waits to be stored; called holding
  // launching().
  void launched(const cl::Kernel& kernel, const cl::Event& done) noexcept {
    if (unstored_count_.load() == 0) return;
    try {
      cl_program program = nullptr;
      if (clGetKernelInfo(kernel(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr) != CL_SUCCESS) return;
      cl::Event event = done;  // retained here, not under the lock: no driver calls under it
      std::lock_guard<std::mutex> lock(mutex_);
      running_.push_back(std::move(event));
      for (Unstored& entry : unstored_) {
        if (entry.program() == program && !entry.ran) {
          entry.ran = true;
          ++ran_count_;
        }
      }
    } catch (...) {
      // Out of memory for the lists: the launch itself succeeded, and the program is compiled again next time.
    }
  }

  // Stores the programs that have run, when no launch is running: called before every kernel launch, and by calls
  // that have waited for their results.
  void store_ran() noexcept;

  // Lets go of the programs of `context` that wait to be stored, storing them first when no launch is running.
  void release(cl_context context) override {
    store_when_idle([&](const Unstored& entry) { return entry.context == context; }, false);
  }
  void release_all() override {
    store_when_idle([](const Unstored&) { return true; }, false);
  }

  // The references to `context` that the programs waiting to be stored hold; nullopt while launches noted since may
  // still run (their events may hold it too), so that the context is judged once they are seen done.
  std::optional<cl_uint> references_to(cl_context context, const ImplicitReferences& implicit) override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl_uint references = 0;
    for (const Unstored& entry : unstored_) {
      if (entry.context == context) references += implicit.program;
    }
    if (references > 0 && !running_.empty()) return std::nullopt;
    return references;
  }

  // How many programs this process has loaded from disk so far.
  std::size_t loaded() const { return loaded_.load(); }

  // Where the cache is: the environment's choice, read on first use, or the one use_location set.
  CacheLocation location() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!location_) location_ = cache_location_from_environment();
    return *location_;
  }

  // For tests: puts the cache at `where` from now on (as if the process had started with it) and returns the
  // location before. Programs waiting to be stored go to the new location.
  CacheLocation use_location(CacheLocation where) {
    std::lock_guard<std::mutex> lock(mutex_);
    CacheLocation before = location_ ? *location_ : cache_location_from_environment();
    location_ = std::move(where);
    writes_failed_ = false;
    return before;
  }

  // The key a program is stored under: everything that must match for its binary to be used. nullopt when the
  // driver does not say what it is.
  static std::optional<std::string> key_of(const cl::Device& device, const ProgramText& text) {
    cl_platform_id platform = nullptr;
    if (clGetDeviceInfo(device(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS) {
      return std::nullopt;
    }
    const std::optional<std::string> platform_name = info_text(clGetPlatformInfo, platform, CL_PLATFORM_NAME),
                                     platform_version = info_text(clGetPlatformInfo, platform, CL_PLATFORM_VERSION),
                                     device_name = info_text(clGetDeviceInfo, device(), CL_DEVICE_NAME),
                                     device_version = info_text(clGetDeviceInfo, device(), CL_DEVICE_VERSION),
                                     driver_version = info_text(clGetDeviceInfo, device(), CL_DRIVER_VERSION);
    if (!platform_name || !platform_version || !device_name || !device_version || !driver_version) return std::nullopt;
    return std::string("tilegemm ") + library_version + ", cache format " + std::to_string(cache_file::format) +
           "\nplatform: " + *platform_name + " / " + *platform_version + "\ndevice: " + *device_name + " / " +
           *device_version + "\ndriver: " + *driver_version + "\nbuild options: " + build_options +
           "\nprogram: " + hex64(text.key);
  }

 private:
  // A program compiled here, waiting to be stored.
  struct Unstored {
    cl::Program program;
    cl::Device device;
    cl_context context = nullptr;  // the program's (which holds it)
    std::string key;
    bool ran = false;  // whether one of its kernels has been launched
  };

  std::optional<cl::Program> load_or_throw(const cl::Context& context, const cl::Device& device,
                                           const ProgramText& text) {
    const CacheLocation where = location();
    if (!where.enabled) return std::nullopt;
    const std::optional<std::string> key = key_of(device, text);
    if (!key) return std::nullopt;
    const std::optional<std::vector<unsigned char>> bytes = cache_file::read(path_of(where, *key));
    if (!bytes) return std::nullopt;
    const std::optional<CacheEntry> entry = cache_file::decode(*bytes);
    if (!entry || entry->key != *key || entry->binary.empty()) return std::nullopt;
    cl_device_id id = device();
    const unsigned char* binary = entry->binary.data();
    const std::size_t size = entry->binary.size();
    cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
    const cl_program created = clCreateProgramWithBinary(context(), 1, &id, &size, &binary, &binary_status, &status);
    if (created == nullptr) return std::nullopt;
    const cl::Program program(created);  // takes the reference clCreateProgramWithBinary returned
    if (status != CL_SUCCESS || binary_status != CL_SUCCESS) return std::nullopt;
    if (clBuildProgram(created, 1, &id, build_options, nullptr, nullptr) != CL_SUCCESS) return std::nullopt;
    ++loaded_;
    return program;
  }

  static std::filesystem::path path_of(const CacheLocation& where, const std::string& key) {
    return where.directory / library_version / (hex64(fnv1a(key)) + ".bin");
  }

  // A text property of a platform or device (`query` is clGetPlatformInfo or clGetDeviceInfo), up to its NUL.
  template <class Query, class Object, class Name>
  static std::optional<std::string> info_text(Query query, Object object, Name name) {
    std::size_t size = 0;
    if (query(object, name, 0, nullptr, &size) != CL_SUCCESS) return std::nullopt;
    std::string value(size, '\0');
    if (query(object, name, size, value.data(), nullptr) != CL_SUCCESS) return std::nullopt;
    return std::string(value.c_str());
  }

  static bool finished(const cl::Event& event) {
    cl_int status = CL_QUEUED;
    const cl_int query = clGetEventInfo(event(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    return query != CL_SUCCESS || status <= CL_COMPLETE;  // complete, or failed (a negative code): it will not run
  }

  // Stores the waiting programs `which` picks, if no noted launch is still running: asks for their binaries holding
  // the gate, so that no launch starts meanwhile, then writes them. With `keep`, the programs picked wait on when
  // launches still run; without, they are dropped then.
  template <class Which>
  void store_when_idle(Which&& which, bool keep) {
    std::vector<Unstored> picked;
    std::vector<std::pair<std::string, std::vector<unsigned char>>> binaries;  // key, binary
    const CacheLocation where = location();
    {
      std::unique_lock<std::shared_mutex> gate(gate_);
      std::vector<cl::Event> running;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        running.swap(running_);
      }
      running.erase(std::remove_if(running.begin(), running.end(), finished), running.end());
      const bool idle = running.empty();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        running_.insert(running_.end(), std::make_move_iterator(running.begin()),
                        std::make_move_iterator(running.end()));
        if (!idle && keep) return;
        const auto kept = std::stable_partition(unstored_.begin(), unstored_.end(),
                                                [&](const Unstored& entry) { return !which(entry); });
        std::move(kept, unstored_.end(), std::back_inserter(picked));
        unstored_.erase(kept, unstored_.end());
        unstored_count_ = unstored_.size();
        ran_count_ = static_cast<std::size_t>(
            std::count_if(unstored_.begin(), unstored_.end(), [](const Unstored& entry) { return entry.ran; }));
        if (unstored_.empty()) running_.clear();  // nothing waits for them any more
      }
      if (!idle) return;  // dropped
      for (const Unstored& entry : picked) {
        if (std::optional<std::vector<unsigned char>> binary = fetch(where, entry)) {
          binaries.emplace_back(entry.key, std::move(*binary));
        }
      }
    }
    for (const auto& [key, binary] : binaries) write(where, key, binary);
  }

  // The program's binary for `device`, or nullopt when the driver gives none.
  static std::optional<std::vector<unsigned char>> binary_of(const cl::Program& program, const cl::Device& device) {
    cl_uint count = 0;
    if (clGetProgramInfo(program(), CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr) != CL_SUCCESS ||
        count == 0) {
      return std::nullopt;
    }
    std::vector<cl_device_id> devices(count);
    std::vector<std::size_t> sizes(count);
    if (clGetProgramInfo(program(), CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices.data(), nullptr) !=
            CL_SUCCESS ||
        clGetProgramInfo(program(), CL_PROGRAM_BINARY_SIZES, count * sizeof(std::size_t), sizes.data(), nullptr) !=
            CL_SUCCESS) {
      return std::nullopt;
    }
    const std::size_t index =
        static_cast<std::size_t>(std::find(devices.begin(), devices.end(), device()) - devices.begin());
    if (index == devices.size() || sizes[index] == 0) return std::nullopt;
    // Buffers for every device (some drivers write to each pointer given); only this device's is kept.
    std::vector<std::vector<unsigned char>> binaries(count);
    std::vector<unsigned char*> pointers(count);
    for (std::size_t i = 0; i < count; ++i) {
      binaries[i].resize(std::max<std::size_t>(sizes[i], 1));
      pointers[i] = binaries[i].data();
    }
    if (clGetProgramInfo(program(), CL_PROGRAM_BINARIES, count * sizeof(unsigned char*), pointers.data(), nullptr) !=
        CL_SUCCESS) {
      return std::nullopt;
    }
    binaries[index].resize(sizes[index]);
    return std::move(binaries[index]);
  }

  // The binary of a program to store at `where`; nullopt when there is nothing to write (the cache is off or cannot
  // be written, or the driver gives no binary).
  std::optional<std::vector<unsigned char>> fetch(const CacheLocation& where, const Unstored& entry) {
    try {
      if (!where.enabled) {
        if (!where.problem.empty()) writes_failed(where.problem);
        return std::nullopt;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (writes_failed_) return std::nullopt;
      }
      // The folder first: asking for the binary may make the driver compile (PoCL), not worth it for nothing.
      const std::string problem = cache_file::make_folder(path_of(where, entry.key).parent_path());
      if (!problem.empty()) {
        writes_failed(problem);
        return std::nullopt;
      }
      return binary_of(entry.program, entry.device);
    } catch (const std::exception& e) {
      writes_failed(e.what());  // e.g. no memory for the binary
      return std::nullopt;
    }
  }

  void write(const CacheLocation& where, const std::string& key, const std::vector<unsigned char>& binary) {
    try {
      const std::string problem = cache_file::write_atomically(path_of(where, key), cache_file::encode({key, binary}));
      if (!problem.empty()) writes_failed(problem);
    } catch (const std::exception& e) {
      writes_failed(e.what());
    }
  }

  // Turns writing off for the rest of the process, saying so once on stderr.
  void writes_failed(const std::string& problem) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (writes_failed_) return;
      writes_failed_ = true;
    }
    std::fprintf(stderr,
                 "tilegemm: compiled programs are not kept on disk in this process: %s (set TILEGEMM_CACHE_DIR to a "
                 "writable folder, or TILEGEMM_CACHE=off)\n",
                 problem.c_str());
  }

  std::shared_mutex gate_;  // shared by launches, exclusive while binaries are asked for
  std::mutex mutex_;        // the members below
  std::optional<CacheLocation> location_;
  bool writes_failed_ = false;
  std::vector<Unstored> unstored_;
  std::vector<cl::Event> running_;              // launches noted while programs wait to be stored, not yet seen done
  std::atomic<std::size_t> unstored_count_{0};  // unstored_.size(), read without the lock
  std::atomic<std::size_t> ran_count_{0};       // how many of unstored_ have run
  std::atomic<std::size_t> loaded_{0};
};

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY DiskCache& DiskCache::instance() {
  static auto* cache = [] {
    auto* created = new DiskCache;
    KeptContexts::instance().add_holder(*created);
    return created;
  }();
  return *cache;
}

TILEGEMM_ENTRY void DiskCache::store_ran() noexcept {
  if (ran_count_.load() == 0) return;
  try {
    store_when_idle([](const Unstored& entry) { return entry.ran; }, true);
  } catch (...) {
    // Nothing to report: they are compiled again next time.
  }
}
#endif

}  // namespace tilegemm::detail

namespace tilegemm {

// How many OpenCL programs tilegemm has loaded from its disk cache in this process, instead of compiling them
// (programs_built() counts those it compiled).
TILEGEMM_ENTRY std::size_t programs_loaded_from_disk();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::size_t programs_loaded_from_disk() { return detail::DiskCache::instance().loaded(); }
#endif

}  // namespace tilegemm
