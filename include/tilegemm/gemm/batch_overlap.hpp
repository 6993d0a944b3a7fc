// gemm/batch_overlap: whether the problems of a batch share memory: a strided batch's C problems with each other,
// and with A's or B's, in the same buffer or in sub-buffers of one; and whether any two of a list of operands do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../runtime/opencl.hpp"
#include "overlap.hpp"

namespace tilegemm::detail {

// One operand of each problem of a strided batch, in bytes from its allocation's start: problem p is `problem`
// moved on by p * step bytes.
struct BatchSpans {
  ColumnSpans problem;
  long long step = 0;
  long long problems = 0;

  // The bytes one problem's operand reaches past its first: from its first column's start to its last one's end.
  long long extent() const { return (problem.columns - 1) * problem.column_step + problem.column_bytes; }
  bool empty() const { return problems == 0 || problem.columns == 0 || problem.column_bytes == 0; }
};

// The batch of a stored operand (offset, leading dimension and stride in elements of `scalar_size` bytes) in bytes
// from the start of the allocation `origin` says it lies in.
inline BatchSpans batch_spans(const MemoryOrigin& origin, long long offset, long long ld, long long rows,
                              long long cols, long long stride, long long problems, std::size_t scalar_size) {
  const long long size = static_cast<long long>(scalar_size);
  return {{static_cast<long long>(origin.byte_offset) + offset * size, ld * size, rows * size, cols},
          stride * size,
          problems};
}

// Whether an operand meets itself moved on by `shift` bytes (shift > 0): column c of it meets column c' of the moved
// one when |t * column_step - shift| < column_bytes for t = c - c', and the t nearest shift / column_step decide.
inline bool meets_itself_moved(const ColumnSpans& x, long long shift) {
  const long long nearest = std::min(x.columns - 1, shift / x.column_step);
  for (const long long t : {nearest, std::min(x.columns - 1, nearest + 1)}) {
    const long long gap = t * x.column_step - shift;
    if (gap < x.column_bytes && -gap < x.column_bytes) return true;
  }
  return false;
}

// Whether two problems of the batch share memory. Problems p < q meet as problems 0 and q - p do, so only the shifts
// j * step matter, and only those below one problem's extent; each is decided in O(1).
inline bool problems_overlap(const BatchSpans& x) {
  if (x.empty() || x.problems < 2) return false;
  if (x.step == 0) return true;
  for (long long j = 1; j < x.problems && j * x.step < x.extent(); ++j) {
    if (meets_itself_moved(x.problem, j * x.step)) return true;
  }
  return false;
}

// The index of the first problem of two that shares memory, where problems_overlap found some (for messages).
inline long long first_overlapping_problem(const BatchSpans& x) {
  if (x.step == 0) return 1;
  for (long long j = 1; j < x.problems && j * x.step < x.extent(); ++j) {
    if (meets_itself_moved(x.problem, j * x.step)) return j;
  }
  return 0;
}

// Pairs of problems whose extents meet that batches_overlap compares column by column before it gives up: batches
// laid out that densely among each other (operands of A whose problems overlap each other, interleaved with C's)
// are refused rather than checked for minutes.
inline constexpr long long overlap_pairs_checked_at_most = 1LL << 22;

// Whether some problem of batch x shares memory with some problem of batch y (both in one allocation). For each
// problem of x, the problems of y whose extents meet its extent are a range of indices, worked out in O(1); those
// are compared column by column (spans_overlap). Throws std::invalid_argument past overlap_pairs_checked_at_most.
inline bool batches_overlap(const BatchSpans& x, const BatchSpans& y) {
  if (x.empty() || y.empty()) return false;
  const auto floor_div = [](long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const long long x_last = x.problem.first + (x.problems - 1) * x.step + x.extent();
  const long long y_last = y.problem.first + (y.problems - 1) * y.step + y.extent();
  if (x_last <= y.problem.first || y_last <= x.problem.first) return false;  // the batches lie apart
  long long pairs = 0;
  for (long long p = 0; p < x.problems; ++p) {
    ColumnSpans xp = x.problem;
    xp.first += p * x.step;
    const long long start = xp.first, end = xp.first + x.extent();
    // Problem q of y meets [start, end) when y.first + q * step < end and y.first + q * step + extent > start.
    long long low = 0, high = 0;
    if (y.step == 0) {
      if (y.problem.first >= end || y.problem.first + y.extent() <= start) continue;
    } else {
      low = std::max(0LL, floor_div(start - y.extent() - y.problem.first, y.step) + 1);
      high = std::min(y.problems - 1, floor_div(end - 1 - y.problem.first, y.step));
    }
    for (long long q = low; q <= high; ++q) {
      if (++pairs > overlap_pairs_checked_at_most) {
        throw std::invalid_argument(
            "tilegemm::gemm_strided_batched: the problems of C lie among those of A or B so densely that checking "
            "whether they share memory would take too long; give C memory of its own.");
      }
      ColumnSpans yq = y.problem;
      yq.first += q * y.step;
      if (spans_overlap(xp, yq)) return true;
    }
  }
  return false;
}

// One operand among others that may lie in its allocation: the allocation and its columns there.
struct PlacedSpans {
  cl_mem root = nullptr;
  ColumnSpans spans;
};

// Whether any two of the operands share memory: per allocation, in order of their first bytes, each is compared
// column by column with the earlier ones whose extent reaches it (usually none). Throws std::invalid_argument, as
// batches_overlap does, past overlap_pairs_checked_at_most such pairs.
inline bool any_two_overlap(std::vector<PlacedSpans> operands) {
  const auto extent_end = [](const ColumnSpans& s) {
    return s.first + (s.columns - 1) * s.column_step + s.column_bytes;
  };
  std::vector<PlacedSpans> placed;
  for (const PlacedSpans& x : operands) {
    if (x.spans.columns > 0 && x.spans.column_bytes > 0) placed.push_back(x);
  }
  std::sort(placed.begin(), placed.end(), [](const PlacedSpans& x, const PlacedSpans& y) {
    return std::tie(x.root, x.spans.first) < std::tie(y.root, y.spans.first);
  });
  std::vector<std::size_t> reaching;  // earlier operands of this allocation whose extent may reach the next one
  long long pairs = 0;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (i > 0 && placed[i].root != placed[i - 1].root) reaching.clear();
    std::vector<std::size_t> still;
    for (const std::size_t j : reaching) {
      if (extent_end(placed[j].spans) <= placed[i].spans.first) continue;
      if (++pairs > overlap_pairs_checked_at_most) {
        throw std::invalid_argument(
            "tilegemm::gpu_gemm_batched: the matrices C lie among each other so densely that checking whether they "
            "share memory would take too long; give each C memory of its own.");
      }
      if (spans_overlap(placed[j].spans, placed[i].spans)) return true;
      still.push_back(j);
    }
    still.push_back(i);
    reaching = std::move(still);
  }
  return false;
}

}  // namespace tilegemm::detail
