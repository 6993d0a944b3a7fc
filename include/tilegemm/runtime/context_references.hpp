// context_references: how many references to its context an OpenCL object holds, per platform, measured once, so
// that tilegemm can tell when only its own objects hold a context.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "opencl.hpp"

namespace tilegemm::detail {

// The references to their context that a command queue, a buffer and a program hold on a platform, as its
// CL_CONTEXT_REFERENCE_COUNT shows them (0 or 1 each: OpenCL leaves it to the platform; PoCL counts all three).
// Kernels and events are taken to hold none: where they do hold one, tilegemm sees more references than its own and
// keeps the context, which is the safe side. queue_through_buffer: whether a buffer that a queue has used keeps that
// queue (and its reference) after the queue's user has released it (PoCL does, through the buffer's last event).
struct ImplicitReferences {
  cl_uint queue = 0;
  cl_uint buffer = 0;
  cl_uint program = 0;
  cl_uint queue_through_buffer = 0;
};

// CL_CONTEXT_REFERENCE_COUNT of `context`; nullopt when it cannot be read.
inline std::optional<cl_uint> reference_count(cl_context context) {
  cl_uint count = 0;
  if (clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, nullptr) != CL_SUCCESS) {
    return std::nullopt;
  }
  return count;
}
inline std::optional<cl_uint> reference_count(cl_command_queue queue) {
  cl_uint count = 0;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, nullptr) != CL_SUCCESS) {
    return std::nullopt;
  }
  return count;
}

class ContextReferences {
 public:
  // Leaked on purpose, like the queues (see queue.hpp).
  static ContextReferences& instance() {
    static auto* references = new ContextReferences;
    return *references;
  }

  // The implicit references on the platform of `context`, measured on first request by creating a queue, a buffer
  // and a program (not built) in `context` and reading its count after each, and after the queue, having written to
  // the buffer, is released. Where a step moves the count by anything but 0 or 1, or the count moves meanwhile
  // (another thread creating or releasing objects of `context`), the measurement is not used: nullopt, and a later
  // request measures again (at most max_attempts times per platform).
  std::optional<ImplicitReferences> of(const cl::Context& context) {
    std::vector<cl::Device> devices;
    cl_platform_id platform = nullptr;
    if (context.getInfo(CL_CONTEXT_DEVICES, &devices) != CL_SUCCESS || devices.empty() ||
        devices.front().getInfo(CL_DEVICE_PLATFORM, &platform) != CL_SUCCESS) {
      return std::nullopt;
    }
    std::lock_guard<std::mutex> lock(mutex_);  // one measurement at a time; it makes no call into tilegemm
    Known& known = known_[platform];
    if (!known.references && known.attempts < max_attempts) {
      ++known.attempts;
      known.references = measure(context, devices.front());
    }
    return known.references;
  }

  static constexpr int max_attempts = 8;

 private:
  struct Known {
    std::optional<ImplicitReferences> references;
    int attempts = 0;
  };

  static std::optional<ImplicitReferences> measure(const cl::Context& context, const cl::Device& device) {
    const std::optional<cl_uint> before = reference_count(context());
    if (!before) return std::nullopt;
    cl_int status = CL_SUCCESS;
    std::optional<cl_uint> with_queue, with_buffer, with_program, with_used_buffer;
    {
      cl::CommandQueue queue(context, device, 0, &status);
      if (status != CL_SUCCESS) return std::nullopt;
      with_queue = reference_count(context());
      const cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64, nullptr, &status);
      if (status != CL_SUCCESS) return std::nullopt;
      with_buffer = reference_count(context());
      const char bytes[64] = {};
      if (queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, sizeof bytes, bytes) != CL_SUCCESS) return std::nullopt;
      queue = cl::CommandQueue();
      with_used_buffer = reference_count(context());
      // A driver may let go of the write's event, which holds the queue, on a thread of its own a moment after the
      // write (PoCL does): the count is read again for up to 20 ms, until it is no more than the buffer's and the
      // queue's that the buffer may keep.
      const auto buffer_alone = [&] { return *with_buffer - (*with_queue - *before); };
      for (int wait = 0; wait < 20 && with_queue && with_buffer && with_used_buffer && *with_queue >= *before &&
                         *with_buffer >= *with_queue - *before && *with_used_buffer > buffer_alone() + 1;
           ++wait) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        with_used_buffer = reference_count(context());
      }
    }
    {
      const cl::Program program(context, "kernel void tilegemm_reference_probe(void) {}", false, &status);
      if (status != CL_SUCCESS) return std::nullopt;
      with_program = reference_count(context());
    }
    const std::optional<cl_uint> after = reference_count(context());
    if (!with_queue || !with_buffer || !with_program || !with_used_buffer || after != before) return std::nullopt;
    // Each step adds 0 or 1 to the count before it: the queue's, the buffer's, the program's, and, once the queue is
    // released, what the used buffer keeps of it (the queue's own reference).
    const auto step = [](cl_uint from, cl_uint to) -> std::optional<cl_uint> {
      if (to < from || to > from + 1) return std::nullopt;
      return to - from;
    };
    const std::optional<cl_uint> queue = step(*before, *with_queue), buffer = step(*with_queue, *with_buffer),
                                 program = step(*before, *with_program);
    if (!queue || !buffer || !program) return std::nullopt;
    const std::optional<cl_uint> kept = step(*with_buffer - *queue, *with_used_buffer);
    if (!kept) return std::nullopt;
    ImplicitReferences references;
    references.queue = *queue;
    references.buffer = *buffer;
    references.program = *program;
    references.queue_through_buffer = *kept;
    return references;
  }

  std::mutex mutex_;
  std::map<cl_platform_id, Known> known_;
};

}  // namespace tilegemm::detail
