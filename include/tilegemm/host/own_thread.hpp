// host/own_thread: a Pending<void> for work that runs on a host thread of its own (gemm_async's staged path and its
// product over several devices), completing when the work has and reporting the work's failure.
#pragma once

#include <exception>
#include <functional>
#include <memory>

#include "../config/linkage.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "pending.hpp"

#if TILEGEMM_ENTRY_BODIES
#include <mutex>
#include <thread>
#endif

namespace tilegemm::detail {

// Starts `work` on a new, detached thread and returns a handle whose event (a user event of `context`) completes when
// `work` returns or throws; what it throws comes out of the handle's wait() or get(), and `when_waited` (if any) runs
// on the waiting thread once the handle has completed. Whatever `work` uses must stay alive until then.
TILEGEMM_ENTRY Pending<void> on_own_thread(const cl::Context& context, std::function<void()> work,
                                           std::function<void()> when_waited);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> on_own_thread(const cl::Context& context, std::function<void()> work,
                                           std::function<void()> when_waited) {
  struct Outcome {
    std::mutex mutex;
    std::exception_ptr failure;
  };
  auto outcome = std::make_shared<Outcome>();
  cl_int status = CL_SUCCESS;
  cl::UserEvent done(context, &status);
  check(status, "clCreateUserEvent");
  std::thread([work = std::move(work), done, outcome]() mutable {
    cl_int end = CL_COMPLETE;
    try {
      work();
    } catch (...) {
      std::lock_guard<std::mutex> lock(outcome->mutex);
      outcome->failure = std::current_exception();
      end = CL_OUT_OF_RESOURCES;  // any negative status: the handle reports outcome->failure
    }
    try {
      done.setStatus(end);
    } catch (...) {  // CLHPP's exceptions, where the user enabled them: nothing is left to tell
    }
  }).detach();
  Pending<void> pending = Pending<void>::enqueued_void(done, outcome);
  pending.explain_failures([outcome] {
    std::lock_guard<std::mutex> lock(outcome->mutex);
    return outcome->failure;
  });
  if (when_waited) pending.then(std::move(when_waited));
  return pending;
}
#endif

}  // namespace tilegemm::detail
