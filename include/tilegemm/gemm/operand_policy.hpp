// operand_policy: how the kernels that read either layout take the caller's operands: in place, packed, or in
// place with the edges checked, and the sizes (measured on an H200) where one way starts to beat another.
#pragma once

namespace tilegemm::detail {

// Operands that do not fill whole tiles are read in place, a vector at a time, when their contiguous extent,
// offset and leading dimension are whole vectors (the prefetch kernel's EDGES 1). Others, in products up to this
// many multiply-adds, are read in place an element at a time (EDGES 2) rather than packed first: up to about 2048
// cubed, the pack kernels and the padding cost more than element loads.
inline constexpr double edges_in_place_up_to = 8.6e9;

// K-contiguous operands are read in place unless they are reused over this many rows (for B) or columns (for A)
// of C: then a packed, outer-contiguous copy pays for itself (the 128 x 128 kernel ran 5% faster on it at 4096 and
// 8192, and the copy cost about 1.2%).
inline constexpr int pack_k_contiguous_from = 2048;

// The choice for operands that do not fill whole tiles: as above, or always packed, or in place a vector at a time
// where they are vector-aligned (others packed), or always in place an element at a time. Tests use the last three.
enum class EdgePolicy { by_size, pack, vectors, elements };

}  // namespace tilegemm::detail
