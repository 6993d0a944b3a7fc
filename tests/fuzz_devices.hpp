// fuzz_devices: the devices the fuzz sweep has tilegemm plan for (through ScopedDeviceDescription) while the
// products run on the device there is: so that PoCL runs the plans a GPU gets.
#pragma once

#include <string>
#include <tilegemm/core.hpp>

namespace tilegemm_fuzz {

enum class PlannedFor {
  this_device,  // the queue's own description
  gpu,          // an H200, or the same design with fewer compute units
  narrow_gpu,   // a GPU whose work-groups hold fewer than 256 work-items
};

// An H200 as OpenCL describes it (as in test_plan.cpp), with `compute_units` of its 132. With few units the
// default plan picks large tiles for C of a few hundred rows and columns, which PoCL can afford to run: 64 x 64 and
// 128 x 128 tiles in double leave no room in 48 KiB for the strips' stage, so that their strips go to the
// remainder kernel.
inline tilegemm::detail::DeviceLimits gpu_description(unsigned compute_units) {
  tilegemm::detail::DeviceLimits device;
  device.name = "NVIDIA H200 (described, " + std::to_string(compute_units) + " compute units)";
  device.type = CL_DEVICE_TYPE_GPU;
  device.compute_units = compute_units;
  device.max_work_group_size = 1024;
  device.max_work_item_sizes = {1024, 1024, 64};
  device.local_memory_bytes = 48 * 1024;
  device.fp64 = true;
  return device;
}

// A small GPU whose work-groups hold `max_work_group_size` (64 or 128) work-items: none of the GPU candidates
// fits, so AutoConfig falls back to the configuration made for such devices. Only the plan sees this limit: the
// kernels run on the device there is, which checks each kernel's work-group against its own.
inline tilegemm::detail::DeviceLimits narrow_gpu_description(std::size_t max_work_group_size) {
  tilegemm::detail::DeviceLimits device;
  device.name = "small GPU (described, work-groups of " + std::to_string(max_work_group_size) + ")";
  device.type = CL_DEVICE_TYPE_GPU;
  device.compute_units = 8;
  device.max_work_group_size = max_work_group_size;
  device.max_work_item_sizes = {max_work_group_size, max_work_group_size, max_work_group_size};
  device.local_memory_bytes = 32 * 1024;
  device.fp64 = true;
  return device;
}

}  // namespace tilegemm_fuzz
