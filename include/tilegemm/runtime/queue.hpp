// queue: the one context and in-order command queue tilegemm keeps per device, and the default one.
#pragma once

#include <map>
#include <mutex>

#include "device.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm {

// tilegemm's queue for `device`, created with its own context on first use and shared by all threads after.
// Profiling is enabled on it, so that events returned by gemm() can be timed.
inline cl::CommandQueue queue_for(const cl::Device& device) {
  // Leaked on purpose: releasing OpenCL objects from static destructors can run after the driver has unloaded.
  static auto* queues = new std::map<cl_device_id, cl::CommandQueue>;
  static auto* mutex = new std::mutex;
  return detail::translate_cl_errors([&] {
    std::lock_guard<std::mutex> lock(*mutex);
    auto found = queues->find(device());
    if (found != queues->end()) return found->second;
    cl_int status = CL_SUCCESS;
    cl::Context context(device, nullptr, nullptr, nullptr, &status);
    detail::check(status, "clCreateContext");
    cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
    detail::check(status, "clCreateCommandQueue");
    return queues->emplace(device(), queue).first->second;
  });
}

// The queue of the device TILEGEMM_DEVICE chooses (read once per process, on first use).
inline cl::CommandQueue default_queue() {
  static const cl::Device device = default_device().device;
  return queue_for(device);
}

}  // namespace tilegemm
