// program_cache: compiled OpenCL programs, found in memory, else loaded from disk, else built, once per (context,
// device, source) and shared by all threads; and their kernel objects, lent to one call at a time.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "../kernels/program_text.hpp"
#include "disk_cache.hpp"
#include "error.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"
#include "program_text_file.hpp"
#include "sm90a_ptx.hpp"
#include "store_after_run.hpp"

namespace tilegemm {

// A kernel object lent to one call: set its arguments, enqueue it, and it goes back to its shelf when the lease ends
// (OpenCL takes the arguments at enqueue, so the next call may set new ones). A kernel object is never used by two
// threads at once: clSetKernelArg on a shared one is not thread-safe.
class KernelLease {
 public:
  struct Shelf {
    std::mutex mutex;
    std::vector<cl::Kernel> idle;
    std::size_t work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE of the compiled kernel
    bool store_after_run = false;     // whether its launches go through StoreAfterRun's gate (PoCL)
  };
  static constexpr std::size_t shelf_size = 8;  // idle kernels kept per program and kernel name

  KernelLease(cl::Kernel kernel, std::shared_ptr<Shelf> shelf) : kernel_(std::move(kernel)), shelf_(std::move(shelf)) {}
  KernelLease(KernelLease&&) noexcept = default;
  KernelLease& operator=(KernelLease&&) = delete;
  KernelLease(const KernelLease&) = delete;
  KernelLease& operator=(const KernelLease&) = delete;
  ~KernelLease() {
    if (!shelf_ || kernel_() == nullptr) return;
    std::lock_guard<std::mutex> lock(shelf_->mutex);
    if (shelf_->idle.size() < shelf_size) shelf_->idle.push_back(std::move(kernel_));
  }

  cl::Kernel& get() { return kernel_; }
  std::size_t work_group_size() const { return shelf_->work_group_size; }
  bool store_after_run() const { return shelf_ && shelf_->store_after_run; }

 private:
  cl::Kernel kernel_;
  std::shared_ptr<Shelf> shelf_;
};

// Programs are kept per context for as long as KeptContexts keeps the context (kept_contexts.hpp): tilegemm's own
// contexts until tilegemm::release_resources(), and the most recently used user contexts. So are idle kernel objects
// of each program, lent to one call at a time.
class ProgramCache final : public detail::ContextResources {
 public:
  // The process-wide cache (leaked on purpose, like the queues: no OpenCL calls from static destructors).
  static ProgramCache& instance() { return detail::process_holder<ProgramCache>(); }

  // The program for `text` on `device`: the lookup, in this order. In memory (this cache), for any request after the
  // first; concurrent first requests wait for one of them to make it. Else from the disk cache (disk_cache.hpp). Else
  // built from its text, and then handed to the disk cache to store. A failed build throws tilegemm::Error with the
  // compiler's log and where the program's whole text was written, now and on every retry (until the context's
  // programs are released).
  cl::Program program(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    detail::KeptContexts::instance().use(context);
    const Key key{context(), device(), text.key};
    std::promise<cl::Program> promise;
    std::shared_future<cl::Program> ready;
    bool build_here = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = entries_.find(key);
      if (found != entries_.end()) {
        ready = found->second.program;  // waited for below, without the lock, while another thread may build it
      } else {
        ready = promise.get_future().share();
        build_here = true;
        // A context let go of since use() above (by calls on other contexts, or release_resources) is not cached
        // again: this call builds its program for itself alone.
        if (detail::KeptContexts::instance().keeps(context())) entries_.emplace(key, Entry{context, ready});
      }
    }
    if (build_here) {
      try {
        promise.set_value(load_or_build(context, device, text));  // not in memory
      } catch (...) {
        promise.set_exception(std::current_exception());
      }
    }
    return ready.get();  // a released entry's program lives on in the futures that still share it
  }

  // Kernel `text.kernel_name` of the program for `text` on `device`, lent to the caller: an idle one of an earlier
  // call, or a new one (building the program first where this is its first request).
  KernelLease kernel(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    detail::KeptContexts::instance().use(context);  // as a program request would
    const ShelfKey key{context(), device(), text.key, text.kernel_name};
    std::shared_ptr<KernelLease::Shelf> shelf;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = shelves_.find(key);
      if (found != shelves_.end()) shelf = found->second;
    }
    if (shelf) {
      std::lock_guard<std::mutex> lock(shelf->mutex);
      if (!shelf->idle.empty()) {
        cl::Kernel kernel = std::move(shelf->idle.back());
        shelf->idle.pop_back();
        return KernelLease(std::move(kernel), shelf);
      }
    }
    const cl::Program built = program(context, device, text);
    cl_int status = CL_SUCCESS;
    cl::Kernel kernel(built, text.kernel_name, &status);
    detail::check(status, "clCreateKernel");
    if (!shelf) {
      shelf = std::make_shared<KernelLease::Shelf>();
      detail::check(kernel.getWorkGroupInfo(device, CL_KERNEL_WORK_GROUP_SIZE, &shelf->work_group_size),
                    "clGetKernelWorkGroupInfo");
      shelf->store_after_run = detail::StoreAfterRun::needed(device);
      std::lock_guard<std::mutex> lock(mutex_);
      if (detail::KeptContexts::instance().keeps(context())) shelf = shelves_.emplace(key, shelf).first->second;
    }
    return KernelLease(std::move(kernel), shelf);
  }

  // Drops the programs and kernels of `context`; later requests build them again.
  void release(cl_context context) override {
    std::vector<Entry> dropped;  // freed after the lock is let go: no driver calls under it
    std::vector<std::shared_ptr<KernelLease::Shelf>> dropped_shelves;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto entry = entries_.begin(); entry != entries_.end();) {
      if (std::get<0>(entry->first) == context) {
        dropped.push_back(std::move(entry->second));
        entry = entries_.erase(entry);
      } else {
        ++entry;
      }
    }
    for (auto shelf = shelves_.begin(); shelf != shelves_.end();) {
      if (std::get<0>(shelf->first) == context) {
        dropped_shelves.push_back(std::move(shelf->second));
        shelf = shelves_.erase(shelf);
      } else {
        ++shelf;
      }
    }
  }

  // Drops every program and kernel.
  void release_all() override {
    std::map<Key, Entry> dropped;  // freed after the lock is let go
    std::map<ShelfKey, std::shared_ptr<KernelLease::Shelf>> dropped_shelves;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(entries_);
    dropped_shelves.swap(shelves_);
  }

  // How many programs are held now, and for how many contexts.
  std::size_t programs_held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  std::size_t contexts_held() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::set<cl_context> contexts;
    for (const auto& entry : entries_) contexts.insert(std::get<0>(entry.first));
    return contexts.size();
  }
  // Whether any program of `context` is held; meaningful while the caller holds `context` (a freed context's handle
  // may be reused by a new one).
  bool holds(cl_context context) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : entries_) {
      if (std::get<0>(entry.first) == context) return true;
    }
    return false;
  }

  // How many programs this process has compiled so far.
  std::size_t programs_built() const { return built_.load(); }

 private:
  using Key = std::tuple<cl_context, cl_device_id, std::uint64_t>;
  using ShelfKey = std::tuple<cl_context, cl_device_id, std::uint64_t, std::string>;
  struct Entry {
    cl::Context context;  // held, so that the key's handle cannot be reused by a new context while the entry exists
    std::shared_future<cl::Program> program;
  };

  // The program from the disk cache when it has it, else built (and handed to the disk cache to store). Its text goes
  // to TILEGEMM_SHOW_KERNELS's folder first when that is set, wherever the program comes from.
  cl::Program load_or_build(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    detail::show_kernel(text);
    if (std::optional<cl::Program> loaded = detail::DiskCache::instance().load(context, device, text)) return *loaded;
    cl::Program built = build(context, device, text);
    ++built_;
    detail::DiskCache::instance().compiled(built, context, device, text);
    return built;
  }

  // Programs are made and built through OpenCL's C API: CLHPP's Sources, Binaries and build(devices) (which asks for
  // every device's build log at each build) were code that every header-only file compiled again.
  static cl::Program build(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    std::array<const char*, detail::ProgramText::max_sources> strings{};
    std::array<std::size_t, detail::ProgramText::max_sources> lengths{};
    for (std::size_t i = 0; i < text.count; ++i) {
      strings[i] = text.sources[i].data();
      lengths[i] = text.sources[i].size();
    }
    cl_int status = CL_SUCCESS;
    const cl::Program program(clCreateProgramWithSource(context(), static_cast<cl_uint>(text.count), strings.data(),
                                                        lengths.data(), &status));
    detail::check(status, "clCreateProgramWithSource");
    const cl_device_id id = device();
    status = clBuildProgram(program(), 1, &id, detail::build_options, nullptr, nullptr);
    if (status != CL_SUCCESS) throw build_failure(program, device, text, status, "");
    return text.needs_sm90a ? built_for_sm90a(context, device, program, text) : program;
  }

  // The binary of a program made for one device; nullopt for a program of several devices.
  static std::optional<std::string> only_binary(const cl::Program& program) {
    cl_uint count = 0;
    detail::check(clGetProgramInfo(program(), CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr),
                  "clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)");
    if (count != 1) return std::nullopt;
    std::size_t size = 0;
    detail::check(clGetProgramInfo(program(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
                  "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    std::string binary(size, '\0');
    unsigned char* into = reinterpret_cast<unsigned char*>(binary.data());
    detail::check(clGetProgramInfo(program(), CL_PROGRAM_BINARIES, sizeof into, &into, nullptr),
                  "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    return binary;
  }

  // The program again, from the PTX its build handed back, retargeted to sm_90a (runtime/sm90a_ptx.hpp).
  static cl::Program built_for_sm90a(const cl::Context& context, const cl::Device& device, const cl::Program& program,
                                     const detail::ProgramText& text) {
    const std::optional<std::string> binary = only_binary(program);
    const std::optional<std::string> ptx = binary ? detail::sm90a_ptx(*binary) : std::nullopt;
    if (!ptx) {
      throw Error(CL_INVALID_BINARY, std::string("tilegemm: kernel ") + text.kernel_name +
                                         " needs wgmma (sm_90a), which tilegemm reaches by retargeting the PTX that "
                                         "NVIDIA's OpenCL compiler emits for sm_90; this device's compiler handed "
                                         "back no such PTX. Use a configuration of another family, or AutoConfig.");
    }
    cl_int status = CL_SUCCESS;
    const cl_device_id id = device();
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(ptx->data());
    const std::size_t size = ptx->size();
    const cl::Program retargeted(clCreateProgramWithBinary(context(), 1, &id, &size, &bytes, nullptr, &status));
    detail::check(status, "clCreateProgramWithBinary");
    status = clBuildProgram(retargeted(), 1, &id, detail::build_options, nullptr, nullptr);
    if (status != CL_SUCCESS) throw build_failure(retargeted, device, text, status, " (from its PTX for sm_90a)");
    return retargeted;
  }

  static Error build_failure(const cl::Program& program, const cl::Device& device, const detail::ProgramText& text,
                             cl_int status, const char* how) {
    std::string log;  // up to its NUL; empty where the driver gives none
    std::size_t size = 0;
    if (clGetProgramBuildInfo(program(), device(), CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS && size > 0) {
      log.resize(size);
      if (clGetProgramBuildInfo(program(), device(), CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) {
        log.clear();
      }
      log.resize(std::min(log.size(), log.find('\0')));
    }
    std::string name;
    device.getInfo(CL_DEVICE_NAME, &name);
    return Error(status, std::string("tilegemm: building the OpenCL program for kernel ") + text.kernel_name + how +
                             " on " + name.c_str() + " failed with " + detail::error_name(status) + ". " +
                             detail::text_of_failed_build(text) + " Build log:\n" + log + "\nPreamble:\n" +
                             preamble_of(text));
  }

  // The pieces a program starts with that start with #define lines, for build failure messages.
  static std::string preamble_of(const detail::ProgramText& text) {
    std::string preamble;
    for (std::size_t i = 0; i < text.count; ++i) {
      if (text.starts_piece[i] && text.sources[i].rfind("#define", 0) != 0) break;
      preamble += text.sources[i];
    }
    return preamble;
  }

  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::map<ShelfKey, std::shared_ptr<KernelLease::Shelf>> shelves_;  // idle kernels; a shelf's context is an entry's
  std::atomic<std::size_t> built_{0};
};

// How many OpenCL programs tilegemm has compiled in this process (each is compiled once per device).
TILEGEMM_ENTRY std::size_t programs_built();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::size_t programs_built() { return ProgramCache::instance().programs_built(); }
#endif

}  // namespace tilegemm
