// runtime/side_queues: a second in-order queue beside a caller's queue, for the part of a call that may run at the same
// time as its main kernel (the strips past a tiled corner), kept while the queue's context is.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

#include "call_context.hpp"
#include "error.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// Side queues kept per context: one for each of the most recently used queues of a context (more threads with queues
// of their own make new ones, and the least recently used is let go of).
inline constexpr std::size_t side_queues_per_context = 16;

// A queue's side queue is its own, not shared with other queues, so that a command a caller makes one of its queues
// wait for never waits behind another queue's work.
class SideQueues final : public ContextResources {
 public:
  static SideQueues& instance() { return process_holder<SideQueues>(); }

  // The side queue of call.queue: on its context and device, in order; made on first use, kept while the context is.
  cl::CommandQueue of(const CallContext& call) {
    KeptContexts::instance().use(call.context);
    const Key key{call.queue(), call.context(), call.device()};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (const cl::CommandQueue* kept = find(key)) return *kept;
    }
    cl_int status = CL_SUCCESS;
    cl::CommandQueue side(call.context, call.device, 0, &status);
    check(status, "clCreateCommandQueue (a side queue)");
    Entry dropped;  // released after the lock is let go, as is `side` where another thread made one meanwhile
    std::lock_guard<std::mutex> lock(mutex_);
    if (const cl::CommandQueue* kept = find(key)) return *kept;
    if (!KeptContexts::instance().keeps(call.context())) return side;
    kept_.insert(kept_.begin(), Entry{key, side});
    const auto same_context = [&](const Entry& e) { return e.key.context == key.context; };
    if (static_cast<std::size_t>(std::count_if(kept_.begin(), kept_.end(), same_context)) > side_queues_per_context) {
      const auto last = std::find_if(kept_.rbegin(), kept_.rend(), same_context);
      dropped = std::move(*last);
      kept_.erase(std::next(last).base());
    }
    return side;
  }

  // How many side queues are kept, for every context or for `context` (for tests and diagnostics).
  std::size_t count(cl_context context = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<std::size_t>(std::count_if(
        kept_.begin(), kept_.end(), [&](const Entry& e) { return context == nullptr || e.key.context == context; }));
  }

  void release(cl_context context) override {
    std::vector<Entry> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto split =
        std::stable_partition(kept_.begin(), kept_.end(), [&](const Entry& e) { return e.key.context != context; });
    dropped.assign(std::make_move_iterator(split), std::make_move_iterator(kept_.end()));
    kept_.erase(split, kept_.end());
  }
  void release_all() override {
    std::vector<Entry> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(kept_);
  }

 private:
  // A caller's queue by its handle, context and device: a handle the driver reuses for a queue of the same context and
  // device gets the side queue of the one that had it, which is as good as a new one.
  struct Key {
    cl_command_queue queue;
    cl_context context;
    cl_device_id device;
    bool operator==(const Key& other) const {
      return queue == other.queue && context == other.context && device == other.device;
    }
  };
  struct Entry {
    Key key{};
    cl::CommandQueue side;
  };

  // The kept side queue of `key`, made the most recently used (under the lock); null where there is none.
  const cl::CommandQueue* find(const Key& key) {
    const auto found = std::find_if(kept_.begin(), kept_.end(), [&](const Entry& e) { return e.key == key; });
    if (found == kept_.end()) return nullptr;
    std::rotate(kept_.begin(), found, found + 1);
    return &kept_.front().side;
  }

  std::mutex mutex_;
  std::vector<Entry> kept_;  // most recently used first
};

}  // namespace tilegemm::detail
