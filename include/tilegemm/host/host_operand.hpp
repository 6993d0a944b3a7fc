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

TILEGEMM_ENTRY std::string shape(std::ptrdiff_t rows, std::ptrdiff_t cols);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::string shape(std::ptrdiff_t rows, std::ptrdiff_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}
#endif

}  // namespace tilegemm::detail
