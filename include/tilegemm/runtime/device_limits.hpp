// device_limits: what a device allows (work-group size, local and global memory, fp64, NVIDIA's compute capability),
// read once per device.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "../config/linkage.hpp"
#include "device.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

struct DeviceLimits {
  std::string name;
  std::string vendor;
  std::string platform;  // the platform's name; empty in hand-written descriptions
  std::string driver;    // CL_DRIVER_VERSION; empty in hand-written descriptions (no tuned winners apply then)
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::vector<std::size_t> max_work_item_sizes;
  cl_ulong local_memory_bytes = 0;
  cl_ulong max_alloc_bytes = ~cl_ulong(0);  // the largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE); unknown: no limit
  cl_ulong global_memory_bytes = 0;         // 0 in hand-written descriptions: unknown
  bool fp64 = false;
  // NVIDIA's compute capability as major * 10 + minor (90 on an H100 or H200), read through the
  // cl_nv_device_attribute_query extension; 0 on other devices. The tensor_cores family needs 80 or more.
  int compute_capability = 0;
  // Whether a build or launch failed for a kernel of sm_90a that had more local memory than the device reports
  // (runtime/sm90a_local_memory.hpp): such kernels then get only what it reports.
  bool sm90a_local_memory_refused = false;
  // Whether a kernel that makes tensor maps (kernels/tensor_maps.hpp) failed to build there: operands are then packed.
  bool tensor_maps_refused = false;
};

// cl_nv_device_attribute_query's queries (CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and _MINOR_NV in cl_ext.h, which
// not every OpenCL header package has).
inline constexpr cl_device_info nv_compute_capability_major = 0x4000;
inline constexpr cl_device_info nv_compute_capability_minor = 0x4001;

// The device's compute capability as major * 10 + minor where it has NVIDIA's attribute query, else 0.
inline int compute_capability_of(const cl::Device& device) {
  if (info_string<CL_DEVICE_EXTENSIONS>(device).find("cl_nv_device_attribute_query") == std::string::npos) return 0;
  cl_uint major = 0;
  cl_uint minor = 0;
  if (clGetDeviceInfo(device(), nv_compute_capability_major, sizeof major, &major, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(device(), nv_compute_capability_minor, sizeof minor, &minor, nullptr) != CL_SUCCESS) {
    return 0;
  }
  return static_cast<int>(major * 10 + minor);
}

// The limits read so far, per device, and their lock (leaked on purpose, see queue.hpp).
struct DeviceTable {
  std::map<cl_device_id, DeviceLimits> known;
  std::mutex mutex;
};
TILEGEMM_ENTRY DeviceTable& device_table();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY DeviceTable& device_table() {
  static auto* table = new DeviceTable;
  return *table;
}
#endif

// A copy, so that no reference into the shared table escapes its lock.
TILEGEMM_ENTRY DeviceLimits device_limits(const cl::Device& device);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY DeviceLimits device_limits(const cl::Device& device) {
  DeviceTable& table = device_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.known.find(device());
  if (found != table.known.end()) return found->second;
  DeviceLimits limits;
  limits.name = info_string<CL_DEVICE_NAME>(device);
  limits.vendor = info_string<CL_DEVICE_VENDOR>(device);
  limits.driver = info_string<CL_DRIVER_VERSION>(device);
  cl_platform_id platform = nullptr;
  if (clGetDeviceInfo(device(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) == CL_SUCCESS) {
    std::string platform_name;
    if (cl::Platform(platform, true).getInfo(CL_PLATFORM_NAME, &platform_name) == CL_SUCCESS) {
      limits.platform = trimmed(platform_name);
    }
  }
  check(device.getInfo(CL_DEVICE_TYPE, &limits.type), "clGetDeviceInfo(CL_DEVICE_TYPE)");
  check(device.getInfo(CL_DEVICE_MAX_COMPUTE_UNITS, &limits.compute_units), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &limits.max_work_group_size), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES, &limits.max_work_item_sizes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_LOCAL_MEM_SIZE, &limits.local_memory_bytes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE, &limits.max_alloc_bytes), "clGetDeviceInfo");
  check(device.getInfo(CL_DEVICE_GLOBAL_MEM_SIZE, &limits.global_memory_bytes), "clGetDeviceInfo");
  cl_device_fp_config double_config = 0;
  limits.fp64 = device.getInfo(CL_DEVICE_DOUBLE_FP_CONFIG, &double_config) == CL_SUCCESS && double_config != 0;
  limits.compute_capability = compute_capability_of(device);
  return table.known.emplace(device(), limits).first->second;
}
#endif

// Records that the device's driver refused a kernel of sm_90a more local memory than the device reports: from now on
// the limits of `device` say so (sm90a_local_memory_refused).
TILEGEMM_ENTRY void note_sm90a_local_memory_refused(const cl::Device& device);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void note_sm90a_local_memory_refused(const cl::Device& device) {
  device_limits(device);  // read first, so that the entry exists
  DeviceTable& table = device_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.known[device()].sm90a_local_memory_refused = true;
}
#endif

// Records that a kernel making tensor maps failed to build for the device: from now on its limits say so
// (tensor_maps_refused).
TILEGEMM_ENTRY void note_tensor_maps_refused(const cl::Device& device);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void note_tensor_maps_refused(const cl::Device& device) {
  device_limits(device);
  DeviceTable& table = device_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.known[device()].tensor_maps_refused = true;
}
#endif

}  // namespace tilegemm::detail
