// gemm/batched_arguments: checking the arguments of a strided batch of products of one shape, as check_arguments
// (arguments.hpp) checks one product's, and that C's problems share memory neither with each other nor with A's
// or B's.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>

#include "../config/linkage.hpp"
#include "../runtime/launch_basics.hpp"
#include "../runtime/opencl.hpp"
#include "arguments.hpp"
#include "batch_overlap.hpp"
#include "overlap.hpp"

namespace tilegemm::detail {

[[noreturn]] inline void fail_batch(const std::string& message) {
  throw std::invalid_argument("tilegemm::gemm_strided_batched: " + message);
}

// Checks the stride between the problems' copies of one operand (in elements) and returns the elements of its buffer
// the whole batch spans, given `needed`, what one problem spans; no arithmetic here can overflow on any input.
inline long long check_stride(const std::string& name, long long stride, long long batch_count, long long needed) {
  if (stride < 0) fail_batch("the stride of " + name + " must not be negative (got " + std::to_string(stride) + ").");
  if (stride > index_limit)
    fail_batch("the stride of " + name + " is " + std::to_string(stride) +
               "; tilegemm indexes buffers with 32-bit integers, so it must be at most " + std::to_string(index_limit) +
               ".");
  // batch_count, stride and needed are at most 2^31 - 1 here, so this cannot overflow.
  const long long all = batch_count > 0 ? needed + (batch_count - 1) * stride : needed;
  if (all > index_limit)
    fail_batch("the " + std::to_string(batch_count) + " problems of " + name + ", " + std::to_string(stride) +
               " elements apart, span " + std::to_string(all) +
               " elements of its buffer; tilegemm indexes buffers with 32-bit integers, so at most " +
               std::to_string(index_limit) + " are supported.");
  return all;
}

// Checks the arguments of C_p = alpha * op(A_p) * op(B_p) + beta * C_p for p < batch_count, each operand of problem
// p at its offset + p * stride, as check_arguments does for one product: buffers where the batch uses them (A and B
// when it reads them, C unless it is empty), large enough for every problem. C's problems must not share memory
// with each other, nor with an A or B that is read.
TILEGEMM_ENTRY GemmProblem check_batched_arguments(const cl::Context& context, const GemmArguments& x);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY GemmProblem check_batched_arguments(const cl::Context& context, const GemmArguments& x) {
  const long long batch_count = x.batch_count, m = x.m, n = x.n;
  if (batch_count < 0 || batch_count > index_limit)
    fail_batch("batch_count must be between 0 and " + std::to_string(index_limit) + " (got " +
               std::to_string(batch_count) + ").");
  CheckedStorage checked = check_sizes_and_storage(x);
  GemmProblem& p = checked.problem;
  p.shape.batch = static_cast<int>(batch_count);
  const std::size_t size = p.scalar_size();
  const long long a_rows = checked.a_rows, a_cols = checked.a_cols, b_rows = checked.b_rows, b_cols = checked.b_cols;
  // The elements of each buffer the whole batch reaches.
  const long long a_needed = check_stride("A", x.a.stride, batch_count, checked.a_needed);
  const long long b_needed = check_stride("B", x.b.stride, batch_count, checked.b_needed);
  const long long c_needed = check_stride("C", x.c.stride, batch_count, checked.c_needed);
  // A batch of one is the single product, planned as gemm plans it (a stride that is no whole vector changes nothing).
  p.shape.a.stride = batch_count > 1 ? static_cast<int>(x.a.stride) : 0;
  p.shape.b.stride = batch_count > 1 ? static_cast<int>(x.b.stride) : 0;
  p.shape.c.stride = batch_count > 1 ? static_cast<int>(x.c.stride) : 0;
  p.a = x.a.buffer;
  p.b = x.b.buffer;
  p.c = x.c.buffer;
  const bool writes_c = m > 0 && n > 0 && batch_count > 0;
  const bool reads_ab = writes_c && x.k > 0 && x.alpha.value != 0;
  if (reads_ab) {
    check_buffer("A", x.a.buffer, a_rows, a_cols, p.shape.a, a_needed, size, context, batch_count, x.a.stride);
    check_buffer("B", x.b.buffer, b_rows, b_cols, p.shape.b, b_needed, size, context, batch_count, x.b.stride);
  }
  if (!writes_c) return p;
  check_buffer("C", x.c.buffer, m, n, p.shape.c, c_needed, size, context, batch_count, x.c.stride);
  const long long c_stride = x.c.stride, ldc = x.c.ld;
  const MemoryOrigin c_origin = origin_of(x.c.buffer);
  const BatchSpans c_spans = batch_spans(c_origin, x.c.offset, ldc, m, n, c_stride, batch_count, size);
  if (problems_overlap(c_spans)) {
    const long long j = first_overlapping_problem(c_spans);
    fail_batch("the problems of C overlap each other: C of problem 0 and C of problem " + std::to_string(j) +
               " share memory (c_stride = " + std::to_string(c_stride) + ", ldc = " + std::to_string(ldc) + ", C " +
               std::to_string(m) + " x " + std::to_string(n) +
               "). Each problem needs a C of its own: a c_stride of at least ldc * (n - 1) + m = " +
               std::to_string(ldc * (n - 1) + m) + " keeps them apart.");
  }
  if (reads_ab) {
    for (const auto& [name, operand, rows, cols] :
         {std::tuple{"A", &x.a, a_rows, a_cols}, std::tuple{"B", &x.b, b_rows, b_cols}}) {
      const MemoryOrigin origin = origin_of(operand->buffer);
      if (origin.root != c_origin.root) continue;
      const BatchSpans spans =
          batch_spans(origin, operand->offset, operand->ld, rows, cols, operand->stride, batch_count, size);
      if (batches_overlap(c_spans, spans))
        fail_batch(std::string("C overlaps ") + name + " in memory: the C of a problem shares elements with the " +
                   name +
                   " of a problem, which the batch would read after overwriting them. Give C memory of its own.");
    }
  }
  return p;
}
#endif

}  // namespace tilegemm::detail
