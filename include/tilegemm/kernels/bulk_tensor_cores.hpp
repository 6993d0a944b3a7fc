// kernels/bulk_tensor_cores: the bulk_tensor_cores family, the tensor_cores family's warps multiplying double on NVIDIA
// GPUs of compute capability 9.0 and newer, fed by the copy engine from operands packed in padded slices.
#pragma once

#include <cstddef>
#include <string>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "copy_engine.hpp"
#include "tensor_cores.hpp"

namespace tilegemm::detail {

inline constexpr char bulk_tensor_cores_layout_source[] = R"CLC(
// Reads A and B packed in padded slices (OperandAccess::padded_slices, kernels/support.hpp): for each tile of TSM
// rows of A (TSN of B) its K / TSK slices one after the other, each TSK rows of ROW_A (ROW_B) elements, the tile's
// and the padding, as the tensor_cores family lays a slice out in local memory. So each slice of A and of B is one
// contiguous block, which one work-item copies whole with the copy engine (kernels/copy_engine.hpp); the warps wait
// on mbarriers for a slice to land and say on others when they are done with it, with no work-group barrier. (In the
// tensor_cores family every work-item copies 16 bytes of each slice and the work-group meets at a barrier per slice:
// on an H200 that held double to 47 TFLOP/s, as it did with the same copies done row by row by the copy engine.)
#define SLOTS STAGES
#define SLICE_A (TSK * ROW_A)  // elements of a slice of A, of B
#define SLICE_B (TSK * ROW_B)
#define SLICE_BYTES ((int)sizeof(real) * SLICE_ELEMENTS)
#define BARRIERS_AT (SLOTS * SLICE_BYTES)  // bytes into local memory: full[SLOTS], then empty[SLOTS] (8 bytes each)
// A warp is done with a slice once it has read it (mma.sync takes its operands from registers), so a buffer is copied
// into again one slice after every warp is done with it: AHEAD slices are in flight.
#define AHEAD (SLOTS - 1)
// The family multiplies double only: its slices and their mbarriers (16 bytes, 2 doubles, per buffer) in local memory.
#if SLOTS * TSK * ((TSM + ROW_PAD_DOUBLE) + (TSN + ROW_PAD_DOUBLE)) + 2 * SLOTS > LOCAL_ELEMENTS
#error "bulk_tensor_cores: the slices and their mbarriers take more local memory than the host counts"
#endif
)CLC";

inline constexpr char bulk_tensor_cores_source[] = R"CLC(
// C = alpha * A * B + beta * C, a TSM x TSN tile of it per work-group.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_bulk_tensor_cores(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  __local real slices[LOCAL_ELEMENTS] __attribute__((aligned(16)));  // SLOTS slices of A and B, then the mbarriers
  const WarpLane lane = warp_lane();
  const int tid = lane.tid;
  const int2 tile = tile_origin();
  const int count = K / TSK;
  __global const real* a = (__global const real*)(A + IN_BATCH(a_offset, a_stride)) + tile.x / TSM * count * SLICE_A;
  __global const real* b = (__global const real*)(B + IN_BATCH(b_offset, b_stride)) + tile.y / TSN * count * SLICE_B;
  int a_place[PLACES], b_place[PLACES];
  fragment_places(a_place, b_place, lane);
  real acc[TILES_M][TILES_N][4];
  clear_accumulators(acc);

  const uint local_base = (uint)(ulong)slices;  // the 32-bit address in the shared window (see tensor_cores)
  start_slices(local_base, a, b, (int2)(0, 0), count, tid);
  for (int s = 0; s < count; ++s) {
    slice_ready(local_base, s);
    multiply_slice(slices + s % SLOTS * SLICE_ELEMENTS, a_place, b_place, acc, false);
    // The warp is done with the slice: its barrier orders every lane's reads before lane 0's arrival (which
    // releases only lane 0's own; it measured as fast as arriving without it).
    asm volatile("bar.warp.sync -1;" ::: "memory");
    if (tid % 32 == 0) arrive(empty_barrier(local_base, s % SLOTS));
    refill_slot(local_base, a, b, (int2)(0, 0), s + AHEAD, count, tid);
  }

  store_accumulators(acc, M, N, alpha, beta, C + IN_BATCH(c_offset, c_stride), ldc, tile, lane);
}
)CLC";

// The tensor_cores family's code for double (its helpers without TF32 and without the cp.async pipeline), then this
// family's layout and the copy engine's pipeline.
inline constexpr TextPiece bulk_tensor_cores_helpers =
    joined_piece<tile_bands_source, tensor_cores_warps_source, tensor_cores_fp64_mma_source,
                 tensor_cores_fragments_source, tensor_cores_fp64_multiply_source, tensor_cores_slices_source,
                 bulk_tensor_cores_layout_source, copy_engine_source>();

// The compute capability from which the copy engine takes bulk copies into local memory and work-items wait on
// mbarriers (cp.async.bulk, mbarrier.try_wait).
inline constexpr int copy_engine_from = 90;

// The mbarriers, 16 bytes per buffer, counted in doubles (the family multiplies double only).
inline constexpr int bulk_barrier_elements = 2;
// STAGES padded slices of A and B (as the tensor_cores family counts them: SLICE_ELEMENTS in the kernel text) and
// their mbarriers.
constexpr std::size_t bulk_tensor_cores_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.stages) * (padded_slice_elements(t) + bulk_barrier_elements);
}

// The tensor_cores family's rules (its warps and slices are the same), its padded rows, and this family's own
// operands, pipeline and local memory.
template <>
struct FamilyTraits<Family::bulk_tensor_cores> : FamilyTraits<Family::tensor_cores> {
  static constexpr char name[] = "bulk_tensor_cores";
  static constexpr OperandAccess access = OperandAccess::padded_slices;
  static constexpr bool local_memory_beyond_reported = true;  // up to runtime/sm90a_local_memory.hpp's limit

  static constexpr std::size_t local_memory_elements(const TileShape& t) { return bulk_tensor_cores_local_elements(t); }
  // Double only, where the copy engine takes bulk copies into local memory and work-items wait on mbarriers.
  static Implementation can_implement(const TileShape&, const RunTarget& target) {
    if (target.compute_capability < copy_engine_from) {
      return Implementation::refused(RefusalKind::device,
                                     " copies slices with the copy engine (cp.async.bulk), which needs an NVIDIA GPU "
                                     "of compute capability 9.0 or newer; " +
                                         std::string(target.device_name) + compute_capability_words(target) +
                                         ". Use AutoConfig or a TensorCores configuration (from 8.0).");
    }
    if (target.scalar_size != sizeof(double)) {
      return Implementation::refused(
          RefusalKind::operation,
          " multiplies double only (on the FP64 tensor cores); the product is in float. Use a TensorCores or "
          "WarpgroupMma configuration with MathMode::tf32x3 or MathMode::tf32, or AutoConfig.");
    }
    return Implementation::uses(MmaKind::fp64_sm90);
  }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    warp_defines(lines, t);
    lines.define("LOCAL_ELEMENTS", static_cast<long long>(bulk_tensor_cores_local_elements(t)));
  }
  static constexpr TextPiece helpers = bulk_tensor_cores_helpers;
  static constexpr EntryPoint product = {"gemm_bulk_tensor_cores", piece_of<bulk_tensor_cores_source>()};
};

// BulkTensorCores's configuration: the tensor_cores one with this family.
template <int TSM, int TSN, int TSK, int WM, int WN, int Stages, bool = warp_tile_holds<WM, WN>()>
struct bulk_tensor_cores_config {
  using type = TileConfig<TSM, TSN, TSK, WM / 8, WN / 4, 4, Family::bulk_tensor_cores, Stages>;
};

}  // namespace tilegemm::detail

namespace tilegemm {

// Double on the FP64 tensor cores of NVIDIA GPUs of compute capability 9.0 and newer (H100, H200), as TensorCores
// multiplies it (TSM x TSN tiles of C per work-group, WM x WN per warp, slices TSK deep, Stages slices in local
// memory), with the slices copied by the copy engine and no work-group barriers; local memory up to 227 KiB on 9.0
// (runtime/sm90a_local_memory.hpp). Both operands are packed first, each slice contiguous (kernels/support.hpp).
template <int TSM, int TSN, int TSK, int WM, int WN, int Stages>
using BulkTensorCores = typename detail::bulk_tensor_cores_config<TSM, TSN, TSK, WM, WN, Stages>::type;

}  // namespace tilegemm
