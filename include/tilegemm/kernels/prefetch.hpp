// kernels/prefetch: tutorial kernel 9, register blocking with double-buffered local memory: the next slice of A
// and B is fetched into registers while the current one is multiplied. Its loads and loop also serve split_k and
// in_place_tensor_cores.
#pragma once

#include <cstddef>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"
#include "strip.hpp"

namespace tilegemm {
namespace detail {

// Fetching slices of A and B into registers and stashing them in local memory, for every family that runs the
// prefetch kernel's loop (prefetch, split_k, in_place_tensor_cores).
inline constexpr char prefetch_loads_source[] = R"CLC(
#if !defined(ROW_A) || !defined(ROW_B) || !defined(SHORT_LAST_SLICE) || !defined(A_K_CONTIGUOUS) || \
    !defined(B_K_CONTIGUOUS) || !defined(EDGES)
#error "kernels/prefetch.hpp needs ROW_A, ROW_B, SHORT_LAST_SLICE (prefetch_helper_defines), the layouts and EDGES"
#endif
#if 2 * TSK * ROW_A * VW + 2 * TSK * ROW_B * VW > LOCAL_ELEMENTS
#error "prefetch: the two buffers of each local tile take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
// Each operand is read in one of two layouts, fixed at compile time:
//   outer-contiguous (A_K_CONTIGUOUS / B_K_CONTIGUOUS = 0): A(m, k) = A[k * lda + m], B(k, n) = B[k * ldb + n];
//   K-contiguous (= 1):                                    A(m, k) = A[m * lda + k], B(k, n) = B[n * ldb + k],
// so that A as stored by the caller, B as stored by the caller, and the pack kernel's copies all fit.
// EDGES (the host's EdgeMode) says how the operands meet the tiles:
//   EDGES_WHOLE_TILES: M, N and K are whole tiles; operands are addressed in vectors of VW (offsets and leading
//     dimensions too).
//   EDGES_VECTORS: the same vectors, but M, N and K need not be whole tiles (only the contiguous extent of each
//     operand a multiple of VW): rows of A (columns of B) past the last are read as the last, which only feeds
//     rows (columns) of C that are not stored, and vectors past K are zero, in the last slice only.
//   EDGES_ELEMENTS: the same with single elements, in elements: any sizes, offsets and leading dimensions.
//     Neighbouring work-items still read neighbouring elements.
// The local tiles are k-major, ROW_A (ROW_B) vectors per k, padding included. ROW_A and ROW_B come from the preamble,
// where the host counts local memory with them.

// What one load reads, an item (a vector; with EDGES_ELEMENTS an element), and how it goes into a local tile of
// row_vectors vectors per k: an element or an outer-contiguous vector as it is, while a K-contiguous vector's VW
// elements (consecutive k of one row) go to VW steps of k.
#if EDGES == EDGES_ELEMENTS
#define UNIT 1
typedef real item;
inline void stash_item(__local realV* tile, const int row_vectors, const bool k_contiguous, const int row,
                       const int step, const item value) {
  ((__local real*)tile)[step * row_vectors * VW + row] = value;
}
#else
#define UNIT VW
typedef realV item;
inline void stash_item(__local realV* tile, const int row_vectors, const bool k_contiguous, const int row,
                       const int step, const item value) {
  if (k_contiguous) {
    real parts[VW];
    STOREV(value, parts);
    __local real* scalars = (__local real*)tile;
#pragma unroll
    for (int c = 0; c < VW; ++c) scalars[(step * VW + c) * row_vectors * VW + row] = parts[c];
  } else {
    tile[step * row_vectors + row] = value;
  }
}
#endif
#define ITEMS_A (LOADS_A * VW / UNIT)  // items of A and of B a work-item loads per slice
#define ITEMS_B (LOADS_B * VW / UNIT)

// Item e of a slice (e = l * THREADS + tid: neighbouring work-items load neighbouring items) lies in row item_row
// of its operand's tile (m of A, n of B; counted in items along a contiguous row) at step item_step of k (counted
// in items along a contiguous k). `outer` is the tile's TSM for A, TSN for B.
inline int item_row(const int e, const bool k_contiguous, const int outer) {
  return k_contiguous ? e / (TSK / UNIT) : e % (outer / UNIT);
}
inline int item_step(const int e, const bool k_contiguous, const int outer) {
  return k_contiguous ? e % (TSK / UNIT) : e / (outer / UNIT);
}
// Its offset in items from the tile's first item in the slice that starts at k0, and the first k it holds.
inline int item_offset(const int row, const int step, const int k0, const bool k_contiguous, const int ld) {
  return k_contiguous ? row * ld + k0 / UNIT + step : (k0 + step) * ld + row;
}
inline int item_first_k(const int step, const int k0, const bool k_contiguous) {
  return k0 + (k_contiguous ? step * UNIT : step);
}

// With edges, each load's offset at k = 0, rows past the tile's last (last_row, counted like item_row) read as the
// last: worked out once, since the clamped rows do not advance evenly and the compiler worked them out at every
// load (4% slower at 1025 on an H100). Unrolled, so that `first` is indexed by constants (PoCL 3.1 read wrong
// offsets otherwise). Static, as load_items: PoCL defines `inline` away, and a function of external linkage is also
// compiled on its own, where `items` is no constant and LLVM warns that it cannot unroll the loop.
static inline void first_offsets(int* first, const int items, const int tid, const bool k_contiguous,
                                 const int outer, const int last_row, const int ld) {
#pragma unroll
  for (int l = 0; l < items; ++l) {
    const int e = l * THREADS + tid;
    first[l] = item_offset(min(item_row(e, k_contiguous, outer), last_row), item_step(e, k_contiguous, outer), 0,
                           k_contiguous, ld);
  }
}

// Loads a work-item's items of one operand's tile in the slice at k0 into `next`: with edges from `first`, else
// where item_offset puts them; with zero_past_k, items that start past K are zero.
static inline void load_items(item* next, const int items, __global const item* restrict tile, const int ld,
                              const int* first, const int tid, const bool k_contiguous, const int outer, const int k0,
                              const int K, const bool zero_past_k) {
#pragma unroll
  for (int l = 0; l < items; ++l) {
    const int e = l * THREADS + tid;
    const int step = item_step(e, k_contiguous, outer);
    const int offset = EDGES == EDGES_WHOLE_TILES
                           ? item_offset(item_row(e, k_contiguous, outer), step, k0, k_contiguous, ld)
                           : first[l] + item_offset(0, 0, k0, k_contiguous, ld);
    next[l] = !zero_past_k || item_first_k(step, k0, k_contiguous) < K ? tile[offset] : (item)0;
  }
}

// Fetches a work-item's items of the slice at k0 of both operands into registers; only the last slice of an
// operand whose K is not whole tiles checks K.
inline void fetch_slice(item* next_a, item* next_b, __global const item* restrict a_tile, const int lda,
                        const int* a_first, __global const item* restrict b_tile, const int ldb, const int* b_first,
                        const int tid, const int k0, const int K) {
  if (EDGES == EDGES_WHOLE_TILES || k0 + TSK <= K) {
    load_items(next_a, ITEMS_A, a_tile, lda, a_first, tid, A_K_CONTIGUOUS, TSM, k0, K, false);
    load_items(next_b, ITEMS_B, b_tile, ldb, b_first, tid, B_K_CONTIGUOUS, TSN, k0, K, false);
  } else {
    load_items(next_a, ITEMS_A, a_tile, lda, a_first, tid, A_K_CONTIGUOUS, TSM, k0, K, true);
    load_items(next_b, ITEMS_B, b_tile, ldb, b_first, tid, B_K_CONTIGUOUS, TSN, k0, K, true);
  }
}

// Writes the fetched items into the local tiles of a slice.
inline void stash_slice(__local realV* a_tile, __local realV* b_tile, const item* next_a, const item* next_b,
                        const int tid) {
  for (int l = 0; l < ITEMS_A; ++l) {
    const int e = l * THREADS + tid;
    stash_item(a_tile, ROW_A, A_K_CONTIGUOUS, item_row(e, A_K_CONTIGUOUS, TSM), item_step(e, A_K_CONTIGUOUS, TSM),
               next_a[l]);
  }
  for (int l = 0; l < ITEMS_B; ++l) {
    const int e = l * THREADS + tid;
    stash_item(b_tile, ROW_B, B_K_CONTIGUOUS, item_row(e, B_K_CONTIGUOUS, TSN), item_step(e, B_K_CONTIGUOUS, TSN),
               next_b[l]);
  }
}

)CLC";

// Where each work-item of the prefetch kernel's arithmetic sits in its tile, and how it stores its block of C: for the
// families that multiply a slice on the ordinary arithmetic units (prefetch, split_k, staged_prefetch).
inline constexpr char prefetch_placement_source[] = R"CLC(
// Each work-item's WPTM x WPTN block is made of GROUPS_M x GROUPS_N groups of VW consecutive rows and columns,
// spaced THREADS_M * VW rows and THREADS_N * VW columns apart, so that it reads local memory a vector at a time
// without bank conflicts.
#define GROUPS_M (WPTM / VW)
#define GROUPS_N (WPTN / VW)

// The work-item's place (tm, tn) in the THREADS_M x THREADS_N grid, from its index tid in the work-group. Where the
// grid allows, a warp of 32 work-items covers 8 x 4 places rather than 16 x 2, so that it reads 8 + 4 distinct
// vectors of local memory per step instead of 16 + 2 (10% faster on an H200).
#if THREADS_M % 8 == 0 && THREADS_N % 4 == 0
inline int place_m(const int tid) { return (tid / 32 % (THREADS_M / 8)) * 8 + tid % 32 % 8; }
inline int place_n(const int tid) { return (tid / 32 / (THREADS_M / 8)) * 4 + tid % 32 / 8; }
#else
inline int place_m(const int tid) { return get_local_id(0); }
inline int place_n(const int tid) { return get_local_id(1); }
#endif
inline int local_index() { return get_local_id(1) * THREADS_M + get_local_id(0); }

// Stores the work-item's block of the tile: C(m, n) = alpha * acc + beta * C(m, n) inside M x N (STORE_C), or with
// `raw` acc as it is, into split-K's workspace, which covers whole tiles. Unrolled, so that acc stays in registers
// (indexed at run time it would move to slow private memory).
inline void store_block(real acc[WPTM][WPTN], const int M, const int N, const real alpha, const real beta,
                        __global real* C, const int ldc, const bool raw) {
  const int tid = local_index();
  const int tm = place_m(tid);
  const int tn = place_n(tid);
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
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
          if (raw) {
            C[m + n * ldc] = acc[gm * VW + v][gn * VW + w];
          } else {
            STORE_C(m, n, acc[gm * VW + v][gn * VW + w]);
          }
        }
}
)CLC";

// How the prefetch and split_k families multiply a slice: every work-item a block of C on the ordinary arithmetic
// units, from local tiles that are k-major whatever the operands' layout. The tile loop below asks of it
// multiply_slice, and of prefetch_placement_source place_m, place_n, local_index and store_block.
inline constexpr char prefetch_multiply_source[] = R"CLC(
// One vector of padding per row of a local tile (ROW_A, ROW_B) spreads the stores of K-contiguous operands over the
// banks.
// acc += the work-item's rows (tm) of a slice's A tile times its columns (tn) of the B tile, one k at a time, over
// the slice's first `steps` steps.
inline void multiply_slice(__local const realV* a_tile, __local const realV* b_tile, const int tm, const int tn,
                           real acc[WPTM][WPTN], const int steps) {
  for (int k = 0; k < steps; ++k) {  // left to the compiler: forcing the unroll was 2.5% slower on an H200
    real a[WPTM];
    real b[WPTN];
#pragma unroll
    for (int g = 0; g < GROUPS_M; ++g) STOREV(a_tile[k * ROW_A + g * THREADS_M + tm], &a[g * VW]);
#pragma unroll
    for (int g = 0; g < GROUPS_N; ++g) STOREV(b_tile[k * ROW_B + g * THREADS_N + tn], &b[g * VW]);
#pragma unroll
    for (int i = 0; i < WPTM; ++i)
#pragma unroll
      for (int j = 0; j < WPTN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
  }
}
)CLC";

// The loop over a tile's slices, for every way of multiplying a slice (multiply_slice).
inline constexpr char prefetch_tile_loop_source[] = R"CLC(
// acc = the work-item's block of this work-group's tile of op(A) * op(B) over k in [k_begin, k_end). The slices of
// A and B pass through two local buffers: the next is fetched into registers while this one is multiplied.
inline void multiply_tile(real acc[WPTM][WPTN], const int M, const int N, const int K, const int k_begin,
                          const int k_end, __global const realV* A, const int a_offset, const int lda,
                          __global const realV* B, const int b_offset, const int ldb,
                          __local realV a_tiles[2][TSK * ROW_A], __local realV b_tiles[2][TSK * ROW_B]) {
  const int tid = local_index();
  const int tm = place_m(tid);
  const int tn = place_n(tid);
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  // The tiles' first items; offsets and leading dimensions are counted in items.
  __global const item* restrict a_tile =
      (__global const item*)A + a_offset + (A_K_CONTIGUOUS ? tile_m * lda : tile_m / UNIT);
  __global const item* restrict b_tile =
      (__global const item*)B + b_offset + (B_K_CONTIGUOUS ? tile_n * ldb : tile_n / UNIT);
#pragma unroll
  for (int i = 0; i < WPTM; ++i)
#pragma unroll
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;

  int a_first[ITEMS_A];
  int b_first[ITEMS_B];
  if (EDGES != EDGES_WHOLE_TILES) {
    first_offsets(a_first, ITEMS_A, tid, A_K_CONTIGUOUS, TSM,
                  (min(TSM, M - tile_m) - 1) / (A_K_CONTIGUOUS ? 1 : UNIT), lda);
    first_offsets(b_first, ITEMS_B, tid, B_K_CONTIGUOUS, TSN,
                  (min(TSN, N - tile_n) - 1) / (B_K_CONTIGUOUS ? 1 : UNIT), ldb);
  }
  item next_a[ITEMS_A];
  item next_b[ITEMS_B];
  if (k_begin < k_end) {
    fetch_slice(next_a, next_b, a_tile, lda, a_first, b_tile, ldb, b_first, tid, k_begin, K);
    stash_slice(a_tiles[0], b_tiles[0], next_a, next_b, tid);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k0 = k_begin, current = 0; k0 < k_end; k0 += TSK, current ^= 1) {
    if (k0 + TSK < k_end) {
      fetch_slice(next_a, next_b, a_tile, lda, a_first, b_tile, ldb, b_first, tid, k0 + TSK, K);  // in flight now
    }
#if SHORT_LAST_SLICE
    // A last slice past K stops at K, its steps past K being zeros: small products in deep slices (24 x 24 x 24 in
    // slices of 32) would otherwise spend much of their arithmetic on them. Whole slices keep the fixed count.
    if (EDGES == EDGES_WHOLE_TILES || k0 + TSK <= K) {
      multiply_slice(a_tiles[current], b_tiles[current], tm, tn, acc, TSK);
    } else {
      multiply_slice(a_tiles[current], b_tiles[current], tm, tn, acc, K - k0);
    }
#else
    multiply_slice(a_tiles[current], b_tiles[current], tm, tn, acc, TSK);
#endif
    if (k0 + TSK < k_end) {
      // Nobody reads that buffer any more: all passed the barrier after multiplying it.
      stash_slice(a_tiles[current ^ 1], b_tiles[current ^ 1], next_a, next_b, tid);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

)CLC";
inline constexpr TextPiece prefetch_helpers = joined_piece<prefetch_loads_source, prefetch_placement_source,
                                                           prefetch_multiply_source, prefetch_tile_loop_source>();

inline constexpr char prefetch_product_source[] = R"CLC(
// C = alpha * op(A) * op(B) + beta * C, a TSM x TSN tile of it per work-group, for each problem of a batch.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_prefetch(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  __local realV a_tiles[2][TSK * ROW_A];  // two buffers: one multiplied while the other is filled
  __local realV b_tiles[2][TSK * ROW_B];
  real acc[WPTM][WPTN];
  multiply_tile(acc, M, N, K, 0, K, A, IN_BATCH(a_offset, a_stride), lda, B, IN_BATCH(b_offset, b_stride), ldb,
                a_tiles, b_tiles);
  store_block(acc, M, N, alpha, beta, C + IN_BATCH(c_offset, c_stride), ldc, false);
}
)CLC";

inline constexpr char prefetch_product_and_strips_source[] = R"CLC(
// The same on the M x N corner of a larger product (STRIP_PARAMETERS, kernels/strip.hpp). The work-groups past the
// tiles' rows of them multiply its strips outside the corner (multiply_strips): they share the launch, and the units
// the tiles leave idle, rather than take a launch of their own. One product only, not a batch.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_prefetch_strips(GEMM_PARAMETERS(realV), STRIP_PARAMETERS) {
  __local real stage[STAGE];
  if (get_group_id(1) >= tile_rows) {
    multiply_strips(local_index(), (get_group_id(1) - tile_rows) * get_num_groups(0) + get_group_id(0), right_groups,
                    strip_groups, M_all, N_all, K_all, M, N, transposes & TRANSPOSED_A, transposes & TRANSPOSED_B,
                    alpha, beta, A_all + a_offset_all, lda_all, B_all + b_offset_all, ldb_all, C + c_offset, ldc,
                    stage);
    return;
  }
  __local realV a_tiles[2][TSK * ROW_A];
  __local realV b_tiles[2][TSK * ROW_B];
  real acc[WPTM][WPTN];
  multiply_tile(acc, M, N, K, 0, K, A, a_offset, lda, B, b_offset, ldb, a_tiles, b_tiles);
  store_block(acc, M, N, alpha, beta, C + c_offset, ldc, false);
}
)CLC";

// The helpers' parameters. ROW_A and ROW_B: vectors per k of the local tiles, one of them padding (see the kernel's
// comment). SHORT_LAST_SLICE: whether a last slice past K stops at K, for tiles of at most 32 x 32 with slices at
// least 32 deep, which serve batches of small products: 10,000 products of 24 x 24 x 24 in 32 x 32 x 32 tiles took
// 38.6 us with it and 42.5 without on an H200. Elsewhere the loop's fixed count paid more than the steps saved: the
// 16 x 16 x 16 tiles lost 1.5 us on batches of 8^3 and 12^3 with it, the large tiles 2-4% at 1025 to 2049.
constexpr int local_row_vectors(int outer_tile, int vw) { return outer_tile / vw + 1; }
inline constexpr int short_last_slice_tiles_up_to = 32;
inline constexpr int short_last_slice_from_depth = 32;
constexpr bool stops_last_slice_at_k(const TileShape& t) {
  return t.tsm <= short_last_slice_tiles_up_to && t.tsn <= short_last_slice_tiles_up_to &&
         t.tsk >= short_last_slice_from_depth;
}
constexpr void prefetch_helper_defines(PreambleLines& lines, const TileShape& t) {
  lines.define("ROW_A", local_row_vectors(t.tsm, t.vw));
  lines.define("ROW_B", local_row_vectors(t.tsn, t.vw));
  lines.define("SHORT_LAST_SLICE", stops_last_slice_at_k(t) ? 1 : 0);
}
// Two buffers of each local tile, TSK steps of ROW_A (ROW_B) vectors each.
constexpr std::size_t double_buffered_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(2) * t.tsk * t.vw * (local_row_vectors(t.tsm, t.vw) + local_row_vectors(t.tsn, t.vw));
}
// The rules of the families that run the prefetch kernel's helpers: they read whole vectors along M, N and K.
constexpr bool whole_vectors_per_item(const TileShape& t) {
  return t.vw > 0 && t.wptm % t.vw == 0 && t.wptn % t.vw == 0 && t.tsk % t.vw == 0;
}
#define TILEGEMM_DOUBLE_BUFFERED_RULES(RULE)                                                                   \
  RULE(whole_vectors_along_k, whole_vectors_per_item(t),                                                       \
       "the prefetch and split_k families read whole vectors along M, N and K, so WPTM, WPTN and TSK must be " \
       "multiples of the vector width VW.")                                                                    \
  TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                               \
  TILEGEMM_ONE_STAGE_RULE(RULE)

template <>
struct FamilyTraits<Family::prefetch> : FamilyDefaults {
  static constexpr char name[] = "prefetch";
  static constexpr OperandAccess access = OperandAccess::either_layout;

  TILEGEMM_RULES_FROM(TILEGEMM_DOUBLE_BUFFERED_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) { return double_buffered_local_elements(t); }
  // The strip code's parameters where its work-groups can multiply the strips too (fused_strips_fit).
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    prefetch_helper_defines(lines, t);
    fused_strip_defines(lines, t);
  }

  static constexpr TextPiece helpers = prefetch_helpers;
  static constexpr EntryPoint product = {"gemm_prefetch", piece_of<prefetch_product_source>()};
  static constexpr EntryPoint product_and_strips = {"gemm_prefetch_strips",
                                                    piece_of<prefetch_product_and_strips_source>()};
};

}  // namespace detail

template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using Prefetch = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::prefetch>;

}  // namespace tilegemm
