// gemm/tensor_math: whether a configuration's family can run a product here and with which tensor-core
// instructions, asked of the family (its can_implement) with the device description, the scalar and the math mode.
#pragma once

#include <cstddef>
#include <string>

#include "../config/math_mode.hpp"
#include "../kernels/kernel_description.hpp"
#include "../runtime/device_limits.hpp"
#include "../runtime/error.hpp"

namespace tilegemm::detail {

// The device facts the families' can_implement reads, with the scalar and the math mode of the product.
inline RunTarget run_target(const DeviceLimits& device, std::size_t scalar_size, MathMode math) {
  return {device.name, device.compute_capability, scalar_size, math};
}

// The family's answer for a product of `config` here.
inline Implementation implementation_on(const KernelDescription& config, const DeviceLimits& device,
                                        std::size_t scalar_size, MathMode math) {
  return config.can_implement(config.tile, run_target(device, scalar_size, math));
}

// The instructions a product of `config` uses here (MmaKind::none outside the tensor-core families); throws
// tilegemm::Error, before anything is built, where its family refuses the device, the scalar or the math mode.
inline MmaKind require_implementable(const KernelDescription& config, const DeviceLimits& device,
                                     std::size_t scalar_size, MathMode math) {
  Implementation found = implementation_on(config, device, scalar_size, math);
  if (!found.possible()) {
    throw Error(found.refusal == RefusalKind::device ? CL_INVALID_DEVICE : CL_INVALID_OPERATION,
                "tilegemm: " + config.name() + found.why);
  }
  return found.mma;
}

// The device facts AutoConfig's choices read, from the thresholds the families state.
inline bool has_tensor_cores(const DeviceLimits& device) { return device.compute_capability >= tensor_cores_from; }
inline bool has_warpgroup_mma(const DeviceLimits& device) { return device.compute_capability == warpgroup_mma_on; }
inline bool has_copy_engine(const DeviceLimits& device) { return device.compute_capability >= copy_engine_from; }

}  // namespace tilegemm::detail
