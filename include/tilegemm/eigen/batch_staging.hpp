// eigen/batch_staging: a batch of host matrices of one shape as one column-major matrix, side by side, so that the
// batch is one upload or one download; and the checks that such a batch fits the kernels and one device buffer.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config/linkage.hpp"
#include "../gemm/arguments.hpp"
#include "../gemm/plan.hpp"
#include "../runtime/device_limits.hpp"
#include "shapes.hpp"

namespace tilegemm::detail {

template <class Scalar>
using HostMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

// The matrices of x (all rows x cols) side by side: x[p] in columns [p * cols, (p + 1) * cols) of one column-major
// rows x (count * cols) matrix, so that problem p starts rows * cols elements after problem p - 1. Expressions and
// row-major matrices are evaluated into it.
template <class Scalar, class Matrix>
HostMatrix<Scalar> side_by_side(const std::vector<Matrix>& x, Eigen::Index rows, Eigen::Index cols) {
  HostMatrix<Scalar> all(rows, cols * static_cast<Eigen::Index>(x.size()));
  for (std::size_t p = 0; p < x.size(); ++p) all.middleCols(static_cast<Eigen::Index>(p) * cols, cols) = x[p];
  return all;
}

// Writes the matrices side by side in `all` back into the matrices of x, one each.
template <class Scalar, class Matrix>
void scatter_side_by_side(const HostMatrix<Scalar>& all, std::vector<Matrix>& x) {
  const Eigen::Index cols = x.empty() ? 0 : x[0].cols();
  for (std::size_t p = 0; p < x.size(); ++p) x[p] = all.middleCols(static_cast<Eigen::Index>(p) * cols, cols);
}

// The elements of `count` dense rows x cols matrices one after the other, or -1 when they are more than the kernels'
// 32-bit indices reach; no arithmetic here overflows for sizes that fit in 2^31 - 1.
inline long long batch_elements(Eigen::Index count, Eigen::Index rows, Eigen::Index cols) {
  if (count < 0 || rows < 0 || cols < 0 || rows > index_limit || cols > index_limit || count > index_limit) return -1;
  const long long one = static_cast<long long>(rows) * cols;  // below 2^62
  if (one > index_limit) return -1;
  const long long all = one * count;  // below 2^62
  return all > index_limit ? -1 : all;
}

// A batch of `count` rows x cols matrices (one operand of every problem) must be indexable by the kernels' 32-bit
// ints and fit one buffer of the device: checked before anything is allocated. `function` names the caller.
TILEGEMM_ENTRY void require_batch_copy_fits(const char* function, const DeviceLimits& device, const char* name,
                                            Eigen::Index count, Eigen::Index rows, Eigen::Index cols,
                                            std::size_t scalar_size);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void require_batch_copy_fits(const char* function, const DeviceLimits& device, const char* name,
                                            Eigen::Index count, Eigen::Index rows, Eigen::Index cols,
                                            std::size_t scalar_size) {
  const long long elements = batch_elements(count, rows, cols);
  if (elements < 0) {
    throw std::invalid_argument(std::string(function) + ": the " + std::to_string(count) + " matrices " + name +
                                " of the batch (" + shape(rows, cols) +
                                " each) hold more elements than the kernels' 32-bit indices reach (at most " +
                                std::to_string(index_limit) + " in one operand of a batch); multiply it in parts.");
  }
  require_allocation(
      device, static_cast<unsigned long long>(elements) * scalar_size,
      std::string("the batch of ") + name + " (" + std::to_string(count) + " matrices of " + shape(rows, cols) + ")",
      "Multiply the batch in parts, or choose a device with more memory.");
}
#endif

}  // namespace tilegemm::detail
