// program_cache: compiled OpenCL programs, built once per (context, device, source) and shared by all threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "../kernels/program_text.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm {

class ProgramCache {
 public:
  // The process-wide cache (leaked on purpose, like the queues: no OpenCL calls from static destructors).
  static ProgramCache& instance() {
    static auto* cache = new ProgramCache;
    return *cache;
  }

  // The program for `text` on `device`, compiling it when this is the first request. Concurrent first requests
  // wait for one build. A failed build throws tilegemm::Error with the compiler's log, now and on every retry.
  cl::Program program(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    const Key key{context(), device(), text.key};
    std::promise<cl::Program> promise;
    std::shared_future<cl::Program> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = entries_.find(key);
      if (found != entries_.end()) return found->second.program.get();
      ready = promise.get_future().share();
      entries_.emplace(key, Entry{context, ready});  // the context is kept alive so that its handle stays unique
    }
    try {
      promise.set_value(build(context, device, text));
      ++built_;
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    return ready.get();
  }

  // How many programs this process has compiled so far.
  std::size_t programs_built() const { return built_.load(); }

 private:
  using Key = std::tuple<cl_context, cl_device_id, std::uint64_t>;
  struct Entry {
    cl::Context context;
    std::shared_future<cl::Program> program;
  };

  static cl::Program build(const cl::Context& context, const cl::Device& device, const detail::ProgramText& text) {
    cl_int status = CL_SUCCESS;
    cl::Program::Sources sources;
    for (std::size_t i = 0; i < text.count; ++i) sources.emplace_back(text.sources[i]);
    cl::Program program(context, sources, &status);
    detail::check(status, "clCreateProgramWithSource");
    status = detail::status_of([&] { return program.build(std::vector<cl::Device>{device}, detail::build_options); });
    if (status != CL_SUCCESS) {
      std::string log;
      program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
      std::string name;
      device.getInfo(CL_DEVICE_NAME, &name);
      throw Error(status, std::string("tilegemm: building the OpenCL program for kernel ") + text.kernel_name + " on " +
                              name.c_str() + " failed with " + detail::error_name(status) + ". Build log:\n" + log +
                              "\nPreamble:\n" + preamble_of(text));
    }
    return program;
  }

  // The #define lines a program starts with, for build failure messages.
  static std::string preamble_of(const detail::ProgramText& text) {
    std::string preamble;
    for (std::size_t i = 0; i < text.count && text.sources[i].rfind("#define", 0) == 0; ++i)
      preamble += text.sources[i];
    return preamble;
  }

  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::atomic<std::size_t> built_{0};
};

// How many OpenCL programs tilegemm has compiled in this process (each is compiled once per device).
inline std::size_t programs_built() { return ProgramCache::instance().programs_built(); }

}  // namespace tilegemm
