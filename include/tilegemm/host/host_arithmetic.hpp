// host/host_arithmetic: the only arithmetic the host floor does on C itself: C = R + beta * C as a result R is copied
// out (beta folded into the copy out, so that C is never uploaded) and C = beta * C; compiled once for both scalars.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../config/linkage.hpp"
#include "../runtime/host_threads.hpp"
#include "../runtime/launch.hpp"
#include "host_operand.hpp"

namespace tilegemm::detail {

// to = from + beta * to over `columns` columns of `rows` elements (leading dimensions from_ld and to_ld, all in
// elements of the scalar beta names), on the host threads; with beta zero a copy that never reads `to` (NaN there is
// ignored, as in BLAS).
TILEGEMM_ENTRY void fold_columns(const char* from, std::size_t from_ld, char* to, std::size_t to_ld, std::size_t rows,
                                 std::size_t columns, ScalarValue beta);
#if TILEGEMM_ENTRY_BODIES
template <class S>
void fold_part(const S* from, std::size_t from_ld, S* to, std::size_t to_ld, std::size_t row0, std::size_t row1,
               std::size_t col0, std::size_t col1, S beta) {
  for (std::size_t j = col0; j < col1; ++j) {
    const S* r = from + j * from_ld;
    S* c = to + j * to_ld;
    for (std::size_t i = row0; i < row1; ++i) c[i] = r[i] + beta * c[i];
  }
}
TILEGEMM_ENTRY void fold_columns(const char* from, std::size_t from_ld, char* to, std::size_t to_ld, std::size_t rows,
                                 std::size_t columns, ScalarValue beta) {
  const std::size_t size = beta.is_double ? sizeof(double) : sizeof(float);
  if (beta.value == 0) {
    copy_columns(from, from_ld * size, to, to_ld * size, rows * size, columns, 1);
    return;
  }
  HostThreads& threads = HostThreads::instance();
  const std::size_t parts = std::clamp<std::size_t>(rows * columns * size / (1 << 20), 1, threads.count() * 2);
  const bool by_rows = columns < parts;  // a few long columns: split them
  const std::size_t per_part = ((by_rows ? rows : columns) + parts - 1) / parts;
  threads.run(parts, [&](std::size_t i) {
    const std::size_t length = by_rows ? rows : columns;
    const std::size_t first = std::min(length, i * per_part), last = std::min(length, first + per_part);
    const std::size_t row0 = by_rows ? first : 0, row1 = by_rows ? last : rows;
    const std::size_t col0 = by_rows ? 0 : first, col1 = by_rows ? columns : last;
    if (beta.is_double) {
      fold_part(reinterpret_cast<const double*>(from), from_ld, reinterpret_cast<double*>(to), to_ld, row0, row1, col0,
                col1, beta.value);
    } else {
      fold_part(reinterpret_cast<const float*>(from), from_ld, reinterpret_cast<float*>(to), to_ld, row0, row1, col0,
                col1, static_cast<float>(beta.value));
    }
  });
}
#endif

// C = beta * C, without reading C when beta is zero (NaN there is ignored, as in BLAS).
TILEGEMM_ENTRY void scale_columns(const RawOutput& c, ScalarValue beta);
#if TILEGEMM_ENTRY_BODIES
template <class S>
void scale_part(S* c, std::size_t ld, std::size_t rows, std::size_t columns, S beta) {
  for (std::size_t j = 0; j < columns; ++j) {
    S* column = c + j * ld;
    for (std::size_t i = 0; i < rows; ++i) column[i] = beta == S(0) ? S(0) : beta * column[i];
  }
}
TILEGEMM_ENTRY void scale_columns(const RawOutput& c, ScalarValue beta) {
  const std::size_t ld = static_cast<std::size_t>(c.ld), rows = static_cast<std::size_t>(c.rows),
                    columns = static_cast<std::size_t>(c.cols);
  if (beta.is_double) {
    scale_part(reinterpret_cast<double*>(c.data), ld, rows, columns, beta.value);
  } else {
    scale_part(reinterpret_cast<float*>(c.data), ld, rows, columns, static_cast<float>(beta.value));
  }
}
#endif

// Copies a rows x cols column-major matrix between host storages of one scalar.
inline void copy_host_matrix(const RawInput& from, const RawOutput& to) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(to.cols); ++j)
    std::copy_n(from.at(0, j), static_cast<std::size_t>(to.rows) * to.size, to.at(0, j));
}

}  // namespace tilegemm::detail
