// kernels/local_tiles: families 2 and 3, square tiles of A and B shared in local memory, WPTN columns per work-item.
#pragma once

namespace tilegemm::detail {

inline constexpr char local_tiles_kernel_name[] = "gemm_local_tiles";
inline constexpr char local_tiles_kernel_source[] = R"CLC(
// TSM == TSN == TSK (the tile side); a work-group is TSM x (TSN / WPTN) work-items and each work-item computes
// WPTN elements of one row of the tile, spaced THREADS_N columns apart so that neighbours read neighbours.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_local_tiles(const int M, const int N, const int K, const real alpha, const real beta,
                      __global const real* restrict A, const int a_offset, const int lda,
                      __global const real* restrict B, const int b_offset, const int ldb,
                      __global real* C, const int c_offset, const int ldc) {
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
  const int m = TSM * get_group_id(0) + tm;
  const int n0 = TSN * get_group_id(1) + tn;
  A += a_offset;
  B += b_offset;
  C += c_offset;

  __local real Asub[TSK][TSM];  // Asub[k][m]
  __local real Bsub[TSN][TSK];  // Bsub[n][k]
  real acc[WPTN];
  for (int w = 0; w < WPTN; ++w) acc[w] = 0;

  for (int k0 = 0; k0 < K; k0 += TSK) {
    for (int w = 0; w < WPTN; ++w) {
      const int col = tn + w * THREADS_N;
      Asub[col][tm] = A_OR_ZERO(TSM * get_group_id(0) + tm, k0 + col);
      Bsub[col][tm] = B_OR_ZERO(k0 + tm, TSN * get_group_id(1) + col);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TSK; ++k) {
      const real a = Asub[k][tm];
      for (int w = 0; w < WPTN; ++w) acc[w] += a * Bsub[tn + w * THREADS_N][k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int w = 0; w < WPTN; ++w) STORE_C(m, n0 + w * THREADS_N, acc[w]);
}
)CLC";

}  // namespace tilegemm::detail
