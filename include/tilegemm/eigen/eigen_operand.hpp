// eigen_operand: an Eigen expression seen as column-major storage (pointer, rows, columns, leading dimension,
// transposed or not), evaluated into a temporary only when it has no such storage.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../host/host_operand.hpp"

namespace tilegemm::detail {

// Whether an Eigen expression can take a result: not const, and an lvalue to Eigen.
template <class C>
inline constexpr bool is_writable_v = !std::is_const_v<std::remove_reference_t<C>> &&
                                      (Eigen::internal::traits<std::decay_t<C>>::Flags & Eigen::LvalueBit) != 0;
// The rule every form that writes a host C states (C passed as such, or `const C` where it is const).
template <class C>
constexpr void require_writable() {
  static_assert(is_writable_v<C>,
                "tilegemm: C must be writable (a Matrix, a block of one or a Map of non-const data).");
}

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
