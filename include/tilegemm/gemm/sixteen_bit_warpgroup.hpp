// gemm/sixteen_bit_warpgroup: where a 16-bit product runs on wgmma (compute capability 9.0) and how: A and B packed
// as they are into pooled core tiles, then one product kernel writes C (kernels/sixteen_bit_warpgroup.hpp).
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
#include "executor.hpp"
#include "set_arguments.hpp"
#include "tensor_math.hpp"

namespace tilegemm::detail {

// The time a column of a tile takes, relative to tiles 256 wide (measured on an H200, docs/sixteen_bit.md).
constexpr double warpgroup16_column_cost(int width) { return width == 256 ? 1.0 : 1.45; }

// The sizes a 16-bit wgmma product runs with: the tiles' width and the packed operands' padded sides.
struct Warpgroup16Plan {
  int columns = 256;
  long long m_padded = 0, n_padded = 0, k_padded = 0;
  long long a_problems = 1, b_problems = 1;  // the packed copies (one where every problem reads the same matrix)
  int band = warpgroup16_band;               // tiles of rows whose columns run one after the other
  long long split_tiles = 0;                 // the last tiles, each made by `splits` work-groups (pieces of k)
  int splits = 1;
};

// A piece of a split tile takes at least this many slices (1024 of k): shorter ones spent more time on their partial
// sums (written, then read by the piece that adds them) than they saved (H200: 512^3 and 1024^3 ran 15-20% slower
// in pieces of 4 and 8 slices; docs/sixteen_bit.md).
inline constexpr long long warpgroup16_piece_slices = 16;

// Splits the last round of tiles along k where it would leave at least half the compute units idle: its tiles are
// cut into pieces that fill the units (C is written by the piece that comes last). One problem only.
inline void split_last_round(Warpgroup16Plan& plan, long long tiles, long long units, long long batch) {
  const long long last = tiles % units, slices = plan.k_padded / warpgroup16_depth;
  const long long splits = last > 0 ? std::min(units / last, slices / warpgroup16_piece_slices) : 1;
  if (batch == 1 && 2 * last <= units && splits >= 2) {
    plan.split_tiles = last;
    plan.splits = static_cast<int>(splits);
  }
}

// The plan where the device has wgmma and its kernels may take more local memory than it reports, and the packed
// copies stay within 32-bit indices; none elsewhere (the product is then made on widened copies).
inline std::optional<Warpgroup16Plan> plan_warpgroup16(const DeviceLimits& device, const GemmShape& s) {
  if (!has_warpgroup_mma(device) || device.sm90a_local_memory_refused) return std::nullopt;
  Warpgroup16Plan plan;
  const auto tiles = [&](long long side, long long tile) { return (side + tile - 1) / tile; };
  // The width whose rounds of tiles over the compute units take least time: rounds x width x the time a column of a
  // tile of that width takes, relative to 256 (narrower tiles read more of local memory per product).
  const long long units = std::max<long long>(device.compute_units, 1);
  double least = 0;
  for (const int width : warpgroup16_widths) {
    const long long count = tiles(s.m, warpgroup16_rows) * tiles(s.n, width) * s.batch;
    const double cost = static_cast<double>(tiles(count, units) * width) * warpgroup16_column_cost(width);
    if (least == 0 || cost < least) {
      least = cost;
      plan.columns = width;
    }
  }
  plan.m_padded = tiles(s.m, warpgroup16_rows) * warpgroup16_rows;
  plan.n_padded = tiles(s.n, plan.columns) * plan.columns;
  plan.k_padded = tiles(s.k, warpgroup16_depth) * warpgroup16_depth;
  split_last_round(plan, plan.m_padded / warpgroup16_rows * (plan.n_padded / plan.columns), units, s.batch);
  plan.a_problems = copied_problems(s.batch, s.a.stride);
  plan.b_problems = copied_problems(s.batch, s.b.stride);
  if (plan.m_padded * plan.k_padded > index_limit / plan.a_problems ||
      plan.n_padded * plan.k_padded > index_limit / plan.b_problems) {
    return std::nullopt;
  }
  return plan;
}

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
// one launch, which also zeroes `zeroed`.
inline cl::Event pack16(const CallContext& call, const PackedOperand& a, const PackedOperand& b, long long inner_padded,
                        const std::vector<cl::Event>& wait, const ZeroedWords& zeroed = {}) {
  constexpr int block = warpgroup16_pack_block;
  KernelLease kernel = make_kernel(call, pack16_program(), warpgroup16_pack_items);
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
  return enqueue(call.queue, kernel,
                 batch_range(static_cast<std::size_t>(blocks) * (block / 4), static_cast<std::size_t>(inner_padded) / 4,
                             static_cast<std::size_t>(std::max(a.problems, b.problems))),
                 batch_range(block / 4, 16, 1), wait);
}

// Runs a checked 16-bit product (k and alpha not zero) on wgmma after `wait`; the returned event completes with C.
inline cl::Event run_warpgroup16(const CallContext& call, const GemmProblem& p, SixteenBit element, bool float_result,
                                 const Warpgroup16Plan& plan, const std::vector<cl::Event>& wait) {
  const GemmShape& s = p.shape;
  const ProgramText product = warpgroup16_program(element, plan.columns, float_result);
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
  const cl::Event packed = pack16(
      call, {p.a, s.a, s.m, s.k, !s.trans_a, warpgroup16_rows, plan.m_padded, plan.a_problems, packed_a.buffer()},
      {p.b, s.b, s.n, s.k, s.trans_b, plan.columns, plan.n_padded, plan.b_problems, packed_b.buffer()}, plan.k_padded,
      wait, {&counters_buffer, static_cast<int>(plan.split_tiles)});
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
                                 batch_range(warpgroup16_threads, 1, 1), {packed});
  packed_a.give_back_after(done);
  packed_b.give_back_after(done);
  if (sums) sums->give_back_after(done);
  if (counters) counters->give_back_after(done);
  return done;
}

}  // namespace tilegemm::detail
