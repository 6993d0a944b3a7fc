// device_limits: what a device allows (work-group size, local and global memory, fp64), read once per device.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "device.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

struct DeviceLimits {
  std::string name;
  std::string vendor;
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::vector<std::size_t> max_work_item_sizes;
  cl_ulong local_memory_bytes = 0;
  cl_ulong max_alloc_bytes = ~cl_ulong(0);  // the largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE); unknown: no limit
  cl_ulong global_memory_bytes = 0;         // 0 in hand-written descriptions: unknown
  bool fp64 = false;
};

// A copy, so that no reference into the shared table escapes its lock.
inline DeviceLimits device_limits(const cl::Device& device) {
  static auto* known = new std::map<cl_device_id, DeviceLimits>;  // leaked on purpose, see queue.hpp
  static auto* mutex = new std::mutex;
  std::lock_guard<std::mutex> lock(*mutex);
  auto found = known->find(device());
  if (found != known->end()) return found->second;
  DeviceLimits limits;
  limits.name = info_string<CL_DEVICE_NAME>(device);
  limits.vendor = info_string<CL_DEVICE_VENDOR>(device);
  check(device.getInfo(CL_DEVICE_TYPE, &limits.type), "clGetDeviceInfo(CL_DEVICE_TYPE)");
  check(device.getInfo(CL_DEVICE_MAX_COMPUTE_UNITS, &limits.compute_units), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &limits.max_work_group_size), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES, &limits.max_work_item_sizes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_LOCAL_MEM_SIZE, &limits.local_memory_bytes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE, &limits.max_alloc_bytes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_GLOBAL_MEM_SIZE, &limits.global_memory_bytes), "clGetDeviceInfo");
  cl_device_fp_config double_config = 0;
  limits.fp64 = device.getInfo(CL_DEVICE_DOUBLE_FP_CONFIG, &double_config) == CL_SUCCESS && double_config != 0;
  return known->emplace(device(), limits).first->second;
}

}  // namespace tilegemm::detail
