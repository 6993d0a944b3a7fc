// kernels/tensor_maps: operands read in place by the copy engine's tensor copies (TMA, compute capability 9.0): a
// tensor map made by each work-group for each (tensormap.replace, sm_90a), and the copy of a box of it into local
// memory.
#pragma once

#include <array>

#include "../config/fixed_string.hpp"
#include "kernel_arguments.hpp"
#include "program_text.hpp"
#include "sm90a_marker.hpp"

namespace tilegemm::detail {

// A tensor map: PTX's 1024-bit tensormap object, 64-byte aligned in global memory.
inline constexpr int tensor_map_bytes = 128;
// A box's depth: 32 floats, one 128-byte row of wgmma's 128-byte swizzle, so the slices of a mapped operand are this
// deep.
inline constexpr int tensor_map_depth = 32;
// The tensor copies read from 16-byte aligned starts and leading dimensions: 4 floats.
inline constexpr int tensor_map_alignment = 4;
// A map of an outer-contiguous operand (m of A contiguous) serves wgmma's warpgroups, this many rows each, which load
// their fragments of A from it into registers (kernels/warpgroup_mma.hpp)...
inline constexpr int tensor_map_outer_rows = 64;
// ... from boxes of this many rows by tensor_map_depth (their own and the next 8): a step of k 72 floats on from the
// one before lies 8 banks of local memory on, so the 32 work-items of a warp, reading 8 rows at 4 steps, meet 32 banks.
inline constexpr int tensor_map_outer_pitch = tensor_map_outer_rows + 8;
// The 128-byte swizzle repeats every 1024 bytes, so slices copied in it start 1024-byte aligned; NVIDIA's driver then
// counts 1024 bytes more local memory for the kernel (every warpgroup_mma configuration on an H200, 2026-11-29).
inline constexpr int tensor_map_slices_alignment = 1024;

// Each work-group that reads operands through tensor maps makes its own, in this much local memory (A's map, then B's)
// and then in global memory, where its copies read them (make_own_maps in the kernel text).
inline constexpr int tensor_map_local_bytes = 2 * tensor_map_bytes;

// TENSOR_MAP_PARAMETERS: what a product kernel that reads operands through tensor maps takes last: the global memory
// where each work-group makes its maps (tensor_map_local_bytes a work-group, in the order of its linear index) and the
// product's depth as stored (the kernel's K is padded to whole slices; the maps read zeros past the stored one).
inline constexpr std::array tensor_map_arguments = {pointer("maps", "__global uchar* restrict"), integer("depth")};

inline constexpr auto tensor_map_defines_text =
    define_line<tensor_map_bytes>("MAP_BYTES") + define_line<tensor_map_slices_alignment>("MAP_ALIGNMENT") +
    define_line<tensor_map_depth>("MAP_DEPTH") + define_line<tensor_map_outer_rows>("MAP_OUTER_ROWS") +
    define_line<tensor_map_outer_pitch>("MAP_OUTER_PITCH") + define_line<tensor_map_local_bytes>("MAP_LOCAL_BYTES") +
    parameters_define<tensor_map_arguments>("TENSOR_MAP_PARAMETERS");

inline constexpr char tensor_map_copies_source[] = R"CLC(
// The tensor map at `map` in local memory (zeroed): the operand at `start`, depth by rows, in boxes of MAP_DEPTH x
// box_rows, each float rounded to TF32 (to nearest) as it is copied, zeros past the edges. K-contiguous (rows ld floats
// apart), a box is laid out as wgmma's 128-byte swizzle reads it (row r at 128 r, its 16-byte pieces p at p ^ r % 8);
// outer-contiguous (`outer`: steps of k ld floats apart), as it lies, box_rows floats a step of k. PTX takes the
// element type, the swizzle and the fill as constants: TF32 is 11, the 128-byte swizzle 3, none 0, zeros 0.
inline void describe_operand(const uint map, __global const float* start, const int depth, const int rows,
                             const int ld, const int box_rows, const int outer) {
  const int dim0 = outer ? rows : depth, dim1 = outer ? depth : rows;
  const int box0 = outer ? box_rows : MAP_DEPTH, box1 = outer ? MAP_DEPTH : box_rows;
  asm volatile(SM90A_ONLY "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(map),
               "l"(start) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;" ::"r"(map) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(map),
               "r"(box0) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map),
               "r"(box1) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(map),
               "r"(dim0) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map),
               "r"(dim1) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(map),
               "l"((ulong)ld * 4) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0, 1;" ::"r"(map)
               : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, 1;" ::"r"(map)
               : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 11;" ::"r"(map) : "memory");
  asm volatile(SM90A_ONLY "tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%0], 0;" ::"r"(map)
               : "memory");
  if (outer) {
    asm volatile(SM90A_ONLY "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(map)
                 : "memory");
  } else {
    asm volatile(SM90A_ONLY "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;" ::"r"(map)
                 : "memory");
  }
  asm volatile(SM90A_ONLY "tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(map) : "memory");
}

// The map made at `made` in local memory copied to `own` in global memory by a whole warp, released to tensor copies.
inline void release_own_map(__global uchar* own, const uint made) {
  asm volatile(SM90A_ONLY
               "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], "
               "128;" ::"l"(own),
               "r"(made)
               : "memory");
}
// This work-group's maps of the operands its copies read through them (A_MAPPED, B_MAPPED: A outer-contiguous where
// 2), A's and then B's at `own` in global memory: made in local memory at `made` (MAP_LOCAL_BYTES) by work-item 0, then
// copied out by the first warp, which releases them to the tensor copies that work-item 0 starts after acquiring them
// (acquire_tensor_map). Each work-group makes its own, so that no launch before the product makes them (each of its
// `rows` rows `depth` deep from `a` or `b`, ld elements apart, in boxes of box_rows rows).
inline void make_own_maps(__local uint* made, __global uchar* own, const int tid, const int depth,
                          __global const float* a, const int a_rows, const int lda, const int a_box_rows,
                          __global const float* b, const int b_rows, const int ldb, const int b_box_rows) {
  const uint at = (uint)(ulong)made;
  if (tid == 0) {
    for (int i = 0; i < MAP_LOCAL_BYTES / 4; ++i) made[i] = 0;
#if A_MAPPED
    describe_operand(at, a, depth, a_rows, lda, a_box_rows, A_MAPPED == 2);
#endif
#if B_MAPPED
    describe_operand(at + MAP_BYTES, b, depth, b_rows, ldb, b_box_rows, 0);
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 32) {
#if A_MAPPED
    release_own_map(own, at);
#endif
#if B_MAPPED
    release_own_map(own + MAP_BYTES, at + MAP_BYTES);
#endif
  }
}
// Makes the tensor map at `map` (made by make_own_maps) visible to this work-item's copies.
inline void acquire_tensor_map(__global const float* map) {
  asm volatile(SM90A_ONLY "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
}
// Copies the box of the operand that `map` describes at (x, y) along its first and second dimensions (k and the row
// where it is K-contiguous, the row and k where it is outer-contiguous) into local memory at `to` (1024-byte aligned,
// for the swizzle), its bytes counted on the mbarrier at `full`.
inline void copy_mapped_box(const uint to, __global const float* map, const int x, const int y, const uint full) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          to),
      "l"(map), "r"(x), "r"(y), "r"(full)
      : "memory");
}
)CLC";

// What a family's text that copies through maps includes, after the sm_90a marker.
inline constexpr TextPiece tensor_map_copies = joined_piece<tensor_map_defines_text, tensor_map_copies_source>();

}  // namespace tilegemm::detail
