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
#include "store_after_run.hpp"

namespace tilegemm::detail {

// The cache keeps one file per program and device: <cache folder>/<tilegemm version>/<hash of the key>.bin, whose key
// names the kernel text, the build options, the platform and its version, the device and its OpenCL version, the
// driver's version and tilegemm's version. A file is used only when it is whole and its key is this one; anything
// else is ignored, and replaced when the program compiled instead is stored. A program this process compiles is
// stored right after its build, or on PoCL after its first run (store_after_run.hpp says why).
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

  // Stores `program`, just compiled from `text` for `device` in `context`: now, or on PoCL once a kernel of it has run.
  void compiled(const cl::Program& program, const cl::Context& context, const cl::Device& device,
                const ProgramText& text) noexcept {
    try {
      const CacheLocation where = location();
      if (!where.enabled && where.problem.empty()) return;  // TILEGEMM_CACHE=off
      std::optional<std::string> key = key_of(device, text);
      if (!key) return;
      if (!StoreAfterRun::needed(device)) {
        if (std::optional<std::vector<unsigned char>> binary = binary_to_store(where, program, device, *key)) {
          write(where, *key, *binary);
        }
        return;
      }
      // A context let go of meanwhile is not kept: its program is not held here either, so that the context is freed.
      if (KeptContexts::instance().keeps(context())) {
        StoreAfterRun::instance().hold({program, device, context(), std::move(*key), false});
      }
    } catch (...) {
      // Out of memory for the key or the binary: the program is compiled again next time.
    }
  }

  // Stores the held programs (PoCL's) that have run, when no launch is running: called before PoCL's kernel launches,
  // and by calls that have waited for their results.
  void store_ran() noexcept;

  // Lets go of the held programs of `context`, storing them first when no launch is running.
  void release(cl_context context) override {
    store_held([&](const StoreAfterRun::Held& held) { return held.context == context; }, false);
  }
  void release_all() override {
    store_held([](const StoreAfterRun::Held&) { return true; }, false);
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

  // Writes the held programs `which` picks (store_after_run.hpp says when).
  template <class Which>
  void store_held(Which&& which, bool keep) {
    const CacheLocation where = location();
    const auto binaries = StoreAfterRun::instance().take_when_idle(
        which, keep, [&](const cl::Program& program, const cl::Device& device, const std::string& key) {
          return binary_to_store(where, program, device, key);
        });
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
  std::optional<std::vector<unsigned char>> binary_to_store(const CacheLocation& where, const cl::Program& program,
                                                            const cl::Device& device, const std::string& key) {
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
      const std::string problem = cache_file::make_folder(path_of(where, key).parent_path());
      if (!problem.empty()) {
        writes_failed(problem);
        return std::nullopt;
      }
      return binary_of(program, device);
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

  std::mutex mutex_;  // the members below
  std::optional<CacheLocation> location_;
  bool writes_failed_ = false;
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
  if (!StoreAfterRun::instance().any_ran()) return;
  try {
    store_held([](const StoreAfterRun::Held& held) { return held.ran; }, true);
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
