// scratch_pool: device buffers reused across calls (packed operands, split-K workspaces, gpu_gemm's copies),
// since allocating and freeing device memory on every call costs more than a small product.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

#include "call_context.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

class ScratchPool {
 public:
  static ScratchPool& instance() {
    static auto* pool = new ScratchPool;  // leaked on purpose, like the queues (see queue.hpp)
    return *pool;
  }

  // A buffer of the queue's context with at least `bytes` that the commands `queue` runs next may use: one
  // that no earlier command uses any more, or one whose last use was enqueued on this same in-order queue
  // (which runs commands one after the other). Hand it back with give_back() once its commands are enqueued.
  cl::Buffer take(const CallContext& call, std::size_t bytes) {
    const cl::Context& context = call.context;
    const cl::CommandQueue& queue = call.queue;
    const bool in_order = call.in_order;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Slot* best = nullptr;
      for (Slot& slot : slots_) {
        if (slot.taken || slot.context() != context() || slot.bytes < bytes || slot.bytes > 4 * bytes + (1 << 20) ||
            (best && best->bytes <= slot.bytes)) {
          continue;
        }
        // Asked last: the event's status is a call into the driver.
        if ((in_order && slot.last_queue() == queue()) || finished(slot.last_use)) best = &slot;
      }
      if (best) {
        best->taken = true;
        return best->buffer;
      }
    }
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check(status, "clCreateBuffer");
    std::lock_guard<std::mutex> lock(mutex_);
    if (slots_.size() >= max_slots) {  // forget the oldest idle buffer; OpenCL frees it once it is unused
      auto idle = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.taken; });
      if (idle != slots_.end()) slots_.erase(idle);
    }
    slots_.push_back({context, buffer, bytes, true, cl::Event(), cl::CommandQueue()});
    return buffer;
  }

  // Makes `buffer` available again: to other queues once `last_use` (enqueued on `queue`) has completed, at once
  // for a null event, and to later commands of `queue` itself right away if it is in order. After a failure, give
  // back nothing: a buffer that is never given back is dropped from the pool, never reused.
  void give_back(const cl::Buffer& buffer, const cl::CommandQueue& queue, const cl::Event& last_use) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Slot& slot : slots_) {
      if (slot.buffer() == buffer()) {
        slot.taken = false;
        slot.last_use = last_use;
        slot.last_queue = queue;
      }
    }
  }

  // Drops a taken buffer from the pool without reusing it (after an exception, when commands may still use it).
  void forget(const cl::Buffer& buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.erase(std::remove_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.buffer() == buffer(); }),
                 slots_.end());
  }

 private:
  static constexpr std::size_t max_slots = 12;
  struct Slot {
    cl::Context context;
    cl::Buffer buffer;
    std::size_t bytes;
    bool taken;
    cl::Event last_use;
    cl::CommandQueue last_queue;  // held, so that its handle cannot be reused by a new queue while it is here
  };

  static bool finished(const cl::Event& event) {
    if (event() == nullptr) return true;
    cl_int state = CL_COMPLETE;
    return event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &state) == CL_SUCCESS && state <= CL_COMPLETE;
  }

  std::mutex mutex_;
  std::vector<Slot> slots_;
};

// A buffer taken from the pool for one call on `queue`: give it back with the event of the last command that uses
// it; if the call fails before that, the destructor drops it from the pool instead.
class ScratchBuffer {
 public:
  ScratchBuffer(const CallContext& call, std::size_t bytes)
      : queue_(call.queue), buffer_(ScratchPool::instance().take(call, bytes)) {}
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer() {
    if (!given_back_) ScratchPool::instance().forget(buffer_);
  }
  const cl::Buffer& buffer() const { return buffer_; }
  void give_back_after(const cl::Event& last_use) {
    ScratchPool::instance().give_back(buffer_, queue_, last_use);
    given_back_ = true;
  }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  bool given_back_ = false;
};

}  // namespace tilegemm::detail
