// kernels/common: OpenCL C every GEMM kernel shares: the arguments its entry points start with, the batch strides
// they end with, the alpha/beta store.
#pragma once

#include "program_text.hpp"

namespace tilegemm::detail {

inline constexpr char common_source[] = R"CLC(
// A and B at their offsets with their leading dimensions, in units of `type` (real, or realV for vector loads).
#define OPERAND_PARAMETERS(type)                                                                      \
  __global const type* restrict A, const int a_offset, const int lda, __global const type* restrict B, \
      const int b_offset, const int ldb
// The arguments every entry point that computes C = alpha * op(A) * op(B) + beta * C starts with, in this order
// (set on the host by set_gemm_arguments in gemm/executor.hpp).
#define GEMM_PARAMETERS(type)                                                                                     \
  const int M, const int N, const int K, const real alpha, const real beta, OPERAND_PARAMETERS(type), __global real* C, \
      const int c_offset, const int ldc

// Batches: work-group (i, j, p) of a launch works on problem p of a batch (launch dimension 2; a single product is a
// batch of one). An entry point that takes batches ends its arguments with the distances between the operands of
// consecutive problems, in the units of their offsets (set on the host by set_batch_arguments in gemm/executor.hpp),
// and reads its problem's operands at IN_BATCH(offset, stride). The host keeps every such index within 2^31 - 1.
#define BATCH_PARAMETERS const int a_stride, const int b_stride, const int c_stride
#define IN_BATCH(offset, stride) ((offset) + (int)get_group_id(2) * (stride))

// C(m, n) = alpha * value + beta * C(m, n) inside the M x N result; C is not read when beta is zero, so that
// NaN or uninitialised memory there cannot leak into the result (BLAS semantics).
#define STORE_C(m, n, value)                                                                 \
  if ((m) < M && (n) < N) {                                                                  \
    const int c_index_ = (m) + (n) * ldc;                                                    \
    C[c_index_] = beta == (real)0 ? alpha * (value) : alpha * (value) + beta * C[c_index_]; \
  }
)CLC";
inline constexpr TextPiece common = piece(common_source);

}  // namespace tilegemm::detail
