// test_core_tiles: the warpgroup_mma family's pieces that run or can be checked anywhere: the pack kernel's layout
// (kernels/core_tiles.hpp) against the layout stated independently here, and the PTX retargeting to sm_90a.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

namespace {

using namespace tilegemm::detail;

// x rounded to TF32 (10 mantissa bits), to nearest with ties away from zero, in plain C++.
float tf32(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// Where element (o, i) of an operand lies in part `part` of its core tiles: tiles of tile_outer rows, slices of
// tile_inner of k, each slice `parts` images (high and low TF32 parts) of 8-row groups of core matrices (8 rows by 4
// of k, row after row), the groups' matrices in order of k.
std::size_t expected_index(int o, int i, int tile_outer, int tile_inner, int inner_padded, int parts, int part) {
  const std::size_t slice = static_cast<std::size_t>(o / tile_outer) * (inner_padded / tile_inner) + i / tile_inner;
  const int row = o % tile_outer, k = i % tile_inner;
  const std::size_t group = row / 8, matrix = k / 4;
  return (slice * parts + part) * tile_outer * tile_inner + (group * (tile_inner / 4) + matrix) * 32 + row % 8 * 4 +
         k % 4;
}

struct PackCase {
  int outer, inner, tile_outer, tile_inner;
  bool outer_contiguous;
  int batch;
  int parts;
};

// Packs a random outer x inner operand (batch of them, at an offset, padded leading dimension) and checks every
// element of every copy, and that nothing past the copies was written.
void check_pack(const CallContext& call, const PackCase& c) {
  INFO("outer " << c.outer << " inner " << c.inner << " tiles " << c.tile_outer << "x" << c.tile_inner
                << " outer-contiguous " << c.outer_contiguous << " batch " << c.batch << " parts " << c.parts);
  const int rows = c.outer_contiguous ? c.outer : c.inner;  // stored column-major as rows x cols
  const int cols = c.outer_contiguous ? c.inner : c.outer;
  const int ld = rows + 3, offset = 5, stride = ld * cols + 7;
  std::vector<float> source(offset + static_cast<std::size_t>(stride) * c.batch, tilegemm_test::poison<float>());
  for (int p = 0; p < c.batch; ++p) {
    const auto values = tilegemm_test::random_matrix<float>(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int r = 0; r < rows; ++r) source[offset + p * stride + r + j * ld] = values(r, j);
  }
  const int outer_padded = (c.outer + c.tile_outer - 1) / c.tile_outer * c.tile_outer;
  const int inner_padded = (c.inner + c.tile_inner - 1) / c.tile_inner * c.tile_inner;
  const int copy = outer_padded * inner_padded * c.parts;
  std::vector<float> packed(static_cast<std::size_t>(copy) * c.batch + 64, tilegemm_test::poison<float>());
  cl::Buffer src(call.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * source.size(), source.data());
  cl::Buffer dst(call.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * packed.size(), packed.data());
  const int block = core_block, items = core_block / core_columns;
  tilegemm::KernelLease kernel = make_kernel(call, core_tiles_program(), block * items);
  set_arguments<pack_core_tiles_arguments>(kernel, 0, c.outer, c.inner, static_cast<int>(c.outer_contiguous), src,
                                           offset, ld, outer_padded, inner_padded, c.tile_outer, c.tile_inner, c.parts,
                                           dst, stride, copy);
  const cl::Event done = enqueue(
      call.queue, kernel,
      cl::NDRange((outer_padded + block - 1) / block * block, (inner_padded + block - 1) / block * items, c.batch),
      cl::NDRange(block, items, 1), {});
  done.wait();
  call.queue.enqueueReadBuffer(dst, CL_TRUE, 0, sizeof(float) * packed.size(), packed.data());
  int wrong = 0;
  for (int p = 0; p < c.batch; ++p)
    for (int o = 0; o < outer_padded; ++o)
      for (int i = 0; i < inner_padded; ++i) {
        const bool inside = o < c.outer && i < c.inner;
        const float value = !inside              ? 0.0f
                            : c.outer_contiguous ? source[offset + p * stride + o + i * ld]
                                                 : source[offset + p * stride + i + o * ld];
        // One part: the value rounded to TF32; two: that, then the rest rounded to TF32.
        const float high = tf32(value), expected[2] = {high, tf32(value - high)};
        for (int part = 0; part < c.parts; ++part) {
          const float got =
              packed[p * copy + expected_index(o, i, c.tile_outer, c.tile_inner, inner_padded, c.parts, part)];
          if (!(got == expected[part]) && ++wrong <= 3) {
            FAIL_CHECK("problem " << p << " element (" << o << ", " << i << ") part " << part << ": " << got
                                  << ", expected " << expected[part]);
          }
        }
      }
  CHECK(wrong == 0);
  for (std::size_t e = static_cast<std::size_t>(copy) * c.batch; e < packed.size(); ++e) CHECK(std::isnan(packed[e]));
}

}  // namespace

TEST_CASE("the core tiles hold each element of an operand where wgmma reads it, in TF32 parts, zero past it",
          "[core_tiles]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_pack(call, {130, 70, 128, 8, true, 1, 1});
  check_pack(call, {130, 70, 128, 8, false, 1, 2});
  check_pack(call, {64, 16, 64, 16, true, 2, 1});
  check_pack(call, {257, 33, 256, 8, false, 3, 2});
  check_pack(call, {1, 1, 128, 8, true, 1, 2});
  check_pack(call, {200, 100, 128, 16, false, 2, 2});  // blocks of the pack kernel cut by both edges
}
