// device: finding OpenCL devices, and choosing one the way TILEGEMM_DEVICE asks.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../config/linkage.hpp"
#include "error.hpp"
#include "opencl.hpp"

namespace tilegemm {

// One OpenCL device as TILEGEMM_DEVICE sees it.
struct DeviceEntry {
  cl::Device device;
  std::string platform_name;
  std::string device_name;
  cl_device_type type;

  // "platform name / device name": the text a TILEGEMM_DEVICE substring is matched against.
  std::string label() const { return platform_name + " / " + device_name; }
  std::string type_name() const {
    if (type & CL_DEVICE_TYPE_GPU) return "gpu";
    if (type & CL_DEVICE_TYPE_CPU) return "cpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
  }
};

namespace detail {

inline std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

// Without the trailing NULs and spaces some drivers leave in names.
inline std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

template <cl_uint Name>
std::string info_string(const cl::Device& device) {
  std::string text;
  check(device.getInfo(Name, &text), "clGetDeviceInfo");
  return trimmed(text);
}

}  // namespace detail

// Every device of every OpenCL platform, platform by platform. Throws tilegemm::Error when there is no platform.
TILEGEMM_ENTRY std::vector<DeviceEntry> list_devices();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::vector<DeviceEntry> list_devices() {
  return detail::translate_cl_errors([] {
    std::vector<cl::Platform> platforms;
    const cl_int status = detail::status_of([&] { return cl::Platform::get(&platforms); });
    if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && platforms.empty())) {
      throw Error(CL_PLATFORM_NOT_FOUND_KHR,
                  "tilegemm: no OpenCL platform found. Install the OpenCL driver of your GPU (its ICD file goes in "
                  "/etc/OpenCL/vendors), or the PoCL CPU driver to run on the processor (Debian and Ubuntu: apt-get "
                  "install pocl-opencl-icd).");
    }
    detail::check(status, "clGetPlatformIDs");
    std::vector<DeviceEntry> entries;
    for (const cl::Platform& platform : platforms) {
      std::string platform_name;
      detail::check(platform.getInfo(CL_PLATFORM_NAME, &platform_name), "clGetPlatformInfo");
      std::vector<cl::Device> devices;
      const cl_int found = detail::status_of([&] { return platform.getDevices(CL_DEVICE_TYPE_ALL, &devices); });
      if (found == CL_DEVICE_NOT_FOUND) continue;
      detail::check(found, "clGetDeviceIDs");
      for (const cl::Device& device : devices) {
        cl_device_type type = 0;
        detail::check(device.getInfo(CL_DEVICE_TYPE, &type), "clGetDeviceInfo");
        entries.push_back({device, detail::trimmed(platform_name), detail::info_string<CL_DEVICE_NAME>(device), type});
      }
    }
    return entries;
  });
}
#endif

namespace detail {

// The index in `entries` of the device TILEGEMM_DEVICE=`spec` chooses, or nullopt when none matches. The rule alone:
// it reads only names and types, so it runs on hand-written entries (with null cl::Devices) without any OpenCL.
inline std::optional<std::size_t> choose_device(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  const auto first_where = [&](auto&& matches) -> std::optional<std::size_t> {
    for (std::size_t index = 0; index < entries.size(); ++index) {
      if (matches(entries[index])) return index;
    }
    return std::nullopt;
  };
  const std::string wanted = lowercase(spec);
  if (wanted.empty()) {
    const auto is_gpu = [](const DeviceEntry& e) { return (e.type & CL_DEVICE_TYPE_GPU) != 0; };
    if (const std::optional<std::size_t> gpu = first_where(is_gpu)) return gpu;
    return entries.empty() ? std::nullopt : std::optional<std::size_t>(0);
  }
  if (wanted == "cpu" || wanted == "gpu" || wanted == "accelerator") {
    // By type_name(), so that a device with the GPU bit and another one counts only as a "gpu".
    return first_where([&](const DeviceEntry& e) { return e.type_name() == wanted; });
  }
  return first_where([&](const DeviceEntry& e) { return lowercase(e.label()).find(wanted) != std::string::npos; });
}

// What find_device says when choose_device finds nothing: every device there is, with its type, or that there is none.
inline std::string no_matching_device_message(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  if (entries.empty()) {
    // Platforms without devices: e.g. a GPU driver installed where its GPU is missing or unsupported.
    const std::string asked = spec.empty() ? "" : " for TILEGEMM_DEVICE=\"" + std::string(spec) + "\"";
    return "tilegemm: no OpenCL device" + asked +
           ": the OpenCL platforms here list no devices at all. Check that the driver supports this machine's GPU, "
           "or install the PoCL CPU driver to run on the processor (Debian and Ubuntu: apt-get install "
           "pocl-opencl-icd).";
  }
  std::string message = "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"" + std::string(spec) +
                        "\". Use cpu, gpu, accelerator or part of one of these names:";
  for (const DeviceEntry& e : entries) message += "\n  " + e.label() + " (" + e.type_name() + ")";
  return message;
}

// The entry choose_device picks; throws tilegemm::Error (CL_DEVICE_NOT_FOUND) with the message above when none.
inline DeviceEntry chosen_entry(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  const std::optional<std::size_t> index = choose_device(entries, spec);
  if (!index) throw Error(CL_DEVICE_NOT_FOUND, no_matching_device_message(entries, spec));
  return entries[*index];
}

}  // namespace detail

// Chooses a device by TILEGEMM_DEVICE's rules: empty picks the first GPU of any platform, else the first device;
// "cpu", "gpu" or "accelerator" picks the first device of that type; other text picks the first device whose
// "platform name / device name" contains it, ignoring case. Throws tilegemm::Error listing the devices otherwise, and
// saying so when there are platforms but no devices.
TILEGEMM_ENTRY DeviceEntry find_device(std::string_view spec);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY DeviceEntry find_device(std::string_view spec) { return detail::chosen_entry(list_devices(), spec); }
#endif

// The device named by the environment variable TILEGEMM_DEVICE (see find_device).
TILEGEMM_ENTRY DeviceEntry default_device();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY DeviceEntry default_device() {
  const char* spec = std::getenv("TILEGEMM_DEVICE");
  return find_device(spec ? spec : "");
}
#endif

}  // namespace tilegemm
