// kernels/strip: the thin rows and columns of C outside a tiled corner, as many short dot products at once.
#pragma once

#include <cstddef>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "kernel_arguments.hpp"
#include "preamble_lines.hpp"
#include "program_text.hpp"

namespace tilegemm::detail {

// The strip code's constants, passed to it through the preamble (strip_defines).
inline constexpr int strip_width = 8;      // WIDTH: j per pass over K
inline constexpr int strip_in_flight = 8;  // IN_FLIGHT: loads of X a work-item starts at once
inline constexpr int strip_stage = 2304;   // STAGE: local elements for Y, then the partial sums (18 KB in double)
// PANEL where the strips share a prefetch kernel's launch: few work-groups beside the tiles' (with 8 per
// work-group, 1025 cubed took 60% longer on an H100).
inline constexpr int fused_strip_panel = 32;

// Whether a work-group of `panel` x `lanes` work-items can sum its partial sums in the stage: WIDTH x PANEL x
// (LANES + 1) of them (see multiply_strip).
constexpr bool strip_sums_fit(int panel, int lanes) { return strip_width * panel * (lanes + 1) <= strip_stage; }

// Whether work-groups of `threads` work-items (a kernel's own) can run the strip code with PANEL fused_strip_panel.
constexpr bool fused_strips_fit(int threads) {
  return threads % fused_strip_panel == 0 && strip_sums_fit(fused_strip_panel, threads / fused_strip_panel);
}

// The strip code's preamble for work-groups of panel x lanes work-items (strip_sums_fit must hold).
constexpr void strip_defines(PreambleLines& lines, int panel, int lanes) {
  lines.define("PANEL", panel);
  lines.define("LANES", lanes);
  lines.define("STAGE", strip_stage);
  lines.define("WIDTH", strip_width);
  lines.define("IN_FLIGHT", strip_in_flight);
}

// The strip code's preamble for an entry point that also multiplies the strips, in work-groups of t's tiles, where
// those can run it (fused_strips_fit); nothing otherwise.
constexpr void fused_strip_defines(PreambleLines& lines, const TileShape& t) {
  const int threads = (t.tsm / t.wptm) * (t.tsn / t.wptn);
  if (fused_strips_fit(threads)) strip_defines(lines, fused_strip_panel, threads / fused_strip_panel);
}

// Work-groups of the strip code for the strips of an m x n C outside its corner [0, corner_m) x [0, corner_n):
// `panel` rows each of the right strip, then `panel` columns each of the bottom one.
struct StripGroups {
  std::size_t right = 0;
  std::size_t bottom = 0;
  std::size_t total() const { return right + bottom; }
};
inline StripGroups strip_groups(int m, int n, int corner_m, int corner_n, int panel) {
  StripGroups groups;
  if (corner_n < n) groups.right = (static_cast<std::size_t>(m) + panel - 1) / panel;
  if (corner_m < m) groups.bottom = (static_cast<std::size_t>(corner_n) + panel - 1) / panel;
  return groups;
}

inline constexpr char strip_source[] = R"CLC(
// C(m, n) for the elements outside the corner [0, m0) x [0, n0) of the M x N result: the right strip (columns n0
// to N of all M rows) and the bottom one (rows m0 to M of columns 0 to n0). Each strip is many short sums
// Z(i, j) = X(i, :) . Y(:, j), with i along the strip and j across it (a few):
//   right:  X = op(A), i = m; Y = op(B) from column n0, j = n - n0;
//   bottom: X = op(B) transposed, i = n; Y = op(A) transposed from row m0, j = m - m0.
// A work-group takes PANEL consecutive i and every j. Its LANES work-items per i split K between them, so that
// the device has many loads in flight although there is little work, and add their sums up in local memory at
// the end. They read X along its contiguous direction (a warp reads neighbouring elements), and each element of X
// they read serves every j. Y, which every i shares, is first copied to local memory a stretch of K at a time:
// read from global memory by every work-item, a row of it (strided when Y is op(A) transposed) took each warp as
// many reads as it has work-items. Operands are read as the caller stores them, at any offset and leading
// dimension. PANEL, LANES, STAGE, WIDTH (j per pass over K, so that a work-item's sums stay in registers) and
// IN_FLIGHT (loads of X a work-item starts at once) come from the preamble (strip_defines on the host); PANEL * LANES
// work-items make a work-group.
#if !defined(PANEL) || !defined(LANES) || !defined(STAGE) || !defined(WIDTH) || !defined(IN_FLIGHT)
#error "kernels/strip.hpp needs PANEL, LANES, STAGE, WIDTH and IN_FLIGHT from the preamble (strip_defines)"
#endif
#if WIDTH * PANEL * (LANES + 1) > STAGE
#error "the strip code's partial sums, WIDTH x PANEL x (LANES + 1), must fit its stage of STAGE elements"
#endif
#define STRIP_THREADS (PANEL * LANES)

// STRIP_PARAMETERS (before this, from the host's table): what an entry point that also multiplies the strips takes
// after GEMM_PARAMETERS (the corner's): the whole M_all x N_all product, K_all deep, with A_all and B_all as the caller
// stores them (transposes: TRANSPOSED_A and TRANSPOSED_B, bits); the rows of tiles' work-groups in launch dimension
// 1, past which the strips' are (the right strip's first, up to right_groups, then the bottom's, up to strip_groups).

// X(i, k) = X[i * x_i + k * x_k] and Y(k, j) = Y[k * y_k + j * y_j] for i < count and j < width; the sums go to
// (m, n) = (i, first_j + j) of C, or (first_j + j, i) when `transposed`.
inline void multiply_strip(const int tid, const int first_i, const int count, const int width, const int K, const int x_i,
                           const int x_k, __global const real* restrict X, const int y_k, const int y_j,
                           __global const real* restrict Y, const bool x_k_contiguous, const bool transposed,
                           const int first_j, const int M, const int N, const real alpha, const real beta,
                           __global real* C, const int ldc, __local real* stage) {
  const int r = x_k_contiguous ? tid / LANES : tid % PANEL;  // neighbouring work-items: along X's contiguous way
  const int lane = x_k_contiguous ? tid % LANES : tid / PANEL;
  const int i = min(first_i + r, count - 1);  // past the end: read the last, which is not stored
  for (int j0 = 0; j0 < width; j0 += WIDTH) {
    const int pass = min(WIDTH, width - j0);
    // The stretch of K whose pass columns of Y fit in the stage, in whole rounds of loads.
    const int stretch = STAGE / pass / (LANES * IN_FLIGHT) * (LANES * IN_FLIGHT);
    real acc[WIDTH];
#pragma unroll
    for (int j = 0; j < WIDTH; ++j) acc[j] = 0;
    for (int k0 = 0; k0 < K; k0 += stretch) {
      const int k_end = min(K, k0 + stretch);
      barrier(CLK_LOCAL_MEM_FENCE);  // the stage is free: nobody reads the last stretch or sums any more
      for (int kk = tid; kk < k_end - k0; kk += STRIP_THREADS) {
        for (int j = 0; j < pass; ++j) stage[j * stretch + kk] = Y[(k0 + kk) * y_k + (j0 + j) * y_j];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      int k = k0 + lane;
      for (; k + (IN_FLIGHT - 1) * LANES < k_end; k += IN_FLIGHT * LANES) {
        real x[IN_FLIGHT];  // loaded before any is used, so that the loads' waits overlap
#pragma unroll
        for (int u = 0; u < IN_FLIGHT; ++u) x[u] = X[i * x_i + (k + u * LANES) * x_k];
#pragma unroll
        for (int u = 0; u < IN_FLIGHT; ++u) {
#pragma unroll
          for (int j = 0; j < WIDTH; ++j) {
            if (j < pass) acc[j] = fma(x[u], stage[j * stretch + k - k0 + u * LANES], acc[j]);
          }
        }
      }
      for (; k < k_end; k += LANES) {
        const real x = X[i * x_i + k * x_k];
#pragma unroll
        for (int j = 0; j < WIDTH; ++j) {
          if (j < pass) acc[j] = fma(x, stage[j * stretch + k - k0], acc[j]);
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local real* partial = stage;  // WIDTH x PANEL x (LANES + 1): padded against bank conflicts when summed
#pragma unroll
    for (int j = 0; j < WIDTH; ++j) partial[(j * PANEL + r) * (LANES + 1) + lane] = acc[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int sum_index = tid; sum_index < PANEL * WIDTH; sum_index += STRIP_THREADS) {
      const int rr = sum_index % PANEL;
      const int jj = sum_index / PANEL;
      real sum = 0;
      for (int l = 0; l < LANES; ++l) sum += partial[(jj * PANEL + rr) * (LANES + 1) + l];
      if (first_i + rr < count && jj < pass) {
        const int m = transposed ? first_j + j0 + jj : first_i + rr;
        const int n = transposed ? first_i + rr : first_j + j0 + jj;
        STORE_C(m, n, sum);
      }
    }
  }
}

// Work-group `group` of the strips outside the corner [0, m0) x [0, n0) of C: the first right_groups take PANEL rows
// each of the right strip, the others up to `groups` PANEL columns each of the bottom one (the host counts them:
// strip_groups). A, B and C are the caller's, at their offsets.
inline void multiply_strips(const int tid, const int group, const int right_groups, const int groups, const int M,
                            const int N, const int K, const int m0, const int n0, const bool trans_a, const bool trans_b,
                            const real alpha, const real beta, __global const real* A, const int lda,
                            __global const real* B, const int ldb, __global real* C, const int ldc,
                            __local real* stage) {
  // Steps of op(A)(m, k) and op(B)(k, n) in m, k and k, n.
  const int a_m = trans_a ? lda : 1, a_k = trans_a ? 1 : lda;
  const int b_k = trans_b ? ldb : 1, b_n = trans_b ? 1 : ldb;
  if (group >= groups) return;  // a launch's spare work-group
  if (group < right_groups) {
    multiply_strip(tid, group * PANEL, M, N - n0, K, a_m, a_k, A, b_k, b_n, B + n0 * b_n, trans_a, false, n0, M, N,
                   alpha, beta, C, ldc, stage);
  } else {
    multiply_strip(tid, (group - right_groups) * PANEL, n0, M - m0, K, b_n, b_k, B, a_k, a_m, A + m0 * a_m,
                   !trans_b, true, m0, M, N, alpha, beta, C, ldc, stage);
  }
}
)CLC";
inline constexpr auto strip_parameters_text = parameters_define<strip_arguments>("STRIP_PARAMETERS");
inline constexpr auto strip_bits_text =
    define_line<transposed_a_bit>("TRANSPOSED_A") + define_line<transposed_b_bit>("TRANSPOSED_B");
inline constexpr TextPiece strip_code = joined_piece<strip_parameters_text, strip_bits_text, strip_source>();

}  // namespace tilegemm::detail
