// launch_basics: what checks and plans of launches need without the program cache: the work-group check, the
// scalar arguments alpha and beta, rounding up to whole work-groups (runtime/launch.hpp launches kernels).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "device_limits.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Throws tilegemm::Error before anything is built when a work-group of the given shape cannot run on the device,
// which gives a work-group of this kernel `local_limit` bytes of local memory. `what` names the kernel in the
// message: text, or a function that returns it (worked out only for a message).
template <class What>
void check_work_group(const DeviceLimits& device, const What& what_names, std::size_t threads_m, std::size_t threads_n,
                      std::size_t local_bytes, std::size_t local_limit) {
  const auto what = [&]() -> std::string {
    if constexpr (std::is_invocable_v<What>) {
      return what_names();
    } else {
      return what_names;
    }
  };
  const std::size_t threads = threads_m * threads_n;
  if (threads > device.max_work_group_size || device.max_work_item_sizes.size() < 2 ||
      threads_m > device.max_work_item_sizes[0] || threads_n > device.max_work_item_sizes[1]) {
    throw Error(CL_INVALID_WORK_GROUP_SIZE,
                "tilegemm: " + what() + " needs work-groups of " + std::to_string(threads_m) + " x " +
                    std::to_string(threads_n) + " work-items, more than " + device.name + " allows (" +
                    std::to_string(device.max_work_group_size) +
                    " in all). Choose a TileConfig with fewer work-items (larger WPTM/WPTN or smaller tiles).");
  }
  if (local_bytes > local_limit) {
    throw Error(CL_OUT_OF_RESOURCES, "tilegemm: " + what() + " needs " + std::to_string(local_bytes) +
                                         " bytes of local memory per work-group but " + device.name + " has " +
                                         std::to_string(local_limit) +
                                         ". Choose a TileConfig with smaller TSK, TSM or TSN.");
  }
}

// A kernel argument of the product's scalar type, float or double (held as a double, which holds any float exactly):
// alpha and beta, so that the code that runs a product is the same for both types.
struct ScalarValue {
  double value = 0;
  bool is_double = false;
};
template <class Scalar>
ScalarValue scalar_value(Scalar value) {
  return {static_cast<double>(value), std::is_same_v<Scalar, double>};
}

}  // namespace tilegemm::detail
