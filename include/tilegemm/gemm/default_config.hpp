// default_config: the configurations gpu_gemm picks from when none is given, and the rule that picks one.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "../config/tile_config.hpp"
#include "../runtime/device_limits.hpp"
#include "operand_policy.hpp"

namespace tilegemm {

// Passed as the Config of gemm/gpu_gemm (and its default): choose a configuration per device and shape.
struct AutoConfig {
  static std::string name() { return "auto"; }
};

namespace detail {

// The candidates, in the order of DefaultCandidates. The measurements behind the choice are in benchmarks/.
enum DefaultChoice : std::size_t {
  gpu_128x128,   // GPUs: C of many tiles
  gpu_128x64,    //
  gpu_64x128,    //
  gpu_64x64,     //
  gpu_32x32,     // GPUs: small C
  gpu_split_k,   // GPUs: C too small to fill the device while K is long
  cpu,           // processors (PoCL): vector arithmetic without barriers in the inner loop
  small_groups,  // devices whose work-groups hold fewer than 256 work-items
};
using DefaultCandidates =
    std::tuple<Prefetch<128, 128, 8, 8, 8, 4>, Prefetch<128, 64, 8, 8, 8, 4>, Prefetch<64, 128, 16, 4, 8, 4>,
               Prefetch<64, 64, 16, 4, 4, 4>, Prefetch<32, 32, 16, 2, 2, 2>, SplitK<64, 64, 16, 4, 4, 4>,
               WideTypes<16, 16>, MoreWorkPerThread<16, 4>>;

// What the choice among the GPU candidates knows of each, measured on an NVIDIA H200 (benchmarks/README.md):
// how many of its work-groups one compute unit runs at once (from the registers per work-item the compiler
// reported, out of 64K per unit), its throughput once every unit is that busy, in TFLOP/s, per scalar, and
// whether its variant that reads an element at a time keeps up (see operand_policy.hpp).
struct CandidateModel {
  int resident_float;
  int resident_double;
  double tflops_float;
  double tflops_double;
  bool reads_elements_well;
};
inline constexpr std::array<CandidateModel, 5> gpu_models = {{
    {2, 1, 47.0, 19.8, true},   // gpu_128x128: 127 registers per work-item in float
    {4, 2, 45.7, 17.6, false},  // gpu_128x64: 127 (128 work-items); reading elements, 138 and 30% slower
    {3, 1, 41.1, 0.0, true},    // gpu_64x128: 80; in double it needs more than 48 KiB of local memory
    {4, 3, 34.4, 10.6, true},   // gpu_64x64: 64
    {8, 8, 18.4, 9.2, true},    // gpu_32x32
}};

template <std::size_t... I>
constexpr std::array<std::size_t, sizeof...(I)> candidate_threads(std::index_sequence<I...>) {
  return {static_cast<std::size_t>(std::tuple_element_t<I, DefaultCandidates>::threads)...};
}
template <std::size_t... I>
constexpr std::array<std::size_t, sizeof...(I)> candidate_local_elements(std::index_sequence<I...>) {
  return {std::tuple_element_t<I, DefaultCandidates>::local_memory_elements...};
}
struct Tile {
  int m, n, k, vw;
};
template <std::size_t... I>
constexpr std::array<Tile, sizeof...(I)> candidate_tiles(std::index_sequence<I...>) {
  return {Tile{std::tuple_element_t<I, DefaultCandidates>::TSM, std::tuple_element_t<I, DefaultCandidates>::TSN,
               std::tuple_element_t<I, DefaultCandidates>::TSK, std::tuple_element_t<I, DefaultCandidates>::VW}...};
}

// Whether the device can run candidate `choice` for elements of `scalar_size` bytes.
inline bool candidate_fits(std::size_t choice, const DeviceLimits& device, std::size_t scalar_size) {
  constexpr auto all = std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{};
  constexpr auto threads = candidate_threads(all);
  constexpr auto local_elements = candidate_local_elements(all);
  return threads[choice] <= device.max_work_group_size &&
         local_elements[choice] * scalar_size <= device.local_memory_bytes;
}

// Rows and columns of C that may be left outside the tiled corner for the remainder kernel.
inline constexpr int thin_remainder = 16;

// The corner of an m x n C that whole tsm x tsn tiles cover, if what it leaves is thin (see kernels/remainder.hpp);
// otherwise all of C.
inline std::pair<int, int> tiled_corner(int m, int n, int tsm, int tsn) {
  const int corner_m = m / tsm * tsm;
  const int corner_n = n / tsn * tsn;
  if (corner_m == 0 || corner_n == 0 || m - corner_m > thin_remainder || n - corner_n > thin_remainder) return {m, n};
  return {corner_m, corner_n};
}

// The estimated time of an m x n product (per unit of K) with GPU candidate `choice`: its tiles run in rounds of
// `resident` work-groups per compute unit, each round taking as long as `resident` tiles at the candidate's full
// throughput; the last round, with fewer work-groups on each unit, takes as long as the most any unit has.
inline double estimated_time(std::size_t choice, bool is_double, int m, int n, long long units) {
  constexpr auto tiles = candidate_tiles(std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{});
  const int tsm = tiles[choice].m;
  const int tsn = tiles[choice].n;
  const CandidateModel& model = gpu_models[choice];
  const long long resident = is_double ? model.resident_double : model.resident_float;
  const double tflops = is_double ? model.tflops_double : model.tflops_float;
  const long long count = static_cast<long long>((m + tsm - 1) / tsm) * ((n + tsn - 1) / tsn);
  const long long full_rounds = count / (units * resident);
  const long long rest = count - full_rounds * units * resident;
  const long long last_round = (rest + units - 1) / units;  // work-groups on the busiest unit
  return static_cast<double>(full_rounds * resident + last_round) * tsm * tsn / tflops;
}

// The candidate for a product, and the corner of C it runs on (all of C, or a tiled corner whose thin remainder
// the remainder kernel computes).
struct DefaultPlan {
  std::size_t choice;
  int corner_m;
  int corner_n;
};

inline DefaultPlan plan_default(const DeviceLimits& device, std::size_t scalar_size, int m, int n, int k) {
  if (device.type & CL_DEVICE_TYPE_CPU) return {candidate_fits(cpu, device, scalar_size) ? cpu : small_groups, m, n};
  const long long units = device.compute_units > 0 ? device.compute_units : 1;
  const long long tiles_64 = static_cast<long long>((m + 63) / 64) * ((n + 63) / 64);
  if (tiles_64 * 2 < units && k >= 2048 && k >= 4 * std::max(m, n) &&
      candidate_fits(gpu_split_k, device, scalar_size)) {
    return {gpu_split_k, m, n};
  }
  constexpr auto tiles = candidate_tiles(std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{});
  const bool is_double = scalar_size == sizeof(double);
  DefaultPlan best{small_groups, m, n};
  double best_time = 0;
  for (std::size_t choice = gpu_128x128; choice <= gpu_32x32; ++choice) {
    if ((is_double ? gpu_models[choice].tflops_double : gpu_models[choice].tflops_float) <= 0 ||
        !candidate_fits(choice, device, scalar_size)) {
      continue;
    }
    const Tile& tile = tiles[choice];
    const auto [corner_m, corner_n] = tiled_corner(m, n, tile.m, tile.n);
    // Sizes that are neither whole tiles nor whole vectors are read an element at a time in small products (see
    // operand_policy.hpp), which some candidates do slowly.
    const bool whole_tiles = corner_m % tile.m == 0 && corner_n % tile.n == 0 && k % tile.k == 0;
    const bool whole_vectors = corner_m % tile.vw == 0 && corner_n % tile.vw == 0 && k % tile.vw == 0;
    const bool elements =
        !whole_tiles && !whole_vectors && static_cast<double>(corner_m) * corner_n * k <= edges_in_place_up_to;
    if (elements && !gpu_models[choice].reads_elements_well) continue;
    const double time = estimated_time(choice, is_double, corner_m, corner_n, units);
    if (best.choice == small_groups || time < best_time) {
      best = {choice, corner_m, corner_n};
      best_time = time;
    }
  }
  return best;
}

}  // namespace detail
}  // namespace tilegemm
