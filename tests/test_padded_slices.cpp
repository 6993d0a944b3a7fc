// test_padded_slices: the copies the bulk_tensor_cores family reads (OperandAccess::padded_slices), made by the pack
// kernel through the executor on any device: each element where the layout says, zero in the rows' padding and past
// the operand; and the plan's sizes, leading dimension and stride for them.
#include <stdexcept>
#include <string>
#include <tilegemm/core.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

namespace {

using namespace tilegemm::detail;

struct PaddedCase {
  int outer, inner, tile_outer, tile_inner, row;
  bool outer_contiguous;
  int batch;
};

// Packs a random outer x inner operand (a batch of them, at an offset, with a padded leading dimension and a stride
// that is no whole vector) and checks every element of every copy, padding included, against the layout stated here:
// tiles of tile_outer rows, each inner_padded rows of `row` elements.
template <class Scalar>
void check_padded(const CallContext& call, const PaddedCase& c) {
  INFO((std::is_same_v<Scalar, double> ? "double" : "float")
       << ": outer " << c.outer << " inner " << c.inner << " tiles " << c.tile_outer << "x" << c.tile_inner << " row "
       << c.row << " outer-contiguous " << c.outer_contiguous << " batch " << c.batch);
  const int rows = c.outer_contiguous ? c.outer : c.inner;  // stored column-major as rows x cols
  const int cols = c.outer_contiguous ? c.inner : c.outer;
  const Storage storage{5, rows + 3, (rows + 3) * cols + 7};
  std::vector<Scalar> source(storage.offset + static_cast<std::size_t>(storage.stride) * c.batch,
                             tilegemm_test::poison<Scalar>());
  for (int p = 0; p < c.batch; ++p) {
    const auto values = tilegemm_test::random_matrix<Scalar>(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int r = 0; r < rows; ++r) source[storage.offset + p * storage.stride + r + j * storage.ld] = values(r, j);
  }
  const OperandPlan plan =
      padded_slice_copy(c.outer, c.inner, c.outer_contiguous, c.tile_outer, c.tile_inner, c.row, 4, c.batch);
  const int tiles = (c.outer + c.tile_outer - 1) / c.tile_outer;
  const int inner_padded = (c.inner + c.tile_inner - 1) / c.tile_inner * c.tile_inner;
  const int copy = tiles * inner_padded * c.row;
  REQUIRE(copy_elements(plan) == copy);
  CHECK(plan.ld * 4 == c.row);
  CHECK(plan.stride * 4 == copy);
  CHECK(plan.offset == 0);

  cl::Buffer src(call.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(Scalar) * source.size(), source.data());
  std::vector<cl::Event> events;
  KernelOperand operand =
      kernel_operand(call, plan, src, storage, sizeof(Scalar), support_tile_for(call.limits), c.batch, {}, events);
  REQUIRE(events.size() == 1);
  events.back().wait();
  std::vector<Scalar> packed(static_cast<std::size_t>(copy) * c.batch);
  call.queue.enqueueReadBuffer(operand.buffer, CL_TRUE, 0, sizeof(Scalar) * packed.size(), packed.data());
  int wrong = 0;
  for (int p = 0; p < c.batch; ++p)
    for (int tile = 0; tile < tiles; ++tile)
      for (int i = 0; i < inner_padded; ++i)
        for (int e = 0; e < c.row; ++e) {
          const int o = tile * c.tile_outer + e;
          const bool inside = e < c.tile_outer && o < c.outer && i < c.inner;
          const std::size_t at = storage.offset + static_cast<std::size_t>(p) * storage.stride;
          const Scalar expected = !inside              ? Scalar(0)
                                  : c.outer_contiguous ? source[at + o + static_cast<std::size_t>(i) * storage.ld]
                                                       : source[at + i + static_cast<std::size_t>(o) * storage.ld];
          const Scalar got = packed[static_cast<std::size_t>(p) * copy +
                                    (static_cast<std::size_t>(tile) * inner_padded + i) * c.row + e];
          if (!(got == expected) && ++wrong <= 3) {
            FAIL_CHECK("problem " << p << " tile " << tile << " row " << i << " element " << e << ": " << got
                                  << ", expected " << expected);
          }
        }
  CHECK(wrong == 0);
  operand.done_after(events.back());
}

}  // namespace

TEST_CASE("copies in padded slices hold each element where bulk_tensor_cores reads it, zero in the padding",
          "[padded_slices]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_padded<float>(call, {130, 70, 128, 16, 132, true, 1});
  check_padded<float>(call, {130, 70, 128, 16, 132, false, 2});
  check_padded<float>(call, {64, 32, 64, 32, 68, true, 3});
  check_padded<float>(call, {1, 1, 64, 8, 68, false, 1});
  if (!call.limits.fp64) return;
  check_padded<double>(call, {257, 33, 128, 32, 132, false, 2});  // blocks of the pack kernel cut by both edges
  check_padded<double>(call, {200, 100, 128, 16, 132, true, 1});
}
