// gemm/shape_class: the classes of product shapes that the tuner times and its winners are kept for.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tilegemm::detail {

// A class of shapes that one configuration serves well: small products of any shape (the cube root of m n k below
// 768), then K much longer than C's sides, C much taller than wide or much wider than tall, and the other (square)
// products by size.
enum class ShapeClass : std::size_t { square_small, square_medium, square_large, tall_skinny, short_wide, large_k };
inline constexpr std::size_t shape_class_count = 6;
inline constexpr std::array<std::string_view, shape_class_count> shape_class_names = {
    "square_small", "square_medium", "square_large", "tall_skinny", "short_wide", "large_k"};

// Where the classes part: by the cube root of m n k for size, a side four times another for a thin shape.
inline constexpr long long thin_ratio = 4;
inline constexpr double medium_from = 768;
inline constexpr double large_from = 2560;

// The class of an m x n x k product (sizes at least 1).
inline ShapeClass shape_class(long long m, long long n, long long k) {
  const double size = std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  if (size < medium_from) return ShapeClass::square_small;
  if (k >= thin_ratio * std::max(m, n)) return ShapeClass::large_k;
  if (m >= thin_ratio * n) return ShapeClass::tall_skinny;
  if (n >= thin_ratio * m) return ShapeClass::short_wide;
  return size < large_from ? ShapeClass::square_medium : ShapeClass::square_large;
}

inline std::string_view shape_class_name(ShapeClass c) { return shape_class_names[static_cast<std::size_t>(c)]; }
inline std::optional<ShapeClass> shape_class_named(std::string_view name) {
  for (std::size_t i = 0; i < shape_class_count; ++i) {
    if (shape_class_names[i] == name) return static_cast<ShapeClass>(i);
  }
  return std::nullopt;
}

}  // namespace tilegemm::detail
