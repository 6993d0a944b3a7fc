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
// EDGES says how the operands meet the tiles:
//   0: M, N and K are whole tiles; operands are addressed in vectors of VW (offsets and leading dimensions too).
//   1: the same vectors, but M, N and K need not be whole tiles (only the contiguous extent of each operand a
//      multiple of VW): rows of A (columns of B) past the last are read as the last, which only feeds rows
//      (columns) of C that are not stored, and vectors past K are zero, in the last slice only.
//   2: the same with single elements, in elements: any sizes, offsets and leading dimensions. Neighbouring
//      work-items still read neighbouring elements.
// Each work-item's WPTM x WPTN block is made of groups of VW consecutive rows and columns, GROUPS_M x GROUPS_N of
// them, spaced THREADS_M * VW rows and THREADS_N * VW columns apart, so that it reads local memory a vector at
// a time without bank conflicts.
// With SPLIT_K, work-group (i, j, s) multiplies only the s-th stretch of k_per_slice and writes its raw sum to
// the dense workspace C (leading dimension ldc, slice s at c_offset * s); sum_slices then forms the result.
// With STRIPS, the M x N product is the corner of a larger M_all x N_all one (K_all deep; transposes: bit 0 for A,
// bit 1 for B; A_all and B_all as the caller stores them), and the work-groups past the tiles' rows of them
// (tile_rows in dimension 1) multiply its strips outside the corner (see multiply_strips): they share the launch,
// and the units the tiles leave idle, rather than take a launch of their own.
#define GROUPS_M (WPTM / VW)
#define GROUPS_N (WPTN / VW)
#define ROW_A (TSM / VW + 1)  // vectors per row of a local tile: one of padding spreads K-contiguous stores
#define ROW_B (TSN / VW + 1)  // over the banks
#define UNIT (EDGES == 2 ? 1 : VW)  // elements per load

// Load l of a slice by work-item tid is item e = l * THREADS + tid of the tile (a vector, or an element for
// EDGES 2): neighbouring work-items load neighbouring items. Its row (m of A, n of B, counted in items along a
// contiguous row) and its k (counted in items along a contiguous k), and its place in the tile in memory:
#if A_K_CONTIGUOUS
#define A_ROW(e) ((e) / (TSK / UNIT))
#define A_KS(e) ((e) % (TSK / UNIT))
#define A_OFFSET(row, ks, k0) ((row) * lda + (k0) / UNIT + (ks))
#define A_FIRST_K(e, k0) ((k0) + A_KS(e) * UNIT)
#else
#define A_ROW(e) ((e) % (TSM / UNIT))
#define A_KS(e) ((e) / (TSM / UNIT))
#define A_OFFSET(row, ks, k0) (((k0) + (ks)) * lda + (row))
#define A_FIRST_K(e, k0) ((k0) + A_KS(e))
#endif
#if B_K_CONTIGUOUS
#define B_ROW(e) ((e) / (TSK / UNIT))
#define B_KS(e) ((e) % (TSK / UNIT))
#define B_OFFSET(row, ks, k0) ((row) * ldb + (k0) / UNIT + (ks))
#define B_FIRST_K(e, k0) ((k0) + B_KS(e) * UNIT)
#else
#define B_ROW(e) ((e) % (TSN / UNIT))
#define B_KS(e) ((e) / (TSN / UNIT))
#define B_OFFSET(row, ks, k0) (((k0) + (ks)) * ldb + (row))
#define B_FIRST_K(e, k0) ((k0) + B_KS(e))
#endif
// Load l (item e) at slice k0. With EDGES, from the load's offset at k = 0 (a_first, b_first; see below).
#if EDGES
#define A_LOAD(l, e, k0) A_TILE[a_first[l] + A_OFFSET(0, 0, k0)]
#define B_LOAD(l, e, k0) B_TILE[b_first[l] + B_OFFSET(0, 0, k0)]
#else
#define A_LOAD(l, e, k0) A_TILE[A_OFFSET(A_ROW(e), A_KS(e), k0)]
#define B_LOAD(l, e, k0) B_TILE[B_OFFSET(B_ROW(e), B_KS(e), k0)]
#endif

// Writes item `value` (VW consecutive k of row `outer`, or one element) into the k-major local tile whose rows
// hold `row` vectors.
inline void stash_transposed(__local realV* tile, const int row, const int k_first, const int outer,
                             const realV value) {
  real parts[VW];
  STOREV(value, parts);
  __local real* scalars = (__local real*)tile;
#pragma unroll
  for (int c = 0; c < VW; ++c) scalars[(k_first + c) * row * VW + outer] = parts[c];
}
#if EDGES == 2
#define STASH_ITEM(tile, row_vectors, contiguous_k, row, ks, value) \
  ((__local real*)(tile))[(ks) * (row_vectors) * VW + (row)] = (value)
#else
#define STASH_ITEM(tile, row_vectors, contiguous_k, row, ks, value)                       \
  if (contiguous_k) {                                                                     \
    stash_transposed(tile, row_vectors, (ks) * VW, row, value);                           \
  } else {                                                                                \
    (tile)[(ks) * (row_vectors) + (row)] = (value);                                       \
  }
#endif

__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_prefetch(const int M, const int N, const int K, const real alpha, const real beta,
                   __global const realV* restrict A, const int a_offset, const int lda,
                   __global const realV* restrict B, const int b_offset, const int ldb,
                   __global real* C, const int c_offset, const int ldc
#if SPLIT_K
                   , const int k_per_slice
#endif
#if STRIPS
                   , const int M_all, const int N_all, const int K_all, const int transposes,
                   __global const real* restrict A_all, const int a_offset_all, const int lda_all,
                   __global const real* restrict B_all, const int b_offset_all, const int ldb_all,
                   const int tile_rows
#endif
                   ) {
  const int tid = get_local_id(1) * THREADS_M + get_local_id(0);
#if STRIPS
  __local real stage[STAGE];
  if (get_group_id(1) >= tile_rows) {
    multiply_strips(tid, (get_group_id(1) - tile_rows) * get_num_groups(0) + get_group_id(0), M_all, N_all, K_all,
                    M, N, transposes & 1, transposes & 2, alpha, beta, A_all + a_offset_all, lda_all,
                    B_all + b_offset_all, ldb_all, C + c_offset, ldc, stage);
    return;
  }
#endif
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
#if EDGES == 2
  typedef real item;
#else
  typedef realV item;
#endif
  // The tiles' first items; offsets and leading dimensions are counted in items.
  __global const item* restrict A_TILE =
      (__global const item*)A + a_offset + (A_K_CONTIGUOUS ? tile_m * lda : tile_m / UNIT);
  __global const item* restrict B_TILE =
      (__global const item*)B + b_offset + (B_K_CONTIGUOUS ? tile_n * ldb : tile_n / UNIT);
#if EDGES
  // The last row of A and column of B in this tile, counted like A_ROW and B_ROW.
  const int last_a = (min(TSM, M - tile_m) - 1) / (A_K_CONTIGUOUS ? 1 : UNIT);
  const int last_b = (min(TSN, N - tile_n) - 1) / (B_K_CONTIGUOUS ? 1 : UNIT);
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

#if EDGES
  // Each load's offset at k = 0, rows past the last read as the last: worked out once here, since the clamped
  // rows do not advance evenly and the compiler worked them out at every load (4% slower at 1025 on an H100).
  int a_first[LOADS_A * VW / UNIT];
  int b_first[LOADS_B * VW / UNIT];
#pragma unroll
  for (int l = 0; l < LOADS_A * VW / UNIT; ++l) {
    const int e = l * THREADS + tid;
    a_first[l] = A_OFFSET(min(A_ROW(e), last_a), A_KS(e), 0);
  }
#pragma unroll
  for (int l = 0; l < LOADS_B * VW / UNIT; ++l) {
    const int e = l * THREADS + tid;
    b_first[l] = B_OFFSET(min(B_ROW(e), last_b), B_KS(e), 0);
  }
#endif
  item next_a[LOADS_A * VW / UNIT];
  item next_b[LOADS_B * VW / UNIT];
  // Unrolled, so that a_first and b_first are indexed by constants: PoCL 3.1 read wrong offsets otherwise.
#define FETCH_ITEMS(k0, a_ok, b_ok)                                              \
  _Pragma("unroll") for (int l = 0; l < LOADS_A * VW / UNIT; ++l) {              \
    const int e = l * THREADS + tid;                                             \
    next_a[l] = (a_ok) ? A_LOAD(l, e, k0) : (item)0;                             \
  }                                                                              \
  _Pragma("unroll") for (int l = 0; l < LOADS_B * VW / UNIT; ++l) {              \
    const int e = l * THREADS + tid;                                             \
    next_b[l] = (b_ok) ? B_LOAD(l, e, k0) : (item)0;                             \
  }
#if EDGES
#define FETCH(k0)                                                                \
  if ((k0) + TSK <= K) {                                                         \
    FETCH_ITEMS(k0, true, true)                                                  \
  } else { /* the last slice: items past K are zero */                           \
    FETCH_ITEMS(k0, A_FIRST_K(e, k0) < K, B_FIRST_K(e, k0) < K)                  \
  }
#else
#define FETCH(k0) FETCH_ITEMS(k0, true, true)
#endif
#define STASH(buffer)                                                                                      \
  for (int l = 0; l < LOADS_A * VW / UNIT; ++l) {                                                          \
    const int e = l * THREADS + tid;                                                                       \
    STASH_ITEM(Asub[buffer], ROW_A, A_K_CONTIGUOUS, A_ROW(e), A_KS(e), next_a[l]);                         \
  }                                                                                                        \
  for (int l = 0; l < LOADS_B * VW / UNIT; ++l) {                                                          \
    const int e = l * THREADS + tid;                                                                       \
    STASH_ITEM(Bsub[buffer], ROW_B, B_K_CONTIGUOUS, B_ROW(e), B_KS(e), next_b[l]);                         \
  }

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
