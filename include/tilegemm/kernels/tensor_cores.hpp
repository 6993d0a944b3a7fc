// kernels/tensor_cores: the tensor-core family, warps multiplying 16 x 8 tiles of C with mma.sync (inline PTX) on
// NVIDIA GPUs of compute capability 8.0 and newer: FP64 for double, 3xTF32, TF32, BF16 or FP16 for float.
#pragma once

#include <cstddef>
#include <string>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "async_copies.hpp"
#include "family_defaults.hpp"
#include "program_text.hpp"
#include "tf32_rounding.hpp"
#include "tile_bands.hpp"

namespace tilegemm {
namespace detail {

// The warps' layout of a slice and of C, shared by the tensor_cores and bulk_tensor_cores families.
inline constexpr char tensor_cores_warps_source[] = R"CLC(
// Reads packed operands, as the register_blocking family does: A M-contiguous and B N-contiguous, whole tiles,
// offsets and leading dimensions in vectors of VW = 4 elements, K (the padded depth) a multiple of TSK.
//
// A work-group of WARPS_M x WARPS_N warps computes a TSM x TSN tile of C; each warp a WM x WN part of it, made of
// TILES_M x TILES_N tiles of 16 x 8, each the accumulator of one mma.sync. Lane l of a warp is in group g = l / 4
// at place t = l % 4 (PTX's groupID and threadID_in_group); of every 16 x 8 tile it holds C(g, 2t), C(g, 2t + 1),
// C(g + 8, 2t) and C(g + 8, 2t + 1), and for each 4 steps of k it brings A(g, t), A(g + 8, t) and B(t, g), so that
// a product MMA_K deep takes 2 * MMA_K / 4 values of A and MMA_K / 4 of B per lane (A's in the order A(g, t),
// A(g + 8, t), A(g, t + 4), A(g + 8, t + 4), ...).
//
// A slice's tiles of A and B, TSK deep, are k-major, rows of TSM (TSN) elements, laid out so that the lanes' reads of
// a fragment (rows t, columns g) fall in distinct banks and every row starts on 16 bytes, as the 16-byte copies need. Rows of floats have no padding: their
// 16-byte pieces are swizzled, piece p of row k at p ^ 2 (k % 4) (with lane blocks, below, as LANE_SWIZZLE says), so
// that a read's 8 floats of each of 4 rows meet 8 distinct pieces of 4 banks, as do the 8 pieces of a row that copies
// write at once; a stage more of 128 x 128 fits in the 48 KiB of local memory a work-group has on NVIDIA GPUs (tf32x3
// gained 5% on an H200 with the same stages).
// Rows of doubles have ROW_PAD_DOUBLE of padding instead: the same layout swizzled measured 15% slower on an H200 in
// double (the compiler ordered the slice's products after its loads, where with padding it moved some past the
// barrier).
#if !defined(WARPS_M) || !defined(WARPS_N) || !defined(WM) || !defined(WN) || !defined(STAGES) || \
    !defined(ROW_PAD_DOUBLE) || !defined(BAND_TILES) || !defined(MMA)
#error "kernels/tensor_cores.hpp needs the warps, stages and row padding (warp_defines) and MMA from the preamble"
#endif
#define TILES_M (WM / 16)
#define TILES_N (WN / 8)
#define FLOAT_MMA (MMA == MMA_TF32X3 || MMA == MMA_TF32 || MMA == MMA_BF16 || MMA == MMA_FP16)
#define SIXTEEN_BIT_MMA (MMA == MMA_BF16 || MMA == MMA_FP16)  // float slices, 16-bit fragments
#if SIXTEEN_BIT_MMA && TSK % 8 != 0
#error "tensor_cores: the 16-bit products (m16n8k8, m16n8k16) need TSK a multiple of 8"
#endif
#if MMA == MMA_FP64_SM80 || TSK % 8 != 0
#define MMA_K 4  // on 8.x: two m8n8k4 for each 16 x 8 tile
#elif (MMA == MMA_FP64_SM90 || SIXTEEN_BIT_MMA) && TSK % 16 == 0
#define MMA_K 16
#else
#define MMA_K 8
#endif
// 16-bit products on slices a multiple of 16 deep hold pairs: each row of a slice in local memory is a pair of rows of
// k (2r and 2r + 1), as 32-bit words of two 16-bit values, which the work-items round once as they store the slice
// (not cp.async: the floats pass through registers); so a step of 16 of k is 8 rows, and a lane's A(g, t), A(g + 8, t),
// A(g, t + 4), A(g + 8, t + 4) and B(t, g), B(t + 4, g) of them are the registers of m16n8k16 as they are.
#define SIXTEEN_BIT_PAIRS (SIXTEEN_BIT_MMA && TSK % 16 == 0)
#if SIXTEEN_BIT_PAIRS
#define QUADS 2
#else
#define QUADS (MMA_K / 4)  // groups of 4 steps of k in one product
#endif
#define ROWS_K (SIXTEEN_BIT_PAIRS ? TSK / 2 : TSK)  // rows of a slice in local memory
// Lane blocks (float): the rows and columns of a warp's tiles are taken in an order where each lane's elements of a
// row of a slice lie side by side, LANE_A of A from column LANE_A g on and LANE_B of B from LANE_B g on, so that one
// 16-byte read brings 4 of them: row 8 h + g of the warp's tile i of 16 x 8 is its row LANE_A g + 2 i + h, column g
// of its tile j its column LANE_B g + j. Taken where each lane's block is 1, 2 or 4 whole float4s (tf32x3 gained 3
// to 5% on an H200, tf32 nothing; double, in pairs, lost 11%, so it keeps one read per element).
#define LANE_A (2 * TILES_M)
#define LANE_B TILES_N
#define LANE_FITS(L) ((L) == 4 || (L) == 8 || (L) == 16)
#define LANE_BLOCKS (FLOAT_MMA && LANE_FITS(LANE_A) && LANE_FITS(LANE_B))
#define DOUBLE_ROWS (sizeof(real) == 8)  // padded rows (double) rather than swizzled ones (float)
#define ROW_A (TSM + (DOUBLE_ROWS ? ROW_PAD_DOUBLE : 0))
#define ROW_B (TSN + (DOUBLE_ROWS ? ROW_PAD_DOUBLE : 0))
#define SLICE_ELEMENTS (ROWS_K * (ROW_A + ROW_B))
// The rows and slices above in double, the most they take (the preprocessor has no sizeof), against the host's count.
#if STAGES * TSK * ((TSM + ROW_PAD_DOUBLE) + (TSN + ROW_PAD_DOUBLE)) > LOCAL_ELEMENTS
#error "tensor_cores: STAGES slices of A and B take more local memory than the host counts (LOCAL_ELEMENTS)"
#endif
#define PIECE ((int)(16 / sizeof(real)))  // elements in a 16-byte copy
// Where row k's elements lie: column x at x ^ SWIZZLE_A(k) (SWIZZLE_B(k)). With lane blocks of P pieces, the 4 rows'
// swizzles take the bits of a piece's number that g leaves alone, so that the 8 lanes of a quarter of a warp (2
// values of g, 4 of t) read 8 distinct pieces of a 128-byte span.
#define LANE_SWIZZLE(k, P) ((((k) % 4 & ((P) - 1)) | (((k) % 4 & ~((P) - 1)) << 1)) * PIECE)
#if LANE_BLOCKS
#define SWIZZLE_A(k) LANE_SWIZZLE(k, LANE_A / 4)
#define SWIZZLE_B(k) LANE_SWIZZLE(k, LANE_B / 4)
#else
#define SWIZZLE_A(k) (DOUBLE_ROWS ? 0 : (k) % 4 * 2 * PIECE)
#define SWIZZLE_B(k) SWIZZLE_A(k)
#endif
#define SPAN (8 * PIECE)                  // the swizzle moves elements within aligned spans of 8 pieces
#define SPAN_PLACES (SPAN / 8)            // places of a lane's column g + 8 v in a span, v < SPAN_PLACES
#define PLACES 4                          // at least SPAN_PLACES and a lane block's pieces
)CLC";

// The tensor_cores family's own pipeline: every work-item copies 16 bytes at a time with cp.async
// (kernels/async_copies.hpp).
inline constexpr char tensor_cores_pipeline_source[] = R"CLC(
// Slices of A and B, TSK deep, pass through STAGES buffers in local memory: cp.async copies slices up to STAGES - 1
// ahead of the one the warps multiply, and each slice costs one barrier. (Reading the next step's fragments while
// multiplying this one measured slower on an H200: the registers it takes cost more than it hides.)
#define SLICE_PIECES_A (TSK * TSM / PIECE)  // 16-byte copies of A and of B per slice
#define SLICE_PIECES_B (TSK * TSN / PIECE)
#define PIECES_A ((SLICE_PIECES_A + THREADS - 1) / THREADS)  // per work-item, at most
#define PIECES_B ((SLICE_PIECES_B + THREADS - 1) / THREADS)

// Starts copying the slice of A and B at k0 into `slice`; neighbouring work-items copy neighbouring 16 bytes.
inline void copy_slice(__local real* slice, __global const real* a, const int lda, __global const real* b,
                       const int ldb, const int k0, const int tid) {
#pragma unroll
  for (int l = 0; l < PIECES_A; ++l) {
    const int e = l * THREADS + tid;
    const int k = e / (TSM / PIECE);
    const int m = e % (TSM / PIECE) * PIECE;
    if (SLICE_PIECES_A % THREADS == 0 || e < SLICE_PIECES_A) {
      copy_async(slice + k * ROW_A + (m ^ SWIZZLE_A(k)), a + (k0 + k) * lda + m, 16, true);
    }
  }
  __local real* b_slice = slice + TSK * ROW_A;
#pragma unroll
  for (int l = 0; l < PIECES_B; ++l) {
    const int e = l * THREADS + tid;
    const int k = e / (TSN / PIECE);
    const int n = e % (TSN / PIECE) * PIECE;
    if (SLICE_PIECES_B % THREADS == 0 || e < SLICE_PIECES_B) {
      copy_async(b_slice + k * ROW_B + (n ^ SWIZZLE_B(k)), b + (k0 + k) * ldb + n, 16, true);
    }
  }
}

)CLC";

// The products of one 16 x 8 tile in TF32 (float only), then in double.
inline constexpr char tensor_cores_tf32_mma_source[] = R"CLC(
#if MMA == MMA_TF32X3 || MMA == MMA_TF32
// d += a * b on one 16 x 8 tile, MMA_K deep, from fragments of TF32 values.
inline void mma_tf32(float* d, const float* a, const float* b) {
#if MMA_K == 8
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(as_uint(a[0])), "r"(as_uint(a[1])), "r"(as_uint(a[2])), "r"(as_uint(a[3])), "r"(as_uint(b[0])),
        "r"(as_uint(b[1])));
#else
  asm("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(as_uint(a[0])), "r"(as_uint(a[1])), "r"(as_uint(b[0])));
#endif
}
#endif

)CLC";
inline constexpr char tensor_cores_fp64_mma_source[] = R"CLC(
#if MMA == MMA_FP64_SM90
// d += a * b on one 16 x 8 tile, MMA_K deep, in IEEE double.
inline void mma_fp64(double* d, const double* a, const double* b) {
#if MMA_K == 16
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#elif MMA_K == 8
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(b[0]));
#endif
}
#elif MMA == MMA_FP64_SM80
// The same 4 deep as two m8n8k4: rows g of the tile from A(g, t), rows g + 8 from A(g + 8, t).
inline void mma_fp64(double* d, const double* a, const double* b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a[0]), "d"(b[0]));
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
      : "+d"(d[2]), "+d"(d[3])
      : "d"(a[1]), "d"(b[0]));
}
#endif

)CLC";

// Reading a step's fragments from a slice.
inline constexpr char tensor_cores_fragments_source[] = R"CLC(
// The lane's fragments of one step of k (MMA_K deep, from k on) of a slice. a_place[v] is where the lane's element
// of A in row t and column warp_m + g + 8 v lies in the slice (b_place the same for B); columns c spans further on
// lie c spans further (the swizzle keeps elements within their span), and rows 4 on, 4 rows further (it repeats
// every 4 rows).
inline void load_fragments(__local const real* slice, const int a_place[PLACES], const int b_place[PLACES],
                           const int k, real a[TILES_M][2 * QUADS], real b[TILES_N][QUADS]) {
#if LANE_BLOCKS
  // a_place[p] (b_place[p]) is where float4 p of the lane's block in row t lies; rows 4 on, 4 rows further.
#pragma unroll
  for (int q = 0; q < QUADS; ++q) {
#pragma unroll
    for (int p = 0; p < LANE_A / 4; ++p) {
      const float4 v = *(__local const float4*)(slice + (k + 4 * q) * ROW_A + a_place[p]);
      const float e[4] = {v.x, v.y, v.z, v.w};  // the lane's rows 4 p + x: row g + 8 (x % 2) of tile 2 p + x / 2
#pragma unroll
      for (int x = 0; x < 4; ++x) a[(4 * p + x) / 2][2 * q + x % 2] = e[x];
    }
#pragma unroll
    for (int p = 0; p < LANE_B / 4; ++p) {
      const float4 v = *(__local const float4*)(slice + (k + 4 * q) * ROW_B + b_place[p]);
      const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int x = 0; x < 4; ++x) b[4 * p + x][q] = e[x];
    }
  }
#else
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int q = 0; q < QUADS; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int column = 16 * i + 8 * h;
        a[i][2 * q + h] = slice[(k + 4 * q) * ROW_A + column / SPAN * SPAN + a_place[column % SPAN / 8]];
      }
#pragma unroll
  for (int j = 0; j < TILES_N; ++j)
#pragma unroll
    for (int q = 0; q < QUADS; ++q) {
      b[j][q] = slice[(k + 4 * q) * ROW_B + 8 * j / SPAN * SPAN + b_place[8 * j % SPAN / 8]];
    }
#endif
}

)CLC";

// A step's products in TF32 (3xTF32 or TF32, float only), then in double.
inline constexpr char tensor_cores_tf32_multiply_source[] = R"CLC(
#if MMA == MMA_TF32X3 || MMA == MMA_TF32
// acc += a * b for one step of k, every tile of the warp; with low_products (tf32x3 only) a_low * b_low too.
inline void multiply_fragments(real a[TILES_M][2 * QUADS], real b[TILES_N][QUADS], real acc[TILES_M][TILES_N][4],
                               const bool low_products) {
#if MMA == MMA_TF32X3
  // x = high + low, both TF32; a * b = a_low * b_high + a_high * b_low + a_high * b_high (+ a_low * b_low, at most
  // 2^-22 of a * b: taken only in short sums, low_products, where such errors are not drowned by the sums' own
  // rounding), the small terms first. The three products of a tile are summed on the tensor cores from zero
  // and then added to acc in FP32, rounded to nearest: the tensor cores' own accumulation truncates, and into acc
  // directly its error grew with K to 50 times the IEEE kernels' at K = 65536 (H200). Each pass runs over a row of
  // tiles, so that no product waits for the one before it.
  float a_low[TILES_M][2 * QUADS];
  float b_low[TILES_N][QUADS];
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int v = 0; v < 2 * QUADS; ++v) {
      const float high = to_tf32(a[i][v]);
      a_low[i][v] = to_tf32(a[i][v] - high);
      a[i][v] = high;
    }
#pragma unroll
  for (int j = 0; j < TILES_N; ++j)
#pragma unroll
    for (int v = 0; v < QUADS; ++v) {
      const float high = to_tf32(b[j][v]);
      b_low[j][v] = to_tf32(b[j][v] - high);
      b[j][v] = high;
    }
#pragma unroll
  for (int i = 0; i < TILES_M; ++i) {
    float part[TILES_N][4];
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) part[j][v] = 0;
    if (low_products) {
#pragma unroll
      for (int j = 0; j < TILES_N; ++j) mma_tf32(part[j], a_low[i], b_low[j]);
    }
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_tf32(part[j], a_low[i], b[j]);
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_tf32(part[j], a[i], b_low[j]);
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_tf32(part[j], a[i], b[j]);
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] += part[j][v];
  }
#else  // MMA_TF32
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int v = 0; v < 2 * QUADS; ++v) a[i][v] = to_tf32(a[i][v]);
#pragma unroll
  for (int j = 0; j < TILES_N; ++j)
#pragma unroll
    for (int v = 0; v < QUADS; ++v) b[j][v] = to_tf32(b[j][v]);
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_tf32(acc[i][j], a[i], b[j]);
#endif
}
#endif

)CLC";
inline constexpr char tensor_cores_fp64_multiply_source[] = R"CLC(
#if MMA == MMA_FP64_SM80 || MMA == MMA_FP64_SM90
// acc += a * b for one step of k, every tile of the warp (low_products is tf32x3's).
inline void multiply_fragments(real a[TILES_M][2 * QUADS], real b[TILES_N][QUADS], real acc[TILES_M][TILES_N][4],
                               const bool low_products) {
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_fp64(acc[i][j], a[i], b[j]);
}
#endif

)CLC";

// A step's products on operands rounded to 16 bits (bf16 or fp16, float only).
inline constexpr char tensor_cores_sixteen_bit_source[] = R"CLC(
#if SIXTEEN_BIT_MMA
// Two floats as one register of 16-bit values, `low` in the low half, each rounded to nearest even (NaN kept,
// infinities kept, in fp16 magnitudes past 65504 infinite): one cvt for the pair.
inline uint pack_16_bits(const float low, const float high) {
  uint packed;
#if MMA == MMA_BF16
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(high), "f"(low));
#else
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(high), "f"(low));
#endif
  return packed;
}

// d += a * b on one 16 x 8 tile, MMA_K deep, from fragments of 16-bit pairs (PTX's layout for m16n8k16: A's registers
// hold rows g, g + 8, g, g + 8 at columns 2t and 2t + 1, then 2t + 8 and 2t + 9; B's rows 2t, 2t + 1, then 2t + 8,
// 2t + 9, of column g; m16n8k8 the first two of A and the first of B).
inline void mma_16_bits(float* d, const uint* a, const uint* b) {
#if MMA_K == 16 && MMA == MMA_BF16
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif MMA_K == 16
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif MMA == MMA_BF16
  asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#endif
}

// acc += a * b for one step of k, every tile of the warp, the operands rounded to 16 bits as the fragments are
// formed (low_products is tf32x3's). The lane holds A and B at k + 4 q + t of the slice (load_fragments); taken as
// PTX's k = 2t + q % 2 + 8 (q / 2), the same order for A and B (a sum in any order of k is the product), the pairs
// of a register are quads 2r and 2r + 1: a[i][4r + h] and a[i][4r + 2 + h] (row g + 8h), b[j][2r] and b[j][2r + 1].
// The products sum in the tensor cores' FP32 accumulators.
inline void multiply_fragments(real a[TILES_M][2 * QUADS], real b[TILES_N][QUADS], real acc[TILES_M][TILES_N][4],
                               const bool low_products) {
  uint a16[TILES_M][4];  // QUADS of them taken (the registers of m16n8k16 or of m16n8k8)
  uint b16[TILES_N][2];
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int r = 0; r < QUADS / 2; ++r) {
      a16[i][2 * r] = pack_16_bits(a[i][4 * r], a[i][4 * r + 2]);
      a16[i][2 * r + 1] = pack_16_bits(a[i][4 * r + 1], a[i][4 * r + 3]);
    }
#pragma unroll
  for (int j = 0; j < TILES_N; ++j)
#pragma unroll
    for (int r = 0; r < QUADS / 2; ++r) b16[j][r] = pack_16_bits(b[j][2 * r], b[j][2 * r + 1]);
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j) mma_16_bits(acc[i][j], a16[i], b16[j]);
}

#if SIXTEEN_BIT_PAIRS
// Slices of pairs (see SIXTEEN_BIT_PAIRS): a slice's TSK rows of A and of B are TSK / 2 rows of pairs, each 16 bytes
// of them (4 pairs, 4 columns) read by a work-item as two float4 of rows 2r and 2r + 1 and stored as one uint4.
#define PAIR_PIECES_A ((ROWS_K * TSM / 4 + THREADS - 1) / THREADS)  // per work-item, at most
#define PAIR_PIECES_B ((ROWS_K * TSN / 4 + THREADS - 1) / THREADS)
#define PAIR_ALL_A ((ROWS_K * TSM / 4) % THREADS == 0)
#define PAIR_ALL_B ((ROWS_K * TSN / 4) % THREADS == 0)

// Reads the work-item's floats of the slice at k0 into registers (neighbouring work-items read neighbouring 16 bytes).
inline void load_pairs(float4 staged_a[PAIR_PIECES_A][2], float4 staged_b[PAIR_PIECES_B][2], __global const real* a,
                       const int lda, __global const real* b, const int ldb, const int k0, const int tid) {
#pragma unroll
  for (int l = 0; l < PAIR_PIECES_A; ++l) {
    const int e = l * THREADS + tid;
    const int r = e / (TSM / 4), m = e % (TSM / 4) * 4;
    if (PAIR_ALL_A || r < ROWS_K) {
      staged_a[l][0] = *(__global const float4*)(a + (k0 + 2 * r) * lda + m);
      staged_a[l][1] = *(__global const float4*)(a + (k0 + 2 * r + 1) * lda + m);
    }
  }
#pragma unroll
  for (int l = 0; l < PAIR_PIECES_B; ++l) {
    const int e = l * THREADS + tid;
    const int r = e / (TSN / 4), n = e % (TSN / 4) * 4;
    if (PAIR_ALL_B || r < ROWS_K) {
      staged_b[l][0] = *(__global const float4*)(b + (k0 + 2 * r) * ldb + n);
      staged_b[l][1] = *(__global const float4*)(b + (k0 + 2 * r + 1) * ldb + n);
    }
  }
}

inline uint4 pairs_of(const float4 low, const float4 high) {
  return (uint4)(pack_16_bits(low.x, high.x), pack_16_bits(low.y, high.y), pack_16_bits(low.z, high.z),
                 pack_16_bits(low.w, high.w));
}

// Rounds the staged floats to pairs and stores them into `slice`, swizzled as rows of floats are.
inline void store_pairs(__local real* slice, float4 staged_a[PAIR_PIECES_A][2], float4 staged_b[PAIR_PIECES_B][2],
                        const int tid) {
#pragma unroll
  for (int l = 0; l < PAIR_PIECES_A; ++l) {
    const int e = l * THREADS + tid;
    const int r = e / (TSM / 4), m = e % (TSM / 4) * 4;
    if (PAIR_ALL_A || r < ROWS_K) {
      *(__local uint4*)(slice + r * ROW_A + (m ^ SWIZZLE_A(r))) = pairs_of(staged_a[l][0], staged_a[l][1]);
    }
  }
  __local real* b_slice = slice + ROWS_K * ROW_A;
#pragma unroll
  for (int l = 0; l < PAIR_PIECES_B; ++l) {
    const int e = l * THREADS + tid;
    const int r = e / (TSN / 4), n = e % (TSN / 4) * 4;
    if (PAIR_ALL_B || r < ROWS_K) {
      *(__local uint4*)(b_slice + r * ROW_B + (n ^ SWIZZLE_B(r))) = pairs_of(staged_b[l][0], staged_b[l][1]);
    }
  }
}

// acc += the products of a slice of pairs, every tile of the warp: steps of 8 rows (16 of k), the fragments' words
// the registers of m16n8k16 (see SIXTEEN_BIT_PAIRS).
inline void multiply_pair_slice(__local const real* slice, const int a_place[PLACES], const int b_place[PLACES],
                                real acc[TILES_M][TILES_N][4]) {
#pragma unroll
  for (int r = 0; r < ROWS_K; r += 8) {
    real a_step[TILES_M][2 * QUADS];
    real b_step[TILES_N][QUADS];
    load_fragments(slice, a_place, b_place, r, a_step, b_step);
    uint a16[TILES_M][4];
    uint b16[TILES_N][2];
#pragma unroll
    for (int i = 0; i < TILES_M; ++i)
#pragma unroll
      for (int v = 0; v < 4; ++v) a16[i][v] = as_uint(a_step[i][v]);
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 2; ++v) b16[j][v] = as_uint(b_step[j][v]);
#pragma unroll
    for (int i = 0; i < TILES_M; ++i)
#pragma unroll
      for (int j = 0; j < TILES_N; ++j) mma_16_bits(acc[i][j], a16[i], b16[j]);
  }
}
#endif
#endif

)CLC";

// A slice's products, where a work-group's tile starts, where a work-item works, and storing C.
inline constexpr char tensor_cores_slices_source[] = R"CLC(
// acc += the products of a slice, every tile of the warp.
inline void multiply_slice(__local const real* slice, const int a_place[PLACES], const int b_place[PLACES],
                           real acc[TILES_M][TILES_N][4], const bool low_products) {
#pragma unroll
  for (int k = 0; k < TSK; k += MMA_K) {
    real a_step[TILES_M][2 * QUADS];
    real b_step[TILES_N][QUADS];
    load_fragments(slice, a_place, b_place, k, a_step, b_step);
    multiply_fragments(a_step, b_step, acc, low_products);
  }
}

// Where the work-group's tile of C starts, rows and columns, its tiles taken in bands (kernels/tile_bands.hpp; at 8192
// on an H200: double 2% faster, tf32 5%).
inline int2 tile_origin() {
  const int2 tile =
      banded_tile(get_group_id(1) * get_num_groups(0) + get_group_id(0), get_num_groups(0), get_num_groups(1),
                  BAND_TILES);
  return (int2)(TSM * tile.x, TSN * tile.y);
}

// Where a work-item works: its index in the work-group, its lane's group g and place t (see the top), and the first
// row and column of its warp's part of the tile.
typedef struct {
  int tid, g, t, warp_m, warp_n;
} WarpLane;
inline WarpLane warp_lane() {
  WarpLane lane;
  lane.tid = get_local_id(1) * THREADS_M + get_local_id(0);
  const int warp = lane.tid / 32;
  lane.g = lane.tid % 32 / 4;
  lane.t = lane.tid % 4;
  lane.warp_m = warp % WARPS_M * WM;
  lane.warp_n = warp / WARPS_M * WN;
  return lane;
}

// a_place and b_place for load_fragments, for the lane (g, t) of the warp whose part of the tile starts at (warp_m,
// warp_n).
inline void fragment_places(int a_place[PLACES], int b_place[PLACES], const WarpLane lane) {
  const int g = lane.g, t = lane.t, warp_m = lane.warp_m, warp_n = lane.warp_n;
#if LANE_BLOCKS
#pragma unroll
  for (int p = 0; p < LANE_A / 4; ++p) {
    a_place[p] = t * ROW_A + ((warp_m + LANE_A * g + 4 * p) ^ SWIZZLE_A(t));
  }
#pragma unroll
  for (int p = 0; p < LANE_B / 4; ++p) {
    b_place[p] = ROWS_K * ROW_A + t * ROW_B + ((warp_n + LANE_B * g + 4 * p) ^ SWIZZLE_B(t));
  }
#else
#pragma unroll
  for (int v = 0; v < SPAN_PLACES; ++v) {
    a_place[v] = t * ROW_A + ((warp_m + g + 8 * v) ^ SWIZZLE_A(t));
    b_place[v] = ROWS_K * ROW_A + t * ROW_B + ((warp_n + g + 8 * v) ^ SWIZZLE_B(t));
  }
#endif
}

inline void clear_accumulators(real acc[TILES_M][TILES_N][4]) {
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0;
}

// C = alpha * acc + beta * C for the lane's elements of its warp's part of the tile at (tile_m, tile_n).
inline void store_accumulators(real acc[TILES_M][TILES_N][4], const int M, const int N, const real alpha,
                               const real beta, __global real* C, const int ldc, const int2 tile,
                               const WarpLane lane) {
  const int row = tile.x + lane.warp_m, column = tile.y + lane.warp_n, g = lane.g, t = lane.t;
#pragma unroll
  for (int i = 0; i < TILES_M; ++i)
#pragma unroll
    for (int j = 0; j < TILES_N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) {
#if LANE_BLOCKS
        STORE_C(row + LANE_A * g + 2 * i + v / 2, column + LANE_B * (2 * t + v % 2) + j, acc[i][j][v]);
#else
        STORE_C(row + 16 * i + g + 8 * (v / 2), column + 8 * j + 2 * t + v % 2, acc[i][j][v]);
#endif
      }
}
)CLC";

inline constexpr char tensor_cores_source[] = R"CLC(
// C = alpha * op(A) * op(B) + beta * C, a TSM x TSN tile of it per work-group.
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_tensor_cores(GEMM_PARAMETERS(realV), BATCH_PARAMETERS) {
  __local real slices[LOCAL_ELEMENTS] __attribute__((aligned(16)));  // STAGES slices of A and B
  const WarpLane lane = warp_lane();
  const int tid = lane.tid;
  const int2 tile = tile_origin();
  __global const real* a = (__global const real*)(A + IN_BATCH(a_offset, a_stride)) + tile.x;
  __global const real* b = (__global const real*)(B + IN_BATCH(b_offset, b_stride)) + tile.y;
  int a_place[PLACES], b_place[PLACES];
  fragment_places(a_place, b_place, lane);
  real acc[TILES_M][TILES_N][4];
  clear_accumulators(acc);

  const int count = K / TSK;
#if SIXTEEN_BIT_PAIRS
  // Two buffers of pairs: the next slice's floats are read into registers while the warps multiply this one, then
  // rounded and stored into the other buffer (multiplied in the step before, which a barrier closed).
  float4 staged_a[PAIR_PIECES_A][2], staged_b[PAIR_PIECES_B][2];
  load_pairs(staged_a, staged_b, a, lda * VW, b, ldb * VW, 0, tid);
  store_pairs(slices, staged_a, staged_b, tid);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 0; s < count; ++s) {
    if (s + 1 < count) load_pairs(staged_a, staged_b, a, lda * VW, b, ldb * VW, (s + 1) * TSK, tid);
    multiply_pair_slice(slices + s % 2 * SLICE_ELEMENTS, a_place, b_place, acc);
    if (s + 1 < count) store_pairs(slices + (s + 1) % 2 * SLICE_ELEMENTS, staged_a, staged_b, tid);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#else
  // Slices 0 to STAGES - 2 in flight; once slice 0 has landed for everyone, slice STAGES - 1 too.
  // tf32x3: in products at most LOW_PRODUCTS_UP_TO deep, the fourth product of the split operands too. There the
  // operands' representation (22 bits) is what errs most; it cost these products 2.1 times the IEEE kernels' error
  // on data of magnitudes 2^-20 to 2^20 at K = 16 (H200), the fourth product brings that under 2.
  const bool low_products = K <= LOW_PRODUCTS_UP_TO;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < count) copy_slice(slices + s * SLICE_ELEMENTS, a, lda * VW, b, ldb * VW, s * TSK, tid);
    end_copy_group();
  }
  wait_for_copy_groups();
  barrier(CLK_LOCAL_MEM_FENCE);
  if (STAGES - 1 < count) {
    copy_slice(slices + (STAGES - 1) * SLICE_ELEMENTS, a, lda * VW, b, ldb * VW, (STAGES - 1) * TSK, tid);
  }
  end_copy_group();
  for (int s = 0; s < count; ++s) {
    multiply_slice(slices + s % STAGES * SLICE_ELEMENTS, a_place, b_place, acc, low_products);
    // Everyone is done with slice s: once slice s + 1 has landed for everyone, s's buffer takes slice s + STAGES.
    wait_for_copy_groups();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s + STAGES < count) {
      copy_slice(slices + s % STAGES * SLICE_ELEMENTS, a, lda * VW, b, ldb * VW, (s + STAGES) * TSK, tid);
    }
    end_copy_group();
  }
#endif

  store_accumulators(acc, M, N, alpha, beta, C + IN_BATCH(c_offset, c_stride), ldc, tile, lane);
}
)CLC";

// The tensor_cores family's code: to_tf32, the warps' layout, its cp.async pipeline, and the products in TF32, in
// double and in 16 bits, in this order.
inline constexpr TextPiece tensor_cores_helpers =
    joined_piece<tf32_rounding_source, tile_bands_source, tensor_cores_warps_source, async_copies_source,
                 tensor_cores_pipeline_source, tensor_cores_tf32_mma_source, tensor_cores_fp64_mma_source,
                 tensor_cores_fragments_source, tensor_cores_tf32_multiply_source, tensor_cores_fp64_multiply_source,
                 tensor_cores_sixteen_bit_source, tensor_cores_slices_source>();

// Padding of each k-row of a slice of doubles in local memory, in elements: 4 doubles keep the lanes' reads of a
// fragment in distinct banks (rows t and columns g: t * ROW falls on distinct multiples of 4 eight-byte pairs) and
// every row on 16 bytes. Rows of floats are swizzled instead, without padding (see the kernel text).
inline constexpr int tensor_row_pad_double = 4;
// Rows of tiles in a band of work-groups (see the kernel text): the 132 work-groups of a wave at 8192 read 8 panels
// of A and 17 of B rather than 64 and 3. 8 and 16 measured the same; L2 prefetch hints on the copies gained nothing.
inline constexpr int tensor_band_tiles = 8;
// The elements of a k-row of a slice of doubles of a tile of `tile` rows (TSM or TSN) in local memory: ROW_A and
// ROW_B in the kernel text, which checks its slices against the host's count with them (#error); also the rows of
// the operands bulk_tensor_cores reads (OperandAccess::padded_slices).
constexpr int padded_row(int tile) { return tile + tensor_row_pad_double; }
// A slice of A and one of B, TSK rows each, counted with the doubles' padding (floats use less of it):
// SLICE_ELEMENTS in the kernel text.
constexpr std::size_t padded_slice_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.tsk) * (padded_row(t.tsm) + padded_row(t.tsn));
}
// STAGES such slices.
constexpr std::size_t tensor_cores_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.stages) * padded_slice_elements(t);
}

// The compute capabilities (major * 10 + minor) from which mma.sync multiplies TF32 and FP64 (8.0), and from which
// it has the FP64 shapes 16 x 8 x 8 and 16 x 8 x 16 (9.0; 8.x has 8 x 8 x 4 only, at half the rate).
inline constexpr int tensor_cores_from = 80;
inline constexpr int wide_fp64_mma_from = 90;

// The rules of the tensor_cores family (see its list below for their reasons), as predicates on plain values.
constexpr bool tensor_vectors(const TileShape& t) { return t.vw == 4; }
constexpr bool tensor_even_blocks(const TileShape& t) { return t.wptm % 2 == 0 && t.wptn % 2 == 0; }
constexpr bool tensor_warps_tile(const TileShape& t) {
  return t.wptm > 0 && t.wptn > 0 && (t.tsm / t.wptm) % 8 == 0 && (t.tsn / t.wptn) % 4 == 0;
}
constexpr bool tensor_slices(const TileShape& t) { return t.tsk % 4 == 0; }
constexpr bool tensor_spans(const TileShape& t) { return t.tsm % 32 == 0 && t.tsn % 32 == 0; }
constexpr bool tensor_stages(int stages) { return stages >= 2 && stages <= 8; }

// The refusal of a device without mma.sync (below compute capability 8.0), for the families that use it.
inline Implementation no_mma_sync(const RunTarget& target) {
  return Implementation::refused(RefusalKind::device,
                                 " multiplies on tensor cores through mma.sync, which needs an NVIDIA GPU of compute "
                                 "capability 8.0 or newer; " +
                                     std::string(target.device_name) + compute_capability_words(target) +
                                     ". Use AutoConfig (it takes the tensor cores where there are some) or a "
                                     "configuration of another family.");
}

// The mma.sync kind of a float product in the call's math mode, for the families that multiply float on tensor cores
// through it (tensor_cores, in_place_tensor_cores): none in the ieee mode, nor in bf16 and fp16 for slices that are
// not whole steps of 8.
inline Implementation float_mma_sync(const TileShape& t, const RunTarget& target) {
  if (target.math == MathMode::ieee) {
    return Implementation::refused(
        RefusalKind::operation,
        " multiplies float on tensor cores, which the math mode ieee (IEEE FP32, the default) rules out. Choose "
        "MathMode::tf32x3 (FP32-accurate), MathMode::tf32, MathMode::bf16 or MathMode::fp16 for the call (gemm's "
        "math argument, or a ScopedMathMode) or the process (TILEGEMM_MATH=tf32x3), or a configuration of another "
        "family.");
  }
  if (sixteen_bit_math(target.math)) {
    if (t.tsk % 8 != 0) {
      return Implementation::refused(RefusalKind::operation,
                                     " has slices " + std::to_string(t.tsk) + " deep, and the math mode " +
                                         std::string(math_mode_name(target.math)) +
                                         " multiplies 16-bit operands 8 or 16 deep at a time (mma.sync m16n8k8, "
                                         "m16n8k16): it needs TSK a multiple of 8.");
    }
    return Implementation::uses(target.math == MathMode::bf16 ? MmaKind::bf16 : MmaKind::fp16);
  }
  return Implementation::uses(target.math == MathMode::tf32 ? MmaKind::tf32 : MmaKind::tf32x3);
}

template <>
struct FamilyTraits<Family::tensor_cores> : FamilyDefaults {
  static constexpr char name[] = "tensor_cores";
  static constexpr OperandAccess access = OperandAccess::packed;
  static constexpr bool uses_tensor_cores = true;

  // Each warp computes an (8 WPTM) x (4 WPTN) part of the tile (its lanes are 8 groups along M times 4 places along
  // N, each holding WPTM x WPTN elements of C), so a group has (TSM / WPTM) / 8 x (TSN / WPTN) / 4 warps.
#define TILEGEMM_TENSOR_CORES_RULES(RULE)                                                                           \
  RULE(tensor_vector_width, tensor_vectors(t),                                                                      \
       "the tensor_cores family copies slices in pieces of 16 bytes and reads operands in place at offsets and "    \
       "leading dimensions that are multiples of 4 elements: VW must be 4.")                                        \
  RULE(tensor_even_blocks, tensor_even_blocks(t),                                                                   \
       "a tensor_cores warp's part of the tile, (8 WPTM) x (4 WPTN), is made of 16 x 8 tiles of mma.sync: WPTM "    \
       "and WPTN must be even.")                                                                                    \
  RULE(tensor_warps_tile, tensor_warps_tile(t),                                                                     \
       "the tensor_cores warps' parts, (8 WPTM) x (4 WPTN) each, must tile TSM x TSN: TSM must be a multiple of 8 " \
       "WPTM and TSN a multiple of 4 WPTN.")                                                                        \
  RULE(tensor_slice_depth, tensor_slices(t),                                                                        \
       "the tensor_cores family multiplies slices in steps of 4, 8 or 16 (mma.sync m16n8k4 and wider): TSK must "   \
       "be a multiple of 4.")                                                                                       \
  RULE(tensor_spans, tensor_spans(t),                                                                               \
       "the tensor_cores family swizzles each row of a slice in local memory within spans of 128 bytes (32 "        \
       "floats, 16 doubles): TSM and TSN must be multiples of 32.")                                                 \
  RULE(tensor_stages, tensor_stages(t.stages),                                                                      \
       "the tensor_cores family keeps 2 to 8 slices of A and B in local memory (Stages): one multiplied while "     \
       "the others are copied.")
  TILEGEMM_RULES_FROM(TILEGEMM_TENSOR_CORES_RULES)
  // mma.sync from compute capability 8.0; float only in a tensor math mode, the 16-bit ones on slices of whole
  // m16n8k8 steps.
  static Implementation can_implement(const TileShape& t, const RunTarget& target) {
    if (target.compute_capability < tensor_cores_from) return no_mma_sync(target);
    if (target.scalar_size == sizeof(double)) {
      return Implementation::uses(target.compute_capability >= wide_fp64_mma_from ? MmaKind::fp64_sm90
                                                                                  : MmaKind::fp64_sm80);
    }
    return float_mma_sync(t, target);
  }
  static constexpr std::size_t local_memory_elements(const TileShape& t) { return tensor_cores_local_elements(t); }
  static constexpr void defines(PreambleLines& lines, const TileShape& t) {
    warp_defines(lines, t);
    lines.define("LOCAL_ELEMENTS", static_cast<long long>(tensor_cores_local_elements(t)));
  }
  // The lines the code shared with bulk_tensor_cores reads (all but LOCAL_ELEMENTS).
  static constexpr void warp_defines(PreambleLines& lines, const TileShape& t) {
    lines.define("WARPS_M", t.tsm / t.wptm / 8);
    lines.define("WARPS_N", t.tsn / t.wptn / 4);
    lines.define("WM", 8 * t.wptm);
    lines.define("WN", 4 * t.wptn);
    lines.define("STAGES", t.stages);
    lines.define("ROW_PAD_DOUBLE", tensor_row_pad_double);
    lines.define("BAND_TILES", tensor_band_tiles);
  }

  static constexpr TextPiece helpers = tensor_cores_helpers;
  static constexpr EntryPoint product = {"gemm_tensor_cores", piece_of<tensor_cores_source>()};
};

// TensorCores's checks of the warp's tile, which become WPTM = WM / 8 and WPTN = WN / 4.
template <int WM, int WN>
constexpr bool warp_tile_holds() {
  static_assert(WM > 0 && WN > 0 && WM % 16 == 0 && WN % 8 == 0,
                "TensorCores: a warp's tile of C, WM x WN, is made of 16 x 8 tiles of mma.sync: WM must be a positive "
                "multiple of 16 and WN of 8.");
  return true;
}
template <int TSM, int TSN, int TSK, int WM, int WN, int Stages, bool = warp_tile_holds<WM, WN>()>
struct tensor_cores_config {
  using type = TileConfig<TSM, TSN, TSK, WM / 8, WN / 4, 4, Family::tensor_cores, Stages>;
};

}  // namespace detail

// Tensor cores (mma.sync) on NVIDIA GPUs of compute capability 8.0 and newer: TSM x TSN tiles of C per work-group,
// WM x WN per warp (multiples of 16 x 8), slices TSK deep (a multiple of 4), Stages slices in local memory at once.
// Double runs on the FP64 tensor cores; float in the math mode of the call (MathMode::tf32x3, tf32, bf16 or fp16;
// the 16-bit modes need TSK a multiple of 8).
template <int TSM, int TSN, int TSK, int WM, int WN, int Stages>
using TensorCores = typename detail::tensor_cores_config<TSM, TSN, TSK, WM, WN, Stages>::type;

}  // namespace tilegemm
