// default_config: the configurations gpu_gemm picks from when none is given, and the rule that picks one.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>

#include "device_limits.hpp"
#include "tile_config.hpp"

namespace tilegemm {

// Passed as the Config of gemm/gpu_gemm (and its default): choose a configuration per device and shape.
struct AutoConfig {
  static std::string name() { return "auto"; }
};

namespace detail {

// The candidates, in the order choose_default_config refers to them.
using DefaultCandidates = std::tuple<VectorLoads<128, 128, 16, 8, 8, 4>,  // 0: large products
                                     VectorLoads<64, 64, 16, 4, 4, 4>,    // 1: medium products
                                     RegisterBlocking<32, 32, 16, 2, 2>,  // 2: small products
                                     MoreWorkPerThread<16, 4>>;           // 3: devices with small work-groups

inline std::size_t choose_default_config(const DeviceLimits& device, int m, int n, int /*k*/) {
  if (device.max_work_group_size < 256) return 3;
  const long long elements = static_cast<long long>(m) * n;
  if ((device.type & CL_DEVICE_TYPE_GPU) && elements >= 1024LL * 1024 && m >= 512 && n >= 512) return 0;
  if (m >= 64 && n >= 64) return 1;
  return 2;
}

}  // namespace detail
}  // namespace tilegemm
