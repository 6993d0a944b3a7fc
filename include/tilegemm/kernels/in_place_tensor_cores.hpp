// kernels/in_place_tensor_cores: mma.sync (inline PTX, NVIDIA compute capability 8.0+) on the caller's A and B read
// in place (either layout, any edges, batches): double on FP64 tensor cores, its slices fetched through registers by
// the prefetch kernel's loop or copied by cp.async in stages, and float in the tensor math modes (tf32x3, tf32, bf16,
// fp16), copied in stages: products too small to pay for the packing of the tensor_cores and warpgroup_mma families,
// such as batches of 32^3 to 256^3, double products up to 1024 and float ones up to about 512 x 512 of C.
#pragma once

#include <cstddef>
#include <string>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "async_copies.hpp"
#include "family_defaults.hpp"
#include "prefetch.hpp"
#include "program_text.hpp"
#include "tensor_cores.hpp"
#include "tf32_rounding.hpp"

namespace tilegemm {
namespace detail {

// The warps' layout and the depth of one mma.sync, before the products (tensor_cores_fp64_mma_source,
// tensor_cores_tf32_mma_source, tensor_cores_sixteen_bit_source) use it.
inline constexpr char in_place_mma_steps_source[] = R"CLC(
#ifndef MMA
#error "in_place_tensor_cores needs MMA (the kind of mma.sync) from the preamble"
#endif
#if (TSM / WPTM) % 8 != 0 || (TSN / WPTN) % 4 != 0 || WPTM % 2 != 0 || WPTN % 2 != 0 || TSK % 4 != 0
#error "in_place_tensor_cores: warps of 8 x 4 work-items, even WPTM and WPTN, and TSK a multiple of 4"
#endif
#define SIXTEEN_BIT_MMA (MMA == MMA_BF16 || MMA == MMA_FP16)  // float slices, 16-bit fragments
#define IN_PLACE_FLOAT (MMA == MMA_TF32 || MMA == MMA_TF32X3 || SIXTEEN_BIT_MMA)
#if !IN_PLACE_FLOAT && MMA != MMA_FP64_SM80 && MMA != MMA_FP64_SM90
#error "in_place_tensor_cores multiplies on tensor cores: double on FP64 ones, float in a tensor math mode"
#endif
#if IN_PLACE_FLOAT && (STAGES < 2 || TSM % 32 != 0 || TSN % 32 != 0 || 32 % TSK != 0)
#error "in_place_tensor_cores: float copies its slices in stages into swizzled rows (TSM, TSN of 32, TSK of 4 to 32)"
#endif
#if SIXTEEN_BIT_MMA && TSK % 8 != 0
#error "in_place_tensor_cores: the 16-bit products (m16n8k8) need TSK a multiple of 8"
#endif
// The same work-items as the prefetch kernel's, THREADS_M x THREADS_N, each holding WPTM x WPTN elements of C, but
// 32 of them (a warp) hold a (8 WPTM) x (4 WPTN) part of the tile as TILES_M x TILES_N accumulators of mma.sync's
// 16 x 8 tiles. Lane l is in group g = l / 4 at place t = l % 4 (PTX's groupID and threadID_in_group); of each
// 16 x 8 tile it holds C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1), as acc[2i][2j], acc[2i][2j + 1],
// acc[2i + 1][2j], acc[2i + 1][2j + 1] for tile (i, j); for each 4 steps of k it reads A(g, t), A(g + 8, t) and
// B(t, g). Rows of double slices are padded to a multiple of 4 doubles plus 4 (ROW_A, ROW_B), so that the 16 lanes of
// each half of a warp read 16 distinct pairs of banks; float slices are laid out as PLACE says, below.
#define TILES_M (WPTM / 2)
#define TILES_N (WPTN / 2)
#define WM (8 * WPTM)
#define WN (4 * WPTN)
#define WARPS_M (TSM / WM)
#if MMA == MMA_FP64_SM90 && TSK % 16 == 0
#define MMA_K 16
#elif (MMA == MMA_FP64_SM90 || IN_PLACE_FLOAT) && TSK % 8 == 0
#define MMA_K 8  // also the 16-bit products': m16n8k8, the lanes' k taken in the order t, t + 4 (a sum in any order)
#else
#define MMA_K 4
#endif
#define QUADS (MMA_K / 4)
// Where element (k, r) of a slice's A tile (B tile) lies, r its row of A (column of B): PLACE_A(k, r), PLACE_B(k, r).
// Rows of doubles: k-major, rows of LINE_A (LINE_B) elements padded to a multiple of 4 and 4 more (ROW_A, ROW_B).
// Float, an outer-contiguous operand (A_K_CONTIGUOUS or B_K_CONTIGUOUS 0): k-major without padding, rows k to k + 3
// with their 8-float pieces swapped by 8 (k % 4); a K-contiguous one: r-major, TSK floats per row, their 4-float
// pieces swapped by the row's place among the 32 / TSK rows of a 128-byte span, so that whole vectors of the operand
// land as they are. Either way a fragment's reads (8 rows or columns g at 4 steps t) fall in 32 distinct banks, and
// the swaps keep a lane's columns, multiples of 8 plus g, and its steps, multiples of 4 plus t, whole.
#if IN_PLACE_FLOAT
#define LINE_A TSM
#define LINE_B TSN
#define SWIZZLE(k) ((k) % 4 * 8)
#define K_ROW_SWIZZLE(r) ((r) / (32 / TSK) % (TSK / 4) * 4)
#define PLACE(k_contiguous, line, k, r) \
  ((k_contiguous) ? (r) * TSK + ((k) ^ K_ROW_SWIZZLE(r)) : (k) * (line) + ((r) ^ SWIZZLE(k)))
#else
#define LINE_A (ROW_A * VW)
#define LINE_B (ROW_B * VW)
#define PLACE(k_contiguous, line, k, r) ((k) * (line) + (r))
#endif
#define PLACE_A(k, r) PLACE(A_K_CONTIGUOUS, LINE_A, k, r)
#define PLACE_B(k, r) PLACE(B_K_CONTIGUOUS, LINE_B, k, r)
#define SLICE_SIZE (TSK * (LINE_A + LINE_B))  // elements of a slice of A and B in local memory
)CLC";

// Multiplying a slice on the tensor cores and storing C, as the tile loop (prefetch_tile_loop_source) asks.
inline constexpr char in_place_mma_lanes_source[] = R"CLC(
inline int local_index() { return get_local_id(1) * THREADS_M + get_local_id(0); }
// The row of A's tile (column of B's) whose elements the lane reads: its warp's first, plus g.
inline int place_m(const int tid) { return tid / 32 % WARPS_M * WM + tid % 32 / 4; }
inline int place_n(const int tid) { return tid / 32 / WARPS_M * WN + tid % 32 / 4; }

// acc += the warp's part of a slice's A tile times its part of the B tile over the slice's first `steps` steps (a
// multiple of MMA_K, or zeros past them: the tile loop's last slice holds zeros past K); low_products is tf32x3's
// fourth product (kernels/tf32_rounding.hpp).
inline void multiply_lanes(__local const real* a_tile, __local const real* b_tile, const int tm, const int tn,
                           real acc[WPTM][WPTN], const int steps, const bool low_products) {
  const int t = local_index() % 4;
#if IN_PLACE_FLOAT
  float sums[TILES_M][TILES_N][4];  // acc as multiply_fragments (kernels/tensor_cores.hpp) takes it
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) sums[i][j][v] = acc[2 * i + v / 2][2 * j + v % 2];
#endif
  for (int k = 0; k < steps; k += MMA_K) {
    real a[TILES_M][2 * QUADS];  // A(g + 8 h, t + 4 q) at [i][2 q + h]
    real b[TILES_N][QUADS];      // B(t + 4 q, g) at [j][q]
#pragma unroll
    for (int q = 0; q < QUADS; ++q) {
      const int row = k + 4 * q + t;
#pragma unroll
      for (int i = 0; i < TILES_M; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) a[i][2 * q + h] = a_tile[PLACE_A(row, tm + 16 * i + 8 * h)];
#pragma unroll
      for (int j = 0; j < TILES_N; ++j) b[j][q] = b_tile[PLACE_B(row, tn + 8 * j)];
    }
#if IN_PLACE_FLOAT
    multiply_fragments(a, b, sums, low_products);
#else
#pragma unroll
    for (int i = 0; i < TILES_M; ++i)
#pragma unroll
      for (int j = 0; j < TILES_N; ++j) {
        double d[4] = {acc[2 * i][2 * j], acc[2 * i][2 * j + 1], acc[2 * i + 1][2 * j], acc[2 * i + 1][2 * j + 1]};
        mma_fp64(d, a[i], b[j]);
        acc[2 * i][2 * j] = d[0];
        acc[2 * i][2 * j + 1] = d[1];
        acc[2 * i + 1][2 * j] = d[2];
        acc[2 * i + 1][2 * j + 1] = d[3];
      }
#endif
  }
#if IN_PLACE_FLOAT
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[2 * i + v / 2][2 * j + v % 2] = sums[i][j][v];
#endif
}

// The same for the prefetch kernel's tile loop (double only: float takes the stages below).
inline void multiply_slice(__local const realV* a_tile, __local const realV* b_tile, const int tm, const int tn,
                           real acc[WPTM][WPTN], const int steps) {
  multiply_lanes((__local const real*)a_tile, (__local const real*)b_tile, tm, tn, acc, steps, false);
}

// Stores the lane's elements of the tile: C(m, n) = alpha * acc + beta * C(m, n) inside M x N (STORE_C).
inline void store_block(real acc[WPTM][WPTN], const int M, const int N, const real alpha, const real beta,
                        __global real* C, const int ldc) {
  const int tid = local_index();
  const int first_m = TSM * get_group_id(0) + place_m(tid);
  const int first_n = TSN * get_group_id(1) + tid / 32 / WARPS_M * WN + 2 * (tid % 4);
#pragma unroll
  for (int i = 0; i < WPTM; ++i)
#pragma unroll
    for (int j = 0; j < WPTN; ++j) {
      const int m = first_m + 16 * (i / 2) + 8 * (i % 2);
      const int n = first_n + 8 * (j / 2) + j % 2;
      STORE_C(m, n, acc[i][j]);
    }
}
)CLC";

// With STAGES > 1 the slices take another way to local memory: cp.async, straight from global memory.
inline constexpr char in_place_mma_async_source[] = R"CLC(
#if STAGES > 1
// Each slice of A and B is copied into local memory by cp.async, an item at a time (kernels/prefetch.hpp: a vector of
// VW elements, or with EDGES_ELEMENTS a single one, so any layout, leading dimension and offset), up to STAGES - 1
// slices ahead of the one the warps multiply, each slice costing one barrier and no registers; items past M, N or K
// are zeros (a copy of no bytes fills them). Neighbouring work-items copy neighbouring items of the operand as it is
// stored: COPIES_A of A and COPIES_B of B each per slice.
#define COPIES_A (TSM * TSK / UNIT / THREADS)
#define COPIES_B (TSN * TSK / UNIT / THREADS)

// Starts copying the work-item's items of one operand's slice at k0 into `slice` (k-major rows of `line` elements,
// or rows of TSK: PLACE); `tile` is the operand's first item of the tile, `rows` its rows (M or N) from the tile's
// first on, `outer` TSM or TSN; the leading dimension is counted in items.
inline void copy_operand(__local real* slice, const int line, __global const item* tile, const int ld,
                         const bool k_contiguous, const int outer, const int items, const int rows, const int k0,
                         const int K, const int tid) {
#pragma unroll
  for (int l = 0; l < items; ++l) {
    const int e = l * THREADS + tid;
    const int r = k_contiguous ? e / (TSK / UNIT) : e % (outer / UNIT) * UNIT;  // m of A, n of B
    const int k = k_contiguous ? e % (TSK / UNIT) * UNIT : e / (outer / UNIT);
    const bool inside = EDGES == EDGES_WHOLE_TILES || (r < rows && k0 + k < K);
    const int at = k_contiguous ? r * ld + (k0 + k) / UNIT : (k0 + k) * ld + r / UNIT;
    copy_async(slice + PLACE(k_contiguous, line, k, r), inside ? tile + at : tile, sizeof(item), inside);
  }
}

// acc = the lane's part of this work-group's tile of op(A) * op(B) over all of K, through STAGES buffers.
inline void multiply_tile_async(real acc[WPTM][WPTN], const int M, const int N, const int K, __global const item* A,
                                const int lda, __global const item* B, const int ldb, __local real* slices) {
  const int tid = local_index();
  const int tm = place_m(tid);
  const int tn = place_n(tid);
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  __global const item* a_tile = A + (A_K_CONTIGUOUS ? tile_m * lda : tile_m / UNIT);
  __global const item* b_tile = B + (B_K_CONTIGUOUS ? tile_n * ldb : tile_n / UNIT);
#pragma unroll
  for (int i = 0; i < WPTM; ++i)
#pragma unroll
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;
  const int slice_count = (K + TSK - 1) / TSK;
  const bool low_products = MMA == MMA_TF32X3 && K <= LOW_PRODUCTS_UP_TO;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slice_count) {
      __local real* slice = slices + s * SLICE_SIZE;
      copy_operand(slice, LINE_A, a_tile, lda, A_K_CONTIGUOUS, TSM, COPIES_A, M - tile_m, s * TSK, K, tid);
      copy_operand(slice + TSK * LINE_A, LINE_B, b_tile, ldb, B_K_CONTIGUOUS, TSN, COPIES_B, N - tile_n, s * TSK, K,
                   tid);
    }
    end_copy_group();  // empty past the last slice, so that every wait below counts the same groups
  }
  for (int s = 0; s < slice_count; ++s) {
    wait_for_copy_groups();
    barrier(CLK_LOCAL_MEM_FENCE);  // slice s has landed for all, and all are done with slice s - 1's buffer
    const int next = s + STAGES - 1;
    if (next < slice_count) {
      __local real* slice = slices + next % STAGES * SLICE_SIZE;
      copy_operand(slice, LINE_A, a_tile, lda, A_K_CONTIGUOUS, TSM, COPIES_A, M - tile_m, next * TSK, K, tid);
      copy_operand(slice + TSK * LINE_A, LINE_B, b_tile, ldb, B_K_CONTIGUOUS, TSN, COPIES_B, N - tile_n, next * TSK,
                   K, tid);
    }
    end_copy_group();
    __local const real* slice = slices + s % STAGES * SLICE_SIZE;
    multiply_lanes(slice, slice + TSK * LINE_A, tm, tn, acc, TSK, low_products);
  }
}
#endif
)CLC";

inline constexpr char in_place_mma_product_source[] = R"CLC(
// C = alpha * op(A) * op(B) + beta * C, a TSM x TSN tile of it per work-group, for each problem of a batch.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_in_place_tensor_cores(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  real acc[WPTM][WPTN];
#if STAGES > 1
  // The host's count, with the doubles' padding (floats' rows use less of it).
#if STAGES * SLICE_SIZE > LOCAL_ELEMENTS
#error "in_place_tensor_cores: STAGES slices take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
  __local real slices[LOCAL_ELEMENTS] __attribute__((aligned(16)));  // 16-byte copies land on 16 bytes
  multiply_tile_async(acc, M, N, K, (__global const item*)A + IN_BATCH(a_offset, a_stride), lda,
                      (__global const item*)B + IN_BATCH(b_offset, b_stride), ldb, slices);
#else
  __local realV a_tiles[2][TSK * ROW_A];  // two buffers: one multiplied while the other is filled
  __local realV b_tiles[2][TSK * ROW_B];
  multiply_tile(acc, M, N, K, 0, K, A, IN_BATCH(a_offset, a_stride), lda, B, IN_BATCH(b_offset, b_stride), ldb,
                a_tiles, b_tiles);
#endif
  store_block(acc, M, N, alpha, beta, C + IN_BATCH(c_offset, c_stride), ldc);
}
)CLC";

// Rows of the local tiles: TSM (TSN) doubles and 4 of padding, in vectors of VW (see the kernel's comment).
inline constexpr int in_place_row_padding = 4;
constexpr int in_place_row_vectors(int outer_tile, int vw) { return (outer_tile + in_place_row_padding) / vw; }
// Two buffers of each local tile (the prefetch kernel's loads), or Stages of both (cp.async).
constexpr std::size_t in_place_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.stages > 1 ? t.stages : 2) * t.tsk * t.vw *
         (in_place_row_vectors(t.tsm, t.vw) + in_place_row_vectors(t.tsn, t.vw));
}
// Slices copied in stages take whole vectors of VW along M, N and K.
constexpr bool whole_vectors_copied(const TileShape& t) {
  return t.vw > 0 && t.tsm % t.vw == 0 && t.tsn % t.vw == 0 && t.tsk % t.vw == 0;
}
constexpr bool in_place_warps(const TileShape& t) {
  return t.wptm % 2 == 0 && t.wptn % 2 == 0 && (t.tsm / t.wptm) % 8 == 0 && (t.tsn / t.wptn) % 4 == 0;
}
#define TILEGEMM_IN_PLACE_TENSOR_CORES_RULES(RULE)                                                                  \
  RULE(whole_vectors_along_k, t.stages > 1 ? whole_vectors_copied(t) : whole_vectors_per_item(t),                   \
       "the in_place_tensor_cores family reads whole vectors along M, N and K, so WPTM, WPTN and TSK (with its "    \
       "slices copied in stages: TSM, TSN and TSK) must be multiples of the vector width VW.")                      \
  TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                                    \
  RULE(in_place_stages, t.stages == 1 || (t.stages >= 2 && t.stages <= 8 && (t.vw == 1 || t.vw == 4)),              \
       "the in_place_tensor_cores family fetches slices through registers (Stages 1) or copies 2 to 8 of them at "  \
       "once with cp.async, an element or (float) a vector of 4 at a time (Stages 2 to 8, VW 1 or 4).")             \
  RULE(in_place_warps, in_place_warps(t),                                                                           \
       "an in_place_tensor_cores warp is 8 x 4 work-items holding 16 x 8 tiles of mma.sync: TSM / WPTM must be a "  \
       "multiple of 8, TSN / WPTN a multiple of 4, and WPTM and WPTN even.")                                        \
  RULE(in_place_steps, t.tsk % 4 == 0,                                                                              \
       "the in_place_tensor_cores family multiplies slices in steps of 4 (mma.sync m16n8k4): TSK must be a "        \
       "multiple of 4.")                                                                                            \
  RULE(in_place_padding, in_place_row_padding % t.vw == 0,                                                          \
       "the in_place_tensor_cores family pads each row of a local tile by 4 doubles, whole vectors: VW must be 1, " \
       "2 or 4.")

template <>
struct FamilyTraits<Family::in_place_tensor_cores> : FamilyDefaults {
  static constexpr char name[] = "in_place_tensor_cores";
  static constexpr OperandAccess access = OperandAccess::either_layout;
  static constexpr bool uses_tensor_cores = true;

  TILEGEMM_RULES_FROM(TILEGEMM_IN_PLACE_TENSOR_CORES_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) { return in_place_local_elements(t); }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    lines.define("ROW_A", in_place_row_vectors(t.tsm, t.vw));
    lines.define("ROW_B", in_place_row_vectors(t.tsn, t.vw));
    lines.define("SHORT_LAST_SLICE", 0);
    lines.define("STAGES", t.stages);
  }
  // mma.sync from compute capability 8.0: double on FP64 tensor cores (m16n8k8 and k16 from 9.0); float in the tensor
  // math modes (m16n8k8 TF32, BF16 or F16), its slices copied in stages into rows swizzled in spans of 32.
  static Implementation can_implement(const TileShape& t, const RunTarget& target) {
    if (target.compute_capability < tensor_cores_from) return no_mma_sync(target);
    if (target.scalar_size == sizeof(double)) {
      if (t.stages > 1 && t.vw != 1) {
        return Implementation::refused(RefusalKind::operation,
                                       " copies double slices in stages a double at a time: it needs VW 1 for "
                                       "double with Stages 2 to 8.");
      }
      return Implementation::uses(target.compute_capability >= wide_fp64_mma_from ? MmaKind::fp64_sm90
                                                                                  : MmaKind::fp64_sm80);
    }
    if (t.stages < 2 || t.tsm % 32 != 0 || t.tsn % 32 != 0 || 32 % t.tsk != 0) {
      return Implementation::refused(RefusalKind::operation,
                                     " copies float slices in stages into rows swizzled within spans of 128 bytes: "
                                     "it needs Stages 2 to 8, TSM and TSN multiples of 32 and TSK 4, 8, 16 or 32 "
                                     "for float.");
    }
    return float_mma_sync(t, target);
  }

  static constexpr TextPiece helpers =
      joined_piece<prefetch_loads_source, in_place_mma_steps_source, tf32_rounding_source, tensor_cores_tf32_mma_source,
                   tensor_cores_fp64_mma_source, tensor_cores_tf32_multiply_source, tensor_cores_sixteen_bit_source,
                   in_place_mma_lanes_source, prefetch_tile_loop_source, async_copies_source,
                   in_place_mma_async_source>();
  static constexpr EntryPoint product = {"gemm_in_place_tensor_cores", piece_of<in_place_mma_product_source>()};
};

}  // namespace detail

template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW, int Stages = 1>
using InPlaceTensorCores = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::in_place_tensor_cores, Stages>;

}  // namespace tilegemm
