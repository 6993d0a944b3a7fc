// kernels/prefetch: tutorial kernel 9, register blocking with double-buffered local memory: the next slice of A
// and B is fetched into registers while the current one is multiplied. Also the first pass of split-K.
#pragma once

namespace tilegemm::detail {

inline constexpr char prefetch_kernel_name[] = "gemm_prefetch";
inline constexpr char prefetch_kernel_source[] = R"CLC(
// Each operand is read in one of two layouts, fixed at compile time:
//   outer-contiguous (A_K_CONTIGUOUS / B_K_CONTIGUOUS = 0): A(m, k) = A[k * lda + m], B(k, n) = B[k * ldb + n];
//   K-contiguous (= 1):                                    A(m, k) = A[m * lda + k], B(k, n) = B[n * ldb + k],
// so that A as stored by the caller, B as stored by the caller, and the pack kernel's copies all fit.
// EDGES = 0: M, N and K are whole tiles and the operands are addressed in vectors of VW (offsets and leading
//   dimensions too), loaded a vector at a time.
// EDGES = 1: any M, N, K, offsets and leading dimensions, in elements. Loads are of single elements (neighbouring
//   work-items still read neighbouring elements). Past the last row of A or column of B they read that row or
//   column again, which only feeds rows and columns of C that are not stored; past K, in the last slice, they
//   are zero. So nothing needs padding, and only the last slice pays for a check.
// Each work-item's WPTM x WPTN block is made of groups of VW consecutive rows and columns, GROUPS_M x GROUPS_N of
// them, spaced THREADS_M * VW rows and THREADS_N * VW columns apart, so that it reads local memory a vector at
// a time without bank conflicts.
// With SPLIT_K, work-group (i, j, s) multiplies only the s-th stretch of k_per_slice and writes its raw sum to
// the dense workspace C (leading dimension ldc, slice s at c_offset * s); sum_slices then forms the result.
#define GROUPS_M (WPTM / VW)
#define GROUPS_N (WPTN / VW)
#define ROW_A (TSM / VW + 1)  // vectors per row of a local tile: one of padding spreads K-contiguous stores
#define ROW_B (TSN / VW + 1)  // over the banks

#if !EDGES
#if A_K_CONTIGUOUS
#define A_VECTOR(id, k0) A[((id) / (TSK / VW)) * lda + (k0) / VW + (id) % (TSK / VW)]
#define A_STASH(local, id, value) stash_transposed(local, ROW_A, (id) % (TSK / VW), (id) / (TSK / VW), value)
#else
#define A_VECTOR(id, k0) A[((k0) + (id) / (TSM / VW)) * lda + (id) % (TSM / VW)]
#define A_STASH(local, id, value) (local)[((id) / (TSM / VW)) * ROW_A + (id) % (TSM / VW)] = (value)
#endif
#if B_K_CONTIGUOUS
#define B_VECTOR(id, k0) B[((id) / (TSK / VW)) * ldb + (k0) / VW + (id) % (TSK / VW)]
#define B_STASH(local, id, value) stash_transposed(local, ROW_B, (id) % (TSK / VW), (id) / (TSK / VW), value)
#else
#define B_VECTOR(id, k0) B[((k0) + (id) / (TSN / VW)) * ldb + (id) % (TSN / VW)]
#define B_STASH(local, id, value) (local)[((id) / (TSN / VW)) * ROW_B + (id) % (TSN / VW)] = (value)
#endif

// Writes a vector of VW consecutive k of one row (or column) `outer` into the k-major local tile.
inline void stash_transposed(__local realV* tile, const int row, const int k_vector, const int outer,
                             const realV value) {
  real parts[VW];
  STOREV(value, parts);
  __local real* scalars = (__local real*)tile;
#pragma unroll
  for (int c = 0; c < VW; ++c) scalars[(k_vector * VW + c) * row * VW + outer] = parts[c];
}

#else  // EDGES
// Element e of a tile (e < TSM * TSK for A): its row (m of A, n of B) and k within the tile, taken along the
// contiguous direction of the operand, and where it is relative to the tile's first element.
#if A_K_CONTIGUOUS
#define A_OUTER(e) ((e) / TSK)
#define A_K(e) ((e) % TSK)
#define A_ELEMENT(outer, k) As[(outer) * lda + (k)]
#else
#define A_OUTER(e) ((e) % TSM)
#define A_K(e) ((e) / TSM)
#define A_ELEMENT(outer, k) As[(k) * lda + (outer)]
#endif
#if B_K_CONTIGUOUS
#define B_OUTER(e) ((e) / TSK)
#define B_K(e) ((e) % TSK)
#define B_ELEMENT(outer, k) Bs[(outer) * ldb + (k)]
#else
#define B_OUTER(e) ((e) % TSN)
#define B_K(e) ((e) / TSN)
#define B_ELEMENT(outer, k) Bs[(k) * ldb + (outer)]
#endif
#endif

__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_prefetch(const int M, const int N, const int K, const real alpha, const real beta,
                   __global const realV* restrict A, const int a_offset, const int lda,
                   __global const realV* restrict B, const int b_offset, const int ldb,
                   __global real* C, const int c_offset, const int ldc
#if SPLIT_K
                   , const int k_per_slice
#endif
                   ) {
  const int tid = get_local_id(1) * THREADS_M + get_local_id(0);
  // The work-item's place (tm, tn) in the THREADS_M x THREADS_N grid. Where the grid allows, a warp of 32
  // work-items covers 8 x 4 places rather than 16 x 2, so that it reads 8 + 4 distinct vectors of local memory
  // per step instead of 16 + 2 (10% faster on an H200).
#if THREADS_M % 8 == 0 && THREADS_N % 4 == 0
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int tm = (warp % (THREADS_M / 8)) * 8 + lane % 8;
  const int tn = (warp / (THREADS_M / 8)) * 4 + lane / 8;
#else
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
#endif
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
#if EDGES
  __global const real* restrict As = (__global const real*)A + a_offset + tile_m * (A_K_CONTIGUOUS ? lda : 1);
  __global const real* restrict Bs = (__global const real*)B + b_offset + tile_n * (B_K_CONTIGUOUS ? ldb : 1);
  const int last_a = min(TSM, M - tile_m) - 1;  // the last row of A and column of B in this tile
  const int last_b = min(TSN, N - tile_n) - 1;
#elif A_K_CONTIGUOUS
  A += a_offset + tile_m * lda;
#else
  A += a_offset + tile_m / VW;
#endif
#if !EDGES && B_K_CONTIGUOUS
  B += b_offset + tile_n * ldb;
#elif !EDGES
  B += b_offset + tile_n / VW;
#endif
#if SPLIT_K
  const int k_begin = get_group_id(2) * k_per_slice;
  const int k_end = min(K, k_begin + k_per_slice);
  C += c_offset * get_group_id(2);
#else
  const int k_begin = 0;
  const int k_end = K;
  C += c_offset;
#endif

  __local realV Asub[2][TSK * ROW_A];  // two buffers: one multiplied while the other is filled
  __local realV Bsub[2][TSK * ROW_B];
  real acc[WPTM][WPTN];
#pragma unroll
  for (int i = 0; i < WPTM; ++i)
#pragma unroll
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;

#if !EDGES
  // Vector l of a slice: neighbouring work-items load neighbouring vectors.
  realV next_a[LOADS_A];
  realV next_b[LOADS_B];
#define FETCH(k0)                                                                                         \
  for (int l = 0; l < LOADS_A; ++l) next_a[l] = A_VECTOR(l * THREADS + tid, k0);       \
  for (int l = 0; l < LOADS_B; ++l) next_b[l] = B_VECTOR(l * THREADS + tid, k0);
#define STASH(buffer)                                                                                     \
  for (int l = 0; l < LOADS_A; ++l) A_STASH(Asub[buffer], l * THREADS + tid, next_a[l]); \
  for (int l = 0; l < LOADS_B; ++l) B_STASH(Bsub[buffer], l * THREADS + tid, next_b[l]);
#else
  // Element l * THREADS + tid of a slice; elements past K are zero (in the last slice only).
  real next_a[LOADS_A * VW];
  real next_b[LOADS_B * VW];
#define FETCH_ELEMENTS(k0, a_ok, b_ok)                                                       \
  for (int l = 0; l < LOADS_A * VW; ++l) {                                                   \
    const int e = l * THREADS + tid;                                                         \
    next_a[l] = (a_ok) ? A_ELEMENT(min(A_OUTER(e), last_a), (k0) + A_K(e)) : (real)0;        \
  }                                                                                          \
  for (int l = 0; l < LOADS_B * VW; ++l) {                                                   \
    const int e = l * THREADS + tid;                                                         \
    next_b[l] = (b_ok) ? B_ELEMENT(min(B_OUTER(e), last_b), (k0) + B_K(e)) : (real)0;        \
  }
#define FETCH(k0)                                                                            \
  if ((k0) + TSK <= K) {                                                                     \
    FETCH_ELEMENTS(k0, true, true)                                                           \
  } else {                                                                                   \
    FETCH_ELEMENTS(k0, (k0) + A_K(e) < K, (k0) + B_K(e) < K)                                 \
  }
#define STASH(buffer)                                                                                            \
  for (int l = 0; l < LOADS_A * VW; ++l) {                                                     \
    const int e = l * THREADS + tid;                                                                             \
    ((__local real*)Asub[buffer])[A_K(e) * ROW_A * VW + A_OUTER(e)] = next_a[l];                                 \
  }                                                                                                              \
  for (int l = 0; l < LOADS_B * VW; ++l) {                                                     \
    const int e = l * THREADS + tid;                                                                             \
    ((__local real*)Bsub[buffer])[B_K(e) * ROW_B * VW + B_OUTER(e)] = next_b[l];                                 \
  }
#endif

  if (k_begin < k_end) {
    FETCH(k_begin);
    STASH(0);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k0 = k_begin, current = 0; k0 < k_end; k0 += TSK, current ^= 1) {
    if (k0 + TSK < k_end) {
      FETCH(k0 + TSK);  // in flight while this slice is multiplied
    }
    for (int k = 0; k < TSK; ++k) {  // left to the compiler: forcing the unroll was 2.5% slower on an H200
      real a[WPTM];
      real b[WPTN];
#pragma unroll
      for (int g = 0; g < GROUPS_M; ++g) STOREV(Asub[current][k * ROW_A + g * THREADS_M + tm], &a[g * VW]);
#pragma unroll
      for (int g = 0; g < GROUPS_N; ++g) STOREV(Bsub[current][k * ROW_B + g * THREADS_N + tn], &b[g * VW]);
#pragma unroll
      for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < WPTN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    if (k0 + TSK < k_end) {
      STASH(current ^ 1);  // nobody reads that buffer any more: all passed the barrier after multiplying it
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Unrolled, so that acc stays in registers (indexed at run time it would move to slow private memory).
#pragma unroll
  for (int gm = 0; gm < GROUPS_M; ++gm)
#pragma unroll
    for (int v = 0; v < VW; ++v)
#pragma unroll
      for (int gn = 0; gn < GROUPS_N; ++gn)
#pragma unroll
        for (int w = 0; w < VW; ++w) {
          const int m = tile_m + (gm * THREADS_M + tm) * VW + v;
          const int n = tile_n + (gn * THREADS_N + tn) * VW + w;
#if SPLIT_K
          C[m + n * ldc] = acc[gm * VW + v][gn * VW + w];  // the workspace covers whole tiles
#else
          STORE_C(m, n, acc[gm * VW + v][gn * VW + w]);
#endif
        }
}
)CLC";

}  // namespace tilegemm::detail
