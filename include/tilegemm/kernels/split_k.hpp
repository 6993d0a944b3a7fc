// kernels/split_k: the prefetch kernel's tiles on slices of K in parallel (for small C and long K); the sum of the
// slices is the support program's sum_slices.
#pragma once

#include <cstddef>

#include "../config/tile_config.hpp"
#include "family_defaults.hpp"
#include "kernel_arguments.hpp"
#include "prefetch.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char split_k_kernel_source[] = R"CLC(
// The first pass of split-K: work-group (i, j, s) multiplies the s-th stretch of k_per_slice of K and writes its
// raw sum into slice s of the dense workspace W (at s * slice_stride, leading dimension ldw); sum_slices then
// forms C from the slices.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_split_k(SPLIT_K_PARAMETERS) {
  __local realV a_tiles[2][TSK * ROW_A];  // two buffers: one multiplied while the other is filled
  __local realV b_tiles[2][TSK * ROW_B];
  real acc[WPTM][WPTN];
  const int k_begin = get_group_id(2) * k_per_slice;
  multiply_tile(acc, M, N, K, k_begin, min(K, k_begin + k_per_slice), A, a_offset, lda, B, b_offset, ldb, a_tiles,
                b_tiles);
  store_block(acc, M, N, 1, 0, W + slice_stride * get_group_id(2), ldw, true);
}
)CLC";
inline constexpr auto split_k_source =
    parameters_define<split_k_arguments>("SPLIT_K_PARAMETERS") + split_k_kernel_source;

template <>
struct FamilyTraits<Family::split_k> : FamilyDefaults {
  static constexpr char name[] = "split_k";
  static constexpr OperandAccess access = OperandAccess::either_layout;
  static constexpr bool splits_k = true;
  static constexpr bool takes_batches = false;  // launch dimension 2 holds its slices of K

  TILEGEMM_RULES_FROM(TILEGEMM_DOUBLE_BUFFERED_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) { return double_buffered_local_elements(t); }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) { prefetch_helper_defines(lines, t); }

  static constexpr TextPiece helpers = prefetch_helpers;
  static constexpr EntryPoint product = {"gemm_split_k", piece_of<split_k_source>()};
};

}  // namespace detail

template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using SplitK = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::split_k>;

}  // namespace tilegemm
