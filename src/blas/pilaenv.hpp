// blas/pilaenv: reading TILEGEMM_PILAENV, the panel width the drop-in's pilaenv_ gives ScaLAPACK; a pure function.
#pragma once

#include <optional>
#include <string>

namespace tilegemm::detail::blas {

// The largest TILEGEMM_PILAENV taken: PBLAS rounds loop bounds up to multiples of the width in int, so it must stay
// far from INT_MAX; a million is beyond any local dimension one GPU holds in double.
inline constexpr int largest_pilaenv = 1 << 20;

// TILEGEMM_PILAENV's value: nullopt when unset or empty; else the width, or, when `value` is not a positive integer
// up to largest_pilaenv (digits only), nullopt with `problem` set to a one-line message.
inline std::optional<int> pilaenv_from(const char* value, std::string& problem) {
  problem.clear();
  if (value == nullptr || *value == '\0') return std::nullopt;
  long long width = 0;
  bool digits_only = true;
  for (const char* c = value; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') {
      digits_only = false;
      break;
    }
    width = width * 10 + (*c - '0');
    if (width > largest_pilaenv) break;
  }
  if (!digits_only || width < 1 || width > largest_pilaenv) {
    problem = std::string("tilegemm-blas: TILEGEMM_PILAENV=") + value + " is not a positive integer up to " +
              std::to_string(largest_pilaenv) + "; pilaenv_ gives the CPU library's panel width";
    return std::nullopt;
  }
  return static_cast<int>(width);
}

}  // namespace tilegemm::detail::blas
