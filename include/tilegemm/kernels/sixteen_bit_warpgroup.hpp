// kernels/sixteen_bit_warpgroup: 16-bit products (half, bfloat16) on wgmma m64nNk16 with FP32 accumulators (compute
// capability 9.0): A and B packed as they are, 2 bytes an element, into the core tiles wgmma reads, slices copied by
// the copy engine, C written from the accumulators in float or rounded once to the inputs' type.
#pragma once

#include <array>
#include <string_view>

#include "../config/fixed_string.hpp"
#include "../config/sixteen_bit.hpp"
#include "copy_engine.hpp"
#include "kernel_arguments.hpp"
#include "program_text.hpp"
#include "sixteen_bit_conversion.hpp"
#include "sm90a_marker.hpp"
#include "tile_bands.hpp"
#include "wgmma_operands.hpp"

namespace tilegemm::detail {

// A tile of C per work-group: 128 rows (two warpgroups of 64), TSN columns (one wgmma m64nTSNk16 per warpgroup and
// step of 16 of k), slices 64 deep (128 bytes of k a row), as many buffers of slices as fit 200 KiB of local memory.
inline constexpr int warpgroup16_rows = 128;
inline constexpr int warpgroup16_depth = 64;
inline constexpr int warpgroup16_threads = warpgroup16_rows / 64 * 128;
// Tiles of rows whose columns run one after the other, so that work-groups running at once share panels in L2 (4 to
// 32 ran alike on an H200; benchmarks/README.md).
inline constexpr int warpgroup16_band = 16;
// Buffers of slices: as many as 200 KiB hold, at most 6 (4 for tiles 256 wide, 6 for 128).
constexpr int warpgroup16_stages(int columns) {
  const int slice_bytes = 2 * warpgroup16_depth * (warpgroup16_rows + columns);
  return 200 * 1024 / slice_bytes < 6 ? 200 * 1024 / slice_bytes : 6;
}
inline constexpr std::array<int, 2> warpgroup16_widths = {128, 256};
// The pack kernel's blocks of elements (outer x inner), copied by work-groups of block / 4 x 16 work-items.
inline constexpr int warpgroup16_pack_block = 64;
inline constexpr int warpgroup16_pack_items = warpgroup16_pack_block / 4 * 16;

inline constexpr std::string_view packed16_in = "__global const PACK_SOURCE* restrict";  // ushort or float
inline constexpr std::string_view packed16_out = "__global ushort* restrict";
inline constexpr std::string_view slices_in = "__global const float* restrict";  // packed pairs, as the copy engine's
inline constexpr std::string_view result_out = "__global RESULT*";               // float or STORAGE16; read if beta
inline constexpr std::string_view partials_out = "__global float*";  // tiles split along k: their pieces' sums
inline constexpr std::string_view counters_out = "__global uint*";   // and how many pieces of each are there

// PACK16_PARAMETERS: two operands packed in one launch, a_ then b_, each an outer x inner operand (m x k of A, n x k
// of B) at src_offset, leading dimension ld, contiguous along outer where outer_contiguous, `problems` of them
// src_stride apart; into core tiles of tile_outer rows, problems dst_stride apart; `aligned` where every run of 4
// elements read starts on 4 elements (offsets, ld and stride multiples of 4). Both with k padded to inner_padded; the
// first a_blocks work-groups along dimension 0 pack a_. The first work-group also sets zeroed[0 to zeroed_count) to
// zero: the product's counters of split tiles, without a launch of their own.
#define TILEGEMM_PACK16_OPERAND(p)                                                                       \
  integer(p "outer"), integer(p "inner"), integer(p "outer_contiguous"), pointer(p "src", packed16_in),  \
      integer(p "src_offset"), integer(p "ld"), integer(p "src_stride"), pointer(p "dst", packed16_out), \
      integer(p "dst_stride"), integer(p "tile_outer"), integer(p "aligned"), integer(p "problems")
inline constexpr std::array pack16_arguments = {TILEGEMM_PACK16_OPERAND("a_"),   TILEGEMM_PACK16_OPERAND("b_"),
                                                integer("inner_padded"),         integer("a_blocks"),
                                                pointer("zeroed", counters_out), integer("zeroed_count")};
#undef TILEGEMM_PACK16_OPERAND
// WARPGROUP16_PARAMETERS: C = alpha * A * B + beta * C for M x N, A and B packed (K padded to whole slices; problems
// a_stride and b_stride 4-byte words apart), C at c_offset with leading dimension ldc (problems c_stride apart;
// c_aligned where all three are multiples of 16 bytes' elements); tiles_m x tiles_n tiles, taken in bands of `band`
// tiles of rows. The first whole_tiles tiles are made by one work-group each, every later one by `splits` work-groups
// (pieces of its slices), whose sums meet in `partials` (TSM x TSN floats a piece), `counters` (one a split tile, zero
// at the start) counting the pieces there.
inline constexpr std::array warpgroup16_arguments = {integer("M"),
                                                     integer("N"),
                                                     integer("K"),
                                                     scalar("alpha"),
                                                     scalar("beta"),
                                                     pointer("A", slices_in),
                                                     integer("a_stride"),
                                                     pointer("B", slices_in),
                                                     integer("b_stride"),
                                                     pointer("C", result_out),
                                                     integer("c_offset"),
                                                     integer("ldc"),
                                                     integer("c_stride"),
                                                     integer("c_aligned"),
                                                     integer("tiles_m"),
                                                     integer("tiles_n"),
                                                     integer("band"),
                                                     integer("whole_tiles"),
                                                     integer("splits"),
                                                     pointer("partials", partials_out),
                                                     pointer("counters", counters_out)};

// What the pack kernel reads: 16-bit elements, copied bit for bit, or float ones, each rounded to nearest even to
// half or bfloat16 as it is read (the bf16 and fp16 math modes of float products).
enum class PackFrom { sixteen_bit, float_to_half, float_to_bfloat16 };
inline constexpr PackFrom pack_from_float(SixteenBit element) {
  return element == SixteenBit::half ? PackFrom::float_to_half : PackFrom::float_to_bfloat16;
}

// The pack program: portable OpenCL C (no inline PTX), so that it runs, and is tested, on every device.
inline constexpr char pack16_source[] = R"CLC(
#if !defined(TSK) || !defined(PACK_BLOCK) || TSK % PACK_BLOCK != 0 || !defined(PACK_FROM_FLOAT)
#error "kernels/sixteen_bit_warpgroup.hpp needs TSK, PACK_BLOCK (a divisor of TSK) and PACK_FROM_FLOAT"
#endif
// The packed layout: for each tile of TSM rows of A (TSN of B), its slices of TSK of k one after the other; a slice
// is its rows in groups of 8, each group TSK / 8 core matrices of 8 rows by 8 elements of k (16 bytes, 128 a matrix).
// Element (o, i) of an operand (o the row of A or column of B, i the index along k) lies at
inline int packed16_index(const int o, const int i, const int tile_outer, const int slices) {
  const int tile = o / tile_outer, row = o % tile_outer, slice = i / TSK, k = i % TSK;
  return (tile * slices + slice) * tile_outer * TSK + row / 8 * 8 * TSK + k / 8 * 64 + row % 8 * 8 + k % 8;
}

// Copies an operand into its core tiles, zero outside it: 16-bit elements bit for bit, float ones rounded to nearest
// even (rounded16). A work-group copies a PACK_BLOCK x PACK_BLOCK block through local memory: each work-item reads
// runs of 4 neighbouring elements along whichever index is contiguous (one 8- or 16-byte load where `aligned` says
// every run starts on 4 elements), then writes runs of 8 elements of k (16 bytes), neighbouring work-items filling one
// core matrix.
#define PACK_RUNS (PACK_BLOCK / 4)     // runs of 4 across a block
#define PACK_ITEMS (PACK_RUNS * 16)    // work-items of a work-group: PACK_RUNS x 16
#if PACK_FROM_FLOAT
#define PACK_SOURCE float
#define PACK_RUN float4
#define PACK_BITS(run) (ushort4)(rounded16(run.x), rounded16(run.y), rounded16(run.z), rounded16(run.w))
#else
#define PACK_SOURCE ushort
#define PACK_RUN ushort4
#define PACK_BITS(run) (run)
#endif
// The run of 4 from `from` as 16-bit elements, of which `left` (1 or more) lie inside the operand, zero past them.
// Only indices inside the operand are formed, so none passes the 32-bit range its size was checked against.
inline ushort4 read_run(__global const PACK_SOURCE* restrict from, const int left, const int aligned) {
  PACK_RUN run = (PACK_RUN)(0);
  if (left >= 4 && aligned) {
    run = *(__global const PACK_RUN*)from;
  } else {
    run.x = from[0];
    if (left > 1) run.y = from[1];
    if (left > 2) run.z = from[2];
    if (left > 3) run.w = from[3];
  }
  return PACK_BITS(run);
}
// Packs block (block_o, block_i) of an operand (see PACK16_PARAMETERS) through `block`.
inline void pack_block(__local ushort (*block)[PACK_BLOCK + 2], const int block_o, const int block_i,
                       const int outer, const int inner, const int outer_contiguous,
                       __global const PACK_SOURCE* restrict src, const int ld, __global ushort* restrict dst,
                       const int tile_outer, const int inner_padded, const int aligned) {
  const int x = get_local_id(0), y = get_local_id(1);
  const int o0 = block_o * PACK_BLOCK, i0 = block_i * PACK_BLOCK;
  for (int r = y; r < PACK_BLOCK; r += 16) {
    if (outer_contiguous) {  // run along o, at row i of the block
      const int o = o0 + 4 * x, i = i0 + r;
      const ushort4 run = i < inner && o < outer ? read_run(src + o + i * ld, outer - o, aligned) : (ushort4)(0);
      block[r][4 * x] = run.x;
      block[r][4 * x + 1] = run.y;
      block[r][4 * x + 2] = run.z;
      block[r][4 * x + 3] = run.w;
    } else {  // run along i, at column o of the block
      const int o = o0 + r, i = i0 + 4 * x;
      const ushort4 run = o < outer && i < inner ? read_run(src + i + o * ld, inner - i, aligned) : (ushort4)(0);
      block[4 * x][r] = run.x;
      block[4 * x + 1][r] = run.y;
      block[4 * x + 2][r] = run.z;
      block[4 * x + 3][r] = run.w;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Blocks lie inside the padded operand, whose sides are multiples of PACK_BLOCK.
  for (int at = y * PACK_RUNS + x; at < PACK_BLOCK * PACK_BLOCK / 8; at += PACK_ITEMS) {
    const int o = at % PACK_BLOCK, k = at / PACK_BLOCK * 8;
    uint4 pairs;
    pairs.x = (uint)block[k][o] | (uint)block[k + 1][o] << 16;
    pairs.y = (uint)block[k + 2][o] | (uint)block[k + 3][o] << 16;
    pairs.z = (uint)block[k + 4][o] | (uint)block[k + 5][o] << 16;
    pairs.w = (uint)block[k + 6][o] | (uint)block[k + 7][o] << 16;
    *(__global uint4*)(dst + packed16_index(o0 + o, i0 + k, tile_outer, inner_padded / TSK)) = pairs;
  }
}

// A and B in one launch: one launch less in front of the product, and the second operand's blocks fill the first's
// last round. Problem get_group_id(2) of each operand that has that many.
__kernel __attribute__((reqd_work_group_size(PACK_RUNS, 16, 1)))
void pack_sixteen_bit(PACK16_PARAMETERS) {
  __local ushort block[PACK_BLOCK][PACK_BLOCK + 2];  // block[i - i0][o - o0]
  const int problem = get_group_id(2);
  if (get_group_id(0) == 0 && get_group_id(1) == 0 && problem == 0) {
    for (int i = get_local_id(1) * PACK_RUNS + get_local_id(0); i < zeroed_count; i += PACK_ITEMS) zeroed[i] = 0;
  }
  if (get_group_id(0) < a_blocks) {
    if (problem < a_problems) {
      pack_block(block, get_group_id(0), get_group_id(1), a_outer, a_inner, a_outer_contiguous,
                 a_src + a_src_offset + problem * a_src_stride, a_ld, a_dst + problem * a_dst_stride, a_tile_outer,
                 inner_padded, a_aligned);
    }
  } else if (problem < b_problems) {
    pack_block(block, get_group_id(0) - a_blocks, get_group_id(1), b_outer, b_inner, b_outer_contiguous,
               b_src + b_src_offset + problem * b_src_stride, b_ld, b_dst + problem * b_dst_stride, b_tile_outer,
               inner_padded, b_aligned);
  }
}
)CLC";

// The product program, after the elements' functions (kernels/sixteen_bit_conversion.hpp).
inline constexpr char warpgroup16_layout_source[] = R"CLC(
#if !defined(TSM) || !defined(TSN) || !defined(TSK) || !defined(STAGES)
#error "kernels/sixteen_bit_warpgroup.hpp needs TSM, TSN, TSK and STAGES from its preamble"
#endif
#if !defined(SIXTEEN_BIT) || !defined(RESULT_IS_FLOAT)
#error "kernels/sixteen_bit_warpgroup.hpp needs SIXTEEN_BIT and RESULT_IS_FLOAT from its preamble"
#endif
#if RESULT_IS_FLOAT
#define RESULT float
#else
#define RESULT STORAGE16
#endif
#if TSM != 128 || (TSN != 128 && TSN != 256) || TSK % 16 != 0
#error "kernels/sixteen_bit_warpgroup.hpp takes tiles 128 x 128 or 128 x 256 and slices a multiple of 16 deep"
#endif

// The product's pipeline (kernels/warpgroup_mma.hpp has the same with TF32): a work-group of TSM / 64 warpgroups, each
// 64 rows of the tile by all TSN columns in one accumulator of TSN / 2 floats a work-item; slices in STAGES buffers,
// copied by the copy engine (kernels/copy_engine.hpp, in 4-byte words: two elements each).
#define THREADS (TSM / 64 * 128)
#define MMA_PENDING 1
#define SLOTS STAGES
#define AHEAD (SLOTS - MMA_PENDING)
#define SLICE_A (TSM * TSK / 2)
#define SLICE_B (TSN * TSK / 2)
#define SLICE_BYTES (4 * (SLICE_A + SLICE_B))
#define BARRIERS_AT (SLOTS * SLICE_BYTES)
#define LOCAL_WORDS (BARRIERS_AT / 4 + 4 * SLOTS)
#define CORE_BYTES 128
#define ROW_GROUP_BYTES (TSK / 8 * CORE_BYTES)
#define ACCUMULATORS (TSN / 2)
#define STAGED_LD (TSM + 4)  // the tile of C in local memory, column-major: + 4 spreads a warp's writes over the banks
#if STAGED_LD * TSN > BARRIERS_AT / 4
#error "the tile of C does not fit in the buffers of slices"
#endif
#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)
)CLC";

inline constexpr char warpgroup16_products_source[] = R"CLC(

// The descriptor of a K-major operand in local memory without swizzling: core matrices along k CORE_BYTES apart,
// groups of 8 rows ROW_GROUP_BYTES apart.
inline ulong descriptor16(const uint address) {
  return (ulong)((address & 0x3ffff) >> 4) | (ulong)(CORE_BYTES >> 4) << 16 | (ulong)(ROW_GROUP_BYTES >> 4) << 32;
}

#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
#define WGMMA_TYPES ".f32.f16.f16"
#else
#define WGMMA_TYPES ".f32.bf16.bf16"
#endif
#if TSN == 256
#define ACCUMULATOR_OPERANDS(d) WGMMA_D64(d, 0), WGMMA_D64(d, 64)
#define ACCUMULATOR_LIST "{" WGMMA_LIST128 "}"
#define MORE_OPERANDS "%128, %129"
#define ACCUMULATE_AT "%130"
#define SHAPE "m64n256k16"
#else
#define ACCUMULATOR_OPERANDS(d) WGMMA_D64(d, 0)
#define ACCUMULATOR_LIST "{" WGMMA_LIST64 "}"
#define MORE_OPERANDS "%64, %65"
#define ACCUMULATE_AT "%66"
#define SHAPE "m64n128k16"
#endif

// d += a * b for this warpgroup's 64 rows by TSN columns, 16 deep, operands K-major in local memory (descriptors a
// and b; neither transposed).
inline void wgmma16(float d[ACCUMULATORS], const ulong a, const ulong b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " ACCUMULATE_AT ", 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned." SHAPE WGMMA_TYPES " " ACCUMULATOR_LIST ", " MORE_OPERANDS
               ", p, 1, 1, 0, 0;\n}\n"
               : ACCUMULATOR_OPERANDS(d)
               : "l"(a), "l"(b), "r"(1));
}
// d += a * b for this warpgroup's 64 rows by the tile's first 64 columns only, where no more of them lie inside C: the
// accumulators of m64n64k16 are the first 32 of m64nTSNk16 (column 8 j + 2 t in d[4 j] in both), and the slice of B
// holds those 64 columns first.
inline void wgmma16_narrow(float d[ACCUMULATORS], const ulong a, const ulong b) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" SM90A_ONLY
               "wgmma.mma_async.sync.aligned.m64n64k16" WGMMA_TYPES " {" WGMMA_LIST32 "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
               : WGMMA_D8(d, 0), WGMMA_D8(d, 8), WGMMA_D8(d, 16), WGMMA_D8(d, 24)
               : "l"(a), "l"(b), "r"(1));
}
#define PRODUCTS_BEGIN() asm volatile(SM90A_ONLY "wgmma.fence.sync.aligned;\n" ::: "memory")
#define PRODUCTS_END() asm volatile(SM90A_ONLY "wgmma.commit_group.sync.aligned;\n" ::: "memory")
#define WAIT_FOR_PRODUCTS(pending) \
  asm volatile(SM90A_ONLY "wgmma.wait_group.sync.aligned " TEXT(pending) ";\n" ::: "memory")

// C(row, column) = alpha * value + beta * C(row, column) inside M x N, rounded once where C is 16-bit; C is not read
// where beta is zero.
inline void store_result(__global RESULT* C, const int ldc, const int M, const int N, const int row, const int column,
                         const float alpha, const float beta, const float value) {
  if (row >= M || column >= N) return;
  const int at = row + column * ldc;
#if RESULT_IS_FLOAT
  C[at] = beta == 0.0f ? alpha * value : alpha * value + beta * C[at];
#else
  store16(beta == 0.0f ? alpha * value : alpha * value + beta * load16(C, at), C, at);
#endif
}

// low and high rounded to nearest even into one word of two 16-bit elements (low first in memory), as store16 rounds
// them (NaN stays NaN, infinities and subnormals are kept): one instruction for both (sm_80 and newer).
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
#define PAIR_CONVERSION "cvt.rn.f16x2.f32 %0, %1, %2;"
#else
#define PAIR_CONVERSION "cvt.rn.bf16x2.f32 %0, %1, %2;"
#endif
inline uint rounded_pair(const float low, const float high) {
  uint pair;
  asm(PAIR_CONVERSION : "=r"(pair) : "f"(high), "f"(low));
  return pair;
}

// C(row + e, column) for e = 0 to 7 as store_result writes them, with one 16-byte store (float: two) and load where
// all 8 lie inside M; C's runs start on 16 bytes (c_aligned).
inline void store_run(__global RESULT* C, const int ldc, const int M, const int N, const int row, const int column,
                      const float alpha, const float beta, const float v[8]) {
  if (row + 8 > M) {
    for (int e = 0; e < 8; ++e) store_result(C, ldc, M, N, row + e, column, alpha, beta, v[e]);
    return;
  }
  __global RESULT* at = C + row + column * ldc;
  float8 value = alpha * (float8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
#if RESULT_IS_FLOAT
  if (beta != 0.0f) value += beta * (float8)(*(__global float4*)at, *(__global float4*)(at + 4));
  *(__global float4*)at = value.lo;
  *(__global float4*)(at + 4) = value.hi;
#else
#if SIXTEEN_BIT == SIXTEEN_BIT_HALF
  if (beta != 0.0f) value += beta * vloada_half8(0, at);
#else
  if (beta != 0.0f) value += beta * as_float8(convert_uint8(*(__global ushort8*)at) << 16);
#endif
  *(__global uint4*)at = (uint4)(rounded_pair(value.s0, value.s1), rounded_pair(value.s2, value.s3),
                                 rounded_pair(value.s4, value.s5), rounded_pair(value.s6, value.s7));
#endif
}

// A split tile's pieces meet here, each with its sums in `tile` (local memory, as staged for C): they go to `partials`,
// and the last piece of the tile to arrive adds all of them into `tile`, in the order of the pieces (so that C does not
// depend on which came last), and writes C. Returns whether this work-group is that one. No work-group waits for
// another, so none can hang on one that is not running.
#define SUMS_PER_ITEM (TSM * TSN / 4 / THREADS)  // float4s of a tile per work-item (16 or 32), neighbours on neighbours
inline bool sum_pieces(__local float* tile, __global float* partials, __global uint* counters, __local uint* last,
                       const int split_tile, const int piece, const int pieces, const int tid) {
  __global float4* sums = (__global float4*)(partials + split_tile * pieces * (TSM * TSN)) + tid;
#define STAGED(i) \
  (*(__local float4*)(tile + (tid + (i)*THREADS) / (TSM / 4) * STAGED_LD + (tid + (i)*THREADS) % (TSM / 4) * 4))
#define SUMS(p, i) sums[(p) * (TSM * TSN / 4) + (i)*THREADS]
#pragma unroll
  for (int i = 0; i < SUMS_PER_ITEM; ++i) SUMS(piece, i) = STAGED(i);
  // Each work-item's sums reach the device's scope before the count says they are there, and after the count is read
  // the other pieces' are seen: the release and acquire of the CUDA memory model, which OpenCL 1.2 C cannot say. No
  // compute unit has read these words before, so none can have them in its L1.
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (tid == 0) *last = atomic_inc(counters + split_tile) == (uint)(pieces - 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!*last) return false;
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  // Eight float4s of the tile at a time: eight loads in flight for each piece, in few registers.
  for (int first = 0; first < SUMS_PER_ITEM; first += 8) {
    float4 total[8];
    for (int p = 0; p < pieces; ++p) {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float4 x = p == piece ? STAGED(first + i) : SUMS(p, first + i);
        total[i] = p == 0 ? x : total[i] + x;
      }
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) STAGED(first + i) = total[i];
  }
#undef SUMS
#undef STAGED
  barrier(CLK_LOCAL_MEM_FENCE);
  return true;
}

// The slices one after the other, each multiplied by `product` (wgmma16, wgmma16_narrow or NO_PRODUCT): a loop for
// each, so that no branch lies between a wgmma and its wait (ptxas would serialize the products).
#define NO_PRODUCT(d, a, b)
#define MULTIPLY_SLICES(product)                                                                                 \
  for (int s = 0; s < count; ++s) {                                                                              \
    const uint slice = slice_ready(local_base, s);                                                               \
    const uint rows = slice + 64 * warpgroup / 8 * ROW_GROUP_BYTES, columns = slice + 4 * SLICE_A;               \
    PRODUCTS_BEGIN();                                                                                            \
    _Pragma("unroll") for (int k = 0; k < TSK; k += 16) {                                                        \
      product(acc, descriptor16(rows + k / 8 * CORE_BYTES), descriptor16(columns + k / 8 * CORE_BYTES));         \
    }                                                                                                            \
    PRODUCTS_END();                                                                                              \
    /* Lets the products of this slice run; once those of the slice before are done, this warp is done with its \
       buffer, and one work-item copies slice s + AHEAD into it when every warp is. */                           \
    WAIT_FOR_PRODUCTS(MMA_PENDING);                                                                              \
    if (s >= MMA_PENDING && tid % 32 == 0) arrive(empty_barrier(local_base, (s - MMA_PENDING) % SLOTS));         \
    refill_slot(local_base, a, b, (int2)(0, 0), s + AHEAD, count, tid);                                          \
  }

// A TSM x TSN tile of C per work-group (or a piece of its slices, past whole_tiles); work-groups run through the tiles
// in bands of `band` tiles of rows, column after column in each, so that those running at once share panels of A and B
// in L2. Problem get_group_id(2) of a batch.
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_sixteen_bit_warpgroup(WARPGROUP16_PARAMETERS) {
  __local float slices[LOCAL_WORDS] __attribute__((aligned(128)));
  __local uint last_piece;
  const int tid = get_local_id(0);
  const int warpgroup = tid / 128, warp = tid % 128 / 32, g = tid % 32 / 4, t = tid % 4;
  const int id = get_group_id(0), split = id >= whole_tiles;
  const int tile = split ? whole_tiles + (id - whole_tiles) / splits : id;
  const int pieces = split ? splits : 1, piece = split ? (id - whole_tiles) % splits : 0;
  const int2 banded = banded_tile(tile, tiles_m, tiles_n, band);
  const int tile_m = banded.x, tile_n = banded.y;
  const int all_slices = K / TSK, first = all_slices * piece / pieces;
  const int count = all_slices * (piece + 1) / pieces - first;
  __global const float* a = A + (int)get_group_id(2) * a_stride + (tile_m * all_slices + first) * SLICE_A;
  __global const float* b = B + (int)get_group_id(2) * b_stride + (tile_n * all_slices + first) * SLICE_B;
  C += c_offset + (int)get_group_id(2) * c_stride;
  const uint local_base = (uint)(ulong)slices;  // the 32-bit address in the shared window (see tensor_cores)
  float acc[ACCUMULATORS];
#pragma unroll
  for (int v = 0; v < ACCUMULATORS; ++v) acc[v] = 0;

  // Edge tiles multiply only what lies inside C: a warpgroup whose 64 rows are all past M none of it, a tile with at
  // most 64 columns inside N its first 64 (a quarter of a tile 256 wide). Both the same for a whole warpgroup.
  const bool rows_inside = 64 * warpgroup < M - tile_m * TSM, narrow = rows_inside && N - tile_n * TSN <= 64;
  start_slices(local_base, a, b, (int2)(0, 0), count, tid);
  if (narrow) {
    MULTIPLY_SLICES(wgmma16_narrow);
  } else if (rows_inside) {
    MULTIPLY_SLICES(wgmma16);
  } else {
    MULTIPLY_SLICES(NO_PRODUCT);
  }
  WAIT_FOR_PRODUCTS(0);

  // The accumulators go through local memory, the slices' buffers (every copy into them has landed, and past this
  // barrier no product reads them), so that C is written in runs of 8 rows: 16-byte stores, not 2-byte ones. Work-item
  // l of warp v holds, of each 8 columns j, rows 16 v + g and 16 v + g + 8 by columns 8 j + 2 t and 8 j + 2 t + 1.
  barrier(CLK_LOCAL_MEM_FENCE);
  const int r = 64 * warpgroup + 16 * warp + g;
#pragma unroll
  for (int j = 0; j < TSN / 8; ++j) {
    const int c = 8 * j + 2 * t;
    slices[c * STAGED_LD + r] = acc[4 * j];
    slices[(c + 1) * STAGED_LD + r] = acc[4 * j + 1];
    slices[c * STAGED_LD + r + 8] = acc[4 * j + 2];
    slices[(c + 1) * STAGED_LD + r + 8] = acc[4 * j + 3];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (split && !sum_pieces(slices, partials, counters, &last_piece, tile - whole_tiles, piece, pieces, tid)) return;
  if (c_aligned) {
    const int run = tid % (TSM / 8), row = tile_m * TSM + 8 * run;
    for (int c = tid / (TSM / 8); c < TSN; c += THREADS / (TSM / 8)) {
      const int column = tile_n * TSN + c;
      if (row >= M || column >= N) continue;
      float v[8];
      for (int e = 0; e < 8; ++e) v[e] = slices[c * STAGED_LD + 8 * run + e];
      store_run(C, ldc, M, N, row, column, alpha, beta, v);
    }
  } else if (tile_m * TSM + tid % TSM < M) {
    // Element by element, neighbouring work-items on neighbouring rows, each rounded by one cvt.rn (store16's integer
    // rounding made this epilogue a tenth of a 4097^3 product).
    const int r = tid % TSM, row = tile_m * TSM + r, columns = min(TSN, N - tile_n * TSN);
    __global RESULT* at = C + row + tile_n * TSN * ldc;
    for (int c = tid / TSM; c < columns; c += THREADS / TSM) {
      const float value = alpha * slices[c * STAGED_LD + r];
#if RESULT_IS_FLOAT
      at[c * ldc] = beta == 0.0f ? value : value + beta * at[c * ldc];
#else
      const float sum = beta == 0.0f ? value : value + beta * load16(at, c * ldc);
      ((__global ushort*)at)[c * ldc] = (ushort)rounded_pair(sum, 0.0f);
#endif
    }
  }
}
)CLC";

inline constexpr auto pack16_parameters_text = parameters_define<pack16_arguments>("PACK16_PARAMETERS") +
                                               define_line<warpgroup16_depth>("TSK") +
                                               define_line<warpgroup16_pack_block>("PACK_BLOCK");
inline constexpr auto warpgroup16_parameters_text = parameters_define<warpgroup16_arguments>("WARPGROUP16_PARAMETERS") +
                                                    define_line<warpgroup16_rows>("TSM") +
                                                    define_line<warpgroup16_depth>("TSK");
template <bool FromFloat>
inline constexpr auto pack16_from_float_text = define_line<FromFloat ? 1 : 0>("PACK_FROM_FLOAT");
template <int Columns>
inline constexpr auto warpgroup16_columns_text =
    define_line<Columns>("TSN") + define_line<warpgroup16_stages(Columns)>("STAGES");
template <bool FloatResult>
inline constexpr auto warpgroup16_result_text = define_line<FloatResult ? 1 : 0>("RESULT_IS_FLOAT");

inline constexpr char pack16_kernel_name[] = "pack_sixteen_bit";
inline constexpr char warpgroup16_kernel_name[] = "gemm_sixteen_bit_warpgroup";

// The program that packs operands into core tiles (any device), reading them as `from` says.
inline ProgramText pack16_program(PackFrom from = PackFrom::sixteen_bit) {
  static constexpr TextPiece bits = piece_of<pack16_from_float_text<false>>();
  static constexpr TextPiece floats = piece_of<pack16_from_float_text<true>>();
  static constexpr TextPiece half_defines = piece_of<sixteen_bit_defines_text<SixteenBit::half>>();
  static constexpr TextPiece bfloat16_defines = piece_of<sixteen_bit_defines_text<SixteenBit::bfloat16>>();
  static constexpr TextPiece rounding = piece_of<sixteen_bit_elements_source>();
  static constexpr TextPiece code = joined_piece<pack16_parameters_text, pack16_source>();
  if (from == PackFrom::sixteen_bit) return program_text(pack16_kernel_name, {bits, code});
  return program_text(pack16_kernel_name,
                      {floats, from == PackFrom::float_to_half ? half_defines : bfloat16_defines, rounding, code});
}

// The wgmma product of `element` with tiles `columns` wide (128 or 256) and a float or 16-bit C, built from PTX
// retargeted to sm_90a (runtime/sm90a_ptx.hpp).
inline ProgramText warpgroup16_program(SixteenBit element, int columns, bool float_result) {
  static constexpr TextPiece half_defines = piece_of<sixteen_bit_defines_text<SixteenBit::half>>();
  static constexpr TextPiece bfloat16_defines = piece_of<sixteen_bit_defines_text<SixteenBit::bfloat16>>();
  static constexpr TextPiece narrow_tiles = piece_of<warpgroup16_columns_text<128>>();
  static constexpr TextPiece wide_tiles = piece_of<warpgroup16_columns_text<256>>();
  static constexpr TextPiece float_result_text = piece_of<warpgroup16_result_text<true>>();
  static constexpr TextPiece sixteen_bit_result_text = piece_of<warpgroup16_result_text<false>>();
  static constexpr TextPiece code =
      joined_piece<sm90a_marker_text, wgmma_operands_source, tile_bands_source, warpgroup16_parameters_text,
                   sixteen_bit_elements_source, warpgroup16_layout_source, copy_engine_source,
                   warpgroup16_products_source>();
  ProgramText program = program_text(
      warpgroup16_kernel_name,
      {scalar_piece(false, 1), element == SixteenBit::half ? half_defines : bfloat16_defines,
       columns == 256 ? wide_tiles : narrow_tiles, float_result ? float_result_text : sixteen_bit_result_text, code});
  program.needs_sm90a = true;
  return program;
}

}  // namespace tilegemm::detail
