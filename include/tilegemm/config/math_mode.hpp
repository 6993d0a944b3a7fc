// config/math_mode: how float products may use the tensor cores (IEEE FP32, FP32-accurate 3xTF32, TF32, or operands
// rounded to bfloat16 or half), by name.
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
  tf32,    // tensor cores on operands rounded to TF32 (10-bit mantissas): about 3 decimal digits
  // Tensor cores on operands rounded to 16 bits as they enter them (round to nearest even), FP32 accumulation:
  // cuBLAS's CUBLAS_COMPUTE_32F_FAST_16BF and _16F. Each operand off by up to 2^-8 (bf16: float's range, 8-bit
  // significands) or 2^-11 (fp16: IEEE half, magnitudes above 65504 become infinite, below 2^-14 lose bits).
  bf16,
  fp16,
};

namespace detail {

inline constexpr std::string_view math_mode_name(MathMode mode) {
  switch (mode) {
    case MathMode::tf32x3:
      return "tf32x3";
    case MathMode::tf32:
      return "tf32";
    case MathMode::bf16:
      return "bf16";
    case MathMode::fp16:
      return "fp16";
    default:
      return "ieee";
  }
}

// Every mode, in the order they are listed (the tuner's and the benchmark's loops, messages).
inline constexpr MathMode math_modes[] = {MathMode::ieee, MathMode::tf32x3, MathMode::tf32, MathMode::bf16,
                                          MathMode::fp16};

// Whether `mode` rounds float operands to 16 bits (bf16, fp16) on the tensor cores.
inline constexpr bool sixteen_bit_math(MathMode mode) { return mode == MathMode::bf16 || mode == MathMode::fp16; }

// The mode a name (as TILEGEMM_MATH takes it: ieee, tf32x3, tf32, bf16 or fp16, lower case) stands for; none for
// other text.
inline constexpr std::optional<MathMode> parse_math_mode(std::string_view name) {
  for (MathMode mode : math_modes) {
    if (name == math_mode_name(mode)) return mode;
  }
  return std::nullopt;
}

}  // namespace detail
}  // namespace tilegemm
