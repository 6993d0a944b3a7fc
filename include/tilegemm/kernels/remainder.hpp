// kernels/remainder: the thin rows and columns of C just outside a corner that whole tiles cover, in one launch.
#pragma once

#include "kernel_arguments.hpp"
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
inline constexpr TextPiece remainder_defines = piece_of<remainder_defines_text>();

// Needs the strip source (kernels/strip.hpp) before it, and TRANS_A and TRANS_B in the preamble.
inline constexpr char remainder_source[] = R"CLC(
#if !defined(TRANS_A) || !defined(TRANS_B)
#error "kernels/remainder.hpp needs TRANS_A and TRANS_B from the variant's preamble"
#endif
__kernel __attribute__((reqd_work_group_size(STRIP_THREADS, 1, 1)))
void gemm_remainder(REMAINDER_PARAMETERS) {
  __local real stage[STAGE];
  multiply_strips(get_local_id(0), get_group_id(0), right_groups, groups, M, N, K, m0, n0, TRANS_A, TRANS_B, alpha,
                  beta, A + a_offset, lda, B + b_offset, ldb, C + c_offset, ldc, stage);
}
)CLC";
inline constexpr auto remainder_parameters_text = parameters_define<remainder_arguments>("REMAINDER_PARAMETERS");
inline constexpr EntryPoint remainder_entry = {"gemm_remainder",
                                               joined_piece<remainder_parameters_text, remainder_source>()};

}  // namespace tilegemm::detail
