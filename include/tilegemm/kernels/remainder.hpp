// kernels/remainder: the thin rows and columns of C just outside a corner that whole tiles cover, in one launch.
#pragma once

#include "program_text.hpp"
#include "strip.hpp"

namespace tilegemm::detail {

inline constexpr int remainder_panel = 8;   // PANEL: long-side elements of C per work-group
inline constexpr int remainder_lanes = 32;  // LANES: work-items per element, each summing every 32nd product
static_assert(strip_sums_fit(remainder_panel, remainder_lanes),
              "the strip code's partial sums must fit its stage in local memory");
inline constexpr PreambleLines remainder_defines_text = [] {
  PreambleLines lines;
  strip_defines(lines, remainder_panel, remainder_lanes);
  return lines;
}();
inline constexpr TextPiece remainder_defines = piece(remainder_defines_text.view());

// Needs the strip source (kernels/strip.hpp) before it, and TRANS_A and TRANS_B in the preamble.
inline constexpr char remainder_source[] = R"CLC(
__kernel __attribute__((reqd_work_group_size(STRIP_THREADS, 1, 1)))
void gemm_remainder(const int M, const int N, const int K, const int m0, const int n0, const real alpha,
                    const real beta, __global const real* restrict A, const int a_offset, const int lda,
                    __global const real* restrict B, const int b_offset, const int ldb,
                    __global real* C, const int c_offset, const int ldc, const int right_groups, const int groups) {
  __local real stage[STAGE];
  multiply_strips(get_local_id(0), get_group_id(0), right_groups, groups, M, N, K, m0, n0, TRANS_A, TRANS_B, alpha,
                  beta, A + a_offset, lda, B + b_offset, ldb, C + c_offset, ldc, stage);
}
)CLC";
inline constexpr EntryPoint remainder_entry = {"gemm_remainder", piece(remainder_source)};

}  // namespace tilegemm::detail
