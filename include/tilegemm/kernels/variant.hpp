// kernels/variant: which program of a family a product needs: its operands' layout flags, edge mode and entry point.
#pragma once

namespace tilegemm::detail {

// How a kernel that reads either layout meets operands that do not fill whole tiles (EDGES in its preamble, where
// the modes' names are defined from these values; see kernels/prefetch.hpp).
enum class EdgeMode {
  whole_tiles = 0,  // sizes, offsets and leading dimensions are whole tiles and vectors
  vectors = 1,      // any sizes whose contiguous extents, offsets and leading dimensions are whole vectors
  elements = 2,     // anything, an element at a time
};

struct Variant {
  bool flag_a = false;  // caller_layout: A is transposed; either_layout: A is K-contiguous; packed: unused
  bool flag_b = false;  // the same for B
  EdgeMode edges = EdgeMode::whole_tiles;  // either_layout only
  bool strips = false;                     // the entry point that also multiplies the strips outside a tiled corner
};

}  // namespace tilegemm::detail
