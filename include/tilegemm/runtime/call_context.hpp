// runtime/call_context: what one call needs to know about its queue, looked up once: context, device and limits.
#pragma once

#include "../config/linkage.hpp"
#include "device_limits.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// Calls made on this thread while one lives plan for `device` instead of their queue's device description: so
// that tests can run the plan made for a GPU (tiled corners, strips, split-K) on the CPU device CI has. Nested
// ones stack.
class ScopedDeviceDescription {
 public:
  explicit ScopedDeviceDescription(const DeviceLimits& device) : device_(device), outer_(current()) {
    current() = &device_;
  }
  ~ScopedDeviceDescription() { current() = outer_; }
  ScopedDeviceDescription(const ScopedDeviceDescription&) = delete;
  ScopedDeviceDescription& operator=(const ScopedDeviceDescription&) = delete;

  static const DeviceLimits*& current() {
    thread_local const DeviceLimits* device = nullptr;
    return device;
  }

 private:
  DeviceLimits device_;
  const DeviceLimits* outer_;
};

struct CallContext {
  cl::CommandQueue queue;
  cl::Context context;
  cl::Device device;
  DeviceLimits limits;
  bool in_order = true;  // the queue runs its commands one after the other

  // The call context of `queue` (its context, device and limits, or the ScopedDeviceDescription in force).
  static CallContext of(const cl::CommandQueue& queue);
};

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY CallContext CallContext::of(const cl::CommandQueue& queue) {
  if (queue() == nullptr) {
    throw Error(CL_INVALID_COMMAND_QUEUE,
                "tilegemm: the cl::CommandQueue is null; pass a queue created for a "
                "device, or call without one to use tilegemm::default_queue().");
  }
  CallContext call;
  call.queue = queue;
  check(queue.getInfo(CL_QUEUE_CONTEXT, &call.context), "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
  check(queue.getInfo(CL_QUEUE_DEVICE, &call.device), "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  cl_command_queue_properties properties = 0;
  check(queue.getInfo(CL_QUEUE_PROPERTIES, &properties), "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
  call.in_order = (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  const DeviceLimits* described = ScopedDeviceDescription::current();
  call.limits = described ? *described : device_limits(call.device);
  return call;
}
#endif

}  // namespace tilegemm::detail
