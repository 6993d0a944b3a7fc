// kernels/tf32_rounding: rounding a float to TF32, the operand format of the tensor cores' float products, shared by
// the tensor_cores kernel (which rounds as it multiplies) and the pack kernel of the core tiles (which rounds once).
#pragma once

#include "program_text.hpp"

namespace tilegemm::detail {

inline constexpr char tf32_rounding_source[] = R"CLC(
// x rounded to the nearest TF32 value, ties away from zero, as cvt.rna.tf32.f32 rounds it (the 10-bit mantissa the
// tensor cores read, low 13 bits 0), but in two integer operations: the conversion runs at a fraction of their rate.
inline float to_tf32(const float x) { return as_float((as_uint(x) + 0x1000u) & 0xffffe000u); }
// tf32x3 in products at most this deep takes the fourth product of the split operands (low x low) too: there the
// operands' 22-bit representation is what errs most (see the tensor_cores kernel).
#define LOW_PRODUCTS_UP_TO 128
)CLC";
inline constexpr TextPiece tf32_rounding = piece_of<tf32_rounding_source>();

}  // namespace tilegemm::detail
