// device: finding OpenCL devices, and choosing one the way TILEGEMM_DEVICE asks.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
    // Enumerations take turns: the ICD loader's first platform query is not safe from several threads at once (4
    // threads starting together crashed Debian 12's ocl-icd with PoCL in 18 of 30 runs: tests/first_discovery.cpp).
    static std::mutex enumerating;
    const std::lock_guard<std::mutex> lock(enumerating);
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

// The local rank as the launchers give it (null where unset), in the order TILEGEMM_DEVICE=local-rank reads them:
// Open MPI's, MPICH's (and Intel MPI's), then Slurm's. A value, not the environment, so that the rule is testable.
struct LocalRankVariables {
  const char* open_mpi = nullptr;  // OMPI_COMM_WORLD_LOCAL_RANK
  const char* mpich = nullptr;     // MPI_LOCALRANKID
  const char* slurm = nullptr;     // SLURM_LOCALID
};

inline LocalRankVariables local_rank_variables() {
  return {std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"), std::getenv("MPI_LOCALRANKID"), std::getenv("SLURM_LOCALID")};
}

// A count written in decimal digits only (no sign, no spaces), at most 9 of them so that it cannot overflow; nullopt
// for anything else.
inline std::optional<std::size_t> decimal_count(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::size_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

// The local rank: the first of the variables that is set and not empty; 0 when none is (a process not started by a
// launcher). Throws tilegemm::Error (CL_INVALID_VALUE) naming the variable when its value is not a rank.
inline std::size_t local_rank(const LocalRankVariables& variables) {
  const std::pair<const char*, const char*> in_order[] = {{"OMPI_COMM_WORLD_LOCAL_RANK", variables.open_mpi},
                                                          {"MPI_LOCALRANKID", variables.mpich},
                                                          {"SLURM_LOCALID", variables.slurm}};
  for (const auto& [name, value] : in_order) {
    if (value == nullptr || *value == '\0') continue;
    if (const std::optional<std::size_t> rank = decimal_count(value)) return *rank;
    throw Error(CL_INVALID_VALUE, std::string("tilegemm: TILEGEMM_DEVICE=local-rank reads the local rank from ") +
                                      name + "=\"" + value +
                                      "\", which is not a rank: expected a whole number 0, 1, 2, ... " +
                                      "(mpirun and srun set it; unset, the rank is 0)");
  }
  return 0;
}

inline bool is_gpu(const DeviceEntry& e) { return e.type_name() == "gpu"; }

inline std::size_t gpu_count(const std::vector<DeviceEntry>& entries) {
  return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(), is_gpu));
}

// entries[index]'s N in TILEGEMM_DEVICE=gpu:N (its place among the GPUs, from 0), or nullopt for a device that is not
// a GPU.
inline std::optional<std::size_t> gpu_number(const std::vector<DeviceEntry>& entries, std::size_t index) {
  if (!is_gpu(entries[index])) return std::nullopt;
  return static_cast<std::size_t>(std::count_if(entries.begin(), entries.begin() + index, is_gpu));
}

// The index in `entries` of the device TILEGEMM_DEVICE=`spec` chooses, or nullopt when none matches; `ranks` gives
// local-rank's variables. The rule alone: it reads only names, types and `ranks`, so it runs on hand-written entries
// (with null cl::Devices) without any OpenCL. Throws tilegemm::Error (CL_INVALID_VALUE) for a gpu:N whose N is not a
// number and for a local rank that is not one.
inline std::optional<std::size_t> choose_device(const std::vector<DeviceEntry>& entries, std::string_view spec,
                                                const LocalRankVariables& ranks) {
  const auto first_where = [&](auto&& matches) -> std::optional<std::size_t> {
    for (std::size_t index = 0; index < entries.size(); ++index) {
      if (matches(entries[index])) return index;
    }
    return std::nullopt;
  };
  // The device that is the `wanted`-th of those `matches` accepts, or nullopt when there are fewer.
  const auto nth_where = [&](std::size_t wanted, auto&& matches) -> std::optional<std::size_t> {
    for (std::size_t index = 0; index < entries.size(); ++index) {
      if (matches(entries[index]) && wanted-- == 0) return index;
    }
    return std::nullopt;
  };
  const std::string wanted = lowercase(spec);
  if (wanted.empty()) {
    if (const std::optional<std::size_t> gpu = first_where(is_gpu)) return gpu;
    return entries.empty() ? std::nullopt : std::optional<std::size_t>(0);
  }
  if (wanted == "cpu" || wanted == "gpu" || wanted == "accelerator") {
    // By type_name(), so that a device with the GPU bit and another one counts only as a "gpu".
    return first_where([&](const DeviceEntry& e) { return e.type_name() == wanted; });
  }
  if (wanted.rfind("gpu:", 0) == 0) {
    // Identical GPUs share one name: an index is the only way to tell them apart.
    const std::optional<std::size_t> number = decimal_count(std::string_view(wanted).substr(4));
    if (!number) {
      throw Error(CL_INVALID_VALUE, "tilegemm: TILEGEMM_DEVICE=\"" + std::string(spec) +
                                        "\" is not a GPU's number: expected gpu:N, N = 0, 1, 2, ... (the N-th GPU in "
                                        "list_devices' order, counting from 0)");
    }
    return nth_where(*number, is_gpu);
  }
  if (wanted == "local-rank") {
    // One GPU per rank on a host of several; where there is no GPU, the same over every device (CI's ranks on PoCL).
    const std::size_t rank = local_rank(ranks);
    const std::size_t gpus = gpu_count(entries);
    if (gpus > 0) return nth_where(rank % gpus, is_gpu);
    if (entries.empty()) return std::nullopt;
    return rank % entries.size();
  }
  return first_where([&](const DeviceEntry& e) { return lowercase(e.label()).find(wanted) != std::string::npos; });
}

// The same with local-rank's variables read from the environment.
inline std::optional<std::size_t> choose_device(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  return choose_device(entries, spec, local_rank_variables());
}

// What find_device says when choose_device finds nothing: every device there is, with its type (and a GPU's gpu:N),
// or that there is none.
inline std::string no_matching_device_message(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  if (entries.empty()) {
    // Platforms without devices: e.g. a GPU driver installed where its GPU is missing or unsupported.
    const std::string asked = spec.empty() ? "" : " for TILEGEMM_DEVICE=\"" + std::string(spec) + "\"";
    return "tilegemm: no OpenCL device" + asked +
           ": the OpenCL platforms here list no devices at all. Check that the driver supports this machine's GPU, "
           "or install the PoCL CPU driver to run on the processor (Debian and Ubuntu: apt-get install "
           "pocl-opencl-icd).";
  }
  std::string message = "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"" + std::string(spec) + "\"";
  const std::string wanted = lowercase(spec);
  if (wanted.rfind("gpu:", 0) == 0) {
    const std::size_t gpus = gpu_count(entries);
    message += gpus == 0   ? ": there is no GPU here"
               : gpus == 1 ? ": there is 1 GPU, gpu:0"
                           : ": there are " + std::to_string(gpus) + " GPUs, gpu:0 to gpu:" + std::to_string(gpus - 1);
  }
  message += ". Use cpu, gpu, accelerator, gpu:N, local-rank or part of one of these names:";
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const DeviceEntry& e = entries[index];
    const std::optional<std::size_t> number = gpu_number(entries, index);
    message += "\n  " + e.label() + " (" + e.type_name() + (number ? ", gpu:" + std::to_string(*number) : "") + ")";
  }
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
// "cpu", "gpu" or "accelerator" picks the first device of that type; "gpu:N" the N-th GPU (from 0, in list_devices'
// order); "local-rank" the GPU numbered the process's local rank (OMPI_COMM_WORLD_LOCAL_RANK, else MPI_LOCALRANKID,
// else SLURM_LOCALID, else 0) modulo the number of GPUs, or where there is no GPU the device so numbered among all;
// other text picks the first device whose "platform name / device name" contains it, ignoring case. Throws
// tilegemm::Error listing the devices otherwise, saying so when there are platforms but no devices, and naming the
// variable and its value for a gpu:N or a local rank that is not a number.
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
