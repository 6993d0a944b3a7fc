// kernels/sixteen_bit_conversion: widening 16-bit operands (half, bfloat16) into dense float copies, and narrowing a
// float result into a 16-bit C with one rounding to nearest even; a support-style program per element.
#pragma once

#include "../config/fixed_string.hpp"
#include "../config/sixteen_bit.hpp"
#include "common.hpp"
#include "kernel_arguments.hpp"
#include "preamble.hpp"
#include "program_text.hpp"
#include "support.hpp"

namespace tilegemm::detail {

inline constexpr std::string_view storage_in = "__global const STORAGE16* restrict";
inline constexpr std::string_view storage_out = "__global STORAGE16*";  // C: read too where beta != 0

// WIDEN_PARAMETERS: the widening kernel. rows x cols at src_offset with leading dimension ld, each problem of a batch
// src_stride elements past the one before; into dense float copies dst_stride apart.
inline constexpr std::array widen_arguments = {
    integer("rows"), integer("cols"),       pointer("src", storage_in),      integer("src_offset"),
    integer("ld"),   integer("src_stride"), pointer("dst", floats_out_only), integer("dst_stride")};
// NARROW_PARAMETERS: the narrowing kernel. R dense (leading dimension rows, problems r_stride apart), read where
// has_r; C at c_offset with leading dimension ldc, problems c_stride apart.
inline constexpr std::array narrow_arguments = {
    integer("rows"),     integer("cols"),           scalar("beta"),      integer("has_r"), pointer("R", floats_in),
    integer("r_stride"), pointer("C", storage_out), integer("c_offset"), integer("ldc"),   integer("c_stride")};

inline constexpr int widen_rows_per_item = 4;  // WIDEN_ROWS: vload_half4 / vload4 of ushort

// Reading and writing 16-bit elements as floats, for every program that converts them (this one, and
// kernels/sixteen_bit_warpgroup.hpp's results).
inline constexpr char sixteen_bit_elements_source[] = R"CLC(
#if !defined(SIXTEEN_BIT) || !defined(STORAGE16)
#error "kernels/sixteen_bit_conversion.hpp needs SIXTEEN_BIT and STORAGE16 from its preamble"
#endif

// Element i of p as a float: exact for both types (every half and bfloat16 is a float).
inline float load16(__global const STORAGE16* p, const int i) {
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
  return vload_half(i, p);
#else
  return as_float((uint)p[i] << 16);
#endif
}
// Elements 0 to 3 of p (vload_half4 and vload4 need p aligned to one element only).
inline float4 load16x4(__global const STORAGE16* p) {
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
  return vload_half4(0, p);
#else
  return as_float4(convert_uint4(vload4(0, p)) << 16);
#endif
}
// value rounded to nearest even, as its 16 bits. NaN stays NaN (bfloat16: quieted, sign kept), infinities stay,
// values past the largest finite one round to infinity as IEEE rounding says, subnormals are kept.
inline ushort rounded16(const float value) {
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
  ushort bits;
  vstore_half_rte(value, 0, (__private half*)&bits);
  return bits;
#else
  const uint bits = as_uint(value);
  return (bits & 0x7fffffffu) > 0x7f800000u ? (ushort)((bits >> 16) | 0x0040u)
                                             : (ushort)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
#endif
}
// p[i] = value rounded to nearest even (rounded16).
inline void store16(const float value, __global STORAGE16* p, const int i) {
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
  vstore_half_rte(value, i, p);
#else
  p[i] = rounded16(value);
#endif
}

)CLC";

inline constexpr char sixteen_bit_conversion_source[] = R"CLC(
#if !defined(PACK_TILE) || !defined(WIDEN_ROWS)
#error "kernels/sixteen_bit_conversion.hpp needs PACK_TILE and WIDEN_ROWS from its preamble"
#endif
#if WIDEN_ROWS != 4
#error "kernels/sixteen_bit_conversion.hpp widens 4 rows per work-item (vload_half4)"
#endif

// dst(i, j) = src(i, j) as floats, dst dense (leading dimension rows): WIDEN_ROWS rows of a column per work-item.
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_TILE, 1)))
void widen_sixteen_bit(WIDEN_PARAMETERS) {
  const int i = get_global_id(0) * WIDEN_ROWS;
  const int j = get_global_id(1);
  if (i >= rows || j >= cols) return;
  __global const STORAGE16* from = src + IN_BATCH(src_offset, src_stride) + j * ld + i;
  __global float* to = dst + IN_BATCH(0, dst_stride) + j * rows + i;
  if (i + WIDEN_ROWS <= rows) {
    vstore4(load16x4(from), 0, to);
  } else {
    for (int r = 0; i + r < rows; ++r) to[r] = load16(from, r);
  }
}

// C(i, j) = round_to_nearest_even(R(i, j) + beta * C(i, j)) in one rounding, R taken as zero where has_r is 0; C is
// not read when beta is zero (NaN there does not leak into the result, as in BLAS).
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_TILE, 1)))
void narrow_sixteen_bit(NARROW_PARAMETERS) {
  const int i = get_global_id(0);
  const int j = get_global_id(1);
  if (i >= rows || j >= cols) return;
  const int at = IN_BATCH(c_offset, c_stride) + i + j * ldc;
  float value = has_r ? R[IN_BATCH(0, r_stride) + i + j * rows] : 0.0f;
  if (beta != 0.0f) value += beta * load16(C, at);
  store16(value, C, at);
}
)CLC";
inline constexpr auto sixteen_bit_parameters_text = parameters_define<widen_arguments>("WIDEN_PARAMETERS") +
                                                    parameters_define<narrow_arguments>("NARROW_PARAMETERS") +
                                                    define_line<widen_rows_per_item>("WIDEN_ROWS");
inline constexpr TextPiece sixteen_bit_conversion_code =
    joined_piece<sixteen_bit_parameters_text, sixteen_bit_elements_source, sixteen_bit_conversion_source>();

inline constexpr char widen_kernel_name[] = "widen_sixteen_bit";
inline constexpr char narrow_kernel_name[] = "narrow_sixteen_bit";

// The conversion program of `element` with tile x tile work-groups; kernel_name picks one of its kernels.
inline ProgramText sixteen_bit_program(SixteenBit element, int tile, const char* kernel_name) {
  static constexpr TextPiece half_defines = piece_of<sixteen_bit_defines_text<SixteenBit::half>>();
  static constexpr TextPiece bfloat16_defines = piece_of<sixteen_bit_defines_text<SixteenBit::bfloat16>>();
  return program_text(kernel_name, {scalar_piece(false, 1), support_defines(tile),
                                    element == SixteenBit::half ? half_defines : bfloat16_defines, common,
                                    sixteen_bit_conversion_code});
}

}  // namespace tilegemm::detail
