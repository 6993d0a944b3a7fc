// kernels/register_blocking: families 5, 6, 7 and 10, WPTM x WPTN blocks of C in registers per work-item.
#pragma once

#include <cstddef>

#include "../config/tile_config.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char register_blocking_source[] = R"CLC(
#if TSK * TSM + TSK * TSN > LOCAL_ELEMENTS
#error "register_blocking: Asub and Bsub take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
// Reads packed operands: A is M-contiguous and B N-contiguous (B transposed), both zero-padded to whole tiles,
// addressed in vectors of VW (offsets and leading dimensions too). K is the padded depth, a multiple of TSK.
// Work-item (tm, tn) computes rows tm + i * THREADS_M and columns tn + j * THREADS_N of the tile, so that
// neighbouring work-items read neighbouring words of local memory and write neighbouring elements of C.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_register_blocking(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  const int tm = get_local_id(0);
  const int tn = get_local_id(1);
  const int tid = tn * THREADS_M + tm;
  const int tile_m = TSM * get_group_id(0);
  const int tile_n = TSN * get_group_id(1);
  A += IN_BATCH(a_offset, a_stride) + tile_m / VW;
  B += IN_BATCH(b_offset, b_stride) + tile_n / VW;
  C += IN_BATCH(c_offset, c_stride);

  __local real Asub[TSK][TSM];  // Asub[k][m]
  __local real Bsub[TSK][TSN];  // Bsub[k][n]
  real acc[WPTM][WPTN];
  for (int i = 0; i < WPTM; ++i)
    for (int j = 0; j < WPTN; ++j) acc[i][j] = 0;

  for (int k0 = 0; k0 < K; k0 += TSK) {
    for (int l = 0; l < LOADS_A; ++l) {
      const int id = l * THREADS + tid;
      const int k = id / (TSM / VW);
      const int v = id % (TSM / VW);
      STOREV(A[(k0 + k) * lda + v], &Asub[k][v * VW]);
    }
    for (int l = 0; l < LOADS_B; ++l) {
      const int id = l * THREADS + tid;
      const int k = id / (TSN / VW);
      const int v = id % (TSN / VW);
      STOREV(B[(k0 + k) * ldb + v], &Bsub[k][v * VW]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TSK; ++k) {
      real b[WPTN];
      for (int j = 0; j < WPTN; ++j) b[j] = Bsub[k][tn + j * THREADS_N];
      for (int i = 0; i < WPTM; ++i) {
        const real a = Asub[k][tm + i * THREADS_M];
        for (int j = 0; j < WPTN; ++j) acc[i][j] += a * b[j];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < WPTM; ++i)
    for (int j = 0; j < WPTN; ++j) STORE_C(tile_m + tm + i * THREADS_M, tile_n + tn + j * THREADS_N, acc[i][j]);
}
)CLC";

template <>
struct FamilyTraits<Family::register_blocking> : FamilyDefaults {
  static constexpr char name[] = "register_blocking";
  static constexpr OperandAccess access = OperandAccess::packed;

#define TILEGEMM_REGISTER_BLOCKING_RULES(RULE) \
  TILEGEMM_LOADS_EVEN_RULE(RULE)               \
  TILEGEMM_ONE_STAGE_RULE(RULE)
  TILEGEMM_RULES_FROM(TILEGEMM_REGISTER_BLOCKING_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape& t) {
    return single_buffered_local_elements(t);  // Asub and Bsub
  }

  static constexpr EntryPoint product = {"gemm_register_blocking", piece_of<register_blocking_source>()};
};

}  // namespace detail

// Kernel 5: B read transposed (N-contiguous), WPTN columns per work-item.
template <int TSM, int TSN, int TSK, int WPTN>
using TransposedB = TileConfig<TSM, TSN, TSK, 1, WPTN, 1, Family::register_blocking>;
// Kernel 6: WPTM x WPTN blocks in registers.
template <int TSM, int TSN, int TSK, int WPTM, int WPTN>
using RegisterBlocking = TileConfig<TSM, TSN, TSK, WPTM, WPTN, 1, Family::register_blocking>;
// Kernels 7 and 10: the same with VW-wide loads, independent TSM and TSN.
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using VectorLoads = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::register_blocking>;

}  // namespace tilegemm
