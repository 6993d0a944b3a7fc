// kernels/prefetch: tutorial kernel 9, register blocking with double-buffered local memory: the next slice of A
// and B is fetched into registers while the current one is multiplied.
#pragma once

namespace tilegemm::detail {

inline constexpr char prefetch_kernel_name[] = "gemm_prefetch";
inline constexpr char prefetch_kernel_source[] = R"CLC(
// Reads packed operands like gemm_register_blocking (A M-contiguous, B N-contiguous, zero-padded to whole tiles,
// addressed in vectors of VW; K is the padded depth). Each work-item's WPTM x WPTN block is made of groups of VW
// consecutive rows and columns, GROUPS_M x GROUPS_N of them, spaced THREADS_M * VW rows and THREADS_N * VW
// columns apart, so that it reads its operands from local memory a whole vector at a time.
#define GROUPS_M (WPTM / VW)
#define GROUPS_N (WPTN / VW)

__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_prefetch(const int M, const int N, const int K, const real alpha, const real beta,
                   __global const realV* restrict A, const int a_offset, const int lda,
                   __global const realV* restrict B, const int b_offset, const int ldb,
                   __global real* C, const int c_offset, const int ldc) {
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
  const int tid = tn * THREADS_M + tm;
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  A += a_offset + tile_m / VW;
  B += b_offset + tile_n / VW;
  C += c_offset;

  __local realV Asub[2][TSK][TSM / VW];  // two buffers: one multiplied while the other is filled
  __local realV Bsub[2][TSK][TSN / VW];
  realV next_a[LOADS_A];
  realV next_b[LOADS_B];
  real acc[WPTM][WPTN];
  for (int i = 0; i < WPTM; ++i)
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;

  // Vector l of a slice of A (or B): row k of the slice, vector v within the row; neighbours load neighbours.
#define FETCH(k0)                                                                                  \
  for (int l = 0; l < LOADS_A; ++l) {                                                              \
    const int id = l * THREADS + tid;                                                              \
    next_a[l] = A[((k0) + id / (TSM / VW)) * lda + id % (TSM / VW)];                               \
  }                                                                                                \
  for (int l = 0; l < LOADS_B; ++l) {                                                              \
    const int id = l * THREADS + tid;                                                              \
    next_b[l] = B[((k0) + id / (TSN / VW)) * ldb + id % (TSN / VW)];                               \
  }
#define STASH(buffer)                                                                              \
  for (int l = 0; l < LOADS_A; ++l) {                                                              \
    const int id = l * THREADS + tid;                                                              \
    Asub[buffer][id / (TSM / VW)][id % (TSM / VW)] = next_a[l];                                    \
  }                                                                                                \
  for (int l = 0; l < LOADS_B; ++l) {                                                              \
    const int id = l * THREADS + tid;                                                              \
    Bsub[buffer][id / (TSN / VW)][id % (TSN / VW)] = next_b[l];                                    \
  }

  FETCH(0);
  STASH(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int slices = K / TSK;
  for (int s = 0; s < slices; ++s) {
    const int current = s & 1;
    if (s + 1 < slices) {
      FETCH((s + 1) * TSK);  // in flight while this slice is multiplied
    }
    for (int k = 0; k < TSK; ++k) {
      real a[WPTM];
      real b[WPTN];
      for (int g = 0; g < GROUPS_M; ++g) STOREV(Asub[current][k][g * THREADS_M + tm], &a[g * VW]);
      for (int g = 0; g < GROUPS_N; ++g) STOREV(Bsub[current][k][g * THREADS_N + tn], &b[g * VW]);
      for (int i = 0; i < WPTM; ++i)
        for (int j = 0; j < WPTN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    if (s + 1 < slices) {
      STASH(current ^ 1);  // nobody reads that buffer any more: all passed the barrier after multiplying it
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int gm = 0; gm < GROUPS_M; ++gm)
    for (int v = 0; v < VW; ++v)
      for (int gn = 0; gn < GROUPS_N; ++gn)
        for (int w = 0; w < VW; ++w) {
          const int m = tile_m + (gm * THREADS_M + tm) * VW + v;
          const int n = tile_n + (gn * THREADS_N + tn) * VW + w;
          STORE_C(m, n, acc[gm * VW + v][gn * VW + w]);
        }
}
)CLC";

}  // namespace tilegemm::detail
