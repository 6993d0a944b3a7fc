// kernels/variant: which program of a family a product needs: its operands' layout flags, edge mode, entry point and
// tensor-core instructions.
#pragma once

namespace tilegemm::detail {

// How a kernel that reads either layout meets operands that do not fill whole tiles (EDGES in its preamble, where
// the modes' names are defined from these values; see kernels/prefetch.hpp).
enum class EdgeMode {
  whole_tiles = 0,  // sizes, offsets and leading dimensions are whole tiles and vectors
  vectors = 1,      // any sizes whose contiguous extents, offsets and leading dimensions are whole vectors
  elements = 2,     // anything, an element at a time
};

// The tensor-core instructions (mma.sync) a program of the tensor_cores family multiplies with (MMA in its preamble,
// where the kinds' names are defined from these values): the planner picks them from the scalar, the math mode and
// the device's compute capability.
enum class MmaKind {
  none = 0,       // the families without tensor cores
  tf32x3 = 1,     // float, FP32-accurate: m16n8k8 TF32, three products of split operands
  tf32 = 2,       // float on TF32-rounded operands: m16n8k8 TF32, one product
  fp64_sm80 = 3,  // double: m8n8k4 FP64 (compute capability 8.x)
  fp64_sm90 = 4,  // double: m16n8k16 FP64, or m16n8k8 for slices of 8 (compute capability 9.0 and newer)
  bf16 = 5,       // float on operands rounded to bfloat16 as fragments are formed: m16n8k16 (m16n8k8) BF16
  fp16 = 6,       // the same in IEEE half: m16n8k16 (m16n8k8) F16; FP32 accumulators for both
};

struct Variant {
  // caller_layout: A is transposed; either_layout: A is K-contiguous; core_tiles: A is read in place through a tensor
  // map (kernels/tensor_maps.hpp); other packed layouts: unused
  bool flag_a = false;
  bool flag_b = false;                     // the same for B
  EdgeMode edges = EdgeMode::whole_tiles;  // either_layout only
  bool strips = false;                     // the entry point that also multiplies the strips outside a tiled corner
  MmaKind mma = MmaKind::none;             // tensor_cores only
  bool outer_a = false;                    // core_tiles: A's map is outer-contiguous (wgmma reads A from registers)
};

}  // namespace tilegemm::detail
