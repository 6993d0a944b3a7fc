// described_devices: devices written out as OpenCL describes them, for the planner's and the tuner's tests, which
// check plans without the device.
#pragma once

#include <tilegemm/core.hpp>

namespace tilegemm_test {

// An H200: the default plan is chosen from this alone.
inline tilegemm::detail::DeviceLimits h200() {
  tilegemm::detail::DeviceLimits device;
  device.name = "NVIDIA H200";
  device.type = CL_DEVICE_TYPE_GPU;
  device.compute_units = 132;
  device.max_work_group_size = 1024;
  device.max_work_item_sizes = {1024, 1024, 64};
  device.local_memory_bytes = 48 * 1024;
  device.fp64 = true;
  return device;
}

}  // namespace tilegemm_test
