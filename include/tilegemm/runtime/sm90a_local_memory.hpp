// runtime/sm90a_local_memory: how much local memory a work-group of the families that take more than the device
// reports (warpgroup_mma, bulk_tensor_cores) may have on compute capability 9.0.
#pragma once

#include <cstddef>

namespace tilegemm::detail {

// 227 KiB, CUDA's limit per block on compute capability 9.0 for a kernel that opts in. NVIDIA's OpenCL reports
// CL_DEVICE_LOCAL_MEM_SIZE 48 KiB (CUDA's limit without opting in), yet builds and runs kernels with larger arrays in
// local memory: on an H200 (2026-11-27) wgmma kernels of the sm_90a path (runtime/sm90a_ptx.hpp) with 64 to 192 KiB
// and the bulk_tensor_cores family's (sm_90) with 135 and 203 KiB built and gave right results
// (tests/test_kernel_contracts.cpp checks that the driver reports what was planned). Where a driver refuses, the
// build or launch fails with a tilegemm::Error; run_gemm (gemm/gemm.hpp) then marks the device
// (DeviceLimits::sm90a_local_memory_refused) and plans AutoConfig's product again within the 48 KiB.
inline constexpr std::size_t sm90a_local_memory_bytes = 227 * 1024;

}  // namespace tilegemm::detail
