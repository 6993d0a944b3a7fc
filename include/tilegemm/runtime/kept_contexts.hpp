// kept_contexts: which OpenCL contexts tilegemm keeps programs and pooled buffers for, and letting go of the others.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

#include "opencl.hpp"
#include "queue.hpp"

namespace tilegemm::detail {

// How many user contexts (contexts of queues the caller passes in, not tilegemm's own) keep their programs and
// pooled buffers between calls: the most recently used ones. A call on another user context lets go of the least
// recently used one's. This bounds what dropped contexts cost (on NVIDIA's driver a live context holds about 85 MB of
// host memory): tilegemm cannot see a user drop a context, so it is freed once this many others have been used since,
// or at once with tilegemm::release_resources(context), which users call before they drop a context.
inline constexpr std::size_t kept_user_contexts = 2;

// Something that holds OpenCL objects per context (the program cache, the scratch pool): KeptContexts tells it when to
// let go of them. Objects a call in progress uses stay alive through that call's own references.
class ContextResources {
 public:
  virtual void release(cl_context context) = 0;  // everything held for `context`
  virtual void release_all() = 0;                // everything held for any context

 protected:
  ~ContextResources() = default;
};

// The contexts whose resources tilegemm keeps: its own (OwnQueues) until release_all(), and the kept_user_contexts
// most recently used user contexts. Holders call use() before they look a context's objects up, and add an object only
// while keeps() says so under their own lock; since KeptContexts tells them to let go only after it has stopped
// keeping a context, a holder never keeps an object of a context that is not kept.
class KeptContexts {
 public:
  // Leaked on purpose, like the queues (see queue.hpp).
  static KeptContexts& instance() {
    static auto* kept = new KeptContexts;
    return *kept;
  }

  // `holder` is told about every context let go of from now on; it must live for the rest of the process.
  void add_holder(ContextResources& holder) {
    std::lock_guard<std::mutex> lock(mutex_);
    holders_.push_back(&holder);
  }

  // Notes a call on `context`: a user context becomes the most recently used one, and the least recently used one
  // beyond kept_user_contexts is let go of. Call it without holding a holder's lock (the holders are told here).
  void use(const cl::Context& context) {
    if (OwnQueues::instance().owns(context())) return;
    cl::Context dropped;  // held until the holders have let go, so that its handle cannot be reused meanwhile
    std::vector<ContextResources*> holders;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = find(context());
      if (found != recent_.end()) {
        std::rotate(recent_.begin(), found, found + 1);
      } else {
        recent_.insert(recent_.begin(), context);
      }
      if (recent_.size() <= kept_user_contexts) return;
      dropped = std::move(recent_.back());
      recent_.pop_back();
      holders = holders_;
    }
    for (ContextResources* holder : holders) holder->release(dropped());
  }

  // Whether objects of `context` may be kept now (holders ask under their own lock, before they add one).
  bool keeps(cl_context context) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (find(context) != recent_.end()) return true;
    }
    return OwnQueues::instance().owns(context);
  }

  // Lets go of everything held for `context` (tilegemm's own queue, if it is its context, stays).
  void release(const cl::Context& context) {
    std::vector<ContextResources*> holders;
    cl::Context dropped;  // released after the lock is let go
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = find(context());
      if (found != recent_.end()) {
        dropped = std::move(*found);
        recent_.erase(found);
      }
      holders = holders_;
    }
    for (ContextResources* holder : holders) holder->release(context());
  }

  // Lets go of everything: tilegemm's own queues and contexts, and every held object of every context.
  void release_all() {
    OwnQueues::instance().release_all();
    std::vector<cl::Context> dropped;  // freed after the lock is let go
    std::vector<ContextResources*> holders;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dropped.swap(recent_);
      holders = holders_;
    }
    for (ContextResources* holder : holders) holder->release_all();
  }

  // How many user contexts are kept now (at most kept_user_contexts).
  std::size_t user_contexts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return recent_.size();
  }

 private:
  std::vector<cl::Context>::iterator find(cl_context context) {
    return std::find_if(recent_.begin(), recent_.end(), [&](const cl::Context& kept) { return kept() == context; });
  }

  std::mutex mutex_;
  std::vector<ContextResources*> holders_;
  std::vector<cl::Context> recent_;  // the kept user contexts, most recently used first
};

// The process's one `Holder` (a ContextResources), told by KeptContexts which contexts to let go of from its first use
// on. Leaked on purpose, like the queues (see queue.hpp): no OpenCL calls from static destructors.
template <class Holder>
Holder& process_holder() {
  static Holder* const holder = [] {
    auto* created = new Holder;
    KeptContexts::instance().add_holder(*created);
    return created;
  }();
  return *holder;
}

}  // namespace tilegemm::detail
