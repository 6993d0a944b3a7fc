// gemm/sixteen_bit_warpgroup: a 16-bit product on wgmma (compute capability 9.0), as its plan says
// (sixteen_bit_warpgroup_plan.hpp): A and B packed into pooled 16-bit core tiles (float ones rounded on the way), then
// one product kernel writes C (kernels/sixteen_bit_warpgroup.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "../kernels/sixteen_bit_warpgroup.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/launch.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/scratch_pool.hpp"
#include "arguments.hpp"
#include "set_arguments.hpp"
#include "sixteen_bit_warpgroup_plan.hpp"
#include "tensor_math.hpp"

namespace tilegemm::detail {

// An operand to pack: outer x inner (m x k of A, n x k of B) as stored, contiguous along outer or inner, into core
// tiles of tile_outer rows up to outer_padded (`problems` copies, one where every problem reads the same matrix).
struct PackedOperand {
  cl::Buffer src;
  Storage storage;
  int outer = 0, inner = 0;
  bool outer_contiguous = false;
  int tile_outer = warpgroup16_rows;
  long long outer_padded = 0, problems = 1;
  cl::Buffer dst;
};

// Words the pack launch sets to zero on its way (the product's counters of split tiles).
struct ZeroedWords {
  const cl::Buffer* buffer = nullptr;
  int count = 0;
};

// Enqueues the packing of a and b (b with outer_padded 0: none) into their core tiles, k padded to inner_padded, in
// one launch, which also zeroes `zeroed`; both read as `from` says (16-bit elements, or float ones rounded). What a
// later command must wait for is appended to `ready`: nothing on an in-order queue (enqueue_step: a launch without an
// event takes less host time).
inline void pack16(const CallContext& call, const PackedOperand& a, const PackedOperand& b, long long inner_padded,
                   const std::vector<cl::Event>& wait, std::vector<cl::Event>& ready, const ZeroedWords& zeroed = {},
                   PackFrom from = PackFrom::sixteen_bit) {
  constexpr int block = warpgroup16_pack_block;
  KernelLease kernel = make_kernel(call, pack16_program(from), warpgroup16_pack_items);
  const PackedOperand& second = b.outer_padded > 0 ? b : a;  // an absent b: a's buffers, no work-groups
  const auto dst_stride = [&](const PackedOperand& x) {
    return x.problems > 1 ? static_cast<int>(x.outer_padded * inner_padded) : 0;
  };
  const auto src_stride = [](const PackedOperand& x) { return x.problems > 1 ? x.storage.stride : 0; };
  const auto aligned = [&](const PackedOperand& x) {
    return static_cast<int>(x.storage.offset % 4 == 0 && x.storage.ld % 4 == 0 && src_stride(x) % 4 == 0);
  };
  const int a_blocks = static_cast<int>(a.outer_padded / block);
  set_arguments<pack16_arguments>(
      kernel, 0, a.outer, a.inner, static_cast<int>(a.outer_contiguous), a.src, a.storage.offset, a.storage.ld,
      src_stride(a), a.dst, dst_stride(a), a.tile_outer, aligned(a), static_cast<int>(a.problems), second.outer,
      second.inner, static_cast<int>(second.outer_contiguous), second.src, second.storage.offset, second.storage.ld,
      src_stride(second), second.dst, dst_stride(second), second.tile_outer, aligned(second),
      static_cast<int>(second.problems), static_cast<int>(inner_padded), a_blocks,
      zeroed.buffer != nullptr ? *zeroed.buffer : a.dst, zeroed.count);
  const long long blocks = a_blocks + b.outer_padded / block;
  enqueue_step(call, kernel,
               batch_range(static_cast<std::size_t>(blocks) * (block / 4), static_cast<std::size_t>(inner_padded) / 4,
                           static_cast<std::size_t>(std::max(a.problems, b.problems))),
               batch_range(block / 4, 16, 1), wait, ready);
}

// Runs a checked product (k and alpha not zero) of the plan's elements on wgmma after `wait`: A and B 16-bit, or float
// rounded to 16 bits where the plan says; C float where float_result, else of A's and B's type. The returned event
// completes with C.
inline cl::Event run_warpgroup16(const CallContext& call, const GemmProblem& p, bool float_result,
                                 const Warpgroup16Plan& plan, const std::vector<cl::Event>& wait) {
  const GemmShape& s = p.shape;
  const ProgramText product = warpgroup16_program(plan.element, plan.columns, float_result);
  const std::size_t a_bytes = static_cast<std::size_t>(plan.m_padded * plan.k_padded * plan.a_problems) * 2;
  const std::size_t b_bytes = static_cast<std::size_t>(plan.n_padded * plan.k_padded * plan.b_problems) * 2;
  const std::string advice = "Multiply smaller blocks, or choose a device with more memory.";
  require_allocation(call.limits, a_bytes, "the packed copy of A", advice);
  require_allocation(call.limits, b_bytes, "the packed copy of B", advice);
  // The product kernel is built before anything is enqueued: where the driver refuses its local memory, nothing ran.
  KernelLease kernel = make_kernel(call, product, warpgroup16_threads);
  ScratchBuffer packed_a(call, a_bytes);
  ScratchBuffer packed_b(call, b_bytes);
  // Split tiles: each piece's sums (a float per element of its tile), and a count per tile, zeroed by the pack launch.
  const long long whole_tiles = plan.m_padded / warpgroup16_rows * (plan.n_padded / plan.columns) - plan.split_tiles;
  const long long pieces = plan.split_tiles * plan.splits;
  std::optional<ScratchBuffer> sums, counters;
  if (pieces > 0) {
    sums.emplace(call, static_cast<std::size_t>(pieces) * warpgroup16_rows * plan.columns * 4);
    counters.emplace(call, static_cast<std::size_t>(plan.split_tiles) * 4);
  }
  const cl::Buffer& sums_buffer = sums ? sums->buffer() : packed_a.buffer();  // not read without split tiles
  const cl::Buffer& counters_buffer = counters ? counters->buffer() : packed_a.buffer();
  std::vector<cl::Event> packed;
  pack16(call, {p.a, s.a, s.m, s.k, !s.trans_a, warpgroup16_rows, plan.m_padded, plan.a_problems, packed_a.buffer()},
         {p.b, s.b, s.n, s.k, s.trans_b, plan.columns, plan.n_padded, plan.b_problems, packed_b.buffer()},
         plan.k_padded, wait, packed, {&counters_buffer, static_cast<int>(plan.split_tiles)},
         plan.float_operands ? pack_from_float(plan.element) : PackFrom::sixteen_bit);
  const int tiles_m = static_cast<int>(plan.m_padded / warpgroup16_rows);
  const int tiles_n = static_cast<int>(plan.n_padded / plan.columns);
  // Strides in 4-byte words (pairs of elements), as the kernel reads the packed copies.
  const int a_stride = plan.a_problems > 1 ? static_cast<int>(plan.m_padded * plan.k_padded / 2) : 0;
  const int b_stride = plan.b_problems > 1 ? static_cast<int>(plan.n_padded * plan.k_padded / 2) : 0;
  // C's runs of 8 rows start on 16 bytes where its offset, ld and stride are multiples of 16 bytes' elements.
  const int c_stride = s.batch > 1 ? s.c.stride : 0, run = float_result ? 4 : 8;
  const bool c_aligned = s.c.offset % run == 0 && s.c.ld % run == 0 && c_stride % run == 0;
  set_arguments<warpgroup16_arguments>(kernel, 0, s.m, s.n, static_cast<int>(plan.k_padded), p.alpha, p.beta,
                                       packed_a.buffer(), a_stride, packed_b.buffer(), b_stride, p.c, s.c.offset,
                                       s.c.ld, c_stride, static_cast<int>(c_aligned), tiles_m, tiles_n, plan.band,
                                       static_cast<int>(whole_tiles), plan.splits, sums_buffer, counters_buffer);
  const cl::Event done = enqueue(call.queue, kernel,
                                 batch_range(static_cast<std::size_t>(whole_tiles + pieces) * warpgroup16_threads, 1,
                                             static_cast<std::size_t>(s.batch)),
                                 batch_range(warpgroup16_threads, 1, 1), packed);
  packed_a.give_back_after(done);
  packed_b.give_back_after(done);
  if (sums) sums->give_back_after(done);
  if (counters) counters->give_back_after(done);
  return done;
}

}  // namespace tilegemm::detail
