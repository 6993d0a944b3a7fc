// kernels/local_tiles: families 2 and 3, square tiles of A and B shared in local memory, WPTN columns per work-item.
#pragma once

#include <cstddef>

#include "../config/tile_config.hpp"
#include "caller_operands.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char local_tiles_source[] = R"CLC(
#if TSK * TSM + TSN * TSK > LOCAL_ELEMENTS
#error "local_tiles: Asub and Bsub take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
// TSM == TSN == TSK (the tile side); a work-group is TSM x (TSN / WPTN) work-items and each work-item computes
// WPTN elements of one row of the tile, spaced THREADS_N columns apart so that neighbours read neighbours.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_local_tiles(GEMM_PARAMETERS(real), BATCH_PARAMETERS) {
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
  const int m = TSM * get_group_id(0) + tm;
  const int n0 = TSN * get_group_id(1) + tn;
  A += IN_BATCH(a_offset, a_stride);
  B += IN_BATCH(b_offset, b_stride);
  C += IN_BATCH(c_offset, c_stride);

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

// Square tiles, one row of C per work-item, no vectors.
constexpr bool local_tiles_shape(const TileShape& t) {
  return t.tsm == t.tsn && t.tsn == t.tsk && t.wptm == 1 && t.vw == 1;
}

template <>
struct FamilyTraits<Family::local_tiles> : FamilyDefaults {
  static constexpr char name[] = "local_tiles";
  static constexpr OperandAccess access = OperandAccess::caller_layout;

#define TILEGEMM_LOCAL_TILES_RULES(RULE)                                                                           \
  RULE(local_tiles_family, local_tiles_shape(t),                                                                   \
       "the local_tiles family needs square tiles (TSM == TSN == TSK), WPTM == 1 and VW == 1; use LocalTiles<TS> " \
       "or MoreWorkPerThread<TS, WPT>.")                                                                           \
  TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                                   \
  TILEGEMM_ONE_STAGE_RULE(RULE)
  TILEGEMM_RULES_FROM(TILEGEMM_LOCAL_TILES_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) {
    return single_buffered_local_elements(t);  // Asub and Bsub
  }

  static constexpr TextPiece helpers = caller_operands;
  static constexpr EntryPoint product = {"gemm_local_tiles", piece_of<local_tiles_source>()};
};

}  // namespace detail

template <int TS>
using LocalTiles = TileConfig<TS, TS, TS, 1, 1, 1, Family::local_tiles>;
template <int TS, int WPT>
using MoreWorkPerThread = TileConfig<TS, TS, TS, 1, WPT, 1, Family::local_tiles>;

}  // namespace tilegemm
