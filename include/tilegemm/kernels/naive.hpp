// kernels/naive: family 1, one work-item per element of C reading A and B straight from global memory.
#pragma once

#include <cstddef>

#include "../config/tile_config.hpp"
#include "caller_operands.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char naive_source[] = R"CLC(
#if LOCAL_ELEMENTS != 0
#error "naive: the kernel takes no local memory, as the host counts (LOCAL_ELEMENTS)"
#endif
__kernel __attribute__((reqd_work_group_size(TSM, TSN, 1)))
void gemm_naive(GEMM_PARAMETERS(real), BATCH_PARAMETERS) {
  const int m = get_global_id(0);
  const int n = get_global_id(1);
  if (m >= M || n >= N) return;  // the range is rounded up to whole work-groups
  A += IN_BATCH(a_offset, a_stride);
  B += IN_BATCH(b_offset, b_stride);
  C += IN_BATCH(c_offset, c_stride);
  real acc = 0;
  for (int k = 0; k < K; ++k) acc += A_AT(m, k) * B_AT(k, n);
  STORE_C(m, n, acc);
}
)CLC";

// One element per work-item, no tiles in K, no vectors.
constexpr bool naive_shape(const TileShape& t) { return t.wptm == 1 && t.wptn == 1 && t.tsk == 1 && t.vw == 1; }

template <>
struct FamilyTraits<Family::naive> : FamilyDefaults {
  static constexpr char name[] = "naive";
  static constexpr OperandAccess access = OperandAccess::caller_layout;

  template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
  static constexpr bool rules_hold() {
    static_assert(naive_shape(TileShape{TSM, TSN, TSK, WPTM, WPTN, VW}),
                  "TileConfig: the naive family computes one element per work-item without tiles in K: use "
                  "TileConfig<TSM, TSN, 1, 1, 1, 1, Family::naive> (or Naive<TSM, TSN>).");
    return true;
  }
  static constexpr const char* rule_broken(const TileShape& t) {
    return naive_shape(t) ? nullptr : "the naive family needs TSK == WPTM == WPTN == VW == 1";
  }
  static constexpr std::size_t local_memory_elements(const TileShape&) { return 0; }

  static constexpr TextPiece helpers = caller_operands;
  static constexpr EntryPoint product = {"gemm_naive", piece(naive_source)};
};

}  // namespace detail

template <int TSM, int TSN>
using Naive = TileConfig<TSM, TSN, 1, 1, 1, 1, Family::naive>;

}  // namespace tilegemm
