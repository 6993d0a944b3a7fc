// blas/dispatch: one ?gemm call from entry to return: the route, the GPU attempt and its fallback to the CPU, the
// count and the log line.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "after_fork.hpp"
#include "call_log.hpp"
#include "cpu_blas.hpp"
#include "decision.hpp"
#include "gpu_gemm.hpp"
#include "product.hpp"
#include "stats.hpp"

namespace tilegemm::detail::blas {

// Says why the process stops: a call that can be neither finished nor redone must not return a wrong C.
[[noreturn]] void stop(const CallLabel& label, const std::string& reason);

// An invalid call's line where no CPU BLAS (and so no xerbla_) is there to report it.
void say_invalid(const CallLabel& label);

// The first GPU failure's line (later ones go to the log only).
void say_fallback(const CallLabel& label, const std::string& failure);

// Runs one call: `product` is null when an argument is invalid (the CPU BLAS then reports it through its xerbla_);
// `run_on_cpu(const CpuBlas&)` makes the call on the CPU BLAS as the entry point received it.
template <class Scalar, class RunOnCpu>
void dispatch(const CallLabel& label, const Product<Scalar>* product, RunOnCpu&& run_on_cpu) {
  const auto start = std::chrono::steady_clock::now();
  const auto finish = [&](bool on_gpu, bool fallback, const char* why) {
    const double flops = product != nullptr ? 2.0 * product->m * product->n * product->k : 0.0;
    count_call(on_gpu, fallback, flops);
    log_call(label, on_gpu, why,
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  };
  watch_forks();
  const CpuBlas* cpu = cpu_blas();
  if (product == nullptr) {  // as BLAS's xerbla_ does, the call returns with C unchanged
    if (cpu != nullptr) {
      run_on_cpu(*cpu);
    } else {
      say_invalid(label);
    }
    finish(false, false, "invalid");
    return;
  }
  const Route route = choose(*product, cpu);
  if (!route.gpu) {
    if (cpu == nullptr) stop(label, "a forked child cannot use its parent's GPU, and there is no CPU BLAS");
    run_on_cpu(*cpu);
    finish(false, false, route.why);
    return;
  }
  std::string failure;
  const GpuOutcome outcome = gpu_gemm(*product, failure);
  if (outcome == GpuOutcome::done) {
    finish(true, false, route.why);
    return;
  }
  if (cpu == nullptr) stop(label, "tilegemm failed (" + failure + ") and there is no CPU BLAS to redo the call");
  // A C partly written holds no old values to redo the call from, unless beta = 0 (BLAS never reads C then).
  if (outcome == GpuOutcome::partly_written && product->beta != Scalar(0)) {
    stop(label, failure + "; with beta != 0 the call cannot be redone, as C's old values are lost");
  }
  say_fallback(label, failure);
  run_on_cpu(*cpu);
  finish(false, true, "fallback");
}

}  // namespace tilegemm::detail::blas
