// queue: the one context and in-order command queue tilegemm keeps per device, and the default one.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "../config/linkage.hpp"
#include "device.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm {
namespace detail {

// tilegemm's own queues, one per device, each with a context of its own. They live until release_all()
// (tilegemm::release_resources()); a later queue_for() creates them again.
class OwnQueues {
 public:
  // Leaked on purpose: releasing OpenCL objects from static destructors can run after the driver has unloaded.
  static OwnQueues& instance() {
    static auto* queues = new OwnQueues;
    return *queues;
  }

  cl::CommandQueue queue_for(const cl::Device& device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = queues_.find(device());
    if (found != queues_.end()) return found->second.queue;
    cl_int status = CL_SUCCESS;
    cl::Context context(device, nullptr, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    cl::CommandQueue queue(context, device, 0, &status);  // in order, without profiling (see queue_for)
    check(status, "clCreateCommandQueue");
    return queues_.emplace(device(), Own{context, queue}).first->second.queue;
  }

  // Whether `context` is the context of one of the queues held now.
  bool owns(cl_context context) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : queues_) {
      if (entry.second.context() == context) return true;
    }
    return false;
  }

  // Drops every queue and its context; they are freed once no caller holds a copy of them either.
  void release_all() {
    std::map<cl_device_id, Own> dropped;  // destroyed after the lock is let go: no driver calls under it
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(queues_);
  }

  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return queues_.size();
  }

 private:
  struct Own {
    cl::Context context;
    cl::CommandQueue queue;
  };
  std::mutex mutex_;
  std::map<cl_device_id, Own> queues_;
};

}  // namespace detail

// tilegemm's queue for `device`, created with its own context on first use and shared by all threads after. It is in
// order and without profiling: on NVIDIA's driver (H200, 2026-11-23) a kernel's event on a profiling queue made a
// 256-cubed gemm() call, enqueue to finish, 8 us slower (28.0 us against 21.7). To time calls with events, make a
// queue with CL_QUEUE_PROFILING_ENABLE on this queue's context and device and pass it to the calls.
TILEGEMM_ENTRY cl::CommandQueue queue_for(const cl::Device& device);
// The queue of the device TILEGEMM_DEVICE chooses (read once per process, on first use).
TILEGEMM_ENTRY cl::CommandQueue default_queue();

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY cl::CommandQueue queue_for(const cl::Device& device) {
  return detail::translate_cl_errors([&] { return detail::OwnQueues::instance().queue_for(device); });
}

TILEGEMM_ENTRY cl::CommandQueue default_queue() {
  static const cl::Device device = default_device().device;
  return queue_for(device);
}
#endif

}  // namespace tilegemm
