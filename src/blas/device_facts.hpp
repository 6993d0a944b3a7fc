// blas/device_facts: what the decision needs to know of tilegemm's default device, read once, at the first call
// that could go to it.
#pragma once

#include <string>

namespace tilegemm::detail::blas {

struct DeviceFacts {
  bool usable = false;  // false when tilegemm has no default device (problem says why)
  bool cpu = false;     // a CPU OpenCL device (PoCL, ...): auto never offloads to it
  bool fp64 = false;
  std::string key;  // name, driver and platform, for the calibration's file
  std::string problem;
};

// TILEGEMM_DEVICE's device as tilegemm chooses it; the first call makes tilegemm's first OpenCL calls.
const DeviceFacts& device_facts();

}  // namespace tilegemm::detail::blas
