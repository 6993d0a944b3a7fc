// resources: letting go of what tilegemm holds (programs, pooled device buffers, its own queues), and counting it.
#pragma once

#include <cstddef>

#include "../config/linkage.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"
#include "queue.hpp"
#include "scratch_pool.hpp"
#include "side_queues.hpp"
#include "staging.hpp"
#if TILEGEMM_ENTRY_BODIES || defined(TILEGEMM_INTERNALS)
#include "program_cache.hpp"  // only the entries' bodies use it (config/linkage.hpp)
#endif

namespace tilegemm {

// How many OpenCL programs tilegemm has compiled in this process (each is compiled once per device), and how many
// it loaded from the disk cache instead (defined in runtime/program_cache.hpp and runtime/disk_cache.hpp).
TILEGEMM_ENTRY std::size_t programs_built();
TILEGEMM_ENTRY std::size_t programs_loaded_from_disk();

// Drops the compiled programs, pooled buffers and side queues tilegemm holds for `context`, so that the context is
// freed once the caller's own references to it are gone: call it before dropping a context. Later calls on it build
// their programs again. tilegemm's own queue stays if `context` is its context (release_resources() drops that too).
// Without it, a context the caller has dropped is let go of once calls on kept_user_contexts other user contexts have
// come since (kept_contexts.hpp): tilegemm cannot see a context dropped.
TILEGEMM_ENTRY void release_resources(const cl::Context& context);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void release_resources(const cl::Context& context) { detail::KeptContexts::instance().release(context); }
#endif

// Drops everything tilegemm holds: every compiled program, every pooled buffer, the pinned host memory of the staged
// host path, and its own queues and contexts
// (those of default_queue() and queue_for()). Afterwards tilegemm holds no device memory; the next call creates
// what it needs again (default_queue() then returns a new queue on the same device, and programs are compiled again).
// Calls in progress on other threads finish normally: what they use lives on through their own references, and is
// freed when they end. A queue returned earlier by default_queue() that the caller still holds keeps its context
// alive, and is treated as a user's queue from then on.
TILEGEMM_ENTRY void release_resources();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void release_resources() { detail::KeptContexts::instance().release_all(); }
#endif

namespace detail {

// What tilegemm holds now, for tests and diagnostics.
struct HeldResources {
  std::size_t programs = 0;          // compiled programs in the cache
  std::size_t program_contexts = 0;  // contexts those programs belong to
  std::size_t user_contexts = 0;     // user contexts kept (at most kept_user_contexts)
  std::size_t own_queues = 0;        // tilegemm's own queues (one per device used)
  ScratchPool::Usage pool;           // pooled buffers: how many, their bytes, the bytes of the idle ones
  std::size_t pinned_bytes = 0;      // the staged host path's pinned host memory
  std::size_t side_queues = 0;       // queues beside callers' queues (runtime/side_queues.hpp)
};

TILEGEMM_ENTRY HeldResources held_resources();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY HeldResources held_resources() {
  HeldResources held;
  held.programs = ProgramCache::instance().programs_held();
  held.program_contexts = ProgramCache::instance().contexts_held();
  held.user_contexts = KeptContexts::instance().user_contexts();
  held.own_queues = OwnQueues::instance().count();
  held.pool = ScratchPool::instance().usage();
  held.pinned_bytes = Staging::instance().pinned_bytes();
  held.side_queues = SideQueues::instance().count();
  return held;
}
#endif

// Whether tilegemm holds any program, pooled buffer or side queue of `context` (while the caller holds `context`, so
// that its handle cannot belong to another context).
TILEGEMM_ENTRY bool holds_objects_of(const cl::Context& context);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY bool holds_objects_of(const cl::Context& context) {
  return ProgramCache::instance().holds(context()) || ScratchPool::instance().usage(context()).buffers > 0 ||
         SideQueues::instance().count(context()) > 0;
}
#endif

}  // namespace detail
}  // namespace tilegemm
