// kernels/staged_prefetch: the prefetch kernel's work-items and arithmetic with the slices of A and B copied straight
// into local memory by cp.async (inline PTX, NVIDIA compute capability 8.0+), Stages buffers deep, in the layout
// each operand has in global memory: no registers hold slices on their way, and slices arrive several ahead.
#pragma once

#include <cstddef>
#include <string>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "async_copies.hpp"
#include "family_defaults.hpp"
#include "prefetch.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char staged_prefetch_source[] = R"CLC(
#if !defined(STAGES) || !defined(SLICE_A) || !defined(SLICE_B) || !defined(A_K_CONTIGUOUS) || \
    !defined(B_K_CONTIGUOUS) || !defined(EDGES)
#error "kernels/staged_prefetch.hpp needs STAGES, SLICE_A, SLICE_B (its defines), the layouts and EDGES"
#endif
#if STAGES * (SLICE_A + SLICE_B) > LOCAL_ELEMENTS
#error "staged_prefetch: its buffers take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
// Each slice of an operand lands in local memory as the operand lies in global memory, so that cp.async copies whole
// vectors: an outer-contiguous operand k-major (STRIDE elements per k), a K-contiguous one row by row (STRIDE per row
// of its TSM or TSN, one vector of padding after its TSK). A slice of A takes SLICE_A elements, of B SLICE_B.
#define STRIDE_A (A_K_CONTIGUOUS ? TSK + VW : TSM)
#define STRIDE_B (B_K_CONTIGUOUS ? TSK + VW : TSN)
// What one copy moves (an item): a vector of VW elements, or with EDGES_ELEMENTS a single element; ITEMS_A (ITEMS_B)
// per work-item per slice. Offsets and leading dimensions arrive counted in items (see kernels/prefetch.hpp).
#if EDGES == EDGES_ELEMENTS
#define UNIT 1
typedef real item;
#else
#define UNIT VW
typedef realV item;
#endif
#define ITEMS_A (TSM * TSK / UNIT / THREADS)
#define ITEMS_B (TSN * TSK / UNIT / THREADS)

// Starts copying the work-item's items of one operand's slice at k0 into `slice`; `tile` is the operand's first item
// of the tile, `rows` its rows (M or N) from the tile's first on, `outer` TSM or TSN. Neighbouring work-items copy
// neighbouring items of the operand as it is stored.
inline void copy_operand(__local real* slice, const int stride, __global const item* tile, const int ld,
                         const bool k_contiguous, const int outer, const int items, const int rows, const int k0,
                         const int K, const int tid) {
#pragma unroll
  for (int l = 0; l < items; ++l) {
    const int e = l * THREADS + tid;
    const int r = k_contiguous ? e / (TSK / UNIT) : e % (outer / UNIT) * UNIT;  // m of A, n of B
    const int k = k_contiguous ? e % (TSK / UNIT) * UNIT : e / (outer / UNIT);
    const bool inside = EDGES == EDGES_WHOLE_TILES || (r < rows && k0 + k < K);
    const int at = k_contiguous ? r * ld + (k0 + k) / UNIT : (k0 + k) * ld + r / UNIT;
    copy_async(slice + (k_contiguous ? r * stride + k : k * stride + r), inside ? tile + at : tile, sizeof(item),
               inside);
  }
}

// The work-item's VW steps of k from k on of one operand's slice, its rows `place` (tm or tn) in groups of VW:
// frag[s][g * VW + v] is row (g * threads + place) * VW + v at step k + s. A K-contiguous slice gives each row's VW
// steps as one vector; an outer-contiguous one each step's VW rows.
#define FRAGMENTS(frag, slice, k_contiguous, stride, place, threads, groups)                                  \
  if (k_contiguous) {                                                                                         \
    _Pragma("unroll") for (int g = 0; g < groups; ++g) _Pragma("unroll") for (int v = 0; v < VW; ++v) {       \
      real steps[VW];                                                                                         \
      STOREV(*(__local const realV*)(slice + ((g * threads + place) * VW + v) * stride + k), steps);          \
      _Pragma("unroll") for (int s = 0; s < VW; ++s) frag[s][g * VW + v] = steps[s];                          \
    }                                                                                                         \
  } else {                                                                                                    \
    _Pragma("unroll") for (int s = 0; s < VW; ++s) _Pragma("unroll") for (int g = 0; g < groups; ++g)         \
        STOREV(*(__local const realV*)(slice + (k + s) * stride + (g * threads + place) * VW), &frag[s][g * VW]); \
  }

// acc += the work-item's rows (tm) of a slice of A times its columns (tn) of the slice of B, VW steps at a time.
inline void multiply_staged_slice(__local const real* a_slice, __local const real* b_slice, const int tm,
                                  const int tn, real acc[WPTM][WPTN]) {
  for (int k = 0; k < TSK; k += VW) {
    real a[VW][WPTM];
    real b[VW][WPTN];
    FRAGMENTS(a, a_slice, A_K_CONTIGUOUS, STRIDE_A, tm, THREADS_M, GROUPS_M)
    FRAGMENTS(b, b_slice, B_K_CONTIGUOUS, STRIDE_B, tn, THREADS_N, GROUPS_N)
#pragma unroll
    for (int s = 0; s < VW; ++s)
#pragma unroll
      for (int i = 0; i < WPTM; ++i)
#pragma unroll
        for (int j = 0; j < WPTN; ++j) acc[i][j] = fma(a[s][i], b[s][j], acc[i][j]);
  }
}

// Starts copying slice s (at k = s * TSK) of A and B into its buffer.
inline void copy_slice(__local real* slices, const int s, __global const item* a_tile, const int lda,
                       __global const item* b_tile, const int ldb, const int rows_a, const int rows_b, const int K,
                       const int tid) {
  __local real* slice = slices + s % STAGES * (SLICE_A + SLICE_B);
  copy_operand(slice, STRIDE_A, a_tile, lda, A_K_CONTIGUOUS, TSM, ITEMS_A, rows_a, s * TSK, K, tid);
  copy_operand(slice + SLICE_A, STRIDE_B, b_tile, ldb, B_K_CONTIGUOUS, TSN, ITEMS_B, rows_b, s * TSK, K, tid);
}

// acc = the work-item's block of this work-group's tile of op(A) * op(B) over all of K. Slices are copied up to
// STAGES - 1 ahead of the one multiplied, one barrier each: after it, slice s has landed for all and all are done
// with the buffer of slice s - 1, which slice s + STAGES - 1 then takes. Slices past K are zeros.
inline void multiply_tile_staged(real acc[WPTM][WPTN], const int M, const int N, const int K,
                                 __global const realV* A, const int a_offset, const int lda, __global const realV* B,
                                 const int b_offset, const int ldb, __local real* slices) {
  const int tid = local_index();
  const int tm = place_m(tid);
  const int tn = place_n(tid);
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  __global const item* a_tile = (__global const item*)A + a_offset + (A_K_CONTIGUOUS ? tile_m * lda : tile_m / UNIT);
  __global const item* b_tile = (__global const item*)B + b_offset + (B_K_CONTIGUOUS ? tile_n * ldb : tile_n / UNIT);
#pragma unroll
  for (int i = 0; i < WPTM; ++i)
#pragma unroll
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;
  const int slice_count = (K + TSK - 1) / TSK;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slice_count) copy_slice(slices, s, a_tile, lda, b_tile, ldb, M - tile_m, N - tile_n, K, tid);
    end_copy_group();  // empty past the last slice, so that every wait below counts the same groups
  }
  for (int s = 0; s < slice_count; ++s) {
    wait_for_copy_groups();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s + STAGES - 1 < slice_count) {
      copy_slice(slices, s + STAGES - 1, a_tile, lda, b_tile, ldb, M - tile_m, N - tile_n, K, tid);
    }
    end_copy_group();
    __local const real* slice = slices + s % STAGES * (SLICE_A + SLICE_B);
    multiply_staged_slice(slice, slice + SLICE_A, tm, tn, acc);
  }
}
)CLC";

inline constexpr char staged_prefetch_product_source[] = R"CLC(
// C = alpha * op(A) * op(B) + beta * C, a TSM x TSN tile of it per work-group, for each problem of a batch.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_staged_prefetch(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  __local real slices[STAGES * (SLICE_A + SLICE_B)] __attribute__((aligned(16)));
  real acc[WPTM][WPTN];
  multiply_tile_staged(acc, M, N, K, A, IN_BATCH(a_offset, a_stride), lda, B, IN_BATCH(b_offset, b_stride), ldb,
                       slices);
  store_block(acc, M, N, alpha, beta, C + IN_BATCH(c_offset, c_stride), ldc, false);
}
)CLC";

// A slice of one operand in local memory, in elements: the larger of its two layouts (the kernel's comment), row by
// row with padding, since the layout is the program's and the configuration's local memory is counted once for all.
constexpr int staged_slice_elements(int outer_tile, int tsk, int vw) { return outer_tile * (tsk + vw); }
constexpr std::size_t staged_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.stages) *
         (staged_slice_elements(t.tsm, t.tsk, t.vw) + staged_slice_elements(t.tsn, t.tsk, t.vw));
}
// The compute capability from which cp.async exists.
inline constexpr int staged_copies_from = 80;

#define TILEGEMM_STAGED_PREFETCH_RULES(RULE)                                                                       \
  RULE(whole_vectors_along_k, whole_vectors_per_item(t),                                                           \
       "the staged_prefetch family reads whole vectors along M, N and K, so WPTM, WPTN and TSK must be multiples " \
       "of the vector width VW.")                                                                                  \
  TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                                   \
  RULE(staged_stages, t.stages >= 2 && t.stages <= 8,                                                              \
       "the staged_prefetch family copies 2 to 8 slices into local memory at once (Stages 2 to 8); Prefetch "      \
       "configurations take them through registers.")                                                              \
  RULE(staged_copy_sizes, t.vw <= 4,                                                                               \
       "the staged_prefetch family copies a vector at a time with cp.async, which moves at most 16 bytes: VW "     \
       "must be 1, 2 or 4.")

template <>
struct FamilyTraits<Family::staged_prefetch> : FamilyDefaults {
  static constexpr char name[] = "staged_prefetch";
  static constexpr OperandAccess access = OperandAccess::either_layout;

  TILEGEMM_RULES_FROM(TILEGEMM_STAGED_PREFETCH_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) { return staged_local_elements(t); }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    lines.define("STAGES", t.stages);
    lines.define("SLICE_A", staged_slice_elements(t.tsm, t.tsk, t.vw));
    lines.define("SLICE_B", staged_slice_elements(t.tsn, t.tsk, t.vw));
  }
  // cp.async is NVIDIA's, from compute capability 8.0; double's 16-byte vectors are VW 2.
  static Implementation can_implement(const TileShape& t, const RunTarget& target) {
    if (target.compute_capability < staged_copies_from) {
      return Implementation::refused(RefusalKind::device,
                                     " copies its slices with cp.async (inline PTX), which needs an NVIDIA GPU of "
                                     "compute capability 8.0 or newer; " +
                                         std::string(target.device_name) + compute_capability_words(target) +
                                         ". Use a Prefetch configuration (the same arithmetic on any device) or "
                                         "AutoConfig.");
    }
    if (static_cast<std::size_t>(t.vw) * target.scalar_size > 16) {
      return Implementation::refused(RefusalKind::operation,
                                     " copies a vector at a time with cp.async, which moves at most 16 bytes: in "
                                     "double VW must be 1 or 2.");
    }
    return {};
  }

  static constexpr TextPiece helpers =
      joined_piece<prefetch_placement_source, async_copies_source, staged_prefetch_source>();
  static constexpr EntryPoint product = {"gemm_staged_prefetch", piece_of<staged_prefetch_product_source>()};
};

}  // namespace detail

// The prefetch kernel's arithmetic with slices copied by cp.async, Stages (2 to 8) deep, on NVIDIA GPUs of compute
// capability 8.0 and newer (VW at most 4 in float, 2 in double).
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW, int Stages>
using StagedPrefetch = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::staged_prefetch, Stages>;

}  // namespace tilegemm
