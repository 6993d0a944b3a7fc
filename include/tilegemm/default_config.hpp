// default_config: the configurations gpu_gemm picks from when none is given, and the rule that picks one.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "device_limits.hpp"
#include "tile_config.hpp"

namespace tilegemm {

// Passed as the Config of gemm/gpu_gemm (and its default): choose a configuration per device and shape.
struct AutoConfig {
  static std::string name() { return "auto"; }
};

namespace detail {

// The candidates; the measurements behind the choice are in benchmarks/ (see its README).
enum DefaultChoice : std::size_t {
  gpu_large_float,   // C of at least one 128 x 128 tile per compute unit
  gpu_large_double,  // the same in double, within 48 KiB of local memory
  gpu_medium,        // C of at least one 64 x 64 tile per two compute units
  gpu_small,
  gpu_split_k,   // C too small to fill the device while K is long
  cpu,           // processors (PoCL): vector arithmetic without barriers in the inner loop
  small_groups,  // devices whose work-groups hold fewer than 256 work-items
};
using DefaultCandidates =
    std::tuple<Prefetch<128, 128, 16, 8, 8, 4>, Prefetch<128, 128, 8, 8, 8, 2>, Prefetch<64, 64, 16, 4, 4, 4>,
               Prefetch<32, 32, 16, 2, 2, 2>, SplitK<64, 64, 16, 4, 4, 4>, WideTypes<16, 16>, MoreWorkPerThread<16, 4>>;

template <std::size_t... I>
constexpr std::array<std::size_t, sizeof...(I)> candidate_threads(std::index_sequence<I...>) {
  return {static_cast<std::size_t>(std::tuple_element_t<I, DefaultCandidates>::threads)...};
}
template <std::size_t... I>
constexpr std::array<std::size_t, sizeof...(I)> candidate_local_elements(std::index_sequence<I...>) {
  return {std::tuple_element_t<I, DefaultCandidates>::local_memory_elements...};
}

// Whether the device can run candidate `choice` for elements of `scalar_size` bytes.
inline bool candidate_fits(std::size_t choice, const DeviceLimits& device, std::size_t scalar_size) {
  constexpr auto all = std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{};
  constexpr auto threads = candidate_threads(all);
  constexpr auto local_elements = candidate_local_elements(all);
  return threads[choice] <= device.max_work_group_size &&
         local_elements[choice] * scalar_size <= device.local_memory_bytes;
}

inline std::size_t choose_default_config(const DeviceLimits& device, std::size_t scalar_size, int m, int n, int k) {
  const auto tiles = [&](int tile) { return static_cast<long long>((m + tile - 1) / tile) * ((n + tile - 1) / tile); };
  const long long units = device.compute_units;
  std::size_t preferred = small_groups;
  if (device.type & CL_DEVICE_TYPE_CPU) {
    preferred = cpu;
  } else if (tiles(64) * 2 < units && k >= 2048 && k >= 4 * std::max(m, n)) {
    preferred = gpu_split_k;
  } else if (tiles(128) >= units) {
    preferred = scalar_size == sizeof(float) ? gpu_large_float : gpu_large_double;
  } else if (tiles(64) * 2 >= units) {
    preferred = gpu_medium;
  } else {
    preferred = gpu_small;
  }
  // Fall back to smaller configurations where the device is short of local memory or work-items.
  for (std::size_t choice : {preferred, static_cast<std::size_t>(gpu_large_double),
                             static_cast<std::size_t>(gpu_medium), static_cast<std::size_t>(gpu_small)}) {
    if (candidate_fits(choice, device, scalar_size)) return choice;
  }
  return small_groups;
}

}  // namespace detail
}  // namespace tilegemm
