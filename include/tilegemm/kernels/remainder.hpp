// kernels/remainder: the thin rows and columns of C just outside a corner that whole tiles cover, in one launch.
#pragma once

namespace tilegemm::detail {

inline constexpr char remainder_kernel_name[] = "gemm_remainder";
inline constexpr int remainder_lanes = 64;  // work-items per element of C, each summing every 64th product

inline constexpr char remainder_kernel_source[] = R"CLC(
// C(m, n) for the elements outside the corner [0, m0) x [0, n0) of the M x N result: first the columns from n0 on
// (all M rows, column by column), then the rows from m0 on (columns 0 to n0). These are few, so each gets a
// work-group of LANES work-items that split its K products between them and add their sums up in local memory:
// the work is spread over the device even though there is little of it. Operands are read as the caller stores
// them (TRANS_A, TRANS_B), at any offset and leading dimension.
__kernel __attribute__((reqd_work_group_size(LANES, 1, 1)))
void gemm_remainder(const int M, const int N, const int K, const int m0, const int n0, const real alpha,
                    const real beta, __global const real* restrict A, const int a_offset, const int lda,
                    __global const real* restrict B, const int b_offset, const int ldb,
                    __global real* C, const int c_offset, const int ldc) {
  const int element = get_group_id(0);
  const int lane = get_local_id(0);
  const int right = M * (N - n0);  // elements in the columns from n0 on
  int m, n;
  if (element < right) {
    m = element % M;
    n = n0 + element / M;
  } else {
    m = m0 + (element - right) % (M - m0);
    n = (element - right) / (M - m0);
  }
  A += a_offset;
  B += b_offset;
  C += c_offset;
  real sum = 0;
  for (int k = lane; k < K; k += LANES) sum = fma(A_AT(m, k), B_AT(k, n), sum);
  __local real partial[LANES];
  partial[lane] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int reach = LANES / 2; reach > 0; reach /= 2) {
    if (lane < reach) partial[lane] += partial[lane + reach];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0) STORE_C(m, n, partial[0]);
}
)CLC";

}  // namespace tilegemm::detail
