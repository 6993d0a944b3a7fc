// gemm/overlap: whether two column-major operands share memory, in the same buffer or in sub-buffers of one.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../runtime/opencl.hpp"

namespace tilegemm::detail {

// A buffer as the allocation it lies in: the root buffer (itself, or the buffer a sub-buffer was made from) and
// its first byte there.
struct MemoryOrigin {
  cl_mem root = nullptr;
  std::size_t byte_offset = 0;
};

inline MemoryOrigin origin_of(const cl::Buffer& buffer) {
  MemoryOrigin origin{buffer(), 0};
  cl_mem parent = nullptr;
  if (buffer.getInfo(CL_MEM_ASSOCIATED_MEMOBJECT, &parent) == CL_SUCCESS && parent != nullptr) {
    std::size_t offset = 0;
    buffer.getInfo(CL_MEM_OFFSET, &offset);
    origin = {parent, offset};  // OpenCL makes sub-buffers of root buffers only
  }
  return origin;
}

// A rows x cols column-major operand in bytes from its allocation's start: column j covers
// [first + j * column_step, first + j * column_step + column_bytes).
struct ColumnSpans {
  long long first = 0;
  long long column_step = 0;
  long long column_bytes = 0;
  long long columns = 0;
};

// Whether some column of x overlaps some column of y: for each column of x, the columns of y that could reach it
// lie in one range of indices, worked out in O(1); so disjoint interleaved blocks of one matrix do not overlap.
inline bool spans_overlap(const ColumnSpans& x, const ColumnSpans& y) {
  if (x.columns > y.columns) return spans_overlap(y, x);
  const auto floor_div = [](long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  for (long long j = 0; j < x.columns; ++j) {
    const long long start = x.first + j * x.column_step;
    const long long end = start + x.column_bytes;
    // Column q of y overlaps when y.first + q * step < end and y.first + q * step + y.column_bytes > start.
    const long long low = std::max(0LL, floor_div(start - y.column_bytes - y.first, y.column_step) + 1);
    const long long high = std::min(y.columns - 1, floor_div(end - 1 - y.first, y.column_step));
    if (low <= high) return true;
  }
  return false;
}

// Whether two stored operands (offset and leading dimension in elements of `scalar_size` bytes) share memory.
inline bool operands_overlap(const cl::Buffer& x, long long x_offset, long long x_ld, long long x_rows,
                             long long x_cols, const cl::Buffer& y, long long y_offset, long long y_ld,
                             long long y_rows, long long y_cols, std::size_t scalar_size) {
  if (x_rows == 0 || x_cols == 0 || y_rows == 0 || y_cols == 0) return false;
  const MemoryOrigin ox = origin_of(x), oy = origin_of(y);
  if (ox.root != oy.root) return false;
  const long long size = static_cast<long long>(scalar_size);
  const ColumnSpans sx{static_cast<long long>(ox.byte_offset) + x_offset * size, x_ld * size, x_rows * size, x_cols};
  const ColumnSpans sy{static_cast<long long>(oy.byte_offset) + y_offset * size, y_ld * size, y_rows * size, y_cols};
  return spans_overlap(sx, sy);
}

}  // namespace tilegemm::detail
