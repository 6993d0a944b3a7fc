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
  bool aligned = false;  // offsets and leading dimension whole 16-byte vectors
};

// A random outer x inner operand (a batch of them, at an offset, padded leading dimension; odd ones, or whole 16-byte
// vectors where the case is aligned) on the device, its copies' buffer poisoned, and the plan by which the executor
// packs it.
struct PackJob {
  PackCase c;
  int ld = 0, offset = 5, stride = 0, copy = 0;
  std::vector<float> source, packed;
  cl::Buffer src, dst;
  OperandPlan plan;
  Storage storage;
};

PackJob pack_job(const CallContext& call, const PackCase& c) {
  PackJob job;
  job.c = c;
  const int rows = c.outer_contiguous ? c.outer : c.inner;  // stored column-major as rows x cols
  const int cols = c.outer_contiguous ? c.inner : c.outer;
  job.ld = c.aligned ? (rows + 3) / 4 * 4 + 4 : rows + 3;
  job.offset = c.aligned ? 8 : 5;
  job.stride = job.ld * cols + (c.aligned ? 4 : 7);
  job.source.assign(job.offset + static_cast<std::size_t>(job.stride) * c.batch, tilegemm_test::poison<float>());
  for (int p = 0; p < c.batch; ++p) {
    const auto values = tilegemm_test::random_matrix<float>(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int r = 0; r < rows; ++r) job.source[job.offset + p * job.stride + r + j * job.ld] = values(r, j);
  }
  OperandPlan& plan = job.plan;
  plan.packed = true;
  plan.layout = CopyLayout::core_tiles;
  plan.outer = c.outer;
  plan.inner = c.inner;
  plan.outer_contiguous = c.outer_contiguous;
  plan.outer_padded = (c.outer + c.tile_outer - 1) / c.tile_outer * c.tile_outer;
  plan.inner_padded = (c.inner + c.tile_inner - 1) / c.tile_inner * c.tile_inner;
  plan.tile_outer = c.tile_outer;
  plan.tile_inner = c.tile_inner;
  plan.parts = c.parts;
  job.copy = copy_elements(plan);
  job.storage = {job.offset, job.ld, job.stride};
  job.packed.assign(static_cast<std::size_t>(job.copy) * c.batch + 64, tilegemm_test::poison<float>());
  job.src = cl::Buffer(call.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * job.source.size(),
                       job.source.data());
  job.dst = cl::Buffer(call.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * job.packed.size(),
                       job.packed.data());
  return job;
}

// Checks every element of every copy of a packed job, and that nothing past the copies was written.
void check_packed(const CallContext& call, PackJob& job) {
  const PackCase& c = job.c;
  INFO("outer " << c.outer << " inner " << c.inner << " tiles " << c.tile_outer << "x" << c.tile_inner
                << " outer-contiguous " << c.outer_contiguous << " batch " << c.batch << " parts " << c.parts);
  call.queue.enqueueReadBuffer(job.dst, CL_TRUE, 0, sizeof(float) * job.packed.size(), job.packed.data());
  const int outer_padded = job.plan.outer_padded, inner_padded = job.plan.inner_padded;
  int wrong = 0;
  for (int p = 0; p < c.batch; ++p)
    for (int o = 0; o < outer_padded; ++o)
      for (int i = 0; i < inner_padded; ++i) {
        const bool inside = o < c.outer && i < c.inner;
        const std::size_t at = job.offset + static_cast<std::size_t>(p) * job.stride;
        const float value = !inside              ? 0.0f
                            : c.outer_contiguous ? job.source[at + o + i * job.ld]
                                                 : job.source[at + i + o * job.ld];
        // One part: the value rounded to TF32; two: that, then the rest rounded to TF32.
        const float high = tf32(value), expected[2] = {high, tf32(value - high)};
        for (int part = 0; part < c.parts; ++part) {
          const float got = job.packed[static_cast<std::size_t>(p) * job.copy +
                                       expected_index(o, i, c.tile_outer, c.tile_inner, inner_padded, c.parts, part)];
          if (!(got == expected[part]) && ++wrong <= 3) {
            FAIL_CHECK("problem " << p << " element (" << o << ", " << i << ") part " << part << ": " << got
                                  << ", expected " << expected[part]);
          }
        }
      }
  CHECK(wrong == 0);
  for (std::size_t e = static_cast<std::size_t>(job.copy) * c.batch; e < job.packed.size(); ++e) {
    CHECK(std::isnan(job.packed[e]));
  }
}

// Packs one operand alone, as the executor does where only one is in core tiles, and checks it.
void check_pack(const CallContext& call, const PackCase& c) {
  PackJob job = pack_job(call, c);
  std::vector<cl::Event> events;
  pack_core_tiles(call, {job.plan, job.src, job.storage, job.dst}, nullptr, c.batch, {}, events);
  call.queue.finish();
  check_packed(call, job);
}

// Packs two operands in one launch, as the executor does for A and B, and checks both.
void check_pair(const CallContext& call, const PackCase& a, const PackCase& b) {
  REQUIRE(a.batch == b.batch);
  PackJob first = pack_job(call, a), second = pack_job(call, b);
  std::vector<cl::Event> events;
  const CoreTilesOperand b_operand{second.plan, second.src, second.storage, second.dst};
  pack_core_tiles(call, {first.plan, first.src, first.storage, first.dst}, &b_operand, a.batch, {}, events);
  call.queue.finish();
  check_packed(call, first);
  check_packed(call, second);
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
  // Offsets and leading dimensions of whole 16-byte vectors, as most callers' are.
  check_pack(call, {130, 70, 128, 8, true, 1, 1, true});
  check_pack(call, {130, 70, 128, 8, false, 1, 2, true});
  check_pack(call, {257, 33, 256, 8, true, 3, 2, true});
  check_pack(call, {200, 102, 128, 16, false, 2, 1, true});
  check_pack(call, {128, 64, 64, 32, true, 2, 2, true});
  check_pack(call, {3, 5, 64, 8, false, 1, 1, true});
}

TEST_CASE("A and B are packed into their core tiles in one launch, each as if alone", "[core_tiles]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_pair(call, {130, 70, 128, 8, true, 1, 1}, {70, 70, 64, 8, false, 1, 1});      // more blocks of rows in A
  check_pair(call, {33, 100, 64, 16, false, 2, 2}, {300, 100, 256, 16, true, 2, 2});  // more in B
  check_pair(call, {64, 40, 64, 8, true, 3, 2}, {100, 90, 128, 32, false, 3, 2});     // B deeper: its k padded further
  check_pair(call, {1, 1, 128, 8, false, 1, 1}, {1, 1, 128, 8, true, 1, 1});
  check_pair(call, {130, 66, 128, 8, true, 2, 1, true}, {70, 66, 64, 8, false, 2, 1, true});
}
