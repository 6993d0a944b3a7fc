// scalar: the element types tilegemm supports (float, double) and their OpenCL C spellings.
#pragma once

#include <type_traits>

#include "fixed_string.hpp"

namespace tilegemm::detail {

template <class Scalar>
inline constexpr bool is_supported_scalar = std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>;

template <class Scalar>
constexpr void require_supported_scalar() {
  static_assert(is_supported_scalar<Scalar>,
                "tilegemm multiplies float and double matrices only: convert the operands with .cast<float>() or "
                ".cast<double>() first.");
}

// OpenCL C lines that define `real` as the scalar type and `realV` as a vector of `Width` of them.
template <class Scalar, int Width>
constexpr auto scalar_preamble() {
  require_supported_scalar<Scalar>();
  constexpr auto type = [] {
    if constexpr (std::is_same_v<Scalar, double>) {
      return fixed_string("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define real double\n");
    } else {
      return fixed_string("#define real float\n");
    }
  }();
  constexpr auto name = [] {
    if constexpr (std::is_same_v<Scalar, double>) {
      return fixed_string("double");
    } else {
      return fixed_string("float");
    }
  }();
  if constexpr (Width == 1) {
    return type + "#define realV real\n#define STOREV(value, pointer) (*(pointer) = (value))\n";
  } else {
    return type + "#define realV " + name + to_fixed_string<Width>() + "\n#define STOREV(value, pointer) vstore" +
           to_fixed_string<Width>() + "((value), 0, (pointer))\n";
  }
}

}  // namespace tilegemm::detail
