// host/host_operand: a matrix in host memory as column-major storage (pointer, rows, columns, leading dimension,
// transposed or not), what the host floor and every front end above it hand to the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../config/linkage.hpp"

namespace tilegemm::detail {

template <class Scalar, class Pointer = const Scalar*>
struct HostOperand {
  Pointer data = nullptr;   // first element of the storage
  std::ptrdiff_t rows = 0;  // rows and columns of the storage, read column-major with leading dimension ld;
  std::ptrdiff_t cols = 0;  // the operand is that matrix, or its transpose when `transposed`
  std::ptrdiff_t ld = 1;
  bool transposed = false;
};

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

// The bytes of a dense copy of a host operand.
template <class Scalar, class Pointer>
std::size_t dense_bytes(const HostOperand<Scalar, Pointer>& host) {
  return sizeof(Scalar) * static_cast<std::size_t>(host.rows) * static_cast<std::size_t>(host.cols);
}

// A host operand with its scalar erased (`size` bytes an element; rows, cols and ld in elements): what the floor's
// non-template code takes, so that the transfers and the staged path compile once for both scalars.
template <class Pointer>
struct RawOperand {
  Pointer data = nullptr;
  std::ptrdiff_t rows = 0;
  std::ptrdiff_t cols = 0;
  std::ptrdiff_t ld = 1;
  bool transposed = false;
  std::size_t size = 0;
  // The element at (row, col) of the storage.
  Pointer at(std::size_t row, std::size_t col) const {
    return data + (col * static_cast<std::size_t>(ld) + row) * size;
  }
};
using RawInput = RawOperand<const char*>;
using RawOutput = RawOperand<char*>;

template <class Scalar, class Pointer>
RawInput raw_input(const HostOperand<Scalar, Pointer>& x) {
  return {reinterpret_cast<const char*>(x.data), x.rows, x.cols, x.ld, x.transposed, sizeof(Scalar)};
}
template <class Scalar>
RawOutput raw_output(const HostOperand<Scalar, Scalar*>& x) {
  return {reinterpret_cast<char*>(x.data), x.rows, x.cols, x.ld, x.transposed, sizeof(Scalar)};
}
template <class Pointer>
std::size_t dense_bytes(const RawOperand<Pointer>& x) {
  return x.size * static_cast<std::size_t>(x.rows) * static_cast<std::size_t>(x.cols);
}
template <class P, class Q>
bool storages_overlap(const RawOperand<P>& x, const RawOperand<Q>& y) {
  if (x.rows == 0 || x.cols == 0 || y.rows == 0 || y.cols == 0) return false;
  const auto begin = [](const auto& s) { return reinterpret_cast<std::uintptr_t>(s.data); };
  const auto end = [](const auto& s) {
    return reinterpret_cast<std::uintptr_t>(
        s.at(static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols - 1)));
  };
  return begin(x) < end(y) && begin(y) < end(x);
}

TILEGEMM_ENTRY std::string shape(std::ptrdiff_t rows, std::ptrdiff_t cols);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::string shape(std::ptrdiff_t rows, std::ptrdiff_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}
#endif

}  // namespace tilegemm::detail
