// kernels/support: the helper kernels around a product: packing operands into padded tiles, split-K's sum of its
// slices, and C = beta * C; packing and scaling take batches as the GEMM kernels do (IN_BATCH, kernels/common.hpp).
#pragma once

#include <array>
#include <cstddef>

#include "../config/fixed_string.hpp"
#include "kernel_arguments.hpp"
#include "program_text.hpp"

namespace tilegemm::detail {

// PACK_TILE: the support kernels' work-groups are PACK_TILE x PACK_TILE work-items, the largest of these that the
// device allows (plan.hpp's support_tile_for); a device whose work-groups hold a single work-item gets 1.
inline constexpr std::array<int, 5> support_tiles = {16, 8, 4, 2, 1};
inline constexpr int pack_tile = support_tiles[0];
template <int Tile>
inline constexpr auto support_defines_text = define_line<Tile>("PACK_TILE");
inline TextPiece support_defines(int tile) {
  static constexpr std::array<TextPiece, 5> pieces = {
      piece_of<support_defines_text<16>>(), piece_of<support_defines_text<8>>(), piece_of<support_defines_text<4>>(),
      piece_of<support_defines_text<2>>(), piece_of<support_defines_text<1>>()};
  for (std::size_t i = 0; i < support_tiles.size(); ++i) {
    if (support_tiles[i] == tile) return pieces[i];
  }
  return pieces.back();
}

inline constexpr char support_source[] = R"CLC(
#ifndef PACK_TILE
#error "kernels/support.hpp needs PACK_TILE, the side of its work-groups, from the preamble (support_defines)"
#endif
// tile[i - i0][o - o0] = the operand's element (o, i) for the PACK_TILE x PACK_TILE block from (o0, i0), zero outside
// the outer x inner operand (o the outer index, m of A or n of B, and i the inner one, k), for the whole work-group.
// The source is read column-major with leading dimension ld, contiguous along o when outer_contiguous is set and
// along i otherwise, neighbouring work-items reading neighbouring elements either way.
inline void read_operand_tile(__local real (*tile)[PACK_TILE + 1], const int outer, const int inner,
                              const int outer_contiguous, __global const real* restrict src, const int ld,
                              const int o0, const int i0) {
  const int x = get_local_id(0);
  const int y = get_local_id(1);
  if (outer_contiguous) {
    const int o = o0 + x, i = i0 + y;
    tile[y][x] = (o < outer && i < inner) ? src[o + i * ld] : (real)0;
  } else {
    const int o = o0 + y, i = i0 + x;
    tile[x][y] = (o < outer && i < inner) ? src[i + o * ld] : (real)0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Copies an operand into the layout the packed kernels read, zero outside the outer x inner operand, through a tile
// in local memory (read_operand_tile) that keeps both the reads and the writes coalesced. Its outer index o (m of A,
// n of B) is cut into tiles of tile_outer, each a block of inner_padded rows of `row` elements: element (o, i) (i the
// inner index, k) at dst[o / tile_outer * inner_padded * row + i * row + o % tile_outer], and the padding past each
// tile's row is zero. With tile_outer = row = outer_padded that is dst[i * outer_padded + o] (the packed families);
// with the tile of a bulk_tensor_cores configuration and its padded row, each slice of a tile is one contiguous
// block (OperandAccess::padded_slices). Each problem of a batch (launch dimension 2) is src_stride elements past the
// one before in src and dst_stride in dst.
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_TILE, 1)))
void pack_operand(PACK_OPERAND_PARAMETERS) {
  __local real tile[PACK_TILE][PACK_TILE + 1];  // tile[i - i0][o - o0]; the +1 avoids bank conflicts
  const int x = get_local_id(0);
  const int y = get_local_id(1);
  const int o0 = get_group_id(0) * PACK_TILE;
  const int i0 = get_group_id(1) * PACK_TILE;
  dst += IN_BATCH(0, dst_stride);
  read_operand_tile(tile, outer, inner, outer_contiguous, src + IN_BATCH(src_offset, src_stride), ld, o0, i0);
  const int o = o0 + x, i = i0 + y;
  if (o < outer_padded && i < inner_padded) {
    __global real* tile_row = dst + o / tile_outer * inner_padded * row + i * row;
    tile_row[o % tile_outer] = tile[y][x];
    if (o % tile_outer < row - tile_outer) tile_row[tile_outer + o % tile_outer] = (real)0;  // the padding
  }
}

// C = alpha * (W_0 + ... + W_{slices-1}) + beta * C: the second pass of split-K, over the partial products W_s
// that its slices left in a dense workspace (slice s at s * slice_stride, leading dimension ldw). C is not read
// when beta is zero.
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_TILE, 1)))
void sum_slices(SUM_SLICES_PARAMETERS) {
  const int m = get_global_id(0);
  const int n = get_global_id(1);
  if (m < M && n < N) {
    real sum = 0;
    for (int s = 0; s < slices; ++s) sum += W[s * slice_stride + m + n * ldw];
    C += c_offset;
    const int i = m + n * ldc;
    C[i] = beta == (real)0 ? alpha * sum : alpha * sum + beta * C[i];
  }
}

// C = beta * C for the M x N matrix C, of each problem of a batch (c_stride elements apart); C is not read when
// beta is zero.
__kernel __attribute__((reqd_work_group_size(PACK_TILE, PACK_TILE, 1)))
void scale_c(SCALE_C_PARAMETERS) {
  const int m = get_global_id(0);
  const int n = get_global_id(1);
  if (m < M && n < N) {
    C += IN_BATCH(c_offset, c_stride);
    C[m + n * ldc] = beta == (real)0 ? (real)0 : beta * C[m + n * ldc];
  }
}
)CLC";
inline constexpr auto support_parameters_text = parameters_define<pack_operand_arguments>("PACK_OPERAND_PARAMETERS") +
                                                parameters_define<sum_slices_arguments>("SUM_SLICES_PARAMETERS") +
                                                parameters_define<scale_c_arguments>("SCALE_C_PARAMETERS");
inline constexpr TextPiece support_code = joined_piece<support_parameters_text, support_source>();

inline constexpr char pack_kernel_name[] = "pack_operand";
inline constexpr char scale_kernel_name[] = "scale_c";
inline constexpr char sum_slices_kernel_name[] = "sum_slices";

}  // namespace tilegemm::detail
