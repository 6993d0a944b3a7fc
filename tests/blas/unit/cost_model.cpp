// blas/unit/cost_model: the auto mode's rule on the H200 host, and the calibration's fit.
#include "cost_model.hpp"

#include <cmath>

#include "catch.hpp"

using namespace tilegemm::detail::blas;

namespace {

// Equal within a relative tolerance (Catch's Approx differs between its versions 2 and 3).
bool near(double got, double want, double tolerance = 1e-9) {
  return std::fabs(got - want) <= tolerance * std::fabs(want);
}

// Constants of the order the H200 host with 16 cores and OpenBLAS shows: gpu_gemm host-to-host takes 6 ms
// for float at 4096 (201 MB moved: ~30 GB/s), the device runs float at tens of TFLOP/s; OpenBLAS float at about
// 1 TFLOP/s on 16 cores, writing C at ~20 GB/s.
CostModel h200_like() {
  CostModel model;
  model.gpu_fixed_s = 150e-6;
  model.gpu_bytes_per_s = 30e9;
  model.gpu_flops_per_s = 40e12;
  model.cpu_flops_per_s = 1e12;
  model.cpu_bytes_per_s = 20e9;
  model.cpu_narrow_flops_per_s = 0.4e12;
  return model;
}

}  // namespace

TEST_CASE("blas: the model's estimates follow its rule", "[unit]") {
  const CostModel model = h200_like();
  REQUIRE(model.valid());
  // 4096 float: 201 MB over the bus at 30 GB/s, the product (137 GFLOP at 40 TFLOP/s) hidden under it.
  CHECK(near(gpu_seconds(model, 4096, 4096, 4096, 4), 150e-6 + 4096.0 * 4096 * 3 * 4 / 30e9));
  // The CPU: flops-bound on a square product, bound by C's traffic on a thin one (k = 32).
  CHECK(near(cpu_seconds(model, 4096, 4096, 4096, 4), 2.0 * 4096 * 4096 * 4096 / 1e12));
  CHECK(near(cpu_seconds(model, 8192, 8192, 32, 4), (8192.0 * 32 * 2 + 8192.0 * 8192 * 2) * 4 / 20e9));
  // A thin k reads little and writes C; a thin m reads B, the large operand, once.
  CHECK(near(cpu_seconds(model, 32, 8192, 8192, 4), (32.0 * 8192 * 3 + 8192.0 * 8192) * 4 / 20e9));
}

TEST_CASE("blas: auto keeps small products on the CPU and sends large ones to the GPU", "[unit]") {
  const CostModel model = h200_like();
  CHECK(product_flops(63, 64, 64) < small_product_flops);  // the pre-filter: no device is looked at
  CHECK_FALSE(product_flops(64, 64, 64) < small_product_flops);
  for (double n : {64.0, 128.0, 256.0}) {
    CHECK_FALSE(gpu_is_faster(model, n, n, n, 4));
    CHECK_FALSE(gpu_is_faster(model, n, n, n, 8));
  }
  for (double n : {1024.0, 2048.0, 4096.0, 8192.0}) {
    CHECK(gpu_is_faster(model, n, n, n, 4));
    CHECK(gpu_is_faster(model, n, n, n, 8));
  }
  // A product whose k is tiny moves C for almost no flops: the bus carries C once, the CPU's memory twice (read and
  // written); the CPU wins where its memory is more than twice as fast as the bus, and not otherwise.
  CostModel fast_memory = model;
  fast_memory.cpu_bytes_per_s = 80e9;
  CHECK_FALSE(gpu_is_faster(fast_memory, 8192, 8192, 8, 4));
  CostModel slow_memory = model;
  slow_memory.cpu_bytes_per_s = 10e9;
  CHECK(gpu_is_faster(slow_memory, 8192, 8192, 8, 4));
}

TEST_CASE("blas: the CPU's rate falls with the smallest dimension, so narrow products go to the GPU", "[unit]") {
  CostModel model = h200_like();
  model.cpu_bytes_per_s = 80e9;  // memory fast enough that bytes alone would keep 8192 x 32 x 8192 on the CPU
  CHECK(near(cpu_flops_per_s(model, 4096), 1e12));
  CHECK(near(cpu_flops_per_s(model, 1024), 1e12));
  CHECK(near(cpu_flops_per_s(model, 32), 0.4e12));
  CHECK(near(cpu_flops_per_s(model, 8), 0.4e12));
  CHECK(near(cpu_flops_per_s(model, std::sqrt(32.0 * 1024)), std::sqrt(0.4e12 * 1e12)));  // log scale between
  CHECK(gpu_is_faster(model, 8192, 32, 8192, 4));
  CHECK(gpu_is_faster(model, 32, 8192, 8192, 4));
  CostModel flat = model;
  flat.cpu_narrow_flops_per_s = flat.cpu_flops_per_s;  // without the narrow rate, the CPU looked faster
  CHECK_FALSE(gpu_is_faster(flat, 8192, 32, 8192, 4));
  flat.cpu_narrow_flops_per_s = 2 * flat.cpu_flops_per_s;  // a narrow rate above the square one is not believed
  CHECK(near(cpu_flops_per_s(flat, 32), 1e12));
}

TEST_CASE("blas: the calibration's fit recovers the constants it was timed with", "[unit]") {
  const CostModel truth = h200_like();
  CalibrationTimes t;
  t.small_n = 256;
  t.thin_mn = 4096;
  t.thin_k = 8;
  t.square_n = 2048;
  t.cpu_square_n = 1024;
  // Times a machine following the model exactly would show, for a GPU whose square product is compute-bound.
  CostModel slow_gpu = truth;
  slow_gpu.gpu_flops_per_s = 2e12;
  t.gpu_small_s = slow_gpu.gpu_fixed_s;  // the small product's transfers are folded into the fixed time
  t.gpu_thin_s = gpu_seconds(slow_gpu, 4096, 4096, 8, 4);
  t.gpu_square_s = gpu_seconds(slow_gpu, 2048, 2048, 2048, 4);
  t.cpu_thin_s = cpu_seconds(slow_gpu, 4096, 4096, 8, 4);
  t.cpu_square_s = cpu_seconds(slow_gpu, 1024, 1024, 1024, 4);
  t.narrow_mk = 8192;
  t.cpu_narrow_s = product_flops(8192, 32, 8192) / slow_gpu.cpu_narrow_flops_per_s;
  const CostModel fit = fit_cost_model(t, 4);
  REQUIRE(fit.valid());
  CHECK(near(fit.gpu_fixed_s, slow_gpu.gpu_fixed_s));
  CHECK(near(fit.gpu_bytes_per_s, slow_gpu.gpu_bytes_per_s));
  CHECK(near(fit.gpu_flops_per_s, slow_gpu.gpu_flops_per_s));
  CHECK(near(fit.cpu_flops_per_s, slow_gpu.cpu_flops_per_s));
  CHECK(near(fit.cpu_narrow_flops_per_s, slow_gpu.cpu_narrow_flops_per_s));
  // The thin CPU product is bound by C: the fit's bandwidth is its bytes over its time.
  CHECK(near(fit.cpu_bytes_per_s, slow_gpu.cpu_bytes_per_s, 0.01));
  // A transfer-bound GPU: its rate is only a lower bound, never above what the square product showed.
  t.gpu_square_s = gpu_seconds(truth, 2048, 2048, 2048, 4);
  const CostModel bound = fit_cost_model(t, 4);
  CHECK(bound.gpu_flops_per_s <= truth.gpu_flops_per_s);
  CHECK(gpu_seconds(bound, 2048, 2048, 2048, 4) >= t.gpu_square_s * 0.999);
}

TEST_CASE("blas: a model with a missing or odd constant is not used", "[unit]") {
  CostModel model = h200_like();
  model.cpu_bytes_per_s = 0;
  CHECK_FALSE(model.valid());
  model = h200_like();
  model.gpu_fixed_s = std::nan("");
  CHECK_FALSE(model.valid());
  model = h200_like();
  model.gpu_flops_per_s = -1;
  CHECK_FALSE(model.valid());
  model = h200_like();
  model.cpu_narrow_flops_per_s = 0;
  CHECK_FALSE(model.valid());
}

TEST_CASE("blas: the GPU must win by more than the model's error, a tie stays on the CPU", "[unit]") {
  // A square double product at 2048 in h200_like, the CPU bound by its flops alone: find the CPU rate at which the two
  // estimates meet, then move it.
  CostModel model = h200_like();
  model.cpu_bytes_per_s = 1e15;
  const double n = 2048, flops = product_flops(n, n, n);
  const double gpu = gpu_seconds(model, n, n, n, 8);
  model.cpu_flops_per_s = flops / gpu;  // the CPU's estimate equals the GPU's
  REQUIRE(near(cpu_seconds(model, n, n, n, 8), gpu));
  CHECK_FALSE(gpu_is_faster(model, n, n, n, 8));
  model.cpu_flops_per_s = flops / (gpu / (gpu_margin + 0.02));  // the GPU 8% faster: still a tie
  CHECK_FALSE(gpu_is_faster(model, n, n, n, 8));
  model.cpu_flops_per_s = flops / (gpu / (gpu_margin - 0.02));  // the GPU 12% faster: the GPU
  CHECK(gpu_is_faster(model, n, n, n, 8));
}
