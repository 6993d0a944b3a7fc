// kernels/core_tiles: the layout in which the warpgroup_mma family reads A and B (slices of tiles as wgmma takes them
// from local memory), and the kernel that packs an operand into it, rounded to TF32 or split into two TF32 parts.
#pragma once

#include "../config/fixed_string.hpp"
#include "kernel_arguments.hpp"
#include "program_text.hpp"

namespace tilegemm::detail {

// wgmma reads a K-major operand from local memory in core matrices of 8 rows (m of A, n of B) by 16 bytes (4 floats
// of k), each 128 contiguous bytes. The packed copy of an operand is those bytes in the order the kernel copies them:
// for each tile of tile_outer rows, for each slice of tile_inner (TSK) of k, the slice's rows in groups of 8, each
// group its tile_inner / 4 core matrices one after the other; for tf32x3 each slice of the high TF32 parts is followed
// by the same slice of the low parts. So a slice is one contiguous block of memory, and the kernel copies it to local
// memory as it is, 16 bytes per copy, neighbouring work-items taking neighbouring bytes.
inline constexpr int core_rows = 8;     // rows of a core matrix
inline constexpr int core_columns = 4;  // floats of k in a core matrix's row (16 bytes)
// The pack kernel's work-groups copy blocks of core_block x core_block elements, core_block x (core_block /
// core_columns) work-items each.
inline constexpr int core_block = 32;

inline constexpr char core_tiles_source[] = R"CLC(
#if !defined(CORE_ROWS) || !defined(CORE_COLUMNS) || !defined(CORE_BLOCK)
#error "kernels/core_tiles.hpp needs CORE_ROWS, CORE_COLUMNS and CORE_BLOCK from the preamble (core_defines)"
#endif
// Where element (o, i) of the operand lies in its core tiles (see kernels/core_tiles.hpp), in the first of the
// `parts` images of its slice.
inline int core_tile_index(const int o, const int i, const int tile_outer, const int tile_inner, const int slices,
                           const int parts) {
  const int tile = o / tile_outer, row = o % tile_outer, slice = i / tile_inner, k = i % tile_inner;
  return (tile * slices + slice) * parts * tile_outer * tile_inner + row / CORE_ROWS * CORE_ROWS * tile_inner +
         k / CORE_COLUMNS * CORE_ROWS * CORE_COLUMNS + row % CORE_ROWS * CORE_COLUMNS + k % CORE_COLUMNS;
}

// Copies block (o0, i0) of an outer x inner operand (m x k of A, n x k of B) into its core tiles up to
// outer_padded x inner_padded (whole tiles), zero outside the operand: one part, rounded to TF32, or two (`parts`),
// the high TF32 part and the low one (what is left, rounded to TF32). The work-group copies the CORE_BLOCK x
// CORE_BLOCK block through local memory: it reads the block with neighbouring work-items on neighbouring elements,
// whichever index is contiguous, then each work-item writes one 16-byte row of a core matrix (4 of k), so that 8
// neighbours fill one matrix's 128 bytes. (One element per work-item, in 16 x 16 tiles, moved about 1 TB/s on an
// H200; this way 3 to 3.6.)
inline void pack_core_block(__local float (*block)[CORE_BLOCK + 1], const int o0, const int i0, const int outer,
                            const int inner, const int outer_contiguous, __global const float* restrict src,
                            const int ld, const int outer_padded, const int inner_padded, const int tile_outer,
                            const int tile_inner, const int parts, __global float* restrict dst) {
  const int x = get_local_id(0);
  const int y = get_local_id(1);
  for (int r = y; r < CORE_BLOCK; r += CORE_BLOCK / CORE_COLUMNS) {
    if (outer_contiguous) {
      const int o = o0 + x, i = i0 + r;
      block[r][x] = o < outer && i < inner ? src[o + i * ld] : 0.0f;
    } else {
      const int o = o0 + r, i = i0 + x;
      block[x][r] = o < outer && i < inner ? src[i + o * ld] : 0.0f;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Row x of the block, k from CORE_COLUMNS * y: tiles and slices are whole core matrices (TSK is a multiple of 8).
  const int o = o0 + x, i = i0 + CORE_COLUMNS * y;
  if (o < outer_padded && i < inner_padded) {
    const int at = core_tile_index(o, i, tile_outer, tile_inner, inner_padded / tile_inner, parts);
    const float4 value = (float4)(block[i - i0][x], block[i - i0 + 1][x], block[i - i0 + 2][x], block[i - i0 + 3][x]);
    const float4 high = (float4)(to_tf32(value.x), to_tf32(value.y), to_tf32(value.z), to_tf32(value.w));
    // 16-byte stores: `at` is a multiple of 4, and copies (dst_stride) and parts whole core matrices.
    *(__global float4*)(dst + at) = high;
    if (parts == 2) {
      const float4 low = value - high;
      *(__global float4*)(dst + at + tile_outer * tile_inner) =
          (float4)(to_tf32(low.x), to_tf32(low.y), to_tf32(low.z), to_tf32(low.w));
    }
  }
}

// Packs two operands in one launch (PACK_CORE_TILES_PARAMETERS): the first a_blocks work-groups along dimension 0
// take a_'s blocks of rows, the rest b_'s (none where b_outer_padded is 0); dimension 1 runs along k, as far as the
// deeper of the two (a block past an operand's inner_padded stores nothing). Each problem of a batch (launch dimension
// 2) is src_stride elements past the one before in src and dst_stride in dst. The operand is chosen by value, so that
// every work-item reaches the one barrier (PoCL wrote past the copies with a barrier in each branch).
__kernel __attribute__((reqd_work_group_size(CORE_BLOCK, CORE_BLOCK / CORE_COLUMNS, 1)))
void pack_core_tiles(PACK_CORE_TILES_PARAMETERS) {
  __local float block[CORE_BLOCK][CORE_BLOCK + 1];  // block[i - i0][o - o0]; the +1 avoids bank conflicts
  const int group = get_group_id(0);
  const int is_b = group >= a_blocks;
  __global const float* restrict src = is_b ? b_src + IN_BATCH(b_src_offset, b_src_stride)
                                            : a_src + IN_BATCH(a_src_offset, a_src_stride);
  __global float* restrict dst = is_b ? b_dst + IN_BATCH(0, b_dst_stride) : a_dst + IN_BATCH(0, a_dst_stride);
  pack_core_block(block, (is_b ? group - a_blocks : group) * CORE_BLOCK, get_group_id(1) * CORE_BLOCK,
                  is_b ? b_outer : a_outer, is_b ? b_inner : a_inner,
                  is_b ? b_outer_contiguous : a_outer_contiguous, src, is_b ? b_ld : a_ld,
                  is_b ? b_outer_padded : a_outer_padded, is_b ? b_inner_padded : a_inner_padded,
                  is_b ? b_tile_outer : a_tile_outer, is_b ? b_tile_inner : a_tile_inner, is_b ? b_parts : a_parts,
                  dst);
}
)CLC";

template <int Rows, int Columns, int Block>
inline constexpr auto core_defines_text =
    define_line<Rows>("CORE_ROWS") + define_line<Columns>("CORE_COLUMNS") + define_line<Block>("CORE_BLOCK");
inline constexpr TextPiece core_defines = piece_of<core_defines_text<core_rows, core_columns, core_block>>();
inline constexpr auto core_tiles_parameters_text =
    parameters_define<pack_core_tiles_arguments>("PACK_CORE_TILES_PARAMETERS");
inline constexpr TextPiece core_tiles_code = joined_piece<core_tiles_parameters_text, core_tiles_source>();
inline constexpr char core_tiles_kernel_name[] = "pack_core_tiles";

}  // namespace tilegemm::detail
