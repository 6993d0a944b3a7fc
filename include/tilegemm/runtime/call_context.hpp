// runtime/call_context: what one call needs to know about its queue, looked up once: context, device and limits.
#pragma once

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

  static CallContext of(const cl::CommandQueue& queue) {
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
    call.limits = device_limits(call.device);
    return call;
  }
};

}  // namespace tilegemm::detail
