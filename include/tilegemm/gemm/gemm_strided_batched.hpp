// gemm_strided_batched: a batch of BLAS-style products of one shape on cl::Buffers, each operand's problems a constant
// stride apart, in one launch (as cuBLAS's cublasSgemmStridedBatched and CLBlast's GemmStridedBatched).
#pragma once

#include <type_traits>
#include <vector>

#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/math_setting.hpp"
#include "arguments.hpp"
#include "batched_arguments.hpp"
#include "gemm.hpp"

namespace tilegemm {

// C_p = alpha * op(A_p) * op(B_p) + beta * C_p for each problem p < batch_count, in Scalar (float or double, named
// first as in gemm<float>), all of one shape: op(A_p) m x k, op(B_p) k x n and C_p m x n, column-major with leading
// dimensions lda, ldb, ldc, where X_p starts at x_offset + p * x_stride elements of its buffer. One launch of the
// product kernel runs the whole batch, after at most one launch of the pack kernel per operand where the plan packs.
// A and B strides may be 0 (every problem reads the same matrix) or let their problems overlap; C's problems must
// not share memory with each other or with A's and B's. batch_count = 0, like an empty C, does nothing. Waits for
// `wait`, returns without waiting for the result; the returned event completes with every C. Bad arguments throw
// std::invalid_argument, OpenCL failures tilegemm::Error. With a 16-bit Scalar (Eigen::half, Eigen::bfloat16) the
// second template argument names C's type, as in gemm (gemm.hpp).
template <class Scalar = detail::ScalarNotNamed, class Config = AutoConfig, class Alpha, class Beta>
cl::Event gemm_strided_batched(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m,
                               long long n, long long k, Alpha alpha, const cl::Buffer& a, long long a_offset,
                               long long lda, long long a_stride, const cl::Buffer& b, long long b_offset,
                               long long ldb, long long b_stride, Beta beta, const cl::Buffer& c, long long c_offset,
                               long long ldc, long long c_stride, long long batch_count,
                               const std::vector<cl::Event>& wait = {}) {
  static_assert(detail::scalar_named<Scalar>,
                "tilegemm::gemm_strided_batched: name the scalar type, float or double: "
                "tilegemm::gemm_strided_batched<float>(queue, ...).");
  static_assert(!detail::is_tile_config<Scalar>::value && !std::is_same_v<Scalar, AutoConfig>,
                "tilegemm::gemm_strided_batched: name the scalar type first, then the configuration: "
                "gemm_strided_batched<float, Config>(...).");
  static_assert(std::is_arithmetic_v<Alpha> && std::is_arithmetic_v<Beta>,
                "tilegemm::gemm_strided_batched: alpha and beta must be numbers (they are converted to the scalar "
                "type).");
  if constexpr (!detail::scalar_named<Scalar>) {
    return cl::Event();                                   // refused above; nothing more to say
  } else if constexpr (detail::is_sixteen_bit<Scalar>) {  // Config names C's type (gemm.hpp)
    return detail::sixteen_bit_gemm<Scalar, Config>(queue, trans_a, trans_b, m, n, k, alpha,
                                                    {a, a_offset, lda, a_stride}, {b, b_offset, ldb, b_stride}, beta,
                                                    {c, c_offset, ldc, c_stride}, batch_count, true, wait, math_mode());
  } else {
    detail::require_supported_scalar<Scalar>();
    constexpr const detail::KernelDescription* config = detail::description_of<Config>();
    return detail::translate_cl_errors([&] {
      const detail::CallContext call = detail::CallContext::of(queue);
      const detail::GemmProblem problem = detail::naming("tilegemm::gemm_strided_batched", [&] {
        detail::check_wait_list(wait);
        return detail::check_batched_arguments(call.context, {trans_a,
                                                              trans_b,
                                                              m,
                                                              n,
                                                              k,
                                                              detail::scalar_value(static_cast<Scalar>(alpha)),
                                                              {a, a_offset, lda, a_stride},
                                                              {b, b_offset, ldb, b_stride},
                                                              detail::scalar_value(static_cast<Scalar>(beta)),
                                                              {c, c_offset, ldc, c_stride},
                                                              batch_count});
      });
      return detail::run_gemm(call, config, problem, wait);
    });
  }
}

}  // namespace tilegemm
