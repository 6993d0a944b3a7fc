// packing: giving the packed kernels their operands, as the caller's buffer when it already fits or as a copy.
#pragma once

#include <climits>
#include <vector>

#include "gemm_arguments.hpp"
#include "launch.hpp"

namespace tilegemm::detail {

// An operand as the packed kernels read it: zero-padded to whole tiles, with offset and leading dimension counted
// in vectors of VW elements, outer-contiguous (m for A, n for B) or, for the kernels that read either layout,
// possibly K-contiguous.
struct PackedOperand {
  cl::Buffer buffer;
  int offset;
  int ld;
  bool k_contiguous;
};

// Returns `source` unchanged when it fills whole tiles, is vector-aligned and is laid out as the kernel reads it
// (outer-contiguous, or either layout when `either_layout`); otherwise enqueues the pack kernel into a new
// outer-contiguous buffer (after `wait`) and appends its event to `events`.
template <class Scalar, int VW>
PackedOperand pack_operand(const cl::CommandQueue& queue, const MatrixOperand& source, int outer, int inner,
                           bool outer_contiguous, int outer_tile, int inner_tile, bool either_layout,
                           const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  if ((outer_contiguous || either_layout) && outer % outer_tile == 0 && inner % inner_tile == 0 &&
      source.offset % VW == 0 && source.ld % VW == 0) {
    return {source.buffer, source.offset / VW, source.ld / VW, !outer_contiguous};
  }
  const long long outer_padded = static_cast<long long>(round_up(outer, outer_tile));
  const long long inner_padded = static_cast<long long>(round_up(inner, inner_tile));
  require(outer_padded * inner_padded <= INT_MAX,
          "an operand padded to whole tiles would exceed 2^31 - 1 elements; use a smaller problem.");
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  cl_int status = CL_SUCCESS;
  cl::Buffer packed(context, CL_MEM_READ_WRITE, sizeof(Scalar) * outer_padded * inner_padded, nullptr, &status);
  check(status, "clCreateBuffer (packed operand)");
  cl::Kernel kernel = make_kernel(queue, support_program_text<Scalar>(pack_kernel_name), pack_tile * pack_tile);
  set_args(kernel, outer, inner, static_cast<int>(outer_contiguous), source.buffer, source.offset, source.ld,
           static_cast<int>(outer_padded), static_cast<int>(inner_padded), packed);
  events.push_back(enqueue(queue, kernel,
                           cl::NDRange(round_up(outer_padded, pack_tile), round_up(inner_padded, pack_tile)),
                           cl::NDRange(pack_tile, pack_tile), wait));
  return {packed, 0, static_cast<int>(outer_padded / VW), false};
}

}  // namespace tilegemm::detail
