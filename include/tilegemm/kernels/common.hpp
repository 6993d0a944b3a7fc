// kernels/common: OpenCL C macros every GEMM kernel shares (operand access, bounds, the alpha/beta store).
#pragma once

namespace tilegemm::detail {

inline constexpr char common_kernel_source[] = R"CLC(
// Element (m, k) of op(A) and (k, n) of op(B), read from the caller's column-major storage. TRANS_A and
// TRANS_B come from the preamble of the kernels that read the caller's operands directly.
#if TRANS_A
#define A_AT(m, k) A[(k) + (m) * lda]
#else
#define A_AT(m, k) A[(m) + (k) * lda]
#endif
#if TRANS_B
#define B_AT(k, n) B[(n) + (k) * ldb]
#else
#define B_AT(k, n) B[(k) + (n) * ldb]
#endif

// The same elements, or zero outside the M x K and K x N operands (for tiles that cross an edge).
#define A_OR_ZERO(m, k) (((m) < M && (k) < K) ? A_AT(m, k) : (real)0)
#define B_OR_ZERO(k, n) (((k) < K && (n) < N) ? B_AT(k, n) : (real)0)

// C(m, n) = alpha * value + beta * C(m, n) inside the M x N result; C is not read when beta is zero, so that
// NaN or uninitialised memory there cannot leak into the result (BLAS semantics).
#define STORE_C(m, n, value)                                                                 \
  if ((m) < M && (n) < N) {                                                                  \
    const int c_index_ = (m) + (n) * ldc;                                                    \
    C[c_index_] = beta == (real)0 ? alpha * (value) : alpha * (value) + beta * C[c_index_]; \
  }
)CLC";

}  // namespace tilegemm::detail
