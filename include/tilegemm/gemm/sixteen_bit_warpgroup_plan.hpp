// gemm/sixteen_bit_warpgroup_plan: whether and how a product of 16-bit operands runs on wgmma (compute capability
// 9.0): the tiles' width, the packed copies' padded sides, the last round's split along k. Pure: the planner and the
// 16-bit path decide with it, gemm/sixteen_bit_warpgroup.hpp carries it out.
#pragma once

#include <algorithm>
#include <optional>

#include "../config/sixteen_bit.hpp"
#include "../kernels/sixteen_bit_warpgroup.hpp"
#include "../runtime/device_limits.hpp"
#include "arguments.hpp"
#include "tensor_math.hpp"

namespace tilegemm::detail {

// The time a column of a tile takes, relative to tiles 256 wide (measured on an H200, docs/sixteen_bit.md).
constexpr double warpgroup16_column_cost(int width) { return width == 256 ? 1.0 : 1.45; }

// The sizes a 16-bit wgmma product runs with: its elements, the tiles' width and the packed operands' padded sides.
struct Warpgroup16Plan {
  SixteenBit element = SixteenBit::bfloat16;
  bool float_operands = false;  // A and B are float, rounded to `element` as they are packed (bf16 and fp16 modes)
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
inline std::optional<Warpgroup16Plan> plan_warpgroup16(const DeviceLimits& device, const GemmShape& s,
                                                       SixteenBit element, bool float_operands) {
  if (!has_warpgroup_mma(device) || device.sm90a_local_memory_refused) return std::nullopt;
  Warpgroup16Plan plan;
  plan.element = element;
  plan.float_operands = float_operands;
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

}  // namespace tilegemm::detail
