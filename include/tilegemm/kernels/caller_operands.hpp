// kernels/caller_operands: how the families that read the caller's A and B directly address their elements.
#pragma once

#include "program_text.hpp"

namespace tilegemm::detail {

inline constexpr char caller_operands_source[] = R"CLC(
#if !defined(TRANS_A) || !defined(TRANS_B)
#error "kernels/caller_operands.hpp needs TRANS_A and TRANS_B from the variant's preamble"
#endif
// Element (m, k) of op(A) and (k, n) of op(B), read from the caller's column-major storage; TRANS_A and TRANS_B
// come from the variant's preamble.
#if TRANS_A
#define A_AT(m, k) A[(k) + (m) * lda]
#else
#define A_AT(m, k) A[(m) + (k) * lda]
#endif
#if TRANS_B
#define B_AT(k, n) B[(n) + (k) * ldb]
#else
#define B_AT(k, n) B[(k) + (n) * ldb]
#endif

// The same elements, or zero outside the M x K and K x N operands (for tiles that cross an edge).
#define A_OR_ZERO(m, k) (((m) < M && (k) < K) ? A_AT(m, k) : (real)0)
#define B_OR_ZERO(k, n) (((k) < K && (n) < N) ? B_AT(k, n) : (real)0)
)CLC";
inline constexpr TextPiece caller_operands = piece_of<caller_operands_source>();

}  // namespace tilegemm::detail
