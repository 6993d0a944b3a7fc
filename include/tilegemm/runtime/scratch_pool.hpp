// scratch_pool: device buffers reused across calls (packed operands, split-K workspaces, gpu_gemm's copies),
// since allocating and freeing device memory on every call costs more than a small product.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "call_context.hpp"
#include "device_limits.hpp"
#include "error.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// The pool's bounds. The idle buffers of one context (given back, not taken by a call now) hold at most
// idle_bytes_bound() bytes, min(max_idle_bytes, a quarter of the device's global memory); past that, the least
// recently taken ones are released. An idle buffer that none of the pool's last idle_takes_limit takes (of any
// context) has taken is released too, so that after a large product a few smaller ones give its buffers back.
// Buffers taken by calls in progress are not counted (a call needs them), and only contexts KeptContexts keeps have
// buffers here (kept_contexts.hpp). Idle buffers stay while no call takes any: release_resources() frees them.
// 1 GiB: enough to keep the device copies of an 8192-squared float host product's A, B and C (256 MiB each) for the
// next call; made anew at every call they cost 1 ms of its 31 on an H200.
inline constexpr std::size_t max_idle_bytes = std::size_t{1} << 30;
inline constexpr std::uint64_t idle_takes_limit = 32;
inline constexpr std::size_t max_slots = 12;  // buffers in all (more only while all are taken): short searches

// The bound on the idle buffers of a context on `device`.
inline std::size_t idle_bytes_bound(const DeviceLimits& device) {
  if (device.global_memory_bytes == 0) return max_idle_bytes;  // a hand-written description
  return static_cast<std::size_t>(std::min<cl_ulong>(max_idle_bytes, device.global_memory_bytes / 4));
}

class ScratchPool final : public ContextResources {
 public:
  static ScratchPool& instance() { return process_holder<ScratchPool>(); }

  // A buffer of the queue's context with at least `bytes` that the commands `queue` runs next may use: one
  // that no earlier command uses any more, or one whose last use was enqueued on this same in-order queue
  // (which runs commands one after the other). Hand it back with give_back() once its commands are enqueued.
  cl::Buffer take(const CallContext& call, std::size_t bytes) {
    const cl::Context& context = call.context;
    const cl::CommandQueue& queue = call.queue;
    const bool in_order = call.in_order;
    KeptContexts::instance().use(context);
    std::vector<Slot> dropped;  // declared before the lock: buffers are freed after it is let go
    std::uint64_t take_number = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      take_number = ++takes_;
      drop_unused(dropped);
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
        best->last_take = take_number;
        return best->buffer;
      }
    }
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check(status, "clCreateBuffer");
    std::lock_guard<std::mutex> lock(mutex_);
    // A context let go of since use() above is not pooled again: the buffer is freed when this call drops it.
    if (!KeptContexts::instance().keeps(context())) return buffer;
    if (slots_.size() >= max_slots) drop_least_recent_idle(nullptr, dropped);
    slots_.push_back(
        {context, buffer, bytes, idle_bytes_bound(call.limits), true, take_number, cl::Event(), cl::CommandQueue()});
    return buffer;
  }

  // Makes `buffer` available again: to other queues once `last_use` (enqueued on `queue`) has completed, at once
  // for a null event, and to later commands of `queue` itself right away if it is in order. After a failure, give
  // back nothing: a buffer that is never given back is dropped from the pool, never reused. A buffer the pool has
  // let go of meanwhile (release_resources) is not taken back.
  void give_back(const cl::Buffer& buffer, cl_command_queue queue, const cl::Event& last_use) {
    std::vector<Slot> dropped;  // freed after the lock is let go
    std::lock_guard<std::mutex> lock(mutex_);
    for (Slot& slot : slots_) {
      if (slot.buffer() != buffer()) continue;
      slot.taken = false;
      slot.last_use = last_use;
      // Only a command that may still run needs its queue: a user's queue is not kept for nothing. It is retained
      // only when it changes: every clReleaseCommandQueue flushes its queue (1.4 us of host time on NVIDIA's driver,
      // H200), and the same queue comes back call after call.
      if (last_use() == nullptr) {
        slot.last_queue = cl::CommandQueue();
      } else if (slot.last_queue() != queue) {
        slot.last_queue = cl::CommandQueue(queue, true);
      }
      const cl_context context = slot.context();  // the slot may be dropped below
      const std::size_t bound = slot.idle_bound;
      while (idle_bytes_of(context) > bound) drop_least_recent_idle(context, dropped);
      return;
    }
  }

  // Drops a taken buffer from the pool without reusing it (after an exception, when commands may still use it).
  void forget(const cl::Buffer& buffer) {
    std::vector<Slot> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    move_out(dropped, [&](const Slot& s) { return s.buffer() == buffer(); });
  }

  // Drops every buffer of `context`. One a call still uses lives on until that call lets go of it, and OpenCL frees
  // a buffer only after the commands that use it have finished.
  void release(cl_context context) override {
    std::vector<Slot> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    move_out(dropped, [&](const Slot& s) { return s.context() == context; });
  }

  void release_all() override {
    std::vector<Slot> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(slots_);
  }

  // What the pool holds now: buffers, their bytes, and the bytes of the idle ones (all of them, or of one context).
  struct Usage {
    std::size_t buffers = 0;
    std::size_t bytes = 0;
    std::size_t idle_bytes = 0;
  };
  Usage usage(cl_context context = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    Usage usage;
    for (const Slot& slot : slots_) {
      if (context != nullptr && slot.context() != context) continue;
      ++usage.buffers;
      usage.bytes += slot.bytes;
      if (!slot.taken) usage.idle_bytes += slot.bytes;
    }
    return usage;
  }

 private:
  struct Slot {
    cl::Context context;
    cl::Buffer buffer;
    std::size_t bytes;
    std::size_t idle_bound;  // idle_bytes_bound() of the context's device
    bool taken;
    std::uint64_t last_take;  // the pool's take count when it was last taken
    cl::Event last_use;
    cl::CommandQueue last_queue;  // held, so that its handle cannot be reused by a new queue while it is here
  };

  static bool finished(const cl::Event& event) {
    if (event() == nullptr) return true;
    cl_int state = CL_COMPLETE;
    return event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &state) == CL_SUCCESS && state <= CL_COMPLETE;
  }

  // Moves the slots `which` selects into `dropped` (the caller frees them once it has let go of the lock).
  // A loop rather than std::stable_partition, whose adaptive code every header-only file would compile again.
  template <class Which>
  void move_out(std::vector<Slot>& dropped, Which&& which) {
    std::vector<Slot> kept;
    kept.reserve(slots_.size());
    dropped.reserve(dropped.size() + slots_.size());  // no reallocation below: the moves cannot throw
    for (Slot& slot : slots_) (which(slot) ? dropped : kept).push_back(std::move(slot));
    slots_.swap(kept);
  }

  // Idle buffers not taken in the last idle_takes_limit takes.
  void drop_unused(std::vector<Slot>& dropped) {
    move_out(dropped, [&](const Slot& s) { return !s.taken && takes_ - s.last_take > idle_takes_limit; });
  }

  // The idle buffer (of `context`, or of any context for null) taken least recently; nothing when none is idle.
  void drop_least_recent_idle(cl_context context, std::vector<Slot>& dropped) {
    auto oldest = slots_.end();
    for (auto slot = slots_.begin(); slot != slots_.end(); ++slot) {
      if (slot->taken || (context != nullptr && slot->context() != context)) continue;
      if (oldest == slots_.end() || slot->last_take < oldest->last_take) oldest = slot;
    }
    if (oldest == slots_.end()) return;
    dropped.push_back(std::move(*oldest));
    slots_.erase(oldest);
  }

  std::size_t idle_bytes_of(cl_context context) const {
    std::size_t bytes = 0;
    for (const Slot& slot : slots_) {
      if (!slot.taken && slot.context() == context) bytes += slot.bytes;
    }
    return bytes;
  }

  std::mutex mutex_;
  std::vector<Slot> slots_;
  std::uint64_t takes_ = 0;  // how many takes there have been
};

// A buffer taken from the pool for one call on `queue`: give it back with the event of the last command that uses
// it; if the call fails before that, the destructor drops it from the pool instead.
class ScratchBuffer {
 public:
  ScratchBuffer(const CallContext& call, std::size_t bytes);
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer();
  const cl::Buffer& buffer() const { return buffer_; }
  void give_back_after(const cl::Event& last_use);

 private:
  // The call's queue, not retained (a release flushes the queue): give_back_after is called within the call, whose
  // context holds it.
  cl_command_queue queue_;
  cl::Buffer buffer_;
  bool given_back_ = false;
};

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY ScratchBuffer::ScratchBuffer(const CallContext& call, std::size_t bytes)
    : queue_(call.queue()), buffer_(ScratchPool::instance().take(call, bytes)) {}

TILEGEMM_ENTRY ScratchBuffer::~ScratchBuffer() {
  if (!given_back_) ScratchPool::instance().forget(buffer_);
}

TILEGEMM_ENTRY void ScratchBuffer::give_back_after(const cl::Event& last_use) {
  ScratchPool::instance().give_back(buffer_, queue_, last_use);
  given_back_ = true;
}
#endif

}  // namespace tilegemm::detail
