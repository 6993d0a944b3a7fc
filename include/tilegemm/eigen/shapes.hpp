// eigen/shapes: the shape check every gpu_gemm form makes, with both shapes in its message.
#pragma once

#include <Eigen/Core>
#include <stdexcept>
#include <string>

namespace tilegemm::detail {

inline std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

// A (a_rows x a_cols) times B, into C when c_rows >= 0.
inline void check_product_shapes(Eigen::Index a_rows, Eigen::Index a_cols, Eigen::Index b_rows, Eigen::Index b_cols,
                                 Eigen::Index c_rows = -1, Eigen::Index c_cols = -1) {
  if (a_cols != b_rows) {
    throw std::invalid_argument("tilegemm::gpu_gemm: cannot multiply A (" + shape(a_rows, a_cols) + ") by B (" +
                                shape(b_rows, b_cols) + "): the columns of A must equal the rows of B.");
  }
  if (c_rows >= 0 && (c_rows != a_rows || c_cols != b_cols)) {
    throw std::invalid_argument("tilegemm::gpu_gemm: C is " + shape(c_rows, c_cols) + " but A * B, with A " +
                                shape(a_rows, a_cols) + " and B " + shape(b_rows, b_cols) + ", is " +
                                shape(a_rows, b_cols) + ".");
  }
}

}  // namespace tilegemm::detail
