// device: finding OpenCL devices, and choosing one the way TILEGEMM_DEVICE asks.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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
inline std::vector<DeviceEntry> list_devices() {
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

// Chooses a device by TILEGEMM_DEVICE's rules: empty picks the first GPU of any platform, else the first device;
// "cpu", "gpu" or "accelerator" picks the first device of that type; other text picks the first device whose
// "platform name / device name" contains it, ignoring case. Throws tilegemm::Error listing the devices otherwise.
inline DeviceEntry find_device(std::string_view spec) {
  const std::vector<DeviceEntry> entries = list_devices();
  const std::string wanted = detail::lowercase(spec);
  const auto first = [&](auto&& matches) { return std::find_if(entries.begin(), entries.end(), matches); };
  auto found = entries.end();
  if (wanted.empty()) {
    found = first([](const DeviceEntry& e) { return (e.type & CL_DEVICE_TYPE_GPU) != 0; });
    if (found == entries.end()) found = entries.begin();
  } else if (wanted == "cpu" || wanted == "gpu" || wanted == "accelerator") {
    found = first([&](const DeviceEntry& e) { return e.type_name() == wanted; });
  } else {
    found = first([&](const DeviceEntry& e) { return detail::lowercase(e.label()).find(wanted) != std::string::npos; });
  }
  if (found != entries.end()) return *found;
  std::string message = "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"" + std::string(spec) +
                        "\". Use cpu, gpu, accelerator or part of one of these names:";
  for (const DeviceEntry& e : entries) message += "\n  " + e.label() + " (" + e.type_name() + ")";
  throw Error(CL_DEVICE_NOT_FOUND, message);
}

// The device named by the environment variable TILEGEMM_DEVICE (see find_device).
inline DeviceEntry default_device() {
  const char* spec = std::getenv("TILEGEMM_DEVICE");
  return find_device(spec ? spec : "");
}

}  // namespace tilegemm
