// kernels/async_copies: cp.async in OpenCL C (inline PTX, NVIDIA compute capability 8.0+): copies into local memory
// that land later, in groups, for the families that copy slices several ahead (tensor_cores, in_place_tensor_cores,
// staged_prefetch).
#pragma once

namespace tilegemm::detail {

inline constexpr char async_copies_source[] = R"CLC(
#ifndef STAGES
#error "kernels/async_copies.hpp needs STAGES (the slices in local memory at once) from its family's defines"
#endif
#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)
// Starts copying `bytes` (4, 8 or 16: a constant) from global to local memory; where `inside` is false the copy reads
// nothing and writes zeros. 16 bytes go past L1 (.cg), as only they may.
inline void copy_async(__local void* to, __global const void* from, const int bytes, const bool inside) {
  const uint at = (uint)(ulong)to;
  if (bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(from), "r"(inside ? 16 : 0)
                 : "memory");
  } else if (bytes == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(at), "l"(from), "r"(inside ? 8 : 0) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(at), "l"(from), "r"(inside ? 4 : 0) : "memory");
  }
}
// Closes the group of this work-item's copies started since the last one.
inline void end_copy_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most STAGES - 2 of this work-item's groups are in flight: with one group a slice, STAGES - 1 slices
// copied ahead, the oldest of them has landed.
inline void wait_for_copy_groups() { asm volatile("cp.async.wait_group " TEXT(STAGES - 2) ";" ::: "memory"); }
)CLC";

}  // namespace tilegemm::detail
