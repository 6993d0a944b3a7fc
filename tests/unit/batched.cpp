// unit/batched: the cases of test_batched that need no OpenCL device (the unit tier, built by unit_tests): the plan
// of a batch, the overlap checks against brute force, and the errors bad batches get before anything runs.
#include <Eigen/Dense>
#include <algorithm>
#include <climits>
#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "fuzz_devices.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "run_plan.hpp"

namespace {

using tilegemm::DeviceMatrix;
using tilegemm::Transpose;
using tilegemm::detail::EdgePolicy;
using tilegemm_test::Matrix;

// An H200 as OpenCL describes it (as in test_plan.cpp).
tilegemm::detail::DeviceLimits h200() { return tilegemm_fuzz::gpu_description(132); }

tilegemm::detail::GemmShape batch_shape(int m, int n, int k, int count, bool trans_a = false, bool trans_b = false) {
  tilegemm::detail::GemmShape s;
  s.trans_a = trans_a;
  s.trans_b = trans_b;
  s.m = m;
  s.n = n;
  s.k = k;
  s.a = {0, trans_a ? k : m, m * k};
  s.b = {0, trans_b ? n : k, k * n};
  s.c = {0, m, m * n};
  s.batch = count;
  return s;
}

bool chose(const tilegemm::detail::Plan& plan, std::string_view name) {
  return tilegemm::detail::same_configuration(plan.config, tilegemm::detail::builtin(name).config);
}

}  // namespace

// ---- The plan of a batch (no device) ----

TEST_CASE("the plan of a batch is one launch with the batch in dimension 2, without split-K or strips",
          "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  // A small C with a long K gets split-K alone, but a batch of them one launch of whole tiles.
  CHECK(plan_default(batch_shape(128, 128, 131072, 1), h200(), 4).config.splits_k);
  const Plan long_k = plan_default(batch_shape(128, 128, 131072, 6), h200(), 4);
  CHECK(!long_k.config.splits_k);
  CHECK(long_k.config.takes_batches);
  CHECK(long_k.slices == 1);
  CHECK(long_k.batch_count == 6);
  CHECK(long_k.global[2] == 6);
  CHECK(long_k.local[2] == 1);
  // Just past a multiple of the tiles: a corner with strips alone, but a batch is tiled whole.
  CHECK(plan_default(batch_shape(1025, 1025, 1025, 1), h200(), 4).strips != StripWork::none);
  const Plan past = plan_default(batch_shape(1025, 1025, 1025, 3), h200(), 4);
  CHECK(past.strips == StripWork::none);
  CHECK(!past.variant.strips);
  CHECK(past.corner_m == 1025);
  CHECK(past.corner_n == 1025);
  CHECK(past.global[2] == 3);
  // The strides of in-place operands in the kernel's units; packed copies of a batch one after the other.
  const Plan strided =
      plan_product(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, batch_shape(128, 64, 32, 10), h200(), 4);
  CHECK(strided.variant.edges == EdgeMode::whole_tiles);
  CHECK(!strided.a.packed);
  CHECK(strided.a.stride == 128 * 32 / 4);
  CHECK(strided.b.stride == 32 * 64 / 4);
  CHECK(strided.c_stride == 128 * 64);
  const Plan packed = plan_product(describe<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>,
                                   batch_shape(100, 70, 33, 10, true), h200(), 4);
  CHECK(packed.a.packed);
  CHECK(packed.a.stride == 128 * 48);  // one 128 x 48 padded copy per problem
  CHECK(packed.global == std::array<std::size_t, 3>{32, 32, 10});
  // A stride that is no whole vector: the operands are not read a vector at a time.
  GemmShape odd_stride = batch_shape(64, 64, 64, 4);
  odd_stride.a.stride += 1;
  CHECK(plan_product(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, odd_stride, h200(), 4).variant.edges ==
        EdgeMode::elements);
  // Processors and small work-groups: their candidates take the batch the same way.
  DeviceLimits cpu = h200();
  cpu.type = CL_DEVICE_TYPE_CPU;
  const Plan on_cpu = plan_default(batch_shape(32, 32, 32, 10000), cpu, 4);
  CHECK(chose(on_cpu, "cpu"));
  CHECK(on_cpu.global[2] == 10000);
  const Plan narrow = plan_default(batch_shape(32, 32, 32, 50), tilegemm_fuzz::narrow_gpu_description(64), 8);
  CHECK(chose(narrow, "small_groups"));
  CHECK(narrow.global[2] == 50);
}

TEST_CASE("AutoConfig chooses for a batch by the work of the whole batch", "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  // One 256 x 256 product leaves most of an H200 idle: the smallest tiles. A thousand of them fill it: the large
  // tiles, whose throughput is higher.
  CHECK(chose(plan_default(batch_shape(256, 256, 256, 1), h200(), 4), "gpu_32x32"));
  CHECK(chose(plan_default(batch_shape(256, 256, 256, 1000), h200(), 4), "gpu_128x128"));
  const auto time = [](std::string_view name, int batch) {
    const BuiltinConfig& entry = builtin(name);
    return estimated_time(entry.config.tile, *model_figures(entry, false), 256, 256, 132, batch);
  };
  CHECK(time("gpu_128x128", 1000) < time("gpu_32x32", 1000));
  CHECK(time("gpu_32x32", 1) < time("gpu_128x128", 1));
  // A batch of one is planned as the single product.
  const Plan one = plan_default(batch_shape(1000, 1000, 1000, 1), h200(), 4);
  GemmShape single = batch_shape(1000, 1000, 1000, 1);
  single.a.stride = single.b.stride = single.c.stride = 0;
  const Plan alone = plan_default(single, h200(), 4);
  CHECK(one.config.name() == alone.config.name());
  CHECK(one.variant.edges == alone.variant.edges);
  CHECK(one.global == alone.global);
}

TEST_CASE("AutoConfig gives each work-group a whole small problem of a batch on GPUs", "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  // 32 x 32 x 32: one 32 x 32 tile with slices as deep as K per problem, read in place a vector at a time.
  const Plan small = plan_default(batch_shape(32, 32, 32, 10000), h200(), 4);
  CHECK(chose(small, "batch_32x32"));
  CHECK(small.config.tile.tsk == 32);
  CHECK(small.global == std::array<std::size_t, 3>{16, 8, 10000});
  CHECK(small.variant.edges == EdgeMode::whole_tiles);
  CHECK(!small.a.packed);
  CHECK(!small.b.packed);
  // The smallest tile that holds C, in every math mode; double's own tiles read single elements.
  CHECK(chose(plan_default(batch_shape(16, 16, 16, 10000), h200(), 4), "batch_16x16"));
  CHECK(chose(plan_default(batch_shape(8, 8, 8, 10000), h200(), 8), "batch_16x16_double"));
  CHECK(builtin("batch_16x16_double").config.tile.vw == 1);
  CHECK(chose(plan_default(batch_shape(3, 16, 200, 7), h200(), 4), "batch_16x16"));
  CHECK(chose(plan_default(batch_shape(20, 20, 20, 10000), h200(), 4), "batch_20x20"));
  CHECK(chose(plan_default(batch_shape(20, 20, 20, 10000), h200(), 4, tilegemm::MathMode::tf32), "batch_20x20"));
  CHECK(chose(plan_default(batch_shape(17, 5, 9, 2), h200(), 8), "batch_20x20_double"));
  CHECK(chose(plan_default(batch_shape(21, 24, 30, 100), h200(), 4), "batch_24x24"));
  CHECK(chose(plan_default(batch_shape(24, 3, 3, 100), h200(), 8), "batch_24x24_double"));
  CHECK(chose(plan_default(batch_shape(25, 20, 20, 100), h200(), 4), "batch_32x32"));
  CHECK(chose(plan_default(batch_shape(32, 32, 32, 10000), h200(), 8), "batch_32x32_double"));
  // Not for single products, larger problems, or devices whose work-groups are too small for the candidate.
  CHECK(chose(plan_default(batch_shape(32, 32, 32, 1), h200(), 4), "gpu_32x32"));
  CHECK(!chose(plan_default(batch_shape(33, 32, 32, 10000), h200(), 4), "batch_32x32"));
  CHECK(chose(plan_default(batch_shape(32, 32, 32, 50), tilegemm_fuzz::narrow_gpu_description(64), 4), "small_groups"));
  CHECK(chose(plan_default(batch_shape(16, 16, 16, 50), tilegemm_fuzz::narrow_gpu_description(64), 4), "batch_16x16"));
}

TEST_CASE("AutoConfig gives batches of products up to 128 fixed tiles on GPUs in IEEE arithmetic",
          "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  DeviceLimits hopper = h200();
  hopper.compute_capability = 90;
  // 64 x 64 tiles of 4 x 8 in vectors of 2, in float and double (on a GPU without FP64 tensor cores or cp.async),
  // where the model took others; K as deep as 128.
  for (const std::size_t size : {std::size_t(4), std::size_t(8)}) {
    INFO("scalar " << size);
    const DeviceLimits gpu = h200();
    const Plan medium = plan_default(batch_shape(64, 64, 64, 10000), gpu, size);
    CHECK(chose(medium, "batch_64x64"));
    CHECK(medium.global == std::array<std::size_t, 3>{16, 8, 10000});
    CHECK(!medium.a.packed);
    CHECK(!medium.b.packed);
    CHECK(chose(plan_default(batch_shape(128, 128, 128, 1000), gpu, size), "batch_64x64"));
    CHECK(chose(plan_default(batch_shape(33, 40, 128, 1000), gpu, size), "batch_64x64"));
    // 32 x 32 tiles where they cover C with fewer elements: 65 x 65 in 9 of them (9,216) rather than 4 of 64 x 64
    // (16,384); 96 x 96 exactly. A tie (100 x 100: 16 or 4, 16,384 each) keeps 64 x 64.
    CHECK(chose(plan_default(batch_shape(65, 65, 65, 10000), gpu, size), "batch_32x32_slices"));
    CHECK(chose(plan_default(batch_shape(96, 96, 96, 3000), gpu, size), "batch_32x32_slices"));
    CHECK(chose(plan_default(batch_shape(100, 100, 100, 2000), gpu, size), "batch_64x64"));
    // Not past 128 in any dimension, for single products, or for batches whose tiles leave compute units idle.
    CHECK(!chose(plan_default(batch_shape(129, 64, 64, 1000), gpu, size), "batch_64x64"));
    CHECK(!chose(plan_default(batch_shape(64, 64, 129, 1000), gpu, size), "batch_64x64"));
    CHECK(!chose(plan_default(batch_shape(64, 64, 64, 1), gpu, size), "batch_64x64"));
    CHECK(!chose(plan_default(batch_shape(64, 64, 64, 131), gpu, size), "batch_64x64"));
    CHECK(chose(plan_default(batch_shape(64, 64, 64, 132), gpu, size), "batch_64x64"));
  }
  // Float in tf32 or tf32x3 is left to the tensor cores' rules; double is the same product in every mode.
  CHECK(!chose(plan_default(batch_shape(128, 128, 128, 1000), hopper, 4, tilegemm::MathMode::tf32), "batch_64x64"));
  CHECK(!chose(plan_default(batch_shape(128, 128, 128, 1000), hopper, 4, tilegemm::MathMode::tf32x3), "batch_64x64"));
  CHECK(chose(plan_default(batch_shape(128, 128, 128, 1000), h200(), 8, tilegemm::MathMode::tf32), "batch_64x64"));
  // Float where cp.async runs: the same tiles with their slices copied ahead (staged), where K is whole slices of 16
  // and the operands are read in vectors; else the tiles through registers.
  for (const auto& [m, n, k, count] : {std::tuple{64, 64, 64, 10000}, std::tuple{128, 128, 128, 1000},
                                       std::tuple{48, 48, 48, 10000}, std::tuple{40, 48, 128, 1000}}) {
    INFO(m << "x" << n << "x" << k << " x" << count);
    const Plan staged = plan_default(batch_shape(m, n, k, count), hopper, 4);
    CHECK(chose(staged, "batch_64x64_staged"));
    CHECK(staged.variant.edges != EdgeMode::elements);
    CHECK(staged.global[2] == static_cast<std::size_t>(count));
  }
  CHECK(chose(plan_default(batch_shape(100, 100, 100, 2000), hopper, 4), "batch_64x64"));  // a partial last slice
  CHECK(chose(plan_default(batch_shape(33, 40, 128, 1000), hopper, 4), "batch_64x64"));    // A's rows odd: elements
  CHECK(chose(plan_default(batch_shape(65, 65, 64, 10000), hopper, 4), "batch_32x32_slices"));
  GemmShape odd = batch_shape(64, 64, 64, 1000);
  odd.a.ld = 65;  // A's columns start an element past a vector: read an element at a time
  odd.a.stride = 65 * 64;
  CHECK(chose(plan_default(odd, hopper, 4), "batch_64x64"));
  CHECK(!chose(plan_default(batch_shape(64, 64, 64, 10000), hopper, 4, tilegemm::MathMode::tf32x3),
               "batch_64x64_staged"));
}

TEST_CASE("AutoConfig reads double batches of 25 to 256 and single products up to 1024 in place on FP64 tensor cores",
          "[unit][batched][plan][tensor_cores]") {
  using namespace tilegemm::detail;
  DeviceLimits hopper = h200();
  hopper.compute_capability = 90;
  DeviceLimits ampere = hopper;
  ampere.compute_capability = 80;
  const auto in_place = [](const Plan& plan) {
    return plan.config.family == tilegemm::Family::in_place_tensor_cores && !plan.a.packed && !plan.b.packed;
  };
  for (const DeviceLimits& device : {hopper, ampere}) {
    INFO("compute capability " << device.compute_capability);
    // Batches: 64 x 64 tiles of 4 x 8, or 32 x 32 tiles where those cover C with fewer elements (65: 9 of them, 9,216
    // elements, against 16,384; 200: 49 against 16 of 64 x 64); a tie keeps 64 x 64 (100, 256).
    const Plan medium = plan_default(batch_shape(64, 64, 64, 10000), device, 8);
    CHECK(chose(medium, "in_place_64x64"));
    CHECK(in_place(medium));
    CHECK(medium.config.tile.stages == 4);
    CHECK(medium.global == std::array<std::size_t, 3>{16, 8, 10000});
    CHECK(chose(plan_default(batch_shape(128, 128, 128, 1000), device, 8), "in_place_64x64"));
    CHECK(chose(plan_default(batch_shape(100, 100, 100, 2000), device, 8), "in_place_64x64"));
    CHECK(chose(plan_default(batch_shape(256, 256, 256, 100), device, 8), "in_place_64x64"));
    CHECK(chose(plan_default(batch_shape(65, 65, 65, 10000), device, 8), "in_place_32x32"));
    CHECK(chose(plan_default(batch_shape(200, 200, 200, 300), device, 8), "in_place_32x32"));
    CHECK(chose(plan_default(batch_shape(25, 20, 20, 10000), device, 8), "in_place_32x32"));
    CHECK(chose(plan_default(batch_shape(32, 32, 32, 10000), device, 8), "in_place_32x32"));
    // C of at most 24 x 24 keeps its whole-problem tile; past 256, or too few tiles for the units, the rules before.
    CHECK(chose(plan_default(batch_shape(24, 24, 100, 10000), device, 8), "batch_24x24_double"));
    CHECK(!in_place(plan_default(batch_shape(257, 64, 64, 1000), device, 8)));
    CHECK(!in_place(plan_default(batch_shape(64, 64, 257, 1000), device, 8)));
    CHECK(!in_place(plan_default(batch_shape(64, 64, 64, 131), device, 8)));
    CHECK(in_place(plan_default(batch_shape(64, 64, 64, 132), device, 8)));
    // Single products: 32 x 32 tiles up to 512 x 512 of C; 64 x 64 ones through registers up to 640 on every side;
    // the batches' 64 x 64 tiles up to 1024. Past that, on 9.0, the same tiles are weighed by their rounds beside the
    // packed families (plan_double_rounds, test_plan.cpp): 1025 x 1024 x 1024 takes them on its corner.
    CHECK(chose(plan_default(batch_shape(512, 512, 512, 1), device, 8), "in_place_single_32x32"));
    CHECK(chose(plan_default(batch_shape(1, 1, 1, 1), device, 8), "in_place_single_32x32"));
    CHECK(chose(plan_default(batch_shape(256, 256, 1024, 1), device, 8), "in_place_single_32x32"));
    CHECK(chose(plan_default(batch_shape(512, 513, 600, 1), device, 8), "in_place_single_64x64"));
    CHECK(chose(plan_default(batch_shape(640, 640, 640, 1), device, 8), "in_place_single_64x64"));
    CHECK(chose(plan_default(batch_shape(641, 640, 640, 1), device, 8), "in_place_64x64"));
    CHECK(chose(plan_default(batch_shape(1024, 1024, 1024, 1, true, true), device, 8), "in_place_64x64"));
    CHECK(in_place(plan_default(batch_shape(1025, 1024, 1024, 1), device, 8)) == (device.compute_capability >= 90));
    CHECK(!in_place(plan_default(batch_shape(64, 64, 1025, 1), device, 8)));
    // Double only, and in every math mode (they change nothing for double).
    CHECK(!in_place(plan_default(batch_shape(64, 64, 64, 10000), device, 4)));
    CHECK(!in_place(plan_default(batch_shape(64, 64, 64, 10000), device, 4, tilegemm::MathMode::tf32)));
    CHECK(in_place(plan_default(batch_shape(64, 64, 64, 10000), device, 8, tilegemm::MathMode::tf32x3)));
  }
  // Not without tensor cores.
  CHECK(!in_place(plan_default(batch_shape(64, 64, 64, 10000), h200(), 8)));
  CHECK(!in_place(plan_default(batch_shape(512, 512, 512, 1), h200(), 8)));
}

TEST_CASE("batches of large products on tensor cores: the whole batch's tiles in one launch, no corners",
          "[unit][batched][plan][tensor_cores]") {
  using namespace tilegemm::detail;
  DeviceLimits hopper = h200();
  hopper.compute_capability = 90;
  const auto tensor = [](const Plan& plan) { return plan.config.family == tilegemm::Family::tensor_cores; };
  const auto bulk = [](const Plan& plan) { return plan.config.family == tilegemm::Family::bulk_tensor_cores; };
  DeviceLimits ampere = hopper;
  ampere.compute_capability = 80;
  // Double on tensor cores, as for single products; 1025 is tiled whole (a single product 2049 x 1025 gets a corner
  // and strips on 8.0; one of 1025 x 1025, 96 x 96 tiles of the whole C). On 9.0 the copy engine's family takes
  // batches with a tile for every compute unit, as it does single products, all of C in tiles.
  const Plan batch = plan_default(batch_shape(1025, 1025, 512, 6), ampere, 8);
  CHECK(tensor(batch));
  CHECK(batch.config.takes_batches);
  CHECK(batch.strips == StripWork::none);
  CHECK(batch.corner_m == 1025);
  CHECK(batch.global[2] == 6);
  CHECK(plan_default(batch_shape(2049, 1025, 512, 1), ampere, 8).strips != StripWork::none);
  const Plan on_copy_engine = plan_default(batch_shape(1025, 1025, 512, 6), hopper, 8);
  CHECK(bulk(on_copy_engine));
  CHECK(on_copy_engine.strips == StripWork::none);
  CHECK(on_copy_engine.corner_m == 1025);
  CHECK(on_copy_engine.global[2] == 6);
  CHECK(on_copy_engine.a.layout == CopyLayout::padded_slices);
  CHECK(on_copy_engine.a.stride == 9 * 512 * 132 / 4);  // 9 tiles of 128 rows, 512 rows of 132 doubles each
  CHECK(tensor(plan_default(batch_shape(300, 300, 512, 6), hopper, 8)));  // 54 tiles of 128 x 128: too few
  // Small problems stay on the whole-problem tiles; float stays IEEE unless the math mode says otherwise.
  CHECK(!tensor(plan_default(batch_shape(32, 32, 32, 10000), hopper, 8)));
  CHECK(!tensor(plan_default(batch_shape(1025, 1025, 512, 6), hopper, 4)));
  CHECK(tensor(plan_default(batch_shape(1025, 1025, 512, 6), ampere, 4, tilegemm::MathMode::tf32x3)));
  // On compute capability 9.0 wgmma (as single products), chosen by the tiles of the whole batch, all of C in tiles.
  const auto warpgroup = [](const Plan& plan) { return plan.config.family == tilegemm::Family::warpgroup_mma; };
  const Plan pair = plan_default(batch_shape(2048, 2048, 512, 2), hopper, 4, tilegemm::MathMode::tf32);
  CHECK(warpgroup(pair));
  CHECK(pair.config.name() == "warpgroup_mma 128x256x32 2x64 s4");  // 256 tiles of 128 x 256: 2 rounds, 4 of 128^2
  CHECK(pair.global[2] == 2);
  // tf32x3: 64 x 128 tiles where the batch has at most one a compute unit (2 x 64 of the H200's 132), all of C in
  // tiles; else 128 x 128 (2 x 153 of 64 x 128 at 1025).
  const Plan small = plan_default(batch_shape(512, 1024, 512, 2), hopper, 4, tilegemm::MathMode::tf32x3);
  CHECK(small.config.name() == "warpgroup_mma 64x128x32 2x32 s8");
  CHECK(small.global[2] == 2);
  CHECK(plan_default(batch_shape(512, 1024, 512, 3), hopper, 4, tilegemm::MathMode::tf32x3).config.name() ==
        "warpgroup_mma 128x128x32 2x32 s6");  // 3 x 64 tiles of 64 x 128
  const Plan split = plan_default(batch_shape(1025, 1025, 512, 2), hopper, 4, tilegemm::MathMode::tf32x3);
  CHECK(warpgroup(split));
  CHECK(split.config.name() == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(split.strips == StripWork::none);
  CHECK(split.corner_m == 1025);
  CHECK(split.global[2] == 2);
  CHECK(split.a.outer_padded == 9 * 128);
  // 16 products of 256 x 256: 128 tiles of 64 x 128, enough for half the compute units; 8 products: 64, not enough.
  CHECK(warpgroup(plan_default(batch_shape(256, 256, 256, 16), hopper, 4, tilegemm::MathMode::tf32)));
  CHECK(!warpgroup(plan_default(batch_shape(256, 256, 256, 8), hopper, 4, tilegemm::MathMode::tf32)));
}

TEST_CASE("a batch of more problems than 65535 is still one launch", "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  // CUDA's grids hold at most 65535 blocks in dimension 2, but NVIDIA's OpenCL ran 70,000 work-groups there on an
  // H200 (and benchmark --batched 100,000 products of 4 x 4 x 4, checked), so nothing splits a batch.
  const Plan many = plan_default(batch_shape(4, 4, 4, 100000), h200(), 4);
  CHECK(many.batch_count == 100000);
  CHECK(many.global[2] == 100000);
}

TEST_CASE("batches the planner cannot run in one launch are refused or read another way", "[unit][batched][plan]") {
  using namespace tilegemm::detail;
  const KernelDescription& split_k = describe<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>;
  CHECK_NOTHROW(plan_product(split_k, batch_shape(128, 128, 4096, 1), h200(), 4));
  CHECK_THROWS_WITH(plan_product(split_k, batch_shape(128, 128, 4096, 2), h200(), 4),
                    CONTAINS_ALL2("cannot multiply a batch", "slices of K"));
  PlanOptions corner;
  corner.corner_m = 64;
  CHECK_THROWS_AS(
      plan_product(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, batch_shape(70, 64, 8, 2), h200(), 4, corner),
      std::invalid_argument);
  // Packed copies of a whole batch past 2^31 - 1 elements: the prefetch kernel reads the operands in place, an
  // element at a time; a family that reads packed copies only cannot, and says why.
  const GemmShape large = batch_shape(1000, 1000, 1001, 2100);  // each copy 1024 x 1008 (prefetch 64 x 16 tiles)
  const Plan in_place = plan_product(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, large, h200(), 4,
                                     PlanOptions{EdgePolicy::pack, -1, -1});
  CHECK(!in_place.a.packed);
  CHECK(in_place.variant.edges == EdgeMode::elements);
  CHECK_THROWS_WITH(plan_product(describe<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>, large, h200(), 4),
                    CONTAINS_ALL2("zero-padded copies of an operand of the batch", "multiply the batch in parts"));
  // Nothing to do: an empty batch; C = beta * C for each problem.
  CHECK(plan_gemm(nullptr, batch_shape(8, 8, 8, 0), false, h200(), 4).work == Work::nothing);
  const Plan scale = plan_gemm(nullptr, batch_shape(8, 8, 0, 5), false, h200(), 4);
  CHECK(scale.work == Work::scale_c);
  CHECK(scale.batch_count == 5);
  CHECK(scale.c_stride == 64);
}

// ---- The overlap checks (no device), against brute force ----

namespace {

// The elements a batch's operand covers, counted one by one.
std::set<long long> elements_of(long long offset, long long ld, long long rows, long long cols, long long stride,
                                long long count) {
  std::set<long long> covered;
  for (long long p = 0; p < count; ++p)
    for (long long j = 0; j < cols; ++j)
      for (long long i = 0; i < rows; ++i) covered.insert(offset + p * stride + i + j * ld);
  return covered;
}

bool problems_meet_by_brute_force(long long offset, long long ld, long long rows, long long cols, long long stride,
                                  long long count) {
  std::size_t total = 0;
  for (long long p = 0; p < count; ++p) total += elements_of(offset + p * stride, ld, rows, cols, 0, 1).size();
  return elements_of(offset, ld, rows, cols, stride, count).size() < total;
}

struct RandomBatch {
  long long offset, ld, rows, cols, stride, count;
};

RandomBatch random_batch() {
  auto& random = tilegemm_test::generator();
  const auto uniform = [&](long long low, long long high) {
    return std::uniform_int_distribution<long long>(low, high)(random);
  };
  RandomBatch x;
  x.rows = uniform(0, 4);
  x.cols = uniform(0, 4);
  x.ld = std::max(x.rows, 1LL) + uniform(0, 4);
  x.offset = uniform(0, 30);
  x.stride = uniform(0, 24);
  x.count = uniform(0, 6);
  return x;
}

tilegemm::detail::BatchSpans spans_of(const RandomBatch& x) {
  return tilegemm::detail::batch_spans({}, x.offset, x.ld, x.rows, x.cols, x.stride, x.count, sizeof(float));
}

}  // namespace

TEST_CASE("the overlap checks of a batch agree with counting elements", "[unit][batched][overlap]") {
  using namespace tilegemm::detail;
  for (int trial = 0; trial < 3000; ++trial) {
    const RandomBatch x = random_batch(), y = random_batch();
    INFO("trial " << trial << ": x offset " << x.offset << " ld " << x.ld << " " << x.rows << "x" << x.cols
                  << " stride " << x.stride << " count " << x.count << "; y offset " << y.offset << " ld " << y.ld
                  << " " << y.rows << "x" << y.cols << " stride " << y.stride << " count " << y.count);
    CHECK(problems_overlap(spans_of(x)) ==
          problems_meet_by_brute_force(x.offset, x.ld, x.rows, x.cols, x.stride, x.count));
    const std::set<long long> ex = elements_of(x.offset, x.ld, x.rows, x.cols, x.stride, x.count);
    const std::set<long long> ey = elements_of(y.offset, y.ld, y.rows, y.cols, y.stride, y.count);
    const bool meet = std::any_of(ex.begin(), ex.end(), [&](long long e) { return ey.count(e) > 0; });
    CHECK(batches_overlap(spans_of(x), spans_of(y)) == meet);
    // The same operands as a list of single matrices (gathered device matrices): any two of x's, or x's with y's.
    std::vector<PlacedSpans> list;
    for (const RandomBatch& z : {x, y}) {
      for (long long p = 0; p < z.count; ++p) {
        list.push_back({nullptr, batch_spans({}, z.offset + p * z.stride, z.ld, z.rows, z.cols, 0, 1, 4).problem});
      }
    }
    std::size_t total = 0;
    for (const RandomBatch& z : {x, y}) {
      for (long long p = 0; p < z.count; ++p)
        total += elements_of(z.offset + p * z.stride, z.ld, z.rows, z.cols, 0, 1).size();
    }
    std::set<long long> all = ex;
    all.insert(ey.begin(), ey.end());
    CHECK(any_two_overlap(list) == (all.size() < total));
  }
  // Interleaved columns: C of 4 rows with ldc 8; problems 4 apart share nothing as a pair, but the third meets the
  // first's second column.
  CHECK(!problems_overlap(batch_spans({}, 0, 8, 4, 2, 4, 2, 4)));
  CHECK(problems_overlap(batch_spans({}, 0, 8, 4, 2, 4, 3, 4)));
}
