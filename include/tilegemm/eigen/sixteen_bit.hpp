// eigen/sixteen_bit: the Eigen front end's rules for Eigen::half and Eigen::bfloat16 matrices (which scalars it takes,
// which C goes with which A and B, the type of alpha and beta) and its calls into the 16-bit core (gemm<In, Out> and
// gemm_strided_batched<In, Out> on cl::Buffers).
#pragma once

#include <Eigen/Core>
#include <type_traits>
#include <vector>

#include "../config/sixteen_bit.hpp"
#include "../config/tile_config.hpp"
#include "../core.hpp"
#include "../gemm/arguments.hpp"
#include "../runtime/opencl.hpp"

namespace tilegemm::detail {

// Device matrices and transfers copy 16-bit values as bytes: config/sixteen_bit.hpp checks that Eigen's half and
// bfloat16 are exactly their 16 bits.
template <class S>
inline constexpr bool is_sixteen_bit_v = is_sixteen_bit<S>;

// The scalars of the Eigen front end's matrices: float and double, and the 16-bit ones (float accumulation).
template <class S>
inline constexpr bool is_front_end_scalar_v =
    std::is_same_v<S, float> || std::is_same_v<S, double> || is_sixteen_bit_v<S>;
template <class S>
constexpr void require_front_end_scalar() {
  static_assert(is_front_end_scalar_v<S>,
                "tilegemm multiplies float and double matrices only, and Eigen::half and Eigen::bfloat16 ones: "
                "convert the operands with .cast<float>() first.");
}

// The C of A and B of scalar S: S itself, or float for 16-bit A and B (accumulated there without rounding to 16 bits).
template <class S, class SC>
inline constexpr bool c_scalar_fits_v = std::is_same_v<S, SC> || (is_sixteen_bit_v<S> && std::is_same_v<SC, float>);

// alpha and beta: the scalar's own for float and double, float for 16-bit products (their arithmetic is float).
template <class S>
using factor_t = std::conditional_t<is_sixteen_bit_v<S>, float, S>;

// 16-bit products choose their configuration themselves (the core's gemm<In, Out> names the output type where the
// float forms name a configuration).
template <class Config, class S>
constexpr void require_config_for() {
  static_assert(!is_sixteen_bit_v<S> || std::is_same_v<Config, AutoConfig>,
                "tilegemm::gpu_gemm: Eigen::half and Eigen::bfloat16 products choose their configuration themselves; "
                "leave the Config template argument out (AutoConfig).");
}

// The forms on a list of queues (one product over several devices) take float and double matrices.
template <class S>
constexpr void require_one_device_for() {
  static_assert(!is_sixteen_bit_v<S>,
                "tilegemm::gpu_gemm: Eigen::half and Eigen::bfloat16 products run on one device in this version; pass "
                "one queue (or none: TILEGEMM_DEVICE's).");
}

// C = alpha * op(A) * op(B) + beta * C on device buffers, A and B of In (16-bit), C of Out (In or float), through the
// 16-bit core; offsets and leading dimensions in elements of each buffer. Returns the event C is complete with.
template <class In, class Out>
cl::Event sixteen_bit_product(const cl::CommandQueue& queue, bool trans_a, bool trans_b, long long m, long long n,
                              long long k, float alpha, const cl::Buffer& a, long long a_offset, long long lda,
                              const cl::Buffer& b, long long b_offset, long long ldb, float beta, const cl::Buffer& c,
                              long long c_offset, long long ldc, const std::vector<cl::Event>& wait = {}) {
  static_assert(is_sixteen_bit_v<In> && c_scalar_fits_v<In, Out>);
  return tilegemm::gemm<In, Out>(queue, trans_a ? Transpose::yes : Transpose::no,
                                 trans_b ? Transpose::yes : Transpose::no, m, n, k, alpha, a, a_offset, lda, b,
                                 b_offset, ldb, beta, c, c_offset, ldc, wait);
}

// The same for a batch of `count` problems, each operand's problems `stride` elements apart (no transposes).
template <class In, class Out>
cl::Event sixteen_bit_batch(const cl::CommandQueue& queue, long long m, long long n, long long k, float alpha,
                            const cl::Buffer& a, long long a_offset, long long lda, long long a_stride,
                            const cl::Buffer& b, long long b_offset, long long ldb, long long b_stride, float beta,
                            const cl::Buffer& c, long long c_offset, long long ldc, long long c_stride, long long count,
                            const std::vector<cl::Event>& wait = {}) {
  static_assert(is_sixteen_bit_v<In> && c_scalar_fits_v<In, Out>);
  return tilegemm::gemm_strided_batched<In, Out>(queue, Transpose::no, Transpose::no, m, n, k, alpha, a, a_offset, lda,
                                                 a_stride, b, b_offset, ldb, b_stride, beta, c, c_offset, ldc, c_stride,
                                                 count, wait);
}

// The host-pointer form: C (of Out, ldc) = alpha * op(A) * op(B) + beta * C with A and B of In in host memory.
template <class In, class Out>
void sixteen_bit_host(const cl::CommandQueue& queue, bool trans_a, bool trans_b, long long m, long long n, long long k,
                      float alpha, const In* a, long long lda, const In* b, long long ldb, float beta, Out* c,
                      long long ldc) {
  static_assert(is_sixteen_bit_v<In> && c_scalar_fits_v<In, Out>);
  tilegemm::gemm<In, Out>(queue, trans_a ? Transpose::yes : Transpose::no, trans_b ? Transpose::yes : Transpose::no, m,
                          n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tilegemm::detail
