// eigen_operand: an Eigen expression seen as column-major storage (pointer, rows, columns, leading dimension,
// transposed or not), evaluated into a temporary only when it has no such storage.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>

namespace tilegemm::detail {

template <class Scalar, class Pointer = const Scalar*>
struct HostOperand {
  Pointer data = nullptr;  // first element of the storage
  Eigen::Index rows = 0;   // rows and columns of the storage, read column-major with leading dimension ld;
  Eigen::Index cols = 0;   // the operand is that matrix, or its transpose when `transposed`
  Eigen::Index ld = 1;
  bool transposed = false;
};

template <class Derived>
inline constexpr bool has_direct_access = (Eigen::internal::traits<Derived>::Flags & Eigen::DirectAccessBit) != 0;

// The storage behind `x` when it is dense with unit inner stride and columns that do not overlap (an outer stride
// of at least the rows; a Map may have less, even 0): row-major storage is the column-major storage of the
// transpose. Returns false (and leaves `out` alone) when `x` must be evaluated first (or, as C, go through a copy).
template <class Derived, class Pointer>
bool direct_storage(Derived& x, HostOperand<typename Derived::Scalar, Pointer>& out) {
  if constexpr (has_direct_access<Derived>) {
    if (x.innerStride() != 1) return false;
    const bool row_major = Derived::IsRowMajor;
    const Eigen::Index rows = row_major ? x.cols() : x.rows();
    const Eigen::Index cols = row_major ? x.rows() : x.cols();
    if (cols > 1 && x.outerStride() < std::max<Eigen::Index>(rows, 1)) return false;
    out.data = x.data();
    out.rows = rows;
    out.cols = cols;
    out.ld = cols <= 1 ? std::max<Eigen::Index>(rows, 1) : x.outerStride();  // one column: never used
    out.transposed = row_major;
    return true;
  } else {
    return false;
  }
}

// A read-only operand; `evaluated` owns the values of expressions without direct storage (sums, products...).
// Whether two storages share memory: whether the spans from their first to their last element overlap (so two
// blocks of rows of one matrix do, as their columns interleave).
template <class Scalar, class P, class Q>
bool storages_overlap(const HostOperand<Scalar, P>& x, const HostOperand<Scalar, Q>& y) {
  if (x.rows == 0 || x.cols == 0 || y.rows == 0 || y.cols == 0) return false;
  const auto begin = [](const auto& s) { return reinterpret_cast<std::uintptr_t>(s.data); };
  const auto end = [](const auto& s) {
    return reinterpret_cast<std::uintptr_t>(s.data + (s.cols - 1) * s.ld + s.rows);
  };
  return begin(x) < end(y) && begin(y) < end(x);
}

template <class Scalar>
struct InputOperand : HostOperand<Scalar> {
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> evaluated;
};

template <class Derived>
void describe_input(const Eigen::MatrixBase<Derived>& x, InputOperand<typename Derived::Scalar>& out) {
  if (direct_storage(x.derived(), static_cast<HostOperand<typename Derived::Scalar>&>(out))) return;
  out.evaluated = x;
  out.data = out.evaluated.data();
  out.rows = out.evaluated.rows();
  out.cols = out.evaluated.cols();
  out.ld = std::max<Eigen::Index>(out.rows, 1);
  out.transposed = false;
}

}  // namespace tilegemm::detail
