// kernels/warpgroup_mma: the warpgroup_mma family, warpgroups of 4 warps multiplying 64 x 128 parts of C with wgmma
// (inline PTX for sm_90a) on NVIDIA GPUs of compute capability 9.0, in TF32 or 3xTF32, from slices in local memory.
#pragma once

#include <cstddef>
#include <string>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "copy_engine.hpp"
#include "core_tiles.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"
#include "sm90a_marker.hpp"
#include "strip.hpp"
#include "tensor_maps.hpp"
#include "tf32_rounding.hpp"
#include "tile_bands.hpp"
#include "wgmma_operands.hpp"

namespace tilegemm {
namespace detail {

inline constexpr char warpgroup_mma_layout_source[] = R"CLC(
// Reads A and B as kernels/core_tiles.hpp packs them: for each tile of TSM rows of A (TSN of B) its slices one after
// the other, each the image of local memory that wgmma reads, TF32 values in core matrices of 8 rows by 4 floats of k
// (128 bytes). K is the padded depth, a multiple of TSK. An operand that is K-contiguous in the caller's layout may
// instead be read in place through a tensor map (A_MAPPED, B_MAPPED; kernels/tensor_maps.hpp), which each work-group
// makes for itself first (read_through_own_maps), and each slice of it lands as rows of 32 floats in the 128-byte
// swizzle (tf32 slices 32 deep). A whose rows are
// contiguous (A_MAPPED 2) lands as one box per warpgroup, MAP_OUTER_PITCH rows (its 64 and padding) by the slice's
// steps of k, which wgmma cannot read (TF32 operands are K-major in local memory): each work-item loads its fragments
// of A from the box into registers, and wgmma reads A there (a_fragment).
//
// A work-group of TSM / 64 warpgroups (128 work-items each) computes a TSM x TSN tile of C; warpgroup w rows 64 w to
// 64 w + 63 of it, in parts of 64 x 128, with one wgmma.mma_async per step of 8 of k: m64n128k8, or m64n256k8 on
// both parts where TSN is 256.
// Work-item l of warp v of a warpgroup holds, of each 8 columns j of a part, C(16 v + g, 8 j + 2 t), C(16 v + g,
// 8 j + 2 t + 1), C(16 v + g + 8, 8 j + 2 t) and C(16 v + g + 8, 8 j + 2 t + 1) with g = l / 4 and t = l % 4.
//
// NVIDIA's OpenCL compiler emits PTX for sm_90, where wgmma does not assemble: each instruction of sm_90a is written
// behind the comment marker SM90A_ONLY (kernels/sm90a_marker.hpp), which the program cache removes from the PTX the
// compiler hands back before it builds that for sm_90a (runtime/sm90a_ptx.hpp).
//
// tf32x3 multiplies operands split into high and low TF32 parts (kernels/core_tiles.hpp packs both): a slice of A or
// B is then its high part and its low part, and takes two of the STAGES buffers.
//
// Slices pass through SLOTS buffers of local memory, copied AHEAD slices before they are multiplied. wgmma runs
// asynchronously: each work-item lets the products of one slice run while it goes on to the next (MMA_PENDING), so
// a buffer is copied into again only once every warp has waited for the products that read it. One work-item starts
// each slice's copy by the copy engine (cp.async.bulk: two blocks, A's and B's, contiguous in the core tiles); an
// mbarrier per buffer says when it has landed, another when every warp is done with it; no work-group barrier. The
// buffer whose products were just waited for is copied into at once, so AHEAD is SLOTS - MMA_PENDING. (Copies of 16
// bytes by every work-item with cp.async, with a work-group barrier per slice, ran slower: see
// warpgroup_barrier_bytes.)
#if !defined(STAGES) || !defined(LOCAL_ELEMENTS) || !defined(MMA_PENDING) || !defined(SUMMED_DEPTH) || \
    !defined(BAND_TILES) || !defined(MMA)
#error "kernels/warpgroup_mma.hpp needs STAGES, LOCAL_ELEMENTS, MMA_PENDING, SUMMED_DEPTH, BAND_TILES and MMA"
#endif
#define PARTS (TSN / 128)  // parts of 64 x 128 per warpgroup
#if MMA == MMA_TF32X3
#define SPLIT 2  // a slice of each operand is its high TF32 part, then its low one (kernels/core_tiles.hpp)
#else
#define SPLIT 1
#endif
#if A_MAPPED == 2
#define SLICE_A (TSM / MAP_OUTER_ROWS * MAP_OUTER_PITCH * TSK)  // elements of a slice of A: a box per warpgroup
#else
#define SLICE_A (SPLIT * TSM * TSK)  // elements of a slice of A (each part's, one after the other)
#endif
#define PART_A_BYTES (4 * SLICE_A / SPLIT)
#define PART_B_BYTES (4 * TSN * TSK)
#define SLICE_B (SPLIT * TSN * TSK)  // of B
#define SLICE_BYTES (4 * (SLICE_A + SLICE_B))
#define SLOTS (STAGES / SPLIT)  // slices in local memory at once
#define CORE_BYTES (4 * CORE_ROWS * CORE_COLUMNS)
#define ROW_GROUP_BYTES (TSK / CORE_COLUMNS * CORE_BYTES)  // 8 rows of a slice
#define AHEAD (SLOTS - MMA_PENDING)
// Past the buffers, in bytes into local memory: where operands are mapped, the work-group's maps (make_own_maps,
// MAP_LOCAL_BYTES); then the mbarriers, full[SLOTS] and empty[SLOTS] (8 bytes each).
#define MAPS_AT (SLOTS * SLICE_BYTES)
#if A_MAPPED || B_MAPPED
#define BARRIERS_AT (MAPS_AT + MAP_LOCAL_BYTES)
#else
#define BARRIERS_AT MAPS_AT
#endif
// A's boxes hold more rows than the tile (MAP_OUTER_PITCH a warpgroup), and the maps lie before the mbarriers: the host
// counts both beside LOCAL_ELEMENTS (mapped_local_memory_bytes).
#define SLICES_ELEMENTS (LOCAL_ELEMENTS + SLOTS * (SLICE_A - SPLIT * TSM * TSK) + (BARRIERS_AT - MAPS_AT) / 4)
#if 4 * SLICES_ELEMENTS < BARRIERS_AT + 16 * SLOTS
#error "the local memory of a warpgroup_mma work-group has no room for its mbarriers"
#endif
// tf32x3: the slices whose products the tensor cores sum before they are added to acc in FP32, SUMMED_DEPTH of k
// (see warpgroup_summed_depth).
#define SUMMED_SLICES (SUMMED_DEPTH / TSK)
#if (A_MAPPED || B_MAPPED) && (SPLIT != 1 || TSK != MAP_DEPTH)
#error "warpgroup_mma reads operands through tensor maps in tf32 only, in slices MAP_DEPTH deep"
#endif
#define MAPPED_ROW_BYTES (4 * MAP_DEPTH)  // a row of a mapped slice: one row of the 128-byte swizzle
#if A_MAPPED == 2 && (MAP_OUTER_ROWS != 64 || MAP_OUTER_PITCH % 32 != 8)
#error "warpgroup_mma reads an outer-contiguous A in boxes of a warpgroup's 64 rows, steps of k 8 banks apart"
#endif
#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)

// The descriptor of a K-major operand of wgmma at `address` in local memory, without swizzling: core matrices of k
// CORE_BYTES apart (the leading dimension's offset), groups of 8 rows ROW_GROUP_BYTES apart (the stride's).
inline ulong matrix_descriptor(const uint address) {
  return (ulong)((address & 0x3ffff) >> 4) | (ulong)(CORE_BYTES >> 4) << 16 | (ulong)(ROW_GROUP_BYTES >> 4) << 32;
}

// The descriptor of a K-major operand of wgmma at `address` in local memory in the 128-byte swizzle (mode 1 in bits
// 62-63): rows MAPPED_ROW_BYTES apart, groups of 8 rows 1024 bytes apart (the stride's offset; the leading one is not
// read). The slice starts 1024-byte aligned, so a step of 8 deep starts 32 bytes further along its rows.
inline ulong swizzled_descriptor(const uint address) {
  return (ulong)((address & 0x3ffff) >> 4) | (ulong)1 << 16 | (ulong)(8 * MAPPED_ROW_BYTES >> 4) << 32 | (ulong)1 << 62;
}

// d = a * b + (accumulate ? d : 0) on a part of 64 x 128, 8 deep, from TF32 operands in local memory (descriptors a
// and b).
inline void wgmma_64x128(float d[64], const ulong a, const ulong b, const int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" WGMMA_LIST64 "}, %64, %65, p, 1, 1;\n}\n"
               : WGMMA_D64(d, 0)
               : "l"(a), "l"(b), "r"(accumulate));
}
// The same on a part of 64 x 256 (both parts of d, whose fragments lie as one m64n256 accumulator's): one wgmma reads
// A from local memory once where two of 64 x 128 read it twice, and local memory's bandwidth is what two warpgroups
// share with the copy engine's slices.
inline void wgmma_64x256(float d[2][64], const ulong a, const ulong b, const int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_LIST128 "}, %128, %129, p, 1, 1;\n}\n"
               : WGMMA_D64(d[0], 0), WGMMA_D64(d[1], 0)
               : "l"(a), "l"(b), "r"(accumulate));
}
// The same two with A from registers: a holds this work-item's fragment of the warpgroup's 64 x 8 of A (a_fragment).
inline void wgmma_64x128_a_registers(float d[64], const uint4 a, const ulong b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" WGMMA_LIST64
               "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
               : WGMMA_D64(d, 0)
               : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "l"(b), "r"(1));
}
inline void wgmma_64x256_a_registers(float d[2][64], const uint4 a, const ulong b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_LIST128
               "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
               : WGMMA_D64(d[0], 0), WGMMA_D64(d[1], 0)
               : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "l"(b), "r"(1));
}
// d (this warpgroup's 64 x TSN) = a * b + (accumulate ? d : 0), 8 deep; b the descriptor of the slice's first
// TSN rows of B.
inline void wgmma_step(float d[PARTS][64], const ulong a, const ulong b, const int accumulate) {
#if PARTS == 2
  wgmma_64x256(d, a, b, accumulate);
#else
  wgmma_64x128(d[0], a, b, accumulate);
#endif
}
inline void wgmma_step_a_registers(float d[PARTS][64], const uint4 a, const ulong b) {
#if PARTS == 2
  wgmma_64x256_a_registers(d, a, b);
#else
  wgmma_64x128_a_registers(d[0], a, b);
#endif
}
// The wgmma bookkeeping: before a slice's products (their accumulators were written by other instructions), after
// them (one group per slice), and waiting until at most `pending` groups of this work-item are running.
inline void products_begin() { asm volatile(SM90A_ONLY "wgmma.fence.sync.aligned;\n" ::: "memory"); }
inline void products_end() { asm volatile(SM90A_ONLY "wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
#define WAIT_FOR_PRODUCTS(pending) \
  asm volatile(SM90A_ONLY "wgmma.wait_group.sync.aligned " TEXT(pending) ";\n" ::: "memory")

)CLC";

inline constexpr char warpgroup_mma_products_source[] = R"CLC(
// tf32: the descriptor of step k (8 deep) of B in the slice at `slice`, mapped or packed.
inline ulong b_step(const uint slice, const int k) {
#if B_MAPPED
  return swizzled_descriptor(slice + PART_A_BYTES + 4 * k);
#else
  return matrix_descriptor(slice + PART_A_BYTES + k / CORE_COLUMNS * CORE_BYTES);
#endif
}

#if A_MAPPED == 2
// A outer-contiguous: this work-item's fragment of step k (8 deep) of its warpgroup's box of the slice at `box` (steps
// of k MAP_OUTER_PITCH floats apart), as wgmma takes A from registers: rows 16 warp + g and + 8, steps t and t + 4.
// The pitch puts the 32 work-items of a warp on 32 banks. The copies rounded the floats to TF32 already.
inline uint4 a_fragment(__local const float* box, const int k, const int warp, const int g, const int t) {
  __local const float* at = box + (k + t) * MAP_OUTER_PITCH + 16 * warp + g;
  return (uint4)(as_uint(at[0]), as_uint(at[8]), as_uint(at[4 * MAP_OUTER_PITCH]), as_uint(at[4 * MAP_OUTER_PITCH + 8]));
}
// The products of the slice at `slice` (its buffer at `buffer`) for this warpgroup's 64 rows, d += a * b, A's fragments
// loaded first: wgmma reads them while it runs, so ptxas keeps them until its products are waited for. (The caller
// takes the slices two at a time: with one loop body for every slice, the next slice's fragments would land in the
// registers the products before them still read, and ptxas waits for those products first: in an H200's run, 2048^3
// took 63.5 us a product against 50.2.)
inline void slice_products_a_registers(float d[PARTS][64], const uint slice, __local const float* buffer,
                                       const int warpgroup, const int warp, const int g, const int t) {
  uint4 a[TSK / 8];
#pragma unroll
  for (int k = 0; k < TSK; k += 8) a[k / 8] = a_fragment(buffer + warpgroup * MAP_OUTER_PITCH * TSK, k, warp, g, t);
  products_begin();
#pragma unroll
  for (int k = 0; k < TSK; k += 8) wgmma_step_a_registers(d, a[k / 8], b_step(slice, k));
  products_end();
}
#endif

// Once slice s's products are issued: lets at most MMA_PENDING groups of this work-item's products run, says that this
// warp is done with the buffer of those before, and (one work-item) starts copying slice s + AHEAD into that buffer
// once every warp is.
inline void slice_issued(const uint local_base, __global const float* a, __global const float* b, const int2 rows,
                         const int s, const int count, const int tid) {
  WAIT_FOR_PRODUCTS(MMA_PENDING);
  if (s >= MMA_PENDING && tid % 32 == 0) arrive(empty_barrier(local_base, (s - MMA_PENDING) % SLOTS));
  refill_slot(local_base, a, b, rows, s + AHEAD, count, tid);
}

// The products of the slice at `slice`, for this warpgroup's 64 rows: tf32, d += a * b; tf32x3, d += a * b of the
// split operands (d = where from_zero), small terms first (and low x low where low_products), summed on the tensor
// cores, whose additions truncate: the caller adds d to its FP32 accumulators every few slices (see tensor_cores).
inline void slice_products(float d[PARTS][64], const uint slice, const int warpgroup, const bool low_products,
                           const bool from_zero) {
#pragma unroll
  for (int k = 0; k < TSK; k += 8) {
    const uint a = slice + 64 * warpgroup / CORE_ROWS * ROW_GROUP_BYTES + k / CORE_COLUMNS * CORE_BYTES;
    const uint b = slice + SPLIT * PART_A_BYTES + k / CORE_COLUMNS * CORE_BYTES;
#if MMA == MMA_TF32X3
    const ulong a_high = matrix_descriptor(a), a_low = matrix_descriptor(a + PART_A_BYTES);
    const ulong b_high = matrix_descriptor(b), b_low = matrix_descriptor(b + PART_B_BYTES);
    const bool first = from_zero && k == 0;
    if (low_products) wgmma_step(d, a_low, b_low, !first);
    wgmma_step(d, a_low, b_high, !first || low_products);
    wgmma_step(d, a_high, b_low, 1);
    wgmma_step(d, a_high, b_high, 1);
#elif A_MAPPED
    wgmma_step(d, swizzled_descriptor(slice + 64 * warpgroup * MAPPED_ROW_BYTES + 4 * k), b_step(slice, k), 1);
#else
    wgmma_step(d, matrix_descriptor(a), b_step(slice, k), 1);
#endif
  }
}

inline void add_parts(float acc[PARTS][64], float d[PARTS][64]) {
#pragma unroll
  for (int p = 0; p < PARTS; ++p)
#pragma unroll
    for (int v = 0; v < 64; ++v) acc[p][v] += d[p][v];
}

#if MMA == MMA_TF32X3
// tf32x3: acc += the products of all slices, those of `summed` slices at a time summed on the tensor cores into
// `part`, which is added to acc once they are done; low_products: the fourth product too. Called with constants, so
// that no branch lies among a slice's wgmma instructions: ptxas fences each wgmma after such a branch (its advisory
// C7519), which cost tf32x3 4-9% (benchmarks/README.md). Two sets of sums, one added while the other's products run,
// make ptxas serialize the products (C7514: the accumulators of one read while the other's wgmma run).
inline void split_products(float acc[PARTS][64], const uint local_base, __global const float* a,
                           __global const float* b, const int2 rows, const int count, const int warpgroup,
                           const int tid, const bool low_products, const int summed) {
  float part[PARTS][64];
  for (int first = 0; first < count; first += summed) {
    for (int s = first; s < min(first + summed, count); ++s) {
      const uint slice = slice_ready(local_base, s);
      products_begin();
      slice_products(part, slice, warpgroup, low_products, s == first);
      products_end();
      slice_issued(local_base, a, b, rows, s, count, tid);
    }
    WAIT_FOR_PRODUCTS(0);
    add_parts(acc, part);
  }
}
#endif

// The TSM x TSN tile of C = alpha * A * B + beta * C at `tile` (its row and column of tiles), from the core tiles at
// A and B (at their problem's offsets), with `slices` for local memory; C at its problem's offset.
inline void multiply_tile(const int2 tile, __local float* slices, const int M, const int N, const int K,
                          const real alpha, const real beta, __global const float* A, __global const float* B,
                          __global real* C, const int ldc) {
  const int tid = get_local_id(1) * THREADS_M + get_local_id(0);
  const int warpgroup = tid / 128;
  const int warp = tid % 128 / 32;
  const int g = tid % 32 / 4;
  const int t = tid % 4;
  const int count = K / TSK;
  __global const float* a = A_MAPPED ? A : A + tile.x * count * SLICE_A;
  __global const float* b = B_MAPPED ? B : B + tile.y * count * SLICE_B;
  const int2 rows = (int2)(tile.x * TSM, tile.y * TSN);  // the tile's first rows of A and B, for mapped copies
  const uint local_base = (uint)(ulong)slices;  // the 32-bit address in the shared window (see tensor_cores)
  float acc[PARTS][64];
#pragma unroll
  for (int p = 0; p < PARTS; ++p)
#pragma unroll
    for (int v = 0; v < 64; ++v) acc[p][v] = 0;

  start_slices(local_base, a, b, rows, count, tid);
#if MMA == MMA_TF32X3
  // In short products, whose sums err least, each slice's products are added on their own, low x low among them.
  if (K <= LOW_PRODUCTS_UP_TO) {
    split_products(acc, local_base, a, b, rows, count, warpgroup, tid, true, 1);
  } else {
    split_products(acc, local_base, a, b, rows, count, warpgroup, tid, false, SUMMED_SLICES);
  }
#else
#if A_MAPPED == 2
  int s = 0;
  for (; s + 1 < count; s += 2) {  // two slices a round, each one's fragments in its own registers
    slice_products_a_registers(acc, slice_ready(local_base, s), slices + s % SLOTS * (SLICE_BYTES / 4), warpgroup, warp,
                               g, t);
    slice_issued(local_base, a, b, rows, s, count, tid);
    slice_products_a_registers(acc, slice_ready(local_base, s + 1), slices + (s + 1) % SLOTS * (SLICE_BYTES / 4),
                               warpgroup, warp, g, t);
    slice_issued(local_base, a, b, rows, s + 1, count, tid);
  }
  if (s < count) {
    slice_products_a_registers(acc, slice_ready(local_base, s), slices + s % SLOTS * (SLICE_BYTES / 4), warpgroup, warp,
                               g, t);
    slice_issued(local_base, a, b, rows, s, count, tid);
  }
#else
  for (int s = 0; s < count; ++s) {
    const uint slice = slice_ready(local_base, s);
    products_begin();
    slice_products(acc, slice, warpgroup, false, false);
    products_end();
    slice_issued(local_base, a, b, rows, s, count, tid);
  }
#endif
  WAIT_FOR_PRODUCTS(0);
#endif

  const int row = tile.x * TSM + 64 * warpgroup + 16 * warp + g;
#pragma unroll
  for (int p = 0; p < PARTS; ++p)
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const int column = tile.y * TSN + 128 * p + 8 * j + 2 * t;
      STORE_C(row, column, acc[p][4 * j]);
      STORE_C(row, column + 1, acc[p][4 * j + 1]);
      STORE_C(row + 8, column, acc[p][4 * j + 2]);
      STORE_C(row + 8, column + 1, acc[p][4 * j + 3]);
    }
}

// Where operands are mapped, the kernel takes TENSOR_MAP_PARAMETERS last, and the work-group's maps of the M x depth A
// at *a and the N x depth B at *b (made in the local memory past the slices, then at its place in `maps`) stand for
// them from then on.
#if A_MAPPED || B_MAPPED
#define MAPPED_PARAMETERS , TENSOR_MAP_PARAMETERS
inline void read_through_own_maps(__local float* slices, __global uchar* maps, const int depth, const int M,
                                  const int N, __global const float** a, const int lda, __global const float** b,
                                  const int ldb) {
  const ulong group = (get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
  __global uchar* own = maps + MAP_LOCAL_BYTES * group;
  make_own_maps((__local uint*)(slices + MAPS_AT / 4), own, get_local_id(1) * THREADS_M + get_local_id(0), depth, *a,
                M, lda, A_MAPPED == 2 ? MAP_OUTER_PITCH : TSM, *b, N, ldb, TSN);
  if (A_MAPPED) *a = (__global const float*)own;
  if (B_MAPPED) *b = (__global const float*)(own + MAP_BYTES);
}
#else
#define MAPPED_PARAMETERS
#endif

// The buffers of slices (and the mbarriers), which the strip code takes as its stage where it shares the launch;
// where operands are mapped, aligned to the period of the 128-byte swizzle their slices land in.
#if A_MAPPED || B_MAPPED
#define SLICES_ALIGNMENT MAP_ALIGNMENT
#else
#define SLICES_ALIGNMENT 128
#endif
#define LOCAL_SLICES __local float slices[SLICES_ELEMENTS] __attribute__((aligned(SLICES_ALIGNMENT)))
)CLC";

inline constexpr char warpgroup_mma_source[] = R"CLC(
// C = alpha * A * B + beta * C, a TSM x TSN tile of it per work-group.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_warpgroup_mma(GEMM_PARAMETERS(realV), BATCH_PARAMETERS MAPPED_PARAMETERS) {
  LOCAL_SLICES;
  const int2 tile =
      banded_tile(get_group_id(1) * get_num_groups(0) + get_group_id(0), get_num_groups(0), get_num_groups(1),
                  BAND_TILES);
  __global const float* a = A + IN_BATCH(a_offset, a_stride);
  __global const float* b = B + IN_BATCH(b_offset, b_stride);
#if A_MAPPED || B_MAPPED
  read_through_own_maps(slices, maps, depth, M, N, &a, lda, &b, ldb);
#endif
  multiply_tile(tile, slices, M, N, K, alpha, beta, a, b, C + IN_BATCH(c_offset, c_stride), ldc);
}
)CLC";

inline constexpr char warpgroup_mma_strips_source[] = R"CLC(
// The same on the M x N corner of a larger product (STRIP_PARAMETERS, kernels/strip.hpp): the work-groups past the
// tiles' rows of them (tile_rows in dimension 1) multiply its strips outside the corner, in the local memory of the
// slices, on the compute units the tiles leave idle. One product only, not a batch. (Strips first, beside the tiles'
// first round, measured slower on an H200: 1025^3 in tf32x3 33.6 TFLOP/s against 38.2.)
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_warpgroup_mma_strips(GEMM_PARAMETERS(realV), STRIP_PARAMETERS MAPPED_PARAMETERS) {
  LOCAL_SLICES;
  if (get_group_id(1) >= tile_rows) {
    multiply_strips(get_local_id(1) * THREADS_M + get_local_id(0),
                    (get_group_id(1) - tile_rows) * get_num_groups(0) + get_group_id(0), right_groups, strip_groups,
                    M_all, N_all, K_all, M, N, transposes & TRANSPOSED_A, transposes & TRANSPOSED_B, alpha, beta,
                    A_all + a_offset_all, lda_all, B_all + b_offset_all, ldb_all, C + c_offset, ldc, slices);
    return;
  }
  const int2 tile =
      banded_tile(get_group_id(1) * get_num_groups(0) + get_group_id(0), get_num_groups(0), tile_rows, BAND_TILES);
  __global const float* a = A + a_offset;
  __global const float* b = B + b_offset;
#if A_MAPPED || B_MAPPED
  read_through_own_maps(slices, maps, depth, M, N, &a, lda, &b, ldb);
#endif
  multiply_tile(tile, slices, M, N, K, alpha, beta, a, b, C + c_offset, ldc);
}
)CLC";

// Groups of a work-item's products that run while it goes on to the next slice (MMA_PENDING in the kernel text): with
// the slice being multiplied and the one being copied, the slices the pipeline keeps in local memory.
inline constexpr int warpgroup_pending_products = 1;
inline constexpr int warpgroup_pipeline_slices = warpgroup_pending_products + 2;

// tf32x3: how deep the products are that the tensor cores sum before they are added to FP32 accumulators (SUMMED_DEPTH
// in the kernel text), so the most a slice may be. Their sums truncate, so the longer the run the larger the error:
// 32 (4 slices of 8) kept it within 1.6 times the IEEE kernels' on an H200 (64 reached 2.1), and runs of 2 to 16
// slices of 8 ran at the same speed.
inline constexpr int warpgroup_summed_depth = 32;

// The two mbarriers of 8 bytes per buffer (see the kernel text). The copy engine and its mbarriers, measured on an
// H200 against cp.async by every work-item with a work-group barrier per slice (whole calls at 4096 / 8192,
// TFLOP/s): tf32 64 x 256 x 8 in 4 buffers 217 / 246 against 209 / 234 in the same run; 128 x 128 x 16 in 3 215 / 222
// and tf32x3 64 x 128 x 8 in 6 78 / 78, against 162 / 176 and 60 / 70 in an earlier run; 64 x 128 x 16 in 4 240 / 233
// against 213 / 200.
inline constexpr int warpgroup_barrier_bytes = 16;

// Rows of tiles in a band of work-groups (kernels/tile_bands.hpp). On an H200 (benchmarks/README.md, "wgmma: 64 x 256
// a step, four buffers, bands") tf32 at 8192 in 128 x 256 tiles ran 3% faster in bands of 8 than in columns, in 128 x
// 128 tiles 11%, tf32x3 7%; bands of 16 ran as 8.
inline constexpr int warpgroup_band_tiles = 8;

// The compute capability that has wgmma (sm_90a's instructions are not in later GPUs' PTX targets).
inline constexpr int warpgroup_mma_on = 90;
// The buffers a warpgroup_mma configuration needs in tf32x3, whose slices take two each (high and low parts), for its
// pipeline: one slice multiplied, one whose products may still run, one copied.
inline constexpr int warpgroup_tf32x3_stages = 2 * warpgroup_pipeline_slices;

// The rules of the warpgroup_mma family (see its list below for their reasons), as predicates on plain values.
constexpr bool warpgroup_rows(const TileShape& t) { return t.tsm == 64 || t.tsm == 128; }
constexpr bool warpgroup_columns(const TileShape& t) { return t.tsn == 128 || t.tsn == 256; }
constexpr bool warpgroup_slices(const TileShape& t) { return t.tsk % 8 == 0; }
constexpr bool warpgroup_layout(const TileShape& t) { return t.wptm == 2 && t.wptn == t.tsn / 4 && t.vw == 1; }
constexpr bool warpgroup_stages(int stages) { return stages >= warpgroup_pipeline_slices && stages <= 8; }

template <>
struct FamilyTraits<Family::warpgroup_mma> : FamilyDefaults {
  static constexpr char name[] = "warpgroup_mma";
  static constexpr OperandAccess access = OperandAccess::core_tiles;
  static constexpr bool uses_tensor_cores = true;
  static constexpr bool needs_sm90a = true;
  static constexpr bool local_memory_beyond_reported = true;  // up to runtime/sm90a_local_memory.hpp's limit
  static constexpr bool reads_tensor_maps = true;

#define TILEGEMM_WARPGROUP_MMA_RULES(RULE)                                                                            \
  RULE(warpgroup_rows, warpgroup_rows(t),                                                                             \
       "a warpgroup_mma work-group has one warpgroup (128 work-items) per 64 rows of the tile, and NVIDIA's "         \
       "compiler gives these kernels at most 256 work-items: TSM must be 64 or 128.")                                 \
  RULE(warpgroup_columns, warpgroup_columns(t),                                                                       \
       "a warpgroup_mma warpgroup multiplies its 64 rows by 128 or 256 columns (wgmma m64n128k8, m64n256k8), and "    \
       "local memory holds at most 256 columns: TSN must be 128 or 256.")                                             \
  RULE(warpgroup_slices, warpgroup_slices(t), "wgmma multiplies TF32 8 deep at a time: TSK must be a multiple of 8.") \
  RULE(warpgroup_layout, warpgroup_layout(t),                                                                         \
       "each work-item of a warpgroup_mma warpgroup holds 2 rows by TSN / 4 columns of C and reads whole slices: "    \
       "WPTM must be 2, WPTN TSN / 4 and VW 1 (use the WarpgroupMma alias).")                                         \
  RULE(warpgroup_stages, warpgroup_stages(t.stages),                                                                  \
       "the warpgroup_mma family keeps 3 to 8 slices of A and B in local memory (Stages): one multiplied, one "       \
       "whose products may still run, and the others copied.")
  TILEGEMM_RULES_FROM(TILEGEMM_WARPGROUP_MMA_RULES)
  // wgmma on compute capability 9.0 exactly, float in tf32 or tf32x3; tf32x3 takes two buffers a slice and sums at
  // most warpgroup_summed_depth.
  static Implementation can_implement(const TileShape& t, const RunTarget& target) {
    if (target.compute_capability != warpgroup_mma_on) {
      return Implementation::refused(RefusalKind::device,
                                     " multiplies on tensor cores through wgmma, which needs an NVIDIA GPU of "
                                     "compute capability 9.0 (H100, H200); " +
                                         std::string(target.device_name) + compute_capability_words(target) +
                                         ". Use AutoConfig or a configuration of another family (TensorCores from "
                                         "8.0).");
    }
    if (target.scalar_size == sizeof(double) || target.math == MathMode::ieee) {
      return Implementation::refused(
          RefusalKind::operation,
          " multiplies float on TF32 tensor cores only (wgmma has no FP64, and " +
              (target.scalar_size == sizeof(double) ? std::string("the product is in double")
                                                    : std::string("the math mode ieee rules them out")) +
              "). Choose MathMode::tf32x3 or MathMode::tf32 for a float product (gemm's math argument, a "
              "ScopedMathMode or TILEGEMM_MATH), or a TensorCores configuration, or AutoConfig.");
    }
    if (sixteen_bit_math(target.math)) {
      return Implementation::refused(RefusalKind::operation,
                                     " multiplies float on TF32 tensor cores only: wgmma on 16-bit operands serves "
                                     "16-bit matrices (Eigen::half, Eigen::bfloat16), and the math mode " +
                                         std::string(math_mode_name(target.math)) +
                                         " runs on a TensorCores configuration (mma.sync), as AutoConfig chooses.");
    }
    if (target.math == MathMode::tf32x3 && t.stages < warpgroup_tf32x3_stages) {
      return Implementation::refused(RefusalKind::operation,
                                     " keeps too few slices for tf32x3, whose slices take two buffers each (high and "
                                     "low TF32 parts): it needs Stages of at least " +
                                         std::to_string(warpgroup_tf32x3_stages) + ", or the tf32 mode.");
    }
    if (target.math == MathMode::tf32x3 && t.tsk > warpgroup_summed_depth) {
      return Implementation::refused(RefusalKind::operation,
                                     " has slices deeper than tf32x3 may sum on the tensor cores within its error "
                                     "bound: it needs TSK of at most " +
                                         std::to_string(warpgroup_summed_depth) + ", or the tf32 mode.");
    }
    return Implementation::uses(target.math == MathMode::tf32 ? MmaKind::tf32 : MmaKind::tf32x3);
  }
  // Stages buffers of slices of A and B, and their mbarriers.
  static constexpr std::size_t local_memory_elements(const TileShape& t) {
    return static_cast<std::size_t>(t.stages) * (t.tsk * (t.tsm + t.tsn) + warpgroup_barrier_bytes / 4);
  }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    lines.define("STAGES", t.stages);
    lines.define("LOCAL_ELEMENTS", static_cast<long long>(local_memory_elements(t)));
    lines.define("CORE_ROWS", core_rows);
    lines.define("CORE_COLUMNS", core_columns);
    lines.define("MMA_PENDING", warpgroup_pending_products);
    lines.define("SUMMED_DEPTH", warpgroup_summed_depth);
    lines.define("BAND_TILES", warpgroup_band_tiles);
    fused_strip_defines(lines, t);
  }
  // The sm_90a marker, the layout of core tiles, the tensor maps' copies, the copy engine's pipeline and the
  // products, in this order.
  static constexpr TextPiece helpers =
      joined_piece<sm90a_marker_text, tf32_rounding_source, wgmma_operands_source, tile_bands_source,
                   tensor_map_defines_text, warpgroup_mma_layout_source, tensor_map_copies_source, copy_engine_source,
                   warpgroup_mma_products_source>();
  static constexpr EntryPoint product = {"gemm_warpgroup_mma", piece_of<warpgroup_mma_source>()};
  static constexpr EntryPoint product_and_strips = {"gemm_warpgroup_mma_strips",
                                                    piece_of<warpgroup_mma_strips_source>()};
  static constexpr bool strips_share_local_memory = true;
};

}  // namespace detail

// wgmma on NVIDIA GPUs of compute capability 9.0 (H100, H200), float in MathMode::tf32, or tf32x3 with Stages of at
// least 6 (its slices take two buffers each) and TSK at most 32: TSM x TSN tiles of C per work-group (TSM 64 or 128,
// one warpgroup per 64 rows; TSN 128 or 256), slices TSK deep (a multiple of 8), Stages buffers of slices in local
// memory, up to 227 KiB (runtime/sm90a_local_memory.hpp). Operands are packed first into the layout wgmma reads
// (kernels/core_tiles.hpp).
template <int TSM, int TSN, int TSK, int Stages>
using WarpgroupMma = TileConfig<TSM, TSN, TSK, 2, TSN / 4, 1, Family::warpgroup_mma, Stages>;

}  // namespace tilegemm
