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
// The same with A and B of `input_size` bytes an element and C of `output_size` (16-bit products), for a batch or,
// not `batched`, for one product (its strides and count ignored, its errors a single product's).
TILEGEMM_ENTRY CheckedStorage check_problems(const cl::Context& context, const GemmArguments& x, std::size_t input_size,
                                             std::size_t output_size, bool batched);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY GemmProblem check_batched_arguments(const cl::Context& context, const GemmArguments& x) {
  const std::size_t size = x.alpha.is_double ? sizeof(double) : sizeof(float);
  return check_problems(context, x, size, size, true).problem;
}

TILEGEMM_ENTRY CheckedStorage check_problems(const cl::Context& context, const GemmArguments& x, std::size_t input_size,
                                             std::size_t output_size, bool batched) {
  const auto refuse = [batched](const std::string& message) {
    if (batched) fail_batch(message);
    fail(message);
  };
  const long long batch_count = batched ? x.batch_count : 1, m = x.m, n = x.n;
  if (batch_count < 0 || batch_count > index_limit)
    refuse("batch_count must be between 0 and " + std::to_string(index_limit) + " (got " + std::to_string(batch_count) +
           ").");
  CheckedStorage checked = check_sizes_and_storage(x);
  GemmProblem& p = checked.problem;
  p.shape.batch = static_cast<int>(batch_count);
  // The operands' strides as the problems use them, and the elements of each buffer the whole batch reaches.
  const long long a_stride = batched ? x.a.stride : 0, b_stride = batched ? x.b.stride : 0,
                  c_stride = batched ? x.c.stride : 0;
  if (batched) {
    checked.a_needed = check_stride("A", a_stride, batch_count, checked.a_needed);
    checked.b_needed = check_stride("B", b_stride, batch_count, checked.b_needed);
    checked.c_needed = check_stride("C", c_stride, batch_count, checked.c_needed);
  }
  // A batch of one is the single product, planned as gemm plans it (a stride that is no whole vector changes nothing).
  p.shape.a.stride = batch_count > 1 ? static_cast<int>(a_stride) : 0;
  p.shape.b.stride = batch_count > 1 ? static_cast<int>(b_stride) : 0;
  p.shape.c.stride = batch_count > 1 ? static_cast<int>(c_stride) : 0;
  p.a = x.a.buffer;
  p.b = x.b.buffer;
  p.c = x.c.buffer;
  const bool writes_c = m > 0 && n > 0 && batch_count > 0;
  const bool reads_ab = writes_c && x.k > 0 && x.alpha.value != 0;
  if (reads_ab) {
    check_buffer("A", x.a.buffer, checked.a_rows, checked.a_cols, p.shape.a, checked.a_needed, input_size, context,
                 batch_count, a_stride);
    check_buffer("B", x.b.buffer, checked.b_rows, checked.b_cols, p.shape.b, checked.b_needed, input_size, context,
                 batch_count, b_stride);
  }
  if (!writes_c) return checked;
  check_buffer("C", x.c.buffer, m, n, p.shape.c, checked.c_needed, output_size, context, batch_count, c_stride);
  // Overlaps in bytes, each operand with its own element size.
  const long long ldc = x.c.ld;
  const MemoryOrigin c_origin = origin_of(x.c.buffer);
  const BatchSpans c_spans = batch_spans(c_origin, x.c.offset, ldc, m, n, c_stride, batch_count, output_size);
  if (problems_overlap(c_spans)) {
    const long long j = first_overlapping_problem(c_spans);
    refuse("the problems of C overlap each other: C of problem 0 and C of problem " + std::to_string(j) +
           " share memory (c_stride = " + std::to_string(c_stride) + ", ldc = " + std::to_string(ldc) + ", C " +
           std::to_string(m) + " x " + std::to_string(n) +
           "). Each problem needs a C of its own: a c_stride of at least ldc * (n - 1) + m = " +
           std::to_string(ldc * (n - 1) + m) + " keeps them apart.");
  }
  if (reads_ab) {
    for (const auto& [name, operand, rows, cols, stride] :
         {std::tuple{"A", &x.a, checked.a_rows, checked.a_cols, a_stride},
          std::tuple{"B", &x.b, checked.b_rows, checked.b_cols, b_stride}}) {
      const MemoryOrigin origin = origin_of(operand->buffer);
      if (origin.root != c_origin.root) continue;
      const BatchSpans spans =
          batch_spans(origin, operand->offset, operand->ld, rows, cols, stride, batch_count, input_size);
      if (!batches_overlap(c_spans, spans)) continue;
      refuse(std::string("C overlaps ") + name + " in memory: " +
             (batched
                  ? std::string("the C of a problem shares elements with the ") + name +
                        " of a problem, which the batch would read after overwriting them."
                  : std::string("the product would read elements of ") + name + " that it has already overwritten.") +
             " Give C memory of its own.");
    }
  }
  return checked;
}
#endif

}  // namespace tilegemm::detail
