// runtime/math_setting: the math mode a call uses: the innermost ScopedMathMode of its thread, else TILEGEMM_MATH.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include "../config/math_mode.hpp"
#include "error.hpp"

namespace tilegemm {
namespace detail {

// The process-wide mode TILEGEMM_MATH names (`text`: its value, null when unset): unset or empty is ieee; anything
// other than ieee, tf32x3, tf32, bf16 or fp16 is refused with tilegemm::Error.
inline MathMode math_mode_from_environment(const char* text) {
  if (text == nullptr || *text == '\0') return MathMode::ieee;
  if (const std::optional<MathMode> mode = parse_math_mode(text)) return *mode;
  throw Error(CL_INVALID_VALUE, std::string("tilegemm: TILEGEMM_MATH is \"") + text +
                                    "\", which names no math mode; expected ieee (IEEE FP32, the default), tf32x3 "
                                    "(tensor cores, FP32-accurate), tf32 (tensor cores, TF32 operands), bf16 or fp16 "
                                    "(tensor cores, operands rounded to bfloat16 or half), or unset.");
}

// The innermost ScopedMathMode's mode on this thread, if any.
inline std::optional<MathMode>& scoped_math_mode() {
  thread_local std::optional<MathMode> mode;
  return mode;
}

}  // namespace detail

// The math mode a call made now on this thread uses: that of the innermost ScopedMathMode alive on the thread, else
// TILEGEMM_MATH's (read once per process; a value that names no mode throws tilegemm::Error at every call).
inline MathMode math_mode() {
  if (const std::optional<MathMode> scoped = detail::scoped_math_mode()) return *scoped;
  static const char* const text = [] {
    const char* value = std::getenv("TILEGEMM_MATH");
    return value ? (new std::string(value))->c_str() : nullptr;  // kept for the process, as the environment is
  }();
  return detail::math_mode_from_environment(text);
}

// Calls made on this thread while one lives use `mode` (float products; see MathMode): a per-call choice for
// gpu_gemm and the other front ends, e.g. { tilegemm::ScopedMathMode tf32(tilegemm::MathMode::tf32); C = gpu_gemm(A,
// B); }. Nested ones stack.
class ScopedMathMode {
 public:
  explicit ScopedMathMode(MathMode mode) : outer_(detail::scoped_math_mode()) { detail::scoped_math_mode() = mode; }
  ~ScopedMathMode() { detail::scoped_math_mode() = outer_; }
  ScopedMathMode(const ScopedMathMode&) = delete;
  ScopedMathMode& operator=(const ScopedMathMode&) = delete;

 private:
  std::optional<MathMode> outer_;
};

}  // namespace tilegemm
