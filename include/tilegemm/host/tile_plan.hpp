// host/tile_plan: how one product is cut into 2-D tiles of C (and slices of K) for several devices, or for one device
// whose memory or 32-bit indices do not hold the whole product: the rule alone, without OpenCL.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <tuple>
#include <vector>

namespace tilegemm::detail {

// What the tiling is told. The defaults are the rule; tests shrink them to cut small products into many tiles.
struct TileRule {
  // A tile's side is at least this (where C is that large): a tile of side s uploads 2 s k elements for 2 s^2 k flops,
  // s / size flops a byte (1024 for float at 4096), what a GPU needs from a bus of tens of GB/s to stay busy.
  std::size_t min_side = 4096;
  // With several devices, C is cut into at least this many tiles a device (where the sides allow), a multiple of the
  // devices where one is near. One: each tile uploads its own panels of A and B, so every tile more moves a panel
  // more across a host memory the devices share (2 H200s, N = 16384: 1, 2 and 3 a device took 123, 141 and 168 ms in
  // float); more tiles balance unequal devices better (TILEGEMM_TILES_PER_DEVICE).
  std::size_t tiles_per_device = 1;
};

// One device's room: the bytes the dense copies of a tile's operands may take in all (a share of its memory: the
// product may also pack copies of them), the largest buffer, and the elements the kernels' 32-bit indices reach.
struct TileRoom {
  unsigned long long bytes = std::numeric_limits<unsigned long long>::max();
  unsigned long long max_buffer = std::numeric_limits<unsigned long long>::max();
  unsigned long long max_elements = std::numeric_limits<int>::max();
};

// C's tiles and K's slices: tile t is rows [row_starts[t / columns], ...) and columns [col_starts[t % columns], ...),
// walked row of tiles by row (consecutive tiles share a panel of op(A)); each tile is the sum over K's slices.
struct TilePlan {
  std::size_t m = 0, n = 0, k = 0;
  std::vector<std::size_t> row_starts{0}, col_starts{0}, k_starts{0};

  std::size_t rows() const { return row_starts.size(); }
  std::size_t columns() const { return col_starts.size(); }
  std::size_t count() const { return rows() * columns(); }
  std::size_t slices() const { return k_starts.size(); }
  static std::size_t end_of(const std::vector<std::size_t>& starts, std::size_t i, std::size_t length) {
    return i + 1 < starts.size() ? starts[i + 1] : length;
  }
  // Tile t's rows [r0, r1) and columns [c0, c1).
  std::tuple<std::size_t, std::size_t, std::size_t, std::size_t> tile(std::size_t t) const {
    const std::size_t i = t / columns(), j = t % columns();
    return {row_starts[i], end_of(row_starts, i, m), col_starts[j], end_of(col_starts, j, n)};
  }
  std::pair<std::size_t, std::size_t> slice(std::size_t s) const { return {k_starts[s], end_of(k_starts, s, k)}; }
};

// The longest of `parts` near-equal parts of `length`: whole multiples of 128 where parts are that long.
inline std::size_t even_step(std::size_t length, std::size_t parts) {
  parts = std::clamp<std::size_t>(parts, 1, std::max<std::size_t>(length, 1));
  const std::size_t step = (length + parts - 1) / parts;
  return step >= 512 ? (step + 127) / 128 * 128 : step;
}
// Those parts, as their starts.
inline std::vector<std::size_t> split_evenly(std::size_t length, std::size_t parts) {
  const std::size_t step = std::max<std::size_t>(even_step(length, parts), 1);
  std::vector<std::size_t> starts{0};
  for (std::size_t start = step; start < length; start += step) starts.push_back(start);
  return starts;
}

// The deepest slice of K that a tile of h x w fits in `room` with (0 when not even one).
inline std::size_t deepest_slice(std::size_t h, std::size_t w, std::size_t size, const TileRoom& room) {
  const unsigned long long tile = static_cast<unsigned long long>(h) * w;
  if (tile > room.max_elements || tile * size > room.max_buffer || tile * size >= room.bytes) return 0;
  unsigned long long depth = (room.bytes - tile * size) / (static_cast<unsigned long long>(h + w) * size);
  depth = std::min({depth, room.max_elements / std::max(h, w), room.max_buffer / (std::max(h, w) * size)});
  return static_cast<std::size_t>(std::min<unsigned long long>(depth, std::numeric_limits<std::size_t>::max()));
}

// The plan for C = op(A) op(B), m x n x k (all positive), of `size`-byte scalars on `devices` devices each with
// `room`. The rule: (1) balance: with several devices, a grid of p x q tiles of sides at least rule.min_side (one
// tile along a side shorter than that), with at least devices x rule.tiles_per_device tiles where the sides allow,
// the fewest such tiles, preferring a count that is a multiple of the devices and then tiles nearest to square; one
// device: one tile. (2) room: while a tile with the whole of K does not fit `room`, its longer side is cut further,
// down to rule.min_side; (3) then K is cut into the fewest even slices that fit (and the sides further, towards 1,
// should not even one row of K fit).
inline TilePlan plan_tiles(std::size_t m, std::size_t n, std::size_t k, std::size_t devices, std::size_t size,
                           const TileRoom& room, const TileRule& rule) {
  TilePlan plan;
  plan.m = m;
  plan.n = n;
  plan.k = k;
  const std::size_t side = std::max<std::size_t>(rule.min_side, 1);
  std::size_t p = 1, q = 1;
  if (devices > 1) {
    const std::size_t target = devices * std::max<std::size_t>(rule.tiles_per_device, 1);
    const std::size_t p_max = std::clamp<std::size_t>(m / side, 1, 256),
                      q_max = std::clamp<std::size_t>(n / side, 1, 256);
    // The best grid by (reaches the target, fewest tiles past it or most short of it, a multiple of the devices,
    // nearest to square tiles).
    double best_key[4] = {0, 0, 0, 0};
    bool have = false;
    for (std::size_t i = 1; i <= p_max; ++i) {
      for (std::size_t j = 1; j <= q_max; ++j) {
        const double count = static_cast<double>(i * j);
        const double aspect = std::abs(std::log((static_cast<double>(m) / i) / (static_cast<double>(n) / j)));
        const bool reaches = i * j >= target;
        const double key[4] = {reaches ? 0.0 : 1.0, reaches ? count : -count, (i * j) % devices == 0 ? 0.0 : 1.0,
                               aspect};
        if (!have || std::lexicographical_compare(key, key + 4, best_key, best_key + 4)) {
          std::copy(key, key + 4, best_key);
          p = i;
          q = j;
          have = true;
        }
      }
    }
  }
  const auto height = [&] { return even_step(m, p); };
  const auto width = [&] { return even_step(n, q); };
  const auto cut_longer = [&] {
    if (height() >= width() && p < m) {
      ++p;
    } else if (q < n) {
      ++q;
    } else {
      ++p;
    }
  };
  // (2) the sides, down to the rule's, while the whole of K does not fit
  while (std::max(height(), width()) > side && deepest_slice(height(), width(), size, room) < k) cut_longer();
  // (3) K's slices, the sides further where not even one row of K fits
  while (deepest_slice(height(), width(), size, room) == 0 && (height() > 1 || width() > 1)) cut_longer();
  const std::size_t depth = std::max<std::size_t>(deepest_slice(height(), width(), size, room), 1);
  plan.row_starts = split_evenly(m, p);
  plan.col_starts = split_evenly(n, q);
  std::size_t slices = (k + depth - 1) / depth;
  while (even_step(k, slices) > depth) ++slices;
  plan.k_starts = split_evenly(k, slices);
  return plan;
}

}  // namespace tilegemm::detail
