// config/family: the kernel families (the one list a new family joins) and how each takes its operands.
#pragma once

namespace tilegemm {

// The kernel families of the SGEMM tutorial that tilegemm grew from, each selectable through a TileConfig: the one
// list a new family joins, as FAMILY(name). Each has its own file under kernels/ (source, rules, where it runs,
// FamilyTraits), included by kernels/families.hpp, which makes the list of families' types from this one.
#define TILEGEMM_FAMILIES(FAMILY)                                                                                      \
  FAMILY(naive)             /* kernel 1: one work-item per element of C, straight from global memory */                \
  FAMILY(local_tiles)       /* kernels 2 and 3: square tiles in local memory, WPTN columns of C per work-item */       \
  FAMILY(wide_types)        /* kernel 4: vector types, VW rows of C per work-item, one vector multiply-add per step */ \
  FAMILY(register_blocking) /* kernels 5, 6, 7 and 10: WPTM x WPTN register blocks, rectangular tiles, VW loads */     \
  FAMILY(prefetch)          /* kernel 9: double-buffered local memory; the caller's A and B in place, either layout */ \
  FAMILY(split_k)           /* the prefetch kernel on slices of K in parallel, then a sum of them: small C, long K */  \
  FAMILY(tensor_cores)      /* warps of mma.sync on NVIDIA tensor cores (compute capability 8.0+): FP64, TF32 */       \
  FAMILY(warpgroup_mma)     /* warpgroups of wgmma on NVIDIA tensor cores (compute capability 9.0 exactly): TF32 */    \
  FAMILY(bulk_tensor_cores) /* tensor_cores' warps in FP64, fed by the copy engine without barriers (9.0+) */          \
  FAMILY(in_place_tensor_cores) /* prefetch's loop on the caller's A and B, each slice on FP64 mma.sync (8.0+) */      \
  FAMILY(staged_prefetch)       /* prefetch's arithmetic, slices copied by cp.async several ahead (NVIDIA 8.0+) */

#define TILEGEMM_FAMILY_ENUMERATOR(name) name,
enum class Family { TILEGEMM_FAMILIES(TILEGEMM_FAMILY_ENUMERATOR) };
#undef TILEGEMM_FAMILY_ENUMERATOR

namespace detail {

// How a family's kernel reads A and B.
enum class OperandAccess {
  caller_layout,  // the caller's operands with their transposes (TRANS_A, TRANS_B), any size, edges checked
  packed,         // outer-contiguous operands (A M-contiguous, B N-contiguous) of whole tiles: in place or packed
  either_layout,  // outer- or K-contiguous operands, in place or packed; edges read the way the EdgeMode says
  core_tiles,     // always packed, as the slices of tiles wgmma reads from local memory (kernels/core_tiles.hpp)
  padded_slices,  // always packed, each tile's slices one after the other in padded rows (kernels/support.hpp)
};

// Everything about one family, specialised in its file under kernels/: its name, how it takes operands, its rules,
// its local memory, its OpenCL source and entry points.
template <Family F>
struct FamilyTraits;

}  // namespace detail
}  // namespace tilegemm
