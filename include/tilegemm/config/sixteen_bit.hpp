// config/sixteen_bit: the 16-bit storage types (Eigen::half, Eigen::bfloat16), their layout, the outputs a product of
// them may have, and their OpenCL C spellings: one definition for C++ and OpenCL C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "fixed_string.hpp"

// The types come from Eigen (3.4 and newer). Without Eigen's headers on the include path (core.hpp users without
// Eigen) no type is 16-bit storage and the 16-bit forms are never instantiated; the runtime's entries for them take
// the element as a run-time value (SixteenBit) and compile either way.
#if __has_include(<Eigen/Core>)
#include <Eigen/Core>
#define TILEGEMM_HAS_SIXTEEN_BIT 1
#else
#define TILEGEMM_HAS_SIXTEEN_BIT 0
#endif

namespace tilegemm::detail {

// A 16-bit storage element: IEEE binary16 (Eigen::half) or the top 16 bits of a float (Eigen::bfloat16). The values
// are the OpenCL C ones too (SIXTEEN_BIT_HALF, SIXTEEN_BIT_BFLOAT16 in sixteen_bit_defines_text).
enum class SixteenBit { half = 1, bfloat16 = 2 };
// Its name in messages: "half" or "bfloat16".
constexpr const char* sixteen_bit_name(SixteenBit element) { return element == SixteenBit::half ? "half" : "bfloat16"; }

// The type a 16-bit product's result is stored in: the inputs' 16-bit type (one rounding) or float.
enum class SixteenBitOutput { same = 0, float32 = 1 };

inline constexpr std::size_t sixteen_bit_size = 2;  // bytes an element: A and B are uploaded as they are

// The preamble of a conversion program (kernels/sixteen_bit_conversion.hpp): which element it converts and the OpenCL C
// type its buffers are read through, STORAGE16: `half` for vload_half / vstore_half_rte (core OpenCL C: a pointer to
// half needs no cl_khr_fp16, which is never enabled), `ushort` for bfloat16 (shifts only).
template <SixteenBit Element>
constexpr auto storage_define() {
  if constexpr (Element == SixteenBit::half) {
    return fixed_string("#define STORAGE16 half\n");
  } else {
    return fixed_string("#define STORAGE16 ushort\n");
  }
}
template <SixteenBit Element>
inline constexpr auto sixteen_bit_defines_text =
    define_line<static_cast<int>(SixteenBit::half)>("SIXTEEN_BIT_HALF") +
    define_line<static_cast<int>(SixteenBit::bfloat16)>("SIXTEEN_BIT_BFLOAT16") +
    define_line<static_cast<int>(Element)>("SIXTEEN_BIT") + storage_define<Element>();

// Whether T is a 16-bit storage type, and which; the primary template says no.
template <class T>
struct SixteenBitTraits {
  static constexpr bool value = false;
};
template <class T>
inline constexpr bool is_sixteen_bit = SixteenBitTraits<std::remove_cv_t<T>>::value;

// The float-like types: alpha and beta of a 16-bit product are float; the output may be the input type or float.
template <class In, class Out>
inline constexpr bool is_sixteen_bit_output = std::is_same_v<Out, In> || std::is_same_v<Out, float>;

// The sentence for A and B of different element types (a half A with a float B, or half with bfloat16).
template <class A, class B>
constexpr void require_same_inputs() {
  static_assert(std::is_same_v<std::remove_cv_t<A>, std::remove_cv_t<B>>,
                "tilegemm: A and B must have the same element type (a half A with a float B, or half with bfloat16, "
                "is not multiplied): convert one of them with .cast<>() first.");
}

#if TILEGEMM_HAS_SIXTEEN_BIT
// The layout the device reads: two bytes of plain data, uploaded as they are.
template <class T>
constexpr bool two_plain_bytes() {
  return sizeof(T) == sixteen_bit_size && alignof(T) <= sixteen_bit_size && std::is_standard_layout_v<T> &&
         std::is_trivially_copyable_v<T>;
}
static_assert(two_plain_bytes<Eigen::half>(),
              "tilegemm: Eigen::half must be two bytes of plain data (IEEE binary16) to be uploaded as it is");
static_assert(two_plain_bytes<Eigen::bfloat16>(),
              "tilegemm: Eigen::bfloat16 must be two bytes of plain data (a float's top 16 bits) to be uploaded as it "
              "is");

template <>
struct SixteenBitTraits<Eigen::half> {
  static constexpr bool value = true;
  static constexpr SixteenBit element = SixteenBit::half;
};
template <>
struct SixteenBitTraits<Eigen::bfloat16> {
  static constexpr bool value = true;
  static constexpr SixteenBit element = SixteenBit::bfloat16;
};
#endif

// The output of a product of In (16-bit) into Out, or a sentence where Out is neither In nor float.
template <class In, class Out>
constexpr SixteenBitOutput sixteen_bit_output() {
  static_assert(is_sixteen_bit_output<In, Out>,
                "tilegemm: the result of a 16-bit product is stored in the inputs' type or in float: name it as "
                "gemm<Eigen::half>, gemm<Eigen::half, Eigen::half> or gemm<Eigen::half, float>.");
  return std::is_same_v<Out, float> ? SixteenBitOutput::float32 : SixteenBitOutput::same;
}

}  // namespace tilegemm::detail
