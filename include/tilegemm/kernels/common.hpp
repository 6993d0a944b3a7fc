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

// Batches: a batch of `problems` products of one shape runs in launch dimension 2 (a single product is a batch of
// one). An entry point that takes batches ends its arguments with the distances between the operands of consecutive
// problems, in the units of their offsets, and the number of problems (set on the host by set_batch_arguments in
// gemm/executor.hpp). Work-group (i, j, g) multiplies tile (i, j) of problem g and of every get_num_groups(2)-th
// problem after it (FOR_EACH_PROBLEM), so that a launch may have fewer groups in dimension 2 than there are problems
// (NVIDIA's hold at most 65535) and each group then multiplies several; problem p's operands lie at
// IN_PROBLEM(p, offset, stride). The helper kernels that take batches (packing, scaling) do the same. The host keeps
// every such index within 2^31 - 1.
#define BATCH_PARAMETERS const int a_stride, const int b_stride, const int c_stride, const int problems
#define FOR_EACH_PROBLEM(p) for (int p = get_group_id(2); p < problems; p += get_num_groups(2))
#define IN_PROBLEM(p, offset, stride) ((offset) + (p) * (stride))
// FOR_EACH_PROBLEM for entry points that move the pointers A, B and C themselves, set at the group's first problem
// (IN_PROBLEM(get_group_id(2), ...)): each step moves them get_num_groups(2) problems on.
#define FOR_EACH_PROBLEM_MOVING_ABC                                                                     \
  for (int p_ = get_group_id(2); p_ < problems; p_ += get_num_groups(2), A += (int)get_num_groups(2) * a_stride, \
           B += (int)get_num_groups(2) * b_stride, C += (int)get_num_groups(2) * c_stride)

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
