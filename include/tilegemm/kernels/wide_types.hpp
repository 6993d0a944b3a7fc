// kernels/wide_types: family 4, vector types for loads and arithmetic, VW rows of C per work-item.
#pragma once

#include <cstddef>

#include "../config/tile_config.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char wide_types_source[] = R"CLC(
#if TSK * (TSM / VW) * VW + TSK * TSN > LOCAL_ELEMENTS
#error "wide_types: Asub and Bsub take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
// Reads packed operands: A is M-contiguous and B N-contiguous (B transposed), both zero-padded to whole tiles,
// addressed in vectors of VW (offsets and leading dimensions too). K is the padded depth, a multiple of TSK.
// Each work-item holds a vector of VW consecutive rows of one column of C and updates it with one vector
// multiply-add per step of k.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_wide_types(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
  const int tid = tn * THREADS_M + tm;
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  A += IN_BATCH(a_offset, a_stride) + tile_m / VW;
  B += IN_BATCH(b_offset, b_stride) + tile_n / VW;
  C += IN_BATCH(c_offset, c_stride);

  __local realV Asub[TSK][TSM / VW];  // Asub[k][m / VW]
  __local real Bsub[TSK][TSN];        // Bsub[k][n]
  realV acc = 0;

  for (int k0 = 0; k0 < K; k0 += TSK) {
    for (int l = 0; l < LOADS_A; ++l) {
      const int id = l * THREADS + tid;
      Asub[id / (TSM / VW)][id % (TSM / VW)] = A[(k0 + id / (TSM / VW)) * lda + id % (TSM / VW)];
    }
    for (int l = 0; l < LOADS_B; ++l) {
      const int id = l * THREADS + tid;
      const int k = id / (TSN / VW);
      const int v = id % (TSN / VW);
      STOREV(B[(k0 + k) * ldb + v], &Bsub[k][v * VW]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TSK; ++k) acc += Asub[k][tm] * Bsub[k][tn];
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  real rows[VW];
  STOREV(acc, rows);
  for (int i = 0; i < VW; ++i) STORE_C(tile_m + tm * VW + i, tile_n + tn, rows[i]);
}
)CLC";

// Square tiles, a vector of VW rows of C per work-item.
constexpr bool wide_types_shape(const TileShape& t) {
  return t.tsm == t.tsn && t.tsn == t.tsk && t.wptm == t.vw && t.wptn == 1 && t.vw > 1;
}

template <>
struct FamilyTraits<Family::wide_types> : FamilyDefaults {
  static constexpr char name[] = "wide_types";
  static constexpr OperandAccess access = OperandAccess::packed;

#define TILEGEMM_WIDE_TYPES_RULES(RULE)                                                                   \
  RULE(wide_types_family, wide_types_shape(t),                                                            \
       "the wide_types family needs square tiles (TSM == TSN == TSK), WPTM == VW > 1 and WPTN == 1; use " \
       "WideTypes<TS, WIDTH>.")                                                                           \
  TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                          \
  TILEGEMM_ONE_STAGE_RULE(RULE)
  TILEGEMM_RULES_FROM(TILEGEMM_WIDE_TYPES_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) {
    return single_buffered_local_elements(t);  // Asub and Bsub
  }

  static constexpr EntryPoint product = {"gemm_wide_types", piece_of<wide_types_source>()};
};

}  // namespace detail

template <int TS, int WIDTH>
using WideTypes = TileConfig<TS, TS, TS, WIDTH, 1, WIDTH, Family::wide_types>;

}  // namespace tilegemm
