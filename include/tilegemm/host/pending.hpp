// host/pending: Pending<T>, the handle an asynchronous call (gemm_async, gpu_gemm_async) returns: wait on it, ask
// for its cl::Event, or turn it into the result; a failure of the call surfaces there as the exception the blocking
// call throws.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"

namespace tilegemm {

template <class T>
class Pending {
 public:
  // A call that has run into `failure` before anything was enqueued (or while enqueueing).
  static Pending failed(std::exception_ptr failure) {
    Pending pending;
    pending.failure_ = std::move(failure);
    return pending;
  }
  // A call whose commands end with `done`; `result` is what get() returns once they have; `keep_alive` holds what
  // the commands use until then (device copies of host operands, a host matrix they write).
  template <class U = T, class = std::enable_if_t<!std::is_void_v<U>>>
  static Pending enqueued(cl::Event done, U result, std::shared_ptr<void> keep_alive = nullptr) {
    Pending pending;
    pending.done_ = std::move(done);
    pending.result_.emplace(std::move(result));
    pending.keep_alive_ = std::move(keep_alive);
    return pending;
  }
  static Pending enqueued_void(cl::Event done, std::shared_ptr<void> keep_alive = nullptr) {
    Pending pending;
    pending.done_ = std::move(done);
    pending.keep_alive_ = std::move(keep_alive);
    return pending;
  }

  Pending() = default;
  Pending(Pending&& other) noexcept
      : done_(std::move(other.done_)),
        failure_(std::move(other.failure_)),
        result_(std::move(other.result_)),
        keep_alive_(std::move(other.keep_alive_)),
        finish_(std::move(other.finish_)),
        explain_(std::move(other.explain_)),
        finished_(other.finished_),
        moved_from_(other.moved_from_) {
    other.done_ = cl::Event();
    other.finish_ = nullptr;
    other.moved_from_ = true;
  }
  Pending& operator=(Pending&& other) noexcept {
    if (this != &other) {
      finish_quietly();
      done_ = std::move(other.done_);
      finished_ = other.finished_;
      failure_ = std::move(other.failure_);
      result_ = std::move(other.result_);
      keep_alive_ = std::move(other.keep_alive_);
      finish_ = std::move(other.finish_);
      explain_ = std::move(other.explain_);
      moved_from_ = other.moved_from_;
      other.done_ = cl::Event();
      other.finish_ = nullptr;
      other.moved_from_ = true;
    }
    return *this;
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  // A handle dropped before it was waited on finishes the call first (finish_quietly).
  ~Pending() { finish_quietly(); }

  // Something to do on the waiting thread once the commands have ended (copying a result into host memory the
  // commands could not write directly).
  void then(std::function<void()> finish) { finish_ = std::move(finish); }

  // What the call knows of its own failure, asked when its event ends in an error (a host thread that ran part of
  // the call sets the event's status and keeps the exception it ran into, a PartialWrite say); null: the event's
  // status alone is reported.
  void explain_failures(std::function<std::exception_ptr()> explain) { explain_ = std::move(explain); }

  // The event of the call's last command (null when the call failed before enqueueing anything).
  const cl::Event& event() const { return done_; }

  // Waits until the call has finished; throws what the call would have thrown. A handle moved from has no call: it
  // throws std::logic_error, as a second get() does, rather than report a result it does not have.
  void wait() {
    if (moved_from_) refuse_moved_from("wait");
    if (failure_) std::rethrow_exception(failure_);
    if (finished_ && !finish_) return;
    if (!finished_ && done_() != nullptr) {
      const cl_int waited = done_.wait();
      cl_int status = CL_COMPLETE;
      done_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
      if (waited != CL_SUCCESS || status < 0) {
        finished_ = true;
        if (explain_) failure_ = explain_();
        if (!failure_)
          failure_ = std::make_exception_ptr(
              Error(status < 0 ? status : waited, std::string("tilegemm: the product failed on the device with ") +
                                                      detail::error_name(status < 0 ? status : waited)));
        keep_alive_.reset();
        std::rethrow_exception(failure_);
      }
    }
    finished_ = true;
    if (finish_) {
      auto finish = std::move(finish_);
      finish_ = nullptr;
      try {
        finish();
      } catch (...) {
        failure_ = std::current_exception();
        keep_alive_.reset();
        throw;
      }
    }
    keep_alive_.reset();
  }

  // Waits, then hands over the result (once).
  T get() {
    if (moved_from_) refuse_moved_from("get");
    wait();
    if constexpr (!std::is_void_v<T>) {
      if (!result_) throw std::logic_error("tilegemm::Pending::get: the result was taken already.");
      T result = std::move(*result_);
      result_.reset();
      return result;
    }
  }

 private:
  [[noreturn]] static void refuse_moved_from(const char* function) {
    throw std::logic_error(std::string("tilegemm::Pending::") + function +
                           ": this handle was moved from; the call's result is in the handle it was moved to.");
  }

  // What wait() does, for a handle dropped or assigned over: its commands may still write memory it holds, and a host
  // C written through a copy is written only here. An error is lost: no one is left to receive it.
  void finish_quietly() noexcept {
    try {
      if (!failure_ && !moved_from_) wait();
    } catch (...) {
    }
    keep_alive_.reset();
    finish_ = nullptr;
  }

  cl::Event done_;
  std::exception_ptr failure_;
  std::optional<std::conditional_t<std::is_void_v<T>, char, T>> result_;
  std::shared_ptr<void> keep_alive_;
  std::function<void()> finish_;
  std::function<std::exception_ptr()> explain_;
  bool finished_ = false;    // waited for (the destructor need not wait again)
  bool moved_from_ = false;  // its call went to another handle
};

}  // namespace tilegemm
