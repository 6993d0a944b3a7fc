// untouched_memory: poisoned outputs, sentinels, and the checks that memory around an output was not written.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "reference.hpp"

namespace tilegemm_test {

template <class S>
Matrix<S> poisoned(Eigen::Index rows, Eigen::Index cols) {
  return Matrix<S>::Constant(rows, cols, poison<S>());
}

// A value no product of the tests computes from inputs in [-1, 1] times alpha, beta in [-2, 2] with their small K:
// marks memory that must not be written.
template <class S>
constexpr S sentinel() {
  return S(-9876.5);
}

// Whether two elements are the same value: equal, or both NaN (poison that must stay where it was).
template <class S>
bool same_value(S x, S y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

// "" when every element of `after` outside the rows x cols block at (row, col) is the value of `before` there.
template <class DA, class DB>
std::string outside_unchanged(const Eigen::MatrixBase<DA>& before, const Eigen::MatrixBase<DB>& after, Eigen::Index row,
                              Eigen::Index col, Eigen::Index rows, Eigen::Index cols) {
  for (Eigen::Index j = 0; j < after.cols(); ++j) {
    for (Eigen::Index i = 0; i < after.rows(); ++i) {
      const bool inside = i >= row && i < row + rows && j >= col && j < col + cols;
      if (!inside && !same_value(after(i, j), before(i, j))) {
        std::ostringstream out;
        out << "element (" << i << ", " << j << ") outside the " << rows << "x" << cols << " block at (" << row << ", "
            << col << ") changed from " << before(i, j) << " to " << after(i, j);
        return out.str();
      }
    }
  }
  return "";
}

// "" when every element of `storage` that `is_element` rejects (not an element of the matrix stored there) still
// holds the sentinel.
template <class S, class IsElement>
std::string gaps_unchanged(const std::vector<S>& storage, IsElement&& is_element) {
  for (std::size_t i = 0; i < storage.size(); ++i) {
    if (!is_element(i) && !(storage[i] == sentinel<S>())) {
      return "storage element " + std::to_string(i) + ", outside the matrix, was overwritten with " +
             std::to_string(storage[i]);
    }
  }
  return "";
}

// A rows x cols matrix stored column-major with leading dimension ld in a vector whose other elements (the gaps
// between columns and `margin` elements before and after) hold the sentinel: host-pointer operands with ld > rows.
template <class S>
struct Stored {
  Eigen::Index rows, cols, ld, margin;
  std::vector<S> storage;

  Stored(Eigen::Index r, Eigen::Index c, Eigen::Index l, Eigen::Index m = 5)
      : rows(r), cols(c), ld(l), margin(m), storage(static_cast<std::size_t>(2 * m + l * c), sentinel<S>()) {}
  S* data() { return storage.data() + margin; }
  Eigen::Map<Matrix<S>, 0, Eigen::OuterStride<>> map() { return {data(), rows, cols, Eigen::OuterStride<>(ld)}; }
  void set(const Matrix<S>& values) { map() = values; }
  Matrix<S> values() { return map(); }
  // "" when nothing outside the matrix changed.
  std::string gaps_kept() const {
    return gaps_unchanged(storage, [&](std::size_t i) {
      const long long at = static_cast<long long>(i) - margin;
      return at >= 0 && at < ld * cols && at % ld < rows;
    });
  }
};

}  // namespace tilegemm_test
