// config/math_mode: how float products may use the tensor cores (IEEE FP32, FP32-accurate 3xTF32, or TF32), by name.
#pragma once

#include <optional>
#include <string_view>

namespace tilegemm {

// The arithmetic of float products. Double products are the same in every mode: IEEE double, on the FP64 tensor
// cores where the device has them (mma.sync on NVIDIA GPUs of compute capability 8.0 and newer), else on the FP64
// units.
enum class MathMode {
  ieee,    // IEEE FP32 multiply-adds on the ordinary units (the default)
  tf32x3,  // tensor cores, FP32-accurate: each operand split into a TF32 high and low part, three products
  tf32,    // tensor cores on operands rounded to TF32 (10-bit mantissas): fastest, about 3 decimal digits
};

namespace detail {

inline constexpr std::string_view math_mode_name(MathMode mode) {
  switch (mode) {
    case MathMode::tf32x3:
      return "tf32x3";
    case MathMode::tf32:
      return "tf32";
    default:
      return "ieee";
  }
}

// The mode a name (as TILEGEMM_MATH takes it: ieee, tf32x3 or tf32, lower case) stands for; none for other text.
inline constexpr std::optional<MathMode> parse_math_mode(std::string_view name) {
  for (MathMode mode : {MathMode::ieee, MathMode::tf32x3, MathMode::tf32}) {
    if (name == math_mode_name(mode)) return mode;
  }
  return std::nullopt;
}

}  // namespace detail
}  // namespace tilegemm
