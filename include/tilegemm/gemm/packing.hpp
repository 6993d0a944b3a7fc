// packing: giving the packed kernels their operands, as the caller's buffer when it already fits or as a copy.
#pragma once

#include <climits>
#include <memory>
#include <vector>

#include "../runtime/launch.hpp"
#include "../runtime/scratch_pool.hpp"
#include "arguments.hpp"

namespace tilegemm::detail {

// An operand as the packed kernels read it: the caller's own or a copy zero-padded to whole tiles, with offset and
// leading dimension counted in vectors of VW elements (in elements for the prefetch kernel's EDGES 2), outer-
// contiguous (m for A, n for B) or, for the kernels that read either layout, possibly K-contiguous.
struct PackedOperand {
  cl::Buffer buffer;
  int offset;
  int ld;
  bool k_contiguous;
  std::unique_ptr<ScratchBuffer> copy;  // the pooled buffer of a packed copy, null when read in place

  // Returns a packed copy's buffer to the pool once `last_use` (the last kernel reading it) completes.
  void done_after(const cl::Event& last_use) {
    if (copy) copy->give_back_after(last_use);
  }
};

// Whether an operand (outer x inner, as the packed kernels see it) can be read as it is: it fills whole tiles, is
// vector-aligned and is laid out as the kernel reads it (outer-contiguous, or either layout when `either_layout`).
inline bool readable_in_place(const MatrixOperand& source, int outer, int inner, bool outer_contiguous, int outer_tile,
                              int inner_tile, bool either_layout, int vector_width) {
  return (outer_contiguous || either_layout) && outer % outer_tile == 0 && inner % inner_tile == 0 &&
         source.offset % vector_width == 0 && source.ld % vector_width == 0;
}

// Whether an operand's contiguous extent, offset and leading dimension are whole vectors, as the prefetch
// kernel's EDGES 1 needs to read it in place.
inline bool vector_aligned(const MatrixOperand& source, int outer, int inner, bool outer_contiguous, int vector_width) {
  return source.offset % vector_width == 0 && source.ld % vector_width == 0 &&
         (outer_contiguous ? outer : inner) % vector_width == 0;
}

// The caller's operand as it is, counted in units of `unit` elements.
inline PackedOperand as_it_is(const MatrixOperand& source, bool outer_contiguous, int unit) {
  return {source.buffer, source.offset / unit, source.ld / unit, !outer_contiguous, nullptr};
}

// Enqueues the pack kernel (after `wait`) into a new outer-contiguous buffer zero-padded to whole tiles, and
// appends its event to `events`.
template <class Scalar, int VW>
PackedOperand packed_copy(const cl::CommandQueue& queue, const MatrixOperand& source, int outer, int inner,
                          bool outer_contiguous, int outer_tile, int inner_tile, const std::vector<cl::Event>& wait,
                          std::vector<cl::Event>& events) {
  const long long outer_padded = static_cast<long long>(round_up(outer, outer_tile));
  const long long inner_padded = static_cast<long long>(round_up(inner, inner_tile));
  require(outer_padded * inner_padded <= INT_MAX,
          "an operand padded to whole tiles would exceed 2^31 - 1 elements; use a smaller problem.");
  auto copy = std::make_unique<ScratchBuffer>(queue, sizeof(Scalar) * outer_padded * inner_padded);
  const cl::Buffer packed = copy->buffer();
  cl::Kernel kernel = make_kernel(queue, support_program_text<Scalar>(pack_kernel_name), pack_tile * pack_tile);
  set_args(kernel, outer, inner, static_cast<int>(outer_contiguous), source.buffer, source.offset, source.ld,
           static_cast<int>(outer_padded), static_cast<int>(inner_padded), packed);
  events.push_back(enqueue(queue, kernel,
                           cl::NDRange(round_up(outer_padded, pack_tile), round_up(inner_padded, pack_tile)),
                           cl::NDRange(pack_tile, pack_tile), wait));
  return {packed, 0, static_cast<int>(outer_padded / VW), false, std::move(copy)};
}

// For the kernels that read outer-contiguous operands only: the operand as it is when it is readable in place,
// else a packed copy.
template <class Scalar, int VW>
PackedOperand pack_operand(const cl::CommandQueue& queue, const MatrixOperand& source, int outer, int inner,
                           bool outer_contiguous, int outer_tile, int inner_tile, const std::vector<cl::Event>& wait,
                           std::vector<cl::Event>& events) {
  if (readable_in_place(source, outer, inner, outer_contiguous, outer_tile, inner_tile, false, VW)) {
    return as_it_is(source, outer_contiguous, VW);
  }
  return packed_copy<Scalar, VW>(queue, source, outer, inner, outer_contiguous, outer_tile, inner_tile, wait, events);
}

}  // namespace tilegemm::detail
