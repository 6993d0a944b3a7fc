// tilegemm_contender: tilegemm's gemm with one configuration (or AutoConfig) timed on the shape's OpenCL buffers.
#pragma once

#include <tilegemm/tilegemm.hpp>
#include <type_traits>

#include "contender.hpp"
#include "opencl_operands.hpp"

namespace bench {

inline tilegemm::Transpose transpose_flag(bool transposed) {
  return transposed ? tilegemm::Transpose::yes : tilegemm::Transpose::no;
}

// C = op(A) * op(B) (alpha 1, beta 0) by tilegemm's gemm in the math mode `math`, with `config` (a configuration
// described at run time, as the tuner's file names one) or, where it is null, AutoConfig (tilegemm::gemm<Scalar>): a
// call enqueues all its kernels (packing, GEMM, the sum of split-K) on the shape's queue, and finishing waits for that
// queue. A named configuration goes the way gemm<Scalar, Config> goes: its call's checks, plan and kernels.
template <class Scalar>
Contender<Scalar> tilegemm_contender(const tilegemm::detail::KernelDescription* config,
                                     const OpenclOperands<Scalar>& device, const Shape& shape, const Transposes& t,
                                     tilegemm::MathMode math = tilegemm::MathMode::ieee) {
  poison_result(device, shape);
  Contender<Scalar> contender;
  contender.product.start = [config, device, shape, t, math] {
    if (config == nullptr) {
      tilegemm::gemm<Scalar>(device.queue, transpose_flag(t.a), transpose_flag(t.b), shape.m, shape.n, shape.k,
                             Scalar(1), device.a, 0, device.lda, device.b, 0, device.ldb, Scalar(0), device.c, 0,
                             device.ldc, {}, math);
      return;
    }
    const tilegemm::ScopedMathMode call_math(math);
    tilegemm::detail::translate_cl_errors([&] {
      const tilegemm::detail::CallContext call = tilegemm::detail::CallContext::of(device.queue);
      const tilegemm::detail::GemmProblem problem =
          tilegemm::detail::check_arguments(call.context, {transpose_flag(t.a),
                                                           transpose_flag(t.b),
                                                           shape.m,
                                                           shape.n,
                                                           shape.k,
                                                           tilegemm::detail::scalar_value(Scalar(1)),
                                                           {device.a, 0, device.lda},
                                                           {device.b, 0, device.ldb},
                                                           tilegemm::detail::scalar_value(Scalar(0)),
                                                           {device.c, 0, device.ldc}});
      return tilegemm::detail::run_gemm(call, config, problem, {});
    });
  };
  if (std::is_same_v<Scalar, float> && math == tilegemm::MathMode::tf32) contender.error_limit = tf32_error_limit;
  if (std::is_same_v<Scalar, float> && math == tilegemm::MathMode::fp16) contender.error_limit = fp16_error_limit;
  if (std::is_same_v<Scalar, float> && math == tilegemm::MathMode::bf16) contender.error_limit = bf16_error_limit;
  contender.product.finish = [device] { detail::require_cl(device.queue.finish(), "clFinish"); };
  contender.read_result = [device](HostMatrix<Scalar>& c) { download_result(device, c); };
  return contender;
}

}  // namespace bench
