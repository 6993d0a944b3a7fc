// runtime/call_context: what one call needs to know about its queue, looked up once (context, device and limits),
// and the options it was given.
#pragma once

#include "../config/linkage.hpp"
#include "call_options.hpp"
#include "device_limits.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

struct CallContext {
  cl::CommandQueue queue;
  cl::Context context;
  cl::Device device;
  DeviceLimits limits;
  bool in_order = true;  // the queue runs its commands one after the other
  CallOptions options;   // what the call was told: read by the callees, never from thread-locals

  // The call context of `queue` (its context, device and limits, or options.device's description in their place)
  // with `options`, by default the front end's (CallOptions::defaults()).
  static CallContext of(const cl::CommandQueue& queue) { return of(queue, CallOptions::defaults()); }
  static CallContext of(const cl::CommandQueue& queue, const CallOptions& options);
};

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY CallContext CallContext::of(const cl::CommandQueue& queue, const CallOptions& options) {
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
  call.options = options;
  call.limits = options.device ? *options.device : device_limits(call.device);
  return call;
}
#endif

}  // namespace tilegemm::detail
