// kernels/naive: family 1, one work-item per element of C reading A and B straight from global memory.
#pragma once

namespace tilegemm::detail {

inline constexpr char naive_kernel_name[] = "gemm_naive";
inline constexpr char naive_kernel_source[] = R"CLC(
__kernel __attribute__((reqd_work_group_size(TSM, TSN, 1)))
void gemm_naive(const int M, const int N, const int K, const real alpha, const real beta,
                __global const real* restrict A, const int a_offset, const int lda,
                __global const real* restrict B, const int b_offset, const int ldb,
                __global real* C, const int c_offset, const int ldc) {
  const int m = get_global_id(0);
  const int n = get_global_id(1);
  if (m >= M || n >= N) return;  // the range is rounded up to whole work-groups
  A += a_offset;
  B += b_offset;
  C += c_offset;
  real acc = 0;
  for (int k = 0; k < K; ++k) acc += A_AT(m, k) * B_AT(k, n);
  STORE_C(m, n, acc);
}
)CLC";

}  // namespace tilegemm::detail
