// gemm/tensor_math: where the tensor-core families may run and with which mma.sync instructions, decided from the
// device description (its compute capability), the scalar and the math mode alone.
#pragma once

#include <cstddef>
#include <string>

#include "../config/math_mode.hpp"
#include "../kernels/kernel_description.hpp"
#include "../runtime/device_limits.hpp"
#include "../runtime/error.hpp"

namespace tilegemm::detail {

// The compute capabilities (major * 10 + minor) from which mma.sync multiplies TF32 and FP64 (8.0), and from which
// it has the FP64 shapes 16 x 8 x 8 and 16 x 8 x 16 (9.0; 8.x has 8 x 8 x 4 only, at half the rate).
inline constexpr int tensor_cores_from = 80;
inline constexpr int wide_fp64_mma_from = 90;

inline bool has_tensor_cores(const DeviceLimits& device) { return device.compute_capability >= tensor_cores_from; }

// Whether the math mode lets a product of this scalar use the tensor cores: double always (FP64 mma.sync is IEEE
// double arithmetic), float in the tensor modes only.
inline bool math_allows_tensor_cores(std::size_t scalar_size, MathMode math) {
  return scalar_size == sizeof(double) || math != MathMode::ieee;
}

// The compute capability that has wgmma (sm_90a's instructions are not in later GPUs' PTX targets).
inline constexpr int warpgroup_mma_on = 90;
inline bool has_warpgroup_mma(const DeviceLimits& device) { return device.compute_capability == warpgroup_mma_on; }

// The compute capability from which the copy engine takes bulk copies into local memory and work-items wait on
// mbarriers (cp.async.bulk, mbarrier.try_wait): the bulk_tensor_cores family's.
inline constexpr int copy_engine_from = 90;
inline bool has_copy_engine(const DeviceLimits& device) { return device.compute_capability >= copy_engine_from; }

// The compute capability `device` reports, as words for a message.
inline std::string compute_capability_words(const DeviceLimits& device) {
  return device.compute_capability > 0 ? " has compute capability " + std::to_string(device.compute_capability / 10) +
                                             "." + std::to_string(device.compute_capability % 10)
                                       : " is not one (it has no cl_nv_device_attribute_query)";
}

// The buffers a warpgroup_mma configuration needs in tf32x3, whose slices take two each (high and low parts), for its
// pipeline: one slice multiplied, one whose products may still run, one copied (kernels/warpgroup_mma.hpp).
inline constexpr int warpgroup_tf32x3_stages = 2 * warpgroup_pipeline_slices;

// The warpgroup_mma family's check: wgmma, float in tf32 or tf32x3; throws tilegemm::Error before anything is built.
inline MmaKind require_warpgroup_mma(const KernelDescription& config, const DeviceLimits& device,
                                     std::size_t scalar_size, MathMode math) {
  if (!has_warpgroup_mma(device)) {
    throw Error(CL_INVALID_DEVICE, "tilegemm: " + config.name() +
                                       " multiplies on tensor cores through wgmma, which needs an NVIDIA GPU of "
                                       "compute capability 9.0 (H100, H200); " +
                                       device.name + compute_capability_words(device) +
                                       ". Use AutoConfig or a configuration of another family (TensorCores from 8.0).");
  }
  if (scalar_size == sizeof(double) || math == MathMode::ieee) {
    throw Error(CL_INVALID_OPERATION,
                "tilegemm: " + config.name() + " multiplies float on TF32 tensor cores only (wgmma has no FP64, and " +
                    (scalar_size == sizeof(double) ? std::string("the product is in double")
                                                   : std::string("the math mode ieee rules them out")) +
                    "). Choose MathMode::tf32x3 or MathMode::tf32 for a float product (gemm's math argument, a "
                    "ScopedMathMode or TILEGEMM_MATH), or a TensorCores configuration, or AutoConfig.");
  }
  if (math == MathMode::tf32x3 && config.tile.stages < warpgroup_tf32x3_stages) {
    throw Error(CL_INVALID_OPERATION, "tilegemm: " + config.name() +
                                          " keeps too few slices for tf32x3, whose slices take two buffers each (high "
                                          "and low TF32 parts): it needs Stages of at least " +
                                          std::to_string(warpgroup_tf32x3_stages) + ", or the tf32 mode.");
  }
  if (math == MathMode::tf32x3 && config.tile.tsk > warpgroup_summed_depth) {
    throw Error(CL_INVALID_OPERATION, "tilegemm: " + config.name() +
                                          " has slices deeper than tf32x3 may sum on the tensor cores within its "
                                          "error bound: it needs TSK of at most " +
                                          std::to_string(warpgroup_summed_depth) + ", or the tf32 mode.");
  }
  return math == MathMode::tf32 ? MmaKind::tf32 : MmaKind::tf32x3;
}

// The bulk_tensor_cores family's check: double, on the FP64 tensor cores fed by the copy engine; throws
// tilegemm::Error before anything is built.
inline MmaKind require_bulk_tensor_cores(const KernelDescription& config, const DeviceLimits& device,
                                         std::size_t scalar_size) {
  if (!has_copy_engine(device)) {
    throw Error(CL_INVALID_DEVICE, "tilegemm: " + config.name() +
                                       " copies slices with the copy engine (cp.async.bulk), which needs an NVIDIA "
                                       "GPU of compute capability 9.0 or newer; " +
                                       device.name + compute_capability_words(device) +
                                       ". Use AutoConfig or a TensorCores configuration (from 8.0).");
  }
  if (scalar_size != sizeof(double)) {
    throw Error(CL_INVALID_OPERATION,
                "tilegemm: " + config.name() +
                    " multiplies double only (on the FP64 tensor cores); the product is in float. Use a TensorCores "
                    "or WarpgroupMma configuration with MathMode::tf32x3 or MathMode::tf32, or AutoConfig.");
  }
  return MmaKind::fp64_sm90;
}

// The instructions a product of a tensor-core family uses here; throws tilegemm::Error, before anything is built,
// where the device has no tensor cores or the math mode keeps float off them.
inline MmaKind require_tensor_cores(const KernelDescription& config, const DeviceLimits& device,
                                    std::size_t scalar_size, MathMode math) {
  if (config.family == Family::warpgroup_mma) return require_warpgroup_mma(config, device, scalar_size, math);
  if (config.family == Family::bulk_tensor_cores) return require_bulk_tensor_cores(config, device, scalar_size);
  if (!has_tensor_cores(device)) {
    throw Error(CL_INVALID_DEVICE, "tilegemm: " + config.name() +
                                       " multiplies on tensor cores through mma.sync, which needs an NVIDIA GPU of "
                                       "compute capability 8.0 or newer; " +
                                       device.name + compute_capability_words(device) +
                                       ". Use AutoConfig (it takes the tensor cores where there are some) or a "
                                       "configuration of another family.");
  }
  if (!math_allows_tensor_cores(scalar_size, math)) {
    throw Error(CL_INVALID_OPERATION,
                "tilegemm: " + config.name() +
                    " multiplies float on TF32 tensor cores, which the math mode ieee (IEEE FP32, the default) rules "
                    "out. Choose MathMode::tf32x3 (FP32-accurate) or MathMode::tf32 for the call (gemm's math "
                    "argument, or a ScopedMathMode) or the process (TILEGEMM_MATH=tf32x3), or a configuration of "
                    "another family.");
  }
  if (scalar_size == sizeof(double)) {
    return device.compute_capability >= wide_fp64_mma_from ? MmaKind::fp64_sm90 : MmaKind::fp64_sm80;
  }
  return math == MathMode::tf32 ? MmaKind::tf32 : MmaKind::tf32x3;
}

}  // namespace tilegemm::detail
