// kernels/common: OpenCL C every GEMM kernel shares: the arguments its entry points start with, the batch strides
// they end with, the alpha/beta store.
#pragma once

#include "../config/fixed_string.hpp"
#include "kernel_arguments.hpp"
#include "program_text.hpp"

namespace tilegemm::detail {

inline constexpr char common_source[] = R"CLC(
// GEMM_PARAMETERS(type), the arguments every entry point that computes C = alpha * op(A) * op(B) + beta * C starts
// with (A and B in units of `type`, real or realV), and BATCH_PARAMETERS come before this, from the host's tables
// (kernels/kernel_arguments.hpp).
// Batches: work-group (i, j, p) of a launch works on problem p of a batch (launch dimension 2; a single product is a
// batch of one). An entry point that takes batches ends its arguments with the distances between the operands of
// consecutive problems, in the units of their offsets (BATCH_PARAMETERS), and reads its problem's operands at
// IN_BATCH(offset, stride). The host keeps every such index within 2^31 - 1.
#define IN_BATCH(offset, stride) ((offset) + (int)get_group_id(2) * (stride))

// C(m, n) = alpha * value + beta * C(m, n) inside the M x N result; C is not read when beta is zero, so that
// NaN or uninitialised memory there cannot leak into the result (BLAS semantics).
#define STORE_C(m, n, value)                                                                 \
  if ((m) < M && (n) < N) {                                                                  \
    const int c_index_ = (m) + (n) * ldc;                                                    \
    C[c_index_] = beta == (real)0 ? alpha * (value) : alpha * (value) + beta * C[c_index_]; \
  }
)CLC";
inline constexpr auto common_parameters_text =
    parameters_define<gemm_arguments>("GEMM_PARAMETERS(type)") + parameters_define<batch_arguments>("BATCH_PARAMETERS");
inline constexpr TextPiece common = joined_piece<common_parameters_text, common_source>();

}  // namespace tilegemm::detail
