// eigen/shapes: the shape check every gpu_gemm form makes, with both shapes in its message, and the one every
// gpu_gemm_batched form makes: one shape for all problems of a batch.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config/linkage.hpp"
#include "../host/host_operand.hpp"

namespace tilegemm::detail {

// A (a_rows x a_cols) times B, into C when c_rows >= 0.
TILEGEMM_ENTRY void check_product_shapes(Eigen::Index a_rows, Eigen::Index a_cols, Eigen::Index b_rows,
                                         Eigen::Index b_cols, Eigen::Index c_rows = -1, Eigen::Index c_cols = -1);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void check_product_shapes(Eigen::Index a_rows, Eigen::Index a_cols, Eigen::Index b_rows,
                                         Eigen::Index b_cols, Eigen::Index c_rows, Eigen::Index c_cols) {
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
#endif

// Every matrix of x (one operand of each problem of a batch) has the shape of the first; `function` and `name` say
// whose and which in the message.
template <class Matrix>
void check_one_shape(const std::vector<Matrix>& x, const char* function, const char* name) {
  for (std::size_t p = 1; p < x.size(); ++p) {
    if (x[p].rows() != x[0].rows() || x[p].cols() != x[0].cols()) {
      throw std::invalid_argument(std::string(function) + ": every problem of a batch has the same shape, but " + name +
                                  "[" + std::to_string(p) + "] is " + shape(x[p].rows(), x[p].cols()) + " while " +
                                  name + "[0] is " + shape(x[0].rows(), x[0].cols()) +
                                  ". Multiply products of other shapes in a batch of their own.");
    }
  }
}

// The batch's operands (A, B, and C when `c` is given): vectors of one length whose matrices all have the shape of the
// first, A's columns B's rows, C's shape that of A * B. Shapes are read with rows() and cols(), so that host and
// device matrices are checked alike.
template <class MatrixA, class MatrixB, class MatrixC = MatrixA>
void check_batch_shapes(const std::vector<MatrixA>& a, const std::vector<MatrixB>& b,
                        const std::vector<MatrixC>* c = nullptr) {
  static constexpr char function[] = "tilegemm::gpu_gemm_batched";
  const auto fail = [](const std::string& message) { throw std::invalid_argument(function + (": " + message)); };
  if (a.size() != b.size() || (c && c->size() != a.size())) {
    fail("the batch has " + std::to_string(a.size()) + " A, " + std::to_string(b.size()) + " B" +
         (c ? " and " + std::to_string(c->size()) + " C" : std::string()) +
         " matrices; it needs as many of each, one of each per problem.");
  }
  check_one_shape(a, function, "A");
  check_one_shape(b, function, "B");
  if (c) check_one_shape(*c, function, "C");
  if (a.empty()) return;
  if (a[0].cols() != b[0].rows()) {
    fail("cannot multiply A (" + shape(a[0].rows(), a[0].cols()) + ") by B (" + shape(b[0].rows(), b[0].cols()) +
         "): the columns of A must equal the rows of B.");
  }
  if (c && ((*c)[0].rows() != a[0].rows() || (*c)[0].cols() != b[0].cols())) {
    fail("C is " + shape((*c)[0].rows(), (*c)[0].cols()) + " but A * B, with A " + shape(a[0].rows(), a[0].cols()) +
         " and B " + shape(b[0].rows(), b[0].cols()) + ", is " + shape(a[0].rows(), b[0].cols()) + ".");
  }
}

}  // namespace tilegemm::detail
