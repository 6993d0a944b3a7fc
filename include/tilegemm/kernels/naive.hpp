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

#define TILEGEMM_NAIVE_RULES(RULE)                                                                    \
  RULE(naive_family, naive_shape(t),                                                                  \
       "the naive family computes one element per work-item without tiles in K: use TileConfig<TSM, " \
       "TSN, 1, 1, 1, 1, Family::naive> (or Naive<TSM, TSN>).")                                       \
  TILEGEMM_ONE_STAGE_RULE(RULE)
  TILEGEMM_RULES_FROM(TILEGEMM_NAIVE_RULES)
  static constexpr std::size_t local_memory_elements(const TileShape&) { return 0; }

  static constexpr TextPiece helpers = caller_operands;
  static constexpr EntryPoint product = {"gemm_naive", piece_of<naive_source>()};
};

}  // namespace detail

template <int TSM, int TSN>
using Naive = TileConfig<TSM, TSN, 1, 1, 1, 1, Family::naive>;

}  // namespace tilegemm
