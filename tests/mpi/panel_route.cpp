// mpi/panel_route: auto's choice for ScaLAPACK's local panel updates (C += A_panel B_panel, m = n = 8192 in double),
// of ScaLAPACK's own width 32 and of TILEGEMM_PILAENV=128.
#include "catch.hpp"
#include "cost_model.hpp"

using namespace tilegemm::detail::blas;

namespace {

// A host with the H200 machine's bus as the staged path achieves it (30 GB/s: 18.1 ms for the 541 MB of a double
// 8192 x 8192 x 32 product, docs/blas.md) and its CPU BLAS's double rates (0.5 TFLOP/s square, 0.39 at k = 32), with
// host memory writing C at `memory_bytes_per_s`.
CostModel host_with_memory(double memory_bytes_per_s) {
  CostModel model;
  model.gpu_fixed_s = 100e-6;
  model.gpu_bytes_per_s = 30e9;
  model.gpu_flops_per_s = 20e12;
  model.cpu_flops_per_s = 0.5e12;
  model.cpu_narrow_flops_per_s = 0.39e12;
  model.cpu_bytes_per_s = memory_bytes_per_s;
  return model;
}

constexpr double block = 8192, scalar_bytes = 8;

}  // namespace

TEST_CASE("auto: a rank-32 panel update is bound by moving C on both sides, so the faster memory takes it", "[unit]") {
  // The GPU moves C once over the bus (down; beta C is folded on the host), the CPU twice through its memory (read
  // and written): the CPU wins where its memory is more than about twice the bus's speed.
  const CostModel fast_memory = host_with_memory(80e9);
  CHECK_FALSE(gpu_is_faster(fast_memory, block, block, 32, scalar_bytes));
  CHECK(cpu_seconds(fast_memory, block, block, 32, scalar_bytes) <
        0.75 * gpu_seconds(fast_memory, block, block, 32, scalar_bytes));
  // Where the memory is about twice the bus (the H200 machine: 18.4 ms on the CPU, 18.1 on the GPU), it is a tie, and
  // a tie stays on the CPU (gpu_margin).
  const CostModel even = host_with_memory(58e9);
  const double ratio = cpu_seconds(even, block, block, 32, scalar_bytes) / gpu_seconds(even, block, block, 32, 8);
  CHECK(ratio > 0.9);
  CHECK(ratio < 1.1);
  CHECK_FALSE(gpu_is_faster(even, block, block, 32, scalar_bytes));
  // Only a host whose memory is much slower than the bus sends them to the GPU.
  CHECK(gpu_is_faster(host_with_memory(40e9), block, block, 32, scalar_bytes));
}

TEST_CASE("auto: panels of 128 (TILEGEMM_PILAENV=128) carry four times the flops for the same C, and go to the GPU",
          "[unit]") {
  const CostModel fast_memory = host_with_memory(80e9);
  CHECK(gpu_is_faster(fast_memory, block, block, 128, scalar_bytes));
  CHECK(gpu_is_faster(fast_memory, block, block, 256, scalar_bytes));
  // The GPU's time hardly moves from 32 to 128 (the bus carries C either way); the CPU's grows with the flops.
  CHECK(gpu_seconds(fast_memory, block, block, 128, 8) < 1.05 * gpu_seconds(fast_memory, block, block, 32, 8));
  CHECK(cpu_seconds(fast_memory, block, block, 128, 8) > 2.5 * cpu_seconds(fast_memory, block, block, 32, 8));
}
