// blas/after_fork: a pthread_atfork child handler, registered at the first call (loading the library registers
// nothing), marks the child; the child never touches the parent's OpenCL objects (tilegemm's singletons are leaked
// on purpose, so the child's exit releases none of them either).
#include "after_fork.hpp"

#include <pthread.h>

#include <atomic>
#include <mutex>

namespace tilegemm::detail::blas {

namespace {

std::atomic<bool> forked_child{false};
std::once_flag registered;

}  // namespace

void watch_forks() {
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, [] { forked_child.store(true); }); });
}

bool in_forked_child() { return forked_child.load(std::memory_order_relaxed); }

}  // namespace tilegemm::detail::blas
