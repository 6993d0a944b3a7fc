// kept_contexts: which OpenCL contexts tilegemm keeps programs and pooled buffers for, and letting go of the others.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "context_references.hpp"
#include "opencl.hpp"
#include "queue.hpp"

namespace tilegemm::detail {

// How many user contexts (contexts of queues the caller passes in, not tilegemm's own) keep their programs and
// pooled buffers between calls: the most recently used ones. A call on another user context lets go of the least
// recently used one's. A program that cycles through more user contexts than this compiles its programs again on
// each one. A context the user has dropped is let go of sooner: at tilegemm's next call on another context (see
// KeptContexts::let_go_of_dropped), or at once with tilegemm::release_resources(context).
inline constexpr std::size_t kept_user_contexts = 2;

// How long after a change of context every call looks again for dropped user contexts, when the look at the change
// found one it could not let go of yet: a driver may hold a dropped context for a moment through commands it releases
// on threads of its own (PoCL does), so that only a later look finds it gone.
inline constexpr std::chrono::milliseconds dropped_context_recheck{2000};

// Something that holds OpenCL objects per context (the program cache, the scratch pool): KeptContexts tells it when to
// let go of them. Objects a call in progress uses stay alive through that call's own references.
class ContextResources {
 public:
  virtual void release(cl_context context) = 0;  // everything held for `context`
  virtual void release_all() = 0;                // everything held for any context
  // The references to `context` that the holder's objects hold now: its cl::Context copies, and its queues, buffers
  // and programs of `context` as `implicit` counts them; nullopt when it cannot tell (a command still runs).
  virtual std::optional<cl_uint> references_to(cl_context context, const ImplicitReferences& implicit) = 0;
  // Drops the holder's buffers of `context` that are cheap to make again and through which the driver may keep a
  // queue the user has released (ImplicitReferences::queue_through_buffer); returns whether there were any.
  virtual bool release_buffers(cl_context) { return false; }

 protected:
  ~ContextResources() = default;
};

// The contexts whose resources tilegemm keeps: its own (OwnQueues) until release_all(), and the kept_user_contexts
// most recently used user contexts, as long as their user holds them. Holders call use() before they look a
// context's objects up, and add an object only while keeps() says so under their own lock; since KeptContexts tells
// them to let go only after it has stopped keeping a context, a holder never keeps an object of a context that is
// not kept.
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

  // Notes a call on `context` through `queue` (null where the caller has none): a user context becomes the most
  // recently used one, and the least recently used one beyond kept_user_contexts is let go of. On a change of
  // context, the other user contexts that only tilegemm holds now are let go of too (let_go_of_dropped). Call it
  // without holding a holder's lock (the holders are told here).
  void use(const cl::Context& context, const cl::CommandQueue& queue = cl::CommandQueue()) {
    if (last_used_.exchange(context()) != context()) {
      if (let_go_of_dropped(context())) recheck_until_ = now() + dropped_context_recheck.count();
    } else if (now() < recheck_until_.load()) {
      let_go_of_dropped(context());  // does not extend the window: a context its user holds is not looked at forever
    }
    if (OwnQueues::instance().owns(context())) return;
    cl::Context dropped;  // held until the holders have let go, so that its handle cannot be reused meanwhile
    cl::CommandQueue replaced, dropped_queue;  // released after the lock is let go
    std::vector<ContextResources*> holders;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = find(context());
      if (found != recent_.end()) {
        std::rotate(recent_.begin(), found, found + 1);
      } else {
        recent_.insert(recent_.begin(), Kept{context, cl::CommandQueue(), 0, 0});
      }
      if (queue() != nullptr && recent_.front().queue() != queue()) {
        replaced = std::move(recent_.front().queue);
        recent_.front().queue = queue;
        recent_.front().context_count = 0;
      }
      if (recent_.size() <= kept_user_contexts) return;
      dropped = std::move(recent_.back().context);
      dropped_queue = std::move(recent_.back().queue);
      recent_.pop_back();
      holders = holders_;
    }
    for (ContextResources* holder : holders) holder->release(dropped());
  }

  // Lets go of the kept user contexts other than `current` that nothing but tilegemm holds any more: whose
  // reference count, read before and after counting, is what tilegemm's own objects account for
  // (ImplicitReferences), and, on platforms where queues do not count, whose last queue the user called tilegemm
  // through is held by tilegemm alone. Where the counts cannot tell (another object of the user's, or a kernel or
  // event that counts), the context stays, as the least recently used ones do: the safe side. A context the user
  // holds is never let go of here, unless only through objects that tilegemm never sees and that do not count. A
  // context found in use is counted again only once its count (or its queue's) has changed. Returns whether a context
  // whose counts had changed could not be let go of (yet).
  bool let_go_of_dropped(cl_context current) {
    std::vector<Kept> candidates;  // copies: one more reference to each context and queue, counted below
    std::vector<ContextResources*> holders;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const Kept& kept : recent_) {
        // Reading a count under the lock is safe: it does not wait for anything.
        if (kept.context() != current && !unchanged(kept)) candidates.push_back(kept);
      }
      holders = holders_;
    }
    bool kept_changed = false;
    for (Kept& candidate : candidates) {
      const std::optional<ImplicitReferences> implicit = ContextReferences::instance().of(candidate.context);
      if (!implicit) {
        kept_changed = true;  // measured again by a later look, unless measuring has failed too often
        continue;
      }  // no platform count to go by: a later look would not tell either
      // The holders drop the events and queues of commands that have finished, which hold the context and queue.
      for (ContextResources* holder : holders) holder->references_to(candidate.context(), *implicit);
      if (candidate.queue() != nullptr) {
        // Where queues hold their context, a queue the user still holds shows in the context's count: tilegemm's
        // reference to it is not needed. Where they do not, it must be held by recent_ and the copy here alone
        // (anything more is the user's, a pending command's or the driver's own, and keeps the context).
        if (implicit->queue == 0 && reference_count(candidate.queue()) != cl_uint{2}) {
          settle(candidate);
          kept_changed = true;
          continue;
        }
        forget_queue(candidate);
      }
      std::optional<cl_uint> extra = references_beyond_tilegemm(candidate.context(), *implicit, holders);
      if (extra == cl_uint{1} && implicit->queue_through_buffer == 1) {
        // Perhaps the user's released queue, kept by the driver through a pooled buffer: without them, the count says.
        bool released_buffers = false;
        for (ContextResources* holder : holders) released_buffers |= holder->release_buffers(candidate.context());
        extra = references_beyond_tilegemm(candidate.context(), *implicit, holders);
        // The driver may let go of the queue a little later (PoCL releases commands on threads of its own): the
        // calls of the next moment look again (see use()).
        if (released_buffers && extra != cl_uint{0}) {
          kept_changed = true;
          continue;
        }
      }
      if (extra == cl_uint{0}) {
        release(candidate.context);
        continue;
      }
      if (extra) settle(candidate);
      kept_changed = true;
    }
    return kept_changed;
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
    std::optional<Kept> dropped;  // released after the lock is let go
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = find(context());
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
    std::vector<Kept> dropped;  // freed after the lock is let go
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
  struct Kept {
    cl::Context context;
    cl::CommandQueue queue;  // the last queue of the user's that a call on the context came through
    // The counts of the context and the queue when they were last found in use (0: not found so, or changed since).
    cl_uint context_count = 0;
    cl_uint queue_count = 0;
  };

  // Whether a kept context found in use shows the same counts still (its user has not released anything since).
  static bool unchanged(const Kept& kept) {
    if (kept.context_count == 0 || reference_count(kept.context()) != kept.context_count) return false;
    return kept.queue() == nullptr || reference_count(kept.queue()) == kept.queue_count;
  }

  // Notes the candidate's counts as those of a context in use (less the candidate's own references).
  void settle(const Kept& candidate) {
    const std::optional<cl_uint> context_count = reference_count(candidate.context());
    const std::optional<cl_uint> queue_count =
        candidate.queue() != nullptr ? reference_count(candidate.queue()) : std::optional<cl_uint>(1);
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = find(candidate.context());
    if (found == recent_.end() || found->queue() != candidate.queue() || !context_count || !queue_count) return;
    found->context_count = *context_count - 1;
    found->queue_count = *queue_count - 1;
  }

  std::vector<Kept>::iterator find(cl_context context) {
    return std::find_if(recent_.begin(), recent_.end(), [&](const Kept& kept) { return kept.context() == context; });
  }

  // How many references to `context` there are beyond tilegemm's own (its count, read before and after counting
  // tilegemm's); nullopt when that cannot be told: the count moved meanwhile, or held_by_tilegemm cannot tell.
  std::optional<cl_uint> references_beyond_tilegemm(cl_context context, const ImplicitReferences& implicit,
                                                    const std::vector<ContextResources*>& holders) {
    const std::optional<cl_uint> before = reference_count(context);
    const std::optional<cl_uint> held = held_by_tilegemm(context, implicit, holders);
    const std::optional<cl_uint> after = reference_count(context);
    if (!before || !held || after != before || *before < *held) return std::nullopt;
    return *before - *held;
  }

  // The references to `context` tilegemm holds: one in recent_, one in the sweep's copy, and the holders'; nullopt
  // when a holder cannot tell, or when the context has been let go of or called through a queue meanwhile.
  std::optional<cl_uint> held_by_tilegemm(cl_context context, const ImplicitReferences& implicit,
                                          const std::vector<ContextResources*>& holders) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = find(context);
      if (found == recent_.end() || found->queue() != nullptr) return std::nullopt;
    }
    cl_uint references = 2;
    for (ContextResources* holder : holders) {
      const std::optional<cl_uint> held = holder->references_to(context, implicit);
      if (!held) return std::nullopt;
      references += *held;
    }
    return references;
  }

  // Drops tilegemm's references to the candidate's queue (the user has dropped it), unless another call has
  // brought a queue meanwhile.
  void forget_queue(Kept& candidate) {
    cl::CommandQueue released;  // freed after the lock is let go
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = find(candidate.context());
      if (found != recent_.end() && found->queue() == candidate.queue()) released = std::move(found->queue);
    }
    released = cl::CommandQueue();
    candidate.queue = cl::CommandQueue();
  }

  std::mutex mutex_;
  std::vector<ContextResources*> holders_;
  std::vector<Kept> recent_;                    // the kept user contexts, most recently used first
  std::atomic<cl_context> last_used_{nullptr};  // the context of the last call (compared, never used)
  // Until when (now()'s milliseconds) calls on the same context look for dropped contexts too.
  std::atomic<std::int64_t> recheck_until_{0};

  static std::int64_t now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace tilegemm::detail
