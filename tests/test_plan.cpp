// test_plan: the device-free planner on hand-written device descriptions: which configuration, corner and strips,
// edge mode, packing of each operand, split-K and launch sizes a product gets, and the errors it raises.
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tilegemm/core.hpp>
#include <tuple>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
#include "described_devices.hpp"
#include "error_code.hpp"
#include "message_matchers.hpp"

namespace {

using tilegemm_test::dense_shape;

using namespace tilegemm::detail;

using tilegemm_test::h200;

// The same H200 with its compute capability read (9.0), as the runtime describes it: it has tensor cores.
DeviceLimits h200_with_tensor_cores() {
  DeviceLimits device = h200();
  device.compute_capability = 90;
  return device;
}

// Whether the plan has the configuration of the built-in table's entry `name`.
bool chose(const Plan& plan, std::string_view name) { return same_configuration(plan.config, builtin(name).config); }

template <class Config>
Plan plan_with(const GemmShape& s, EdgePolicy policy = EdgePolicy::by_size, std::size_t scalar_size = 4) {
  PlanOptions options;
  options.policy = policy;
  return plan_product(describe<Config>, s, h200(), scalar_size, options);
}

using Prefetch64 = tilegemm::Prefetch<64, 64, 16, 4, 4, 4>;

using tilegemm_test::error_code;

}  // namespace

TEST_CASE("the default plan picks the configurations that measured fastest on an H200", "[unit][plan]") {
  const auto plan = [](std::size_t scalar_size, int m, int n, int k) {
    return plan_default(dense_shape(m, n, k), h200(), scalar_size);
  };
  // The winners of benchmarks/h200-float.csv and h200-double.csv, square sizes.
  CHECK(chose(plan(4, 1024, 1024, 1024), "gpu_128x64"));
  CHECK(chose(plan(4, 2048, 2048, 2048), "gpu_128x128"));
  CHECK(chose(plan(4, 3072, 3072, 3072), "gpu_128x64"));
  CHECK(chose(plan(4, 4096, 4096, 4096), "gpu_128x128"));
  CHECK(chose(plan(4, 8192, 8192, 8192), "gpu_128x128"));
  CHECK(chose(plan(8, 1024, 1024, 1024), "gpu_128x64"));
  CHECK(chose(plan(8, 4096, 4096, 4096), "gpu_128x128"));
  CHECK(chose(plan(4, 2000, 2000, 2000), "gpu_128x128"));
  // Small C with a long K: split-K, in 128 x 64 tiles where they cover C with no more elements than 64 x 64 ones, in
  // float and double; C of one 64 x 64 tile in that. Before the staged tiles of medium C (512^2 takes those at 8192
  // deep: 128 tiles of 64 x 64 on 132 compute units). Tiny C: the smallest tiles.
  CHECK(chose(plan(4, 128, 128, 131072), "gpu_split_128x64"));
  CHECK(chose(plan(8, 128, 128, 131072), "gpu_split_128x64"));
  CHECK(chose(plan(4, 100, 100, 50000), "gpu_split_128x64"));
  CHECK(chose(plan(8, 64, 64, 65536), "gpu_split_k"));
  CHECK(chose(plan(4, 64, 64, 65536), "gpu_split_k"));
  CHECK(chose(plan(4, 512, 512, 8192), "gpu_split_128x64"));
  CHECK(plan(4, 512, 512, 8192).slices > 1);
  CHECK(chose(plan(4, 100, 100, 100), "gpu_32x32"));
  // Less local memory than the large tiles need in double: a candidate that fits.
  DeviceLimits small = h200();
  small.local_memory_bytes = 32 * 1024;
  const Plan fallback = plan_default(dense_shape(4096, 4096, 4096), small, 8);
  CHECK((chose(fallback, "gpu_128x64") || chose(fallback, "gpu_64x64") || chose(fallback, "gpu_32x32")));
  // Processors get the vector kernel, devices with small work-groups the one made for them.
  DeviceLimits cpu = h200();
  cpu.type = CL_DEVICE_TYPE_CPU;
  CHECK(chose(plan_default(dense_shape(512, 512, 512), cpu, 4), "cpu"));
  DeviceLimits narrow = h200();
  narrow.max_work_group_size = 64;
  CHECK(chose(plan_default(dense_shape(512, 512, 512), narrow, 4), "small_groups"));
}

TEST_CASE("medium float products whose tiles leave compute units idle are split along K where the model gains",
          "[unit][plan]") {
  const auto split_of = [](const Plan& plan) { return plan.config.splits_k ? plan.slices : 1; };
  // 768: 36 tiles of 128 x 128 or 72 of 128 x 64 for 132 units: three slices (measured 1.29 times one pass).
  const Plan medium = plan_default(dense_shape(768, 768, 768), h200(), 4);
  CHECK((chose(medium, "gpu_split_128x128") || chose(medium, "gpu_split_128x64")));
  CHECK(split_of(medium) == 3);
  CHECK(medium.global[2] == 3);
  CHECK(medium.k_per_slice * 3 >= 768);
  CHECK(medium.corner_m == 768);  // split-K tiles all of C
  // 512: four slices of 128 x 64 tiles.
  const Plan small = plan_default(dense_shape(512, 512, 512), h200(), 4);
  CHECK(chose(small, "gpu_split_128x64"));
  CHECK(split_of(small) == 4);
  // Where one pass fills the units, or K is too short for slices four tiles deep, one pass.
  CHECK(split_of(plan_default(dense_shape(1024, 1024, 1024), h200(), 4)) == 1);
  CHECK(split_of(plan_default(dense_shape(2048, 2048, 2048), h200(), 4)) == 1);
  CHECK(split_of(plan_default(dense_shape(768, 768, 24), h200(), 4)) == 1);
  // Double, and batches (one launch of whole tiles), were not measured split: one pass.
  CHECK(split_of(plan_default(dense_shape(768, 768, 768), h200(), 8)) == 1);
  GemmShape batch = dense_shape(768, 768, 768);
  batch.batch = 4;
  batch.c.stride = 768 * 768;
  batch.a.stride = batch.b.stride = 768 * 768;
  CHECK(split_of(plan_default(batch, h200(), 4)) == 1);
  // A configuration named with a number of slices gets that many, as many as K has tiles at most.
  PlanOptions options;
  options.slices = 5;
  CHECK(plan_product(builtin("gpu_split_128x64").config, dense_shape(512, 512, 512), h200(), 4, options).slices == 5);
  options.slices = 64;
  CHECK(plan_product(builtin("gpu_split_128x64").config, dense_shape(512, 512, 24), h200(), 4, options).slices == 3);
}

TEST_CASE("medium and shallow float products take staged tiles where cp.async runs and they fill the units",
          "[unit][plan]") {
  const DeviceLimits hopper = h200_with_tensor_cores();
  const auto plan = [&](int m, int n, int k, std::size_t size = 4, tilegemm::MathMode math = tilegemm::MathMode::ieee,
                        const DeviceLimits* device = nullptr) {
    return plan_default(dense_shape(m, n, k), device ? *device : hopper, size, math);
  };
  // 512, 896, 1024, 1100 (and 1000, read in vectors): the last round of 64 x 32 tiles at least 0.9 full.
  for (const int n : {512, 896, 1000, 1024, 1100}) {
    INFO(n);
    const Plan staged = plan(n, n, n);
    CHECK(chose(staged, "staged_64x32"));
    CHECK(staged.variant.edges != EdgeMode::elements);
    CHECK(staged.corner_m == n);  // all of C in tiles
  }
  CHECK(chose(plan(1024, 512, 700, 4, tilegemm::MathMode::ieee, nullptr), "staged_64x32"));  // 256 tiles, 0.97 full
  // Outside: 640 and 768 (last rounds 0.76 and 0.73 full), past 1100 or below 512 on a side, K under 512, operands
  // read an element at a time (1025), double, tensor math, batches, devices without cp.async.
  for (const auto& [m, n, k] : {std::tuple{640, 640, 640}, std::tuple{768, 768, 768}, std::tuple{1101, 1101, 1101},
                                std::tuple{1152, 1152, 1152}, std::tuple{511, 1024, 1024}, std::tuple{1024, 1024, 511},
                                std::tuple{1025, 1025, 1025}}) {
    INFO(m << "x" << n << "x" << k);
    CHECK_FALSE(chose(plan(m, n, k), "staged_64x32"));
  }
  CHECK_FALSE(chose(plan(1024, 1024, 1024, 8), "staged_64x32"));
  CHECK_FALSE(chose(plan(1024, 1024, 1024, 4, tilegemm::MathMode::tf32x3), "staged_64x32"));
  const DeviceLimits without = h200();  // no compute capability read: not NVIDIA 8.0+
  CHECK_FALSE(chose(plan(1024, 1024, 1024, 4, tilegemm::MathMode::ieee, &without), "staged_64x32"));
  GemmShape batch = dense_shape(1024, 1024, 1024);
  batch.batch = 2;
  batch.a.stride = batch.b.stride = batch.c.stride = 1024 * 1024;
  CHECK_FALSE(chose(plan_default(batch, hopper, 4), "staged_64x32"));
  // C of 2048 and more on each side, 128 to 512 deep: 128 x 64 tiles, slices copied one ahead; not 1024 deep, not 64.
  for (const auto& [m, n, k] : {std::tuple{4096, 4096, 256}, std::tuple{2048, 2048, 128}, std::tuple{8192, 2048, 512},
                                std::tuple{2048, 3000, 300}}) {
    INFO(m << "x" << n << "x" << k);
    const Plan shallow = plan(m, n, k);
    CHECK(chose(shallow, "staged_128x64_shallow"));
    CHECK(shallow.corner_m == m);
    CHECK(shallow.variant.edges != EdgeMode::elements);
  }
  for (const auto& [m, n, k] : {std::tuple{4096, 4096, 1024}, std::tuple{4096, 4096, 64}, std::tuple{2047, 4096, 256},
                                std::tuple{4097, 4096, 256}}) {
    INFO(m << "x" << n << "x" << k);
    CHECK_FALSE(chose(plan(m, n, k), "staged_128x64_shallow"));
  }
  CHECK_FALSE(chose(plan(4096, 4096, 256, 4, tilegemm::MathMode::ieee, &without), "staged_128x64_shallow"));
  // 1536: 96 x 96 tiles, two a compute unit (the model; 1.19 times as fast as its 128 x 128 tiles on an H200).
  CHECK(chose(plan(1536, 1536, 1536, 4, tilegemm::MathMode::ieee, &without), "gpu_96x96"));
  CHECK(chose(plan(1536, 1536, 1536), "gpu_96x96"));
}

TEST_CASE("just past a multiple of the tiles, the default plan tiles the corner and leaves strips", "[unit][plan]") {
  const Plan past = plan_default(dense_shape(1025, 1025, 1025), h200(), 4);
  CHECK(past.corner_m == 1024);
  CHECK(past.corner_n == 1024);
  // K = 1025 and lda = 1025 are no whole vectors: element loads, which 128x64 tiles do slowly.
  CHECK(chose(past, "gpu_64x128"));
  CHECK(past.variant.edges == EdgeMode::elements);
  CHECK(past.strips == StripWork::fused);
  CHECK(past.variant.strips);
  // 1000 is no multiple of 128 by far: all of C, read in place a vector at a time.
  const Plan odd = plan_default(dense_shape(1000, 1000, 1000), h200(), 4);
  CHECK(odd.corner_m == 1000);
  CHECK(odd.corner_n == 1000);
  CHECK(chose(odd, "gpu_128x64"));
  CHECK(odd.variant.edges == EdgeMode::vectors);
  CHECK(odd.strips == StripWork::none);
  // 128x128 tiles in double leave no room in 48 KiB for the strip code's stage: the remainder kernel.
  const Plan large_double = plan_default(dense_shape(4097, 4097, 4097), h200(), 8);
  CHECK(chose(large_double, "gpu_128x128"));
  CHECK(large_double.corner_m == 4096);
  CHECK(large_double.strips == StripWork::remainder_kernel);
  CHECK(!large_double.variant.strips);
}

TEST_CASE("the default plan judges candidates by the edge mode the run will use", "[unit][plan]") {
  // Sizes of whole tiles, but A is a block of a larger matrix with an odd leading dimension: element loads in this
  // small product, so the candidate that reads elements slowly is passed over.
  GemmShape s = dense_shape(1024, 1024, 1024);
  s.a.ld = 1025;
  const Plan plan = plan_default(s, h200(), 4);
  CHECK(plan.variant.edges == EdgeMode::elements);
  CHECK(!chose(plan, "gpu_128x64"));
  CHECK(chose(plan_default(dense_shape(1024, 1024, 1024), h200(), 4), "gpu_128x64"));
}

TEST_CASE("operands that fill whole tiles are read in place, in either layout", "[unit][plan]") {
  const Plan nn = plan_with<Prefetch64>(dense_shape(256, 192, 128));
  CHECK(!nn.a.packed);
  CHECK(!nn.a.k_contiguous);  // A as stored is M-contiguous
  CHECK(!nn.b.packed);
  CHECK(nn.b.k_contiguous);  // B as stored is K-contiguous
  CHECK(nn.variant.edges == EdgeMode::whole_tiles);
  CHECK(nn.depth == 128);
  CHECK(nn.a.unit == 4);
  CHECK(nn.a.ld == 64);  // 256 elements in vectors of 4
  CHECK(nn.global == std::array<std::size_t, 3>{64, 48, 1});
  CHECK(nn.local == std::array<std::size_t, 3>{16, 16, 1});
  const Plan tt = plan_with<Prefetch64>(dense_shape(256, 192, 128, true, true));
  CHECK(!tt.a.packed);
  CHECK(tt.a.k_contiguous);
  CHECK(!tt.b.k_contiguous);
  CHECK(tt.variant.flag_a);
  CHECK(!tt.variant.flag_b);
}

TEST_CASE("a K-contiguous operand reused over many rows of C is packed", "[unit][plan]") {
  const Plan plan = plan_with<Prefetch64>(dense_shape(2048, 64, 64));  // B is K-contiguous and serves 2048 rows
  CHECK(!plan.a.packed);
  CHECK(plan.b.packed);
  CHECK(!plan.b.k_contiguous);
  CHECK(plan.b.outer == 64);
  CHECK(plan.b.inner == 64);
  CHECK(plan.b.offset == 0);
  CHECK(plan.b.ld == 16);  // the copy's 64 columns in vectors of 4
  CHECK(!plan.variant.flag_b);
}

TEST_CASE("operands of other sizes are read as vectors, as elements or packed", "[unit][plan]") {
  // Whole vectors (sizes, offsets and leading dimensions multiples of 4) but not whole tiles: vectors in place.
  GemmShape vectors = dense_shape(100, 100, 20);
  vectors.a = {8, 104};
  const Plan v = plan_with<Prefetch64>(vectors);
  CHECK(v.variant.edges == EdgeMode::vectors);
  CHECK(!v.a.packed);
  CHECK(v.a.offset == 2);  // 8 elements in vectors of 4
  CHECK(v.a.ld == 26);
  CHECK(v.depth == 20);  // K as it is: the kernel checks it
  // The same as packed copies when asked.
  const Plan packed = plan_with<Prefetch64>(vectors, EdgePolicy::pack);
  CHECK(packed.a.packed);
  CHECK(packed.b.packed);
  CHECK(packed.variant.edges == EdgeMode::whole_tiles);
  CHECK(packed.depth == 32);
  CHECK(packed.a.outer_padded == 128);
  CHECK(packed.a.inner_padded == 32);
  // Odd sizes in a small product: elements in place, counted in elements.
  GemmShape odd = dense_shape(101, 99, 37);
  odd.a.offset = 3;
  const Plan elements = plan_with<Prefetch64>(odd);
  CHECK(elements.variant.edges == EdgeMode::elements);
  CHECK(!elements.a.packed);
  CHECK(elements.a.unit == 1);
  CHECK(elements.a.offset == 3);
  CHECK(elements.a.ld == 101);
  CHECK(elements.depth == 37);
  // Odd sizes in a large product: packed, whole tiles.
  const Plan large = plan_with<Prefetch64>(dense_shape(3001, 3001, 3001));
  CHECK(large.a.packed);
  CHECK(large.b.packed);
  CHECK(large.variant.edges == EdgeMode::whole_tiles);
  CHECK(large.depth == 3008);
}

TEST_CASE("the packed families read outer-contiguous whole tiles in place and pack the rest", "[unit][plan]") {
  using Blocking = tilegemm::RegisterBlocking<64, 64, 16, 4, 4>;
  const Plan nn = plan_with<Blocking>(dense_shape(128, 128, 40));
  CHECK(nn.a.packed);  // K = 40 is no whole tile
  const Plan whole = plan_with<Blocking>(dense_shape(128, 128, 48, false, true));
  CHECK(!whole.a.packed);  // M-contiguous, whole tiles
  CHECK(!whole.b.packed);  // B^T is N-contiguous
  const Plan transposed = plan_with<Blocking>(dense_shape(128, 128, 48, true, false));
  CHECK(transposed.a.packed);
  CHECK(transposed.b.packed);
  CHECK(transposed.depth == 48);
  CHECK(plan_with<Blocking>(dense_shape(128, 128, 40, false, true)).depth == 48);
}

TEST_CASE("the families that read the caller's operands take the transposes as flags", "[unit][plan]") {
  GemmShape s = dense_shape(37, 21, 5, true, false);
  s.b = {7, 9};
  const Plan plan = plan_with<tilegemm::LocalTiles<16>>(s);
  CHECK(plan.variant.flag_a);
  CHECK(!plan.variant.flag_b);
  CHECK(!plan.a.packed);
  CHECK(plan.b.offset == 7);
  CHECK(plan.b.ld == 9);
  CHECK(plan.depth == 5);
  CHECK(plan.global == std::array<std::size_t, 3>{48, 32, 1});
}

TEST_CASE("split-K gives each compute unit two work-groups", "[unit][plan]") {
  const Plan plan = plan_with<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(dense_shape(128, 128, 131072));
  // 4 tiles; 264 work-groups wanted: 66 slices of 125 tiles of K (2000 deep), the last shorter.
  CHECK(plan.slices == 66);
  CHECK(plan.k_per_slice == 2000);
  CHECK(plan.global[2] == 66);
}

TEST_CASE("fused strips add rows of work-groups to the corner's launch", "[unit][plan]") {
  PlanOptions options;
  options.corner_m = 128;
  options.corner_n = 64;
  const Plan plan = plan_product(describe<Prefetch64>, dense_shape(130, 70, 33), h200(), 4, options);
  CHECK(plan.strips == StripWork::fused);
  // Right strip: 130 rows in panels of 32; bottom strip: the corner's 64 columns.
  CHECK(plan.strip_groups.right == 5);
  CHECK(plan.strip_groups.bottom == 2);
  CHECK(plan.tile_rows == 1);
  CHECK(plan.global == std::array<std::size_t, 3>{32, 16 + 4 * 16, 1});  // 7 strip groups on rows of 2
  // A family without the fused entry point leaves them to the remainder kernel, in panels of 8.
  const Plan local = plan_product(describe<tilegemm::LocalTiles<16>>, dense_shape(130, 70, 33), h200(), 4, options);
  CHECK(local.strips == StripWork::remainder_kernel);
  CHECK(local.strip_groups.right == 17);
  CHECK(local.strip_groups.bottom == 8);
  CHECK(local.global == std::array<std::size_t, 3>{128, 64, 1});
}

TEST_CASE("empty products, k = 0 and alpha = 0 need no kernel of the configuration", "[unit][plan]") {
  const auto* config = &describe<Prefetch64>;
  CHECK(plan_gemm(config, dense_shape(0, 5, 5), false, h200(), 4).work == Work::nothing);
  CHECK(plan_gemm(config, dense_shape(5, 0, 5), false, h200(), 4).work == Work::nothing);
  CHECK(plan_gemm(config, dense_shape(5, 5, 0), false, h200(), 4).work == Work::scale_c);
  CHECK(plan_gemm(config, dense_shape(5, 5, 5), true, h200(), 4).work == Work::scale_c);
  CHECK(plan_gemm(config, dense_shape(5, 5, 5), false, h200(), 4).work == Work::product);
  CHECK(plan_gemm(nullptr, dense_shape(5, 5, 5), false, h200(), 4).work == Work::product);
}

TEST_CASE("a device without fp64 is refused double precision before anything is built", "[unit][plan][errors]") {
  DeviceLimits no_fp64 = h200();
  no_fp64.fp64 = false;
  no_fp64.name = "a device without doubles";
  CHECK(error_code([&] { plan_gemm(nullptr, dense_shape(8, 8, 8), false, no_fp64, 8); }) == CL_INVALID_OPERATION);
  try {
    plan_gemm(&describe<Prefetch64>, dense_shape(8, 8, 8), false, no_fp64, 8);
    FAIL("expected tilegemm::Error");
  } catch (const tilegemm::Error& e) {
    CHECK(std::string(e.what()).find("a device without doubles does not support double precision") !=
          std::string::npos);
  }
  CHECK(plan_gemm(nullptr, dense_shape(8, 8, 8), false, no_fp64, 4).work == Work::product);  // float is fine
}

TEST_CASE("a configuration the device cannot run is refused by the planner", "[unit][plan][errors]") {
  DeviceLimits narrow = h200();
  narrow.max_work_group_size = 128;
  CHECK(error_code([&] { plan_with<Prefetch64>(dense_shape(64, 64, 64)); }) == tilegemm_test::no_error);
  CHECK(error_code([&] { plan_product(describe<Prefetch64>, dense_shape(64, 64, 64), narrow, 4); }) ==
        CL_INVALID_WORK_GROUP_SIZE);
  DeviceLimits little_local = h200();
  little_local.local_memory_bytes = 16 * 1024;
  CHECK(error_code([&] { plan_product(describe<Prefetch64>, dense_shape(64, 64, 64), little_local, 4); }) ==
        CL_OUT_OF_RESOURCES);
}

namespace {

// Every kernel a plan launches runs in work-groups the device allows: the product's, the support kernels' and the
// remainder kernel's.
std::string fits(const Plan& plan, const DeviceLimits& device) {
  const auto work_group = [&](std::size_t m, std::size_t n) {
    return m * n <= device.max_work_group_size && m <= device.max_work_item_sizes[0] &&
           n <= device.max_work_item_sizes[1];
  };
  if (plan.work == Work::product && !work_group(plan.local[0], plan.local[1])) return plan.config.name();
  const std::size_t tile = static_cast<std::size_t>(plan.support_tile);
  if (!work_group(tile, tile)) return "support tile " + std::to_string(tile);
  if (plan.strips == StripWork::remainder_kernel && !work_group(remainder_panel * remainder_lanes, 1)) {
    return "the remainder kernel";
  }
  return "";
}

DeviceLimits with_work_groups(DeviceLimits device, std::size_t most) {
  device.max_work_group_size = most;
  device.max_work_item_sizes = {most, most, most};
  device.name = "a device of " + std::to_string(most) + "-work-item groups";
  return device;
}

}  // namespace

TEST_CASE("every kernel of the default plan fits devices with small work-groups", "[unit][plan]") {
  for (const std::size_t most : {512, 256, 128, 64, 32, 16, 8, 4, 2, 1}) {
    for (const cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_CPU)}) {
      DeviceLimits device = with_work_groups(h200(), most);
      device.type = type;
      for (const GemmShape& s :
           {dense_shape(1025, 1025, 1025), dense_shape(4097, 33, 100, true), dense_shape(64, 64, 64),
            dense_shape(100, 100, 8192), dense_shape(7, 61, 129, false, true)}) {
        for (const std::size_t size : {std::size_t(4), std::size_t(8)}) {
          INFO(device.name << (type == CL_DEVICE_TYPE_CPU ? " (cpu)" : " (gpu)") << ", " << s.m << "x" << s.n << "x"
                           << s.k << ", scalar " << size);
          CHECK(fits(plan_default(s, device, size), device) == "");
          CHECK(fits(plan_gemm(nullptr, s, true, device, size), device) == "");  // alpha = 0: C = beta * C
        }
      }
    }
  }
  CHECK(chose(plan_default(dense_shape(300, 300, 300), with_work_groups(h200(), 8), 4), "tiny_groups"));
  CHECK(chose(plan_default(dense_shape(300, 300, 300), with_work_groups(h200(), 2), 4), "single_item"));
  CHECK(plan_gemm(nullptr, dense_shape(9, 9, 0), false, with_work_groups(h200(), 8), 4).support_tile == 2);
  // With 128-work-item groups the 256 of the remainder kernel do not fit: 1025 is tiled whole, with edges.
  const Plan edges = plan_default(dense_shape(1025, 1025, 1025), with_work_groups(h200(), 128), 8);
  CHECK(edges.strips != StripWork::remainder_kernel);
}

TEST_CASE("no buffer larger than the device's largest allocation is planned", "[unit][plan]") {
  DeviceLimits device = h200();
  device.max_alloc_bytes = 1 << 20;  // 1 MiB
  // Odd sizes in a large product would be packed; their copies (more than 1 MiB) are not made: elements in place.
  const Plan large = plan_with<Prefetch64>(dense_shape(3001, 3001, 3001));
  CHECK(large.a.packed);
  const Plan limited = plan_product(describe<Prefetch64>, dense_shape(3001, 3001, 3001), device, 4);
  CHECK(!limited.a.packed);
  CHECK(!limited.b.packed);
  CHECK(limited.variant.edges == EdgeMode::elements);
  // The packed families cannot read such operands in place: a clear error.
  try {
    plan_product(describe<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>, dense_shape(3001, 3001, 3001), device, 4);
    FAIL("expected tilegemm::Error");
  } catch (const tilegemm::Error& e) {
    CHECK(e.code() == CL_INVALID_BUFFER_SIZE);
    CHECK(std::string(e.what()).find("zero-padded copy of A") != std::string::npos);
    CHECK(std::string(e.what()).find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
  }
  // Split-K's workspace: the explicit configuration is refused, the default takes a single pass.
  device.max_alloc_bytes = 64 * 1024;
  CHECK(error_code([&] { plan_with<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(dense_shape(128, 128, 131072)); }) ==
        tilegemm_test::no_error);
  CHECK(error_code([&] {
          plan_product(describe<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>, dense_shape(128, 128, 131072), device, 4);
        }) == CL_INVALID_BUFFER_SIZE);
  CHECK(!plan_default(dense_shape(128, 128, 131072), device, 4).config.splits_k);
}

TEST_CASE("operands whose indices would not fit the kernels' ints in place are packed", "[unit][plan]") {
  // A 64 x 33 outer-contiguous A with a leading dimension of 60,000,000 spans 32 * 60e6 + 64 elements, within 2^31,
  // but the kernel addresses whole slices of K, up to k = 47 (TSK 16): 47 * 60e6 is not within 2^31.
  GemmShape s = dense_shape(64, 64, 33);
  s.a.ld = 60000000;
  const Plan plan = plan_with<Prefetch64>(s);
  CHECK(plan.a.packed);
  CHECK(plan.variant.edges != EdgeMode::elements);
  s.a.ld = 40000000;  // 47 * 40e6 fits
  CHECK(!plan_with<Prefetch64>(s).a.packed);
}

TEST_CASE("the default plan takes the tensor cores where the device has them and the math mode allows",
          "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const DeviceLimits hopper = h200_with_tensor_cores();
  const auto tensor = [](const Plan& plan) { return plan.config.family == tilegemm::Family::tensor_cores; };
  // Double always (on 9.0 in the copy engine's family, below); float in tf32x3 and tf32, never in ieee.
  CHECK(plan_default(dense_shape(4096, 4096, 4096), hopper, 8).config.uses_tensor_cores);
  CHECK(plan_default(dense_shape(4096, 4096, 4096), hopper, 8).variant.mma == MmaKind::fp64_sm90);
  CHECK(!tensor(plan_default(dense_shape(4096, 4096, 4096), hopper, 4)));
  CHECK(!tensor(plan_default(dense_shape(4096, 4096, 4096), hopper, 4, MathMode::ieee)));
  const Plan tf32x3 = plan_default(dense_shape(4096, 4096, 4096), hopper, 4, MathMode::tf32x3);
  CHECK(tf32x3.config.uses_tensor_cores);  // wgmma's family on 9.0 (below)
  CHECK(tf32x3.variant.mma == MmaKind::tf32x3);
  CHECK(plan_default(dense_shape(4096, 4096, 4096), hopper, 4, MathMode::tf32).variant.mma == MmaKind::tf32);
  // Compute capability 8.x: FP64 through m8n8k4.
  DeviceLimits a100 = hopper;
  a100.compute_capability = 80;
  CHECK(plan_default(dense_shape(4096, 4096, 4096), a100, 8).variant.mma == MmaKind::fp64_sm80);
  // Never where the device has none (the H200 as described without its compute capability, 7.5, a CPU), in any
  // mode; nor for products too small to pay for the packing; split-K keeps small C with long K (but in tf32, on the
  // in-place tiles, below).
  DeviceLimits turing = hopper;
  turing.compute_capability = 75;
  for (MathMode math : {MathMode::ieee, MathMode::tf32x3, MathMode::tf32}) {
    CHECK(!tensor(plan_default(dense_shape(4096, 4096, 4096), h200(), 8, math)));
    CHECK(!tensor(plan_default(dense_shape(4096, 4096, 4096), turing, 4, math)));
    CHECK(!tensor(plan_default(dense_shape(100, 100, 100), hopper, 8, math)));
    if (math != MathMode::tf32)
      CHECK(chose(plan_default(dense_shape(128, 128, 131072), hopper, 4, math), "gpu_split_128x64"));
  }
  // Large C: large tiles; fewer tiles than compute units: small ones. The tiled corner as for the other families.
  const auto picked = [](const Plan& plan, std::string_view name) { return chose(plan, name); };
  CHECK(picked(plan_default(dense_shape(4096, 4096, 4096), a100, 8), "tensor_double_large"));
  CHECK(picked(plan_default(dense_shape(1100, 600, 1100), hopper, 8), "tensor_double_small"));
  CHECK(picked(plan_default(dense_shape(4096, 4096, 4096), a100, 4, MathMode::tf32x3), "tensor_float_large"));
  CHECK(picked(plan_default(dense_shape(4096, 4096, 4096), a100, 4, MathMode::tf32), "tensor_tf32_large"));
  CHECK(picked(plan_default(dense_shape(640, 640, 640), hopper, 4, MathMode::tf32), "tensor_float_small"));
  // Just past a multiple of the small tiles, where 96 x 96 tiles cover all of C in one round (11 x 11 of them on
  // 132 compute units): those, whole, without strips; at the multiple itself the small tiles. (On 8.0: on 9.0 wgmma
  // takes float's whole C at these sizes, and the copy engine's family double's 2049 x 1025.)
  for (const auto& [scalar_size, math, odd, small] :
       {std::tuple{8, MathMode::ieee, "tensor_double_odd", "tensor_double_small"},
        std::tuple{4, MathMode::tf32x3, "tensor_float_odd", "tensor_float_small"},
        std::tuple{4, MathMode::tf32, "tensor_float_odd", "tensor_float_small"}}) {
    const DeviceLimits& device = a100;
    const Plan odd_plan = plan_default(dense_shape(1025, 1025, 1025), device, scalar_size, math);
    CHECK(picked(odd_plan, odd));
    CHECK(odd_plan.strips == StripWork::none);
    CHECK(odd_plan.corner_m == 1025);
    CHECK(odd_plan.global[0] / odd_plan.local[0] == 11);
    // (Double at 1024 reads its operands in place: in_place_double_choice.)
    CHECK(picked(plan_default(dense_shape(1024, 1024, 1024), device, scalar_size, math),
                 scalar_size == 8 ? "in_place_64x64" : small));
    // More 96 x 96 tiles than compute units: the corner and its strips.
    const Plan corner = plan_default(dense_shape(2049, 1025, 1025), device, scalar_size, math);
    CHECK(!picked(corner, odd));
    CHECK(corner.strips == StripWork::remainder_kernel);
  }
  const Plan past = plan_default(dense_shape(4097, 4097, 4097), a100, 8);
  CHECK(tensor(past));
  CHECK(past.corner_m == 4096);
  CHECK(past.corner_n == 4096);
  CHECK(past.strips == StripWork::remainder_kernel);
  CHECK(past.a.packed);  // lda = 4097 is no whole vector
  // 9 x 9 tiles of 128: too few; on 9.0 the 64 x 64 tiles in place (plan_double_rounds), on 8.0 96 x 96 ones.
  CHECK(picked(plan_default(dense_shape(1025, 1025, 1025), hopper, 8), "in_place_64x64"));
  CHECK(picked(plan_default(dense_shape(1025, 1025, 1025), a100, 8), "tensor_double_odd"));
}

TEST_CASE(
    "the default plan takes the copy engine's family for double on compute capability 9.0 where C has a tile "
    "for every compute unit",
    "[unit][plan][tensor_cores]") {
  const DeviceLimits hopper = h200_with_tensor_cores();
  const auto bulk = [](const Plan& plan) { return plan.config.family == tilegemm::Family::bulk_tensor_cores; };
  // All of C in 128 x 128 tiles, both operands packed in padded slices 32 deep (rows of 128 + 4 doubles), K padded to
  // whole slices, 203 KiB of local memory.
  const Plan plan = plan_default(dense_shape(4097, 4097, 4097), hopper, 8);
  REQUIRE(bulk(plan));
  CHECK(plan.config.name() == "bulk_tensor_cores 128x128x32 8x8 v4 s3");
  CHECK(plan.config.local_memory_elements * 8 > hopper.local_memory_bytes);
  CHECK(plan.variant.mma == MmaKind::fp64_sm90);
  CHECK(plan.strips == StripWork::none);
  CHECK(plan.corner_m == 4097);
  CHECK(plan.global[0] == 33 * 16);
  CHECK(plan.global[1] == 33 * 16);
  CHECK(plan.depth == 4128);  // 129 slices of 32
  for (const OperandPlan* operand : {&plan.a, &plan.b}) {
    CHECK(operand->packed);
    CHECK(operand->layout == CopyLayout::padded_slices);
    CHECK(operand->tile_outer == 128);
    CHECK(operand->row == 132);
    CHECK(operand->ld == 33);  // in vectors of 4
    CHECK(operand->stride == 33 * 4128 * 132 / 4);
  }
  // Single products with C of at least 1024 x 1024: the tiles whose rounds over the 132 compute units finish first
  // (double_round_figures; 1024 and below read their operands in place, in_place_double_choice): 64 x 128 on the copy
  // engine at 1664 (3 rounds against 6 of 64 x 64 ones in place and 2 of 128 x 128 ones); the 64 x 64 tiles in place
  // from 1025 to 1216 (3 rounds, no pack kernel) and at 2049; mma.sync's 128 x 128 at 1280 and 1408 (one round, where
  // the tiles in place take 4); 96 x 96 at 1536 (256 in 2 rounds, against 288 narrow ones in 3); the copy engine's
  // 128 x 128 at 2048 and beyond.
  const auto named = [&](long long n, const char* name) {
    INFO(n << " " << name);
    const Plan plan = plan_default(dense_shape(n, n, n), hopper, 8);
    CHECK(chose(plan, name));
    return plan;
  };
  named(1664, "bulk_double_narrow");
  for (const long long n : {1280, 1408}) named(n, "tensor_double_large");
  const Plan odd = named(1536, "tensor_double_odd");
  CHECK(odd.corner_m == 1536);  // all of C in 96 x 96 tiles, no strips
  CHECK(odd.strips == StripWork::none);
  for (const long long n : {2048, 3000, 8192}) named(n, "bulk_double");
  // In place: all of C in tiles where a corner would take as many rounds (1089: 289 tiles of the corner and 324 of C,
  // 3 rounds either way); the corner and the remainder kernel (beside the tiles) where that saves a round, more than
  // the strips cost (1025 and 1032: 256 tiles in 2 rounds against 289 in 3; 2049: 8 against 9; 1217: 3 against 4),
  // strips up to 16 wide (two passes of the remainder kernel) where the corner is at most two rounds (1033, 1040,
  // 1032 x 1027 x 333, 1040 x 1040 x 4096: there 96 x 96 tiles fill one round); not where the rounds are short
  // (K = 64 or 100), the strips wider (1048, 1056) or two passes beside a corner of more rounds (2057, 2064).
  for (const long long n : {1048, 1056}) named(n, "tensor_double_odd");
  for (const auto& [m, n, k] : {std::tuple{2049, 1025, 64}, std::tuple{1040, 1040, 64}, std::tuple{1025, 1025, 100}}) {
    INFO(m << "x" << n << "x" << k);
    CHECK(chose(plan_default(dense_shape(m, n, k), hopper, 8), "tensor_double_odd"));
  }
  for (const long long n : {1089LL, 1100LL, 1152LL, 1216LL, 2057LL, 2064LL}) {
    const Plan whole = named(n, "in_place_64x64");
    CHECK(whole.corner_m == n);
    CHECK(whole.strips == StripWork::none);
  }
  const auto in_place_corner = [&](int m, int n, int k) {
    INFO(m << "x" << n << "x" << k);
    const Plan corner = plan_default(dense_shape(m, n, k), hopper, 8);
    CHECK(chose(corner, "in_place_64x64"));
    CHECK(corner.corner_m == m / 64 * 64);
    CHECK(corner.corner_n == n / 64 * 64);
    CHECK(corner.strips == StripWork::remainder_kernel);
  };
  for (const int n : {1025, 1032, 1033, 1040, 1217, 2049}) in_place_corner(n, n, n);
  in_place_corner(1032, 1027, 333);
  in_place_corner(1040, 1040, 4096);
  // Only where the strips are thin on both sides: 1025 x 1060 would leave 36 columns (its 96 x 96 tiles fill a round).
  const Plan wide_strip = plan_default(dense_shape(1025, 1060, 1025), hopper, 8);
  CHECK(wide_strip.strips == StripWork::none);
  CHECK(wide_strip.corner_m == 1025);
  CHECK(wide_strip.corner_n == 1060);
  // Below 1024 x 1024 and for batches, the rule before it: wide copy-engine tiles where they fill 9 in 10 units.
  CHECK(!bulk(plan_default(dense_shape(512, 512, 512), hopper, 8)));
  GemmShape batch = dense_shape(1024, 1024, 1024);
  batch.batch = 2;
  batch.a.stride = batch.b.stride = batch.c.stride = 1024 * 1024;
  CHECK(chose(plan_default(batch, hopper, 8), "bulk_double"));
  // Float never (wgmma or mma.sync); compute capability 8.0 has no copy engine; where the driver refused local memory
  // past what the device reports, mma.sync's double within it.
  for (tilegemm::MathMode math : {tilegemm::MathMode::ieee, tilegemm::MathMode::tf32x3, tilegemm::MathMode::tf32}) {
    CHECK(!bulk(plan_default(dense_shape(4096, 4096, 4096), hopper, 4, math)));
  }
  DeviceLimits a100 = hopper;
  a100.compute_capability = 80;
  CHECK(plan_default(dense_shape(4096, 4096, 4096), a100, 8).config.family == tilegemm::Family::tensor_cores);
  DeviceLimits refused = hopper;
  refused.sm90a_local_memory_refused = true;
  CHECK(plan_default(dense_shape(4096, 4096, 4096), refused, 8).config.family == tilegemm::Family::tensor_cores);
  // Named, it runs double only, from compute capability 9.0 on, and says so before anything is built.
  CHECK_THROWS_AS(plan_product(plan.config, dense_shape(4096, 4096, 4096), a100, 8), tilegemm::Error);
  CHECK_THROWS_AS(plan_product(plan.config, dense_shape(4096, 4096, 4096), hopper, 4), tilegemm::Error);
}

// A plan of K in `slices` slices of `k_per_slice` as a batch over the built-in entry's tiles that read A and B in place
// (plan_in_place_split).
void check_in_place_split(const Plan& plan, std::string_view entry, int slices, int k_per_slice) {
  CHECK(chose(plan, entry));
  CHECK(!plan.a.packed);
  CHECK(!plan.b.packed);
  CHECK(plan.slices == slices);
  CHECK(plan.k_per_slice == k_per_slice);
  CHECK(plan.depth == k_per_slice);
  CHECK(plan.global[2] == static_cast<std::size_t>(slices));
}

// Double with long K where C is small (plan_split_k_default's shapes), on a GPU with FP64 tensor cores: the 64 x 64
// tiles in place, their slices of K as a batch (plan_in_place_split), in the number of slices that divides K and the
// cost model puts first; A and B step along K in either layout; the ordinary units' split-K where no number of slices
// at least in_place_slice_depth deep divides K, in float, without tensor cores, and for batches.
TEST_CASE("double with long K splits K over the tiles in place on FP64 tensor cores", "[unit][plan][tensor_cores]") {
  const DeviceLimits hopper = h200_with_tensor_cores();
  const auto in_place_split = [](const Plan& plan, int slices, int k_per_slice) {
    check_in_place_split(plan, "in_place_64x64", slices, k_per_slice);
  };
  // 4 tiles of C: 64 slices keep two work-groups a compute unit (256 of 264); each 2048 deep.
  const Plan nn = plan_default(dense_shape(128, 128, 131072), hopper, 8);
  in_place_split(nn, 64, 2048);
  CHECK(nn.a.stride == 2048 * 128);  // A(m, k) at m + k lda
  CHECK(nn.b.stride == 2048);        // B(k, n) at k + n ldb
  CHECK(nn.c_stride == 128 * 128);   // dense slices of the workspace
  const Plan tt = plan_default(dense_shape(128, 128, 131072, true, true), hopper, 8);
  in_place_split(tt, 64, 2048);
  CHECK(tt.a.stride == 2048);
  CHECK(tt.b.stride == 2048 * 128);
  in_place_split(plan_default(dense_shape(256, 256, 16384), hopper, 8), 16, 1024);
  in_place_split(plan_default(dense_shape(64, 64, 65536), hopper, 8), 256, 256);
  // 36 tiles: more slices even out the compute units' loads (32 slices: 9 tiles on the busiest, 512 deep each).
  in_place_split(plan_default(dense_shape(384, 384, 16384), hopper, 8), 32, 512);
  // A K with no divisor that gives slices at least 256 deep (131071 is prime), float in IEEE arithmetic, and a device
  // without tensor cores: the ordinary units' split-K.
  CHECK(plan_default(dense_shape(128, 128, 131071), hopper, 8).config.splits_k);
  CHECK(plan_default(dense_shape(128, 128, 131072), hopper, 4).config.splits_k);
  CHECK(plan_default(dense_shape(128, 128, 131072), h200(), 8).config.splits_k);
  // Not where C fills the device: those are not split at all.
  CHECK(plan_default(dense_shape(2048, 2048, 65536), hopper, 8).slices == 1);
}

// Float with long K where C is small, in tf32, bf16 and fp16: the same slices of K as a batch, on the 64 x 64 float
// tiles in place (in_place_float_64x64) with float's figures; bf16 and fp16 keep wgmma's pieces along k where C has at
// least four of its tiles; tf32x3 (no faster so) and IEEE keep the ordinary units' split-K, as do a prime K and a
// device without tensor cores.
TEST_CASE("float with long K in tf32, bf16 and fp16 splits K over the tiles in place", "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const DeviceLimits hopper = h200_with_tensor_cores();
  DeviceLimits a100 = hopper;
  a100.compute_capability = 80;
  const auto in_place_split = [](const Plan& plan, int slices, int k_per_slice) {
    check_in_place_split(plan, "in_place_float_64x64", slices, k_per_slice);
  };
  for (const MathMode math : {MathMode::tf32, MathMode::bf16, MathMode::fp16}) {
    INFO(math_mode_name(math));
    // 4 tiles of C: 128 slices, four tiles on the busiest compute unit, each 1024 deep.
    const Plan nn = plan_default(dense_shape(128, 128, 131072), hopper, 4, math);
    in_place_split(nn, 128, 1024);
    CHECK(nn.variant.mma == (math == MathMode::tf32   ? MmaKind::tf32
                             : math == MathMode::bf16 ? MmaKind::bf16
                                                      : MmaKind::fp16));
    CHECK(nn.a.stride == 1024 * 128 / 4);  // in vectors of 4 floats
    CHECK(nn.b.stride == 1024 / 4);
    CHECK(nn.c_stride == 128 * 128);
    const Plan tt = plan_default(dense_shape(128, 128, 131072, true, true), hopper, 4, math);
    in_place_split(tt, 128, 1024);
    CHECK(tt.a.stride == 1024 / 4);
    CHECK(tt.b.stride == 1024 * 128 / 4);
    in_place_split(plan_default(dense_shape(64, 64, 65536), hopper, 4, math), 256, 256);
    // 50000 = 2^4 5^5: 125 slices of 400.
    in_place_split(plan_default(dense_shape(100, 100, 50000), hopper, 4, math), 125, 400);
    CHECK(plan_default(dense_shape(128, 128, 131071), hopper, 4, math).config.splits_k);
    CHECK(plan_default(dense_shape(128, 128, 131072), h200(), 4, math).config.splits_k);
  }
  // C of 16 and 64 tiles: in tf32 16 slices of 1024 and 8 of 1024; in bf16 and fp16 wgmma's pieces on 9.0, the
  // in-place slices on 8.0.
  in_place_split(plan_default(dense_shape(256, 256, 16384), hopper, 4, MathMode::tf32), 16, 1024);
  in_place_split(plan_default(dense_shape(512, 512, 8192), hopper, 4, MathMode::tf32), 8, 1024);
  CHECK(plan_default(dense_shape(256, 256, 16384), hopper, 4, MathMode::bf16).work == Work::sixteen_bit_wgmma);
  in_place_split(plan_default(dense_shape(256, 256, 16384), a100, 4, MathMode::bf16), 16, 1024);
  for (const MathMode math : {MathMode::tf32x3, MathMode::ieee}) {
    CHECK(plan_default(dense_shape(128, 128, 131072), hopper, 4, math).config.splits_k);
  }
}

TEST_CASE("bf16 and fp16 take wgmma on 16-bit core tiles on 9.0, mma.sync's 16-bit products on 8.0",
          "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const DeviceLimits hopper = h200_with_tensor_cores();
  DeviceLimits a100 = hopper;
  a100.compute_capability = 80;
  DeviceLimits refused = hopper;  // a driver that refused the wgmma kernels' local memory
  refused.sm90a_local_memory_refused = true;
  DeviceLimits turing = hopper;
  turing.compute_capability = 75;
  DeviceLimits cpu = h200();
  cpu.type = CL_DEVICE_TYPE_CPU;
  const DeviceLimits unread = h200();  // its compute capability not read
  for (const auto& [math, kind] :
       {std::pair{MathMode::bf16, MmaKind::bf16}, std::pair{MathMode::fp16, MmaKind::fp16}}) {
    INFO(math_mode_name(math));
    // On 9.0, past the in-place tiles (C up to 640 x 640), A and B rounded to the mode's type as they are packed into
    // 16-bit core tiles, wgmma m64nNk16 (the 16-bit storage's product): single products, odd sizes and batches.
    const SixteenBit element = math == MathMode::fp16 ? SixteenBit::half : SixteenBit::bfloat16;
    for (const auto& [m, n, k, batch, columns] :
         {std::tuple{4096, 4096, 4096, 1, 256}, std::tuple{700, 700, 700, 1, 128}, std::tuple{1025, 1025, 1025, 1, 128},
          std::tuple{641, 640, 640, 1, 128}, std::tuple{256, 256, 256, 100, 256}}) {
      INFO(m << "x" << n << "x" << k << " x" << batch);
      GemmShape shape = dense_shape(m, n, k);
      shape.batch = batch;
      shape.c.stride = batch > 1 ? m * n : 0;
      const Plan plan = plan_default(shape, hopper, 4, math);
      REQUIRE(plan.work == Work::sixteen_bit_wgmma);
      CHECK(plan.warpgroup16.float_operands);
      CHECK(plan.warpgroup16.element == element);
      CHECK(plan.warpgroup16.columns == columns);
      CHECK(plan.batch_count == batch);
      CHECK(beyond_reported_local_memory(plan, hopper, 4));  // refused by a driver, it is planned again without
      CHECK_THAT(choice_line(plan, shape, hopper, 4, math),
                 MESSAGE_CONTAINS("on 16-bit core tiles, A and B rounded to " +
                                  std::string(element == SixteenBit::half ? "half" : "bfloat16")));
    }
    CHECK(chose(plan_default(dense_shape(640, 640, 640), hopper, 4, math), "in_place_float_64x64"));
    // Large C elsewhere: the large tiles of 16-bit pairs (m16n8k16) on 8.0, and on 9.0 where the driver refused the
    // wgmma kernels, with the kind of the mode; small C: the small tiles (up to 640 x 640 of C in place, 64 x 64
    // tiles); just past a multiple of them, the odd tiles on the whole C.
    for (const DeviceLimits* device : std::initializer_list<const DeviceLimits*>{&a100, &refused}) {
      const Plan large = plan_default(dense_shape(4096, 4096, 4096), *device, 4, math);
      CHECK(chose(large, "tensor_16bit_large"));
      CHECK(large.variant.mma == kind);
      const Plan small = plan_default(dense_shape(700, 700, 700), *device, 4, math);
      CHECK(chose(small, "tensor_float_small"));
      CHECK(small.variant.mma == kind);
      const Plan smaller = plan_default(dense_shape(512, 512, 512), *device, 4, math);
      CHECK(chose(smaller, "in_place_float"));
      CHECK(smaller.variant.mma == kind);
      const Plan odd = plan_default(dense_shape(1025, 1025, 1025), *device, 4, math);
      CHECK(chose(odd, "tensor_float_odd"));
      CHECK(odd.strips == StripWork::none);
      CHECK(odd.variant.mma == kind);
    }
    // Double is the same in every mode: FP64 (on 9.0 the copy engine's family).
    CHECK(plan_default(dense_shape(4096, 4096, 4096), a100, 8, math).variant.mma == MmaKind::fp64_sm80);
    CHECK(plan_default(dense_shape(4096, 4096, 4096), hopper, 8, math).config.family ==
          tilegemm::Family::bulk_tensor_cores);
    // Without tensor cores (no compute capability read, 7.5, a CPU such as PoCL's) AutoConfig multiplies in IEEE FP32
    // on the other families, as it does for tf32; and small products and split-K's stay off them.
    for (const DeviceLimits* device : std::initializer_list<const DeviceLimits*>{&unread, &turing, &cpu}) {
      const Plan plan = plan_default(dense_shape(4096, 4096, 4096), *device, 4, math);
      CHECK(!plan.config.uses_tensor_cores);
      CHECK(plan.variant.mma == MmaKind::none);
    }
    CHECK(chose(plan_default(dense_shape(512, 512, 512), cpu, 4, math), "cpu"));
    CHECK(!plan_default(dense_shape(100, 100, 100), hopper, 4, math).config.uses_tensor_cores);
    // Long K: on 9.0 wgmma's tiles in pieces along k (16 slices, 1024 of k, each at least) where C has 4 of them at
    // least; where it has fewer (one work-group would sum 128 pieces) and elsewhere, K's slices as a batch over the
    // in-place tiles (the case above).
    const Plan long_k = plan_default(dense_shape(256, 256, 16384), hopper, 4, math);
    REQUIRE(long_k.work == Work::sixteen_bit_wgmma);
    CHECK(long_k.warpgroup16.split_tiles == 4);
    CHECK(long_k.warpgroup16.splits == 16);
    CHECK(plan_default(dense_shape(512, 512, 8192), hopper, 4, math).work == Work::sixteen_bit_wgmma);
    CHECK(chose(plan_default(dense_shape(128, 128, 131072), hopper, 4, math), "in_place_float_64x64"));
    CHECK(chose(plan_default(dense_shape(100, 100, 50000), hopper, 4, math), "in_place_float_64x64"));
    CHECK(chose(plan_default(dense_shape(256, 256, 16384), refused, 4, math), "in_place_float_64x64"));
    CHECK(chose(plan_default(dense_shape(256, 256, 16384), a100, 4, math), "in_place_float_64x64"));
    // The verbose line names the mode.
    CHECK_THAT(choice_line(plan_default(dense_shape(4096, 4096, 4096), a100, 4, math), dense_shape(4096, 4096, 4096),
                           a100, 4, math),
               MESSAGE_CONTAINS("4096x4096x4096 float-" + std::string(math_mode_name(math)) +
                                " on NVIDIA H200: "
                                "tensor_cores 128x128x16 8x16 v4 s2"));
  }
}

TEST_CASE("a configuration named for bf16 or fp16 is refused where it cannot run them, before anything is built",
          "[unit][plan][errors][tensor_cores]") {
  using tilegemm::MathMode;
  const auto refusal = [](const KernelDescription& config, const DeviceLimits& device, MathMode math) -> std::string {
    PlanOptions options;
    options.math = math;
    try {
      plan_product(config, dense_shape(256, 256, 64), device, 4, options);
    } catch (const tilegemm::Error& e) {
      return std::to_string(e.code()) + " " + e.what();
    }
    return "planned";
  };
  const KernelDescription& tensor = describe<tilegemm::TensorCores<64, 64, 16, 32, 32, 2>>;
  for (MathMode math : {MathMode::bf16, MathMode::fp16}) {
    INFO(math_mode_name(math));
    // No tensor cores: the device's refusal, as in every mode.
    CHECK_THAT(refusal(tensor, h200(), math),
               CONTAINS_ALL2(std::to_string(CL_INVALID_DEVICE), "needs an NVIDIA GPU of compute capability 8.0"));
    CHECK(refusal(tensor, h200_with_tensor_cores(), math) == "planned");
    // Slices 4 deep are too shallow for m16n8k8.
    CHECK_THAT(refusal(describe<tilegemm::TensorCores<128, 128, 4, 64, 32, 4>>, h200_with_tensor_cores(), math),
               CONTAINS_ALL3(std::to_string(CL_INVALID_OPERATION),
                             "has slices 4 deep, and the math mode " + std::string(math_mode_name(math)),
                             "it needs TSK a multiple of 8"));
    // The warpgroup_mma family: float operands in TF32 only (its 16-bit form serves 16-bit matrices).
    CHECK_THAT(refusal(describe<tilegemm::WarpgroupMma<128, 128, 32, 3>>, h200_with_tensor_cores(), math),
               CONTAINS_ALL2(std::to_string(CL_INVALID_OPERATION), "wgmma on 16-bit operands serves 16-bit matrices"));
  }
  // The ieee mode's refusal names the 16-bit modes among the choices.
  CHECK_THAT(refusal(tensor, h200_with_tensor_cores(), MathMode::ieee),
             MESSAGE_CONTAINS("MathMode::tf32, MathMode::bf16 or MathMode::fp16"));
}

TEST_CASE(
    "the default plan takes wgmma for tf32 and tf32x3 on compute capability 9.0 where C has a 64 x 128 tile for half "
    "the compute units",
    "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const DeviceLimits hopper = h200_with_tensor_cores();
  const auto warpgroup = [](const Plan& plan) { return plan.config.family == tilegemm::Family::warpgroup_mma; };
  const Plan plan = plan_default(dense_shape(3073, 3072, 3000), hopper, 4, MathMode::tf32);
  REQUIRE(warpgroup(plan));
  CHECK(plan.config.name() == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(plan.variant.mma == MmaKind::tf32);
  // tf32: all of C in tiles, A packed into core tiles of 128 x 32 (padded to whole tiles), B (K-contiguous, 16-byte
  // aligned) read through a tensor map, K padded to whole slices.
  CHECK(plan.strips == StripWork::none);
  CHECK(plan.corner_m == 3073);
  CHECK(plan.global[0] == 25 * 64);
  CHECK(plan.global[1] == 12 * 4);
  CHECK(plan.depth == 3008);  // 94 slices of 32
  CHECK(plan.a.packed);
  CHECK(plan.a.tile_inner == 32);
  CHECK(plan.a.offset == 0);
  CHECK(plan.a.tile_outer == 128);
  CHECK(plan.a.outer_padded == 25 * 128);
  CHECK(!plan.b.packed);
  CHECK(plan.b.mapped);
  CHECK(plan.b.ld == 3000);
  // tf32x3 (3 tiles of 128 x 128 for 2 compute units: 600): the 3072 x 3072 corner in tiles 32 deep, the last row of C
  // by the remainder kernel beside the tiles, which take more than one round: 384 work-groups of 8 columns.
  const Plan split = plan_default(dense_shape(3073, 3072, 3000), hopper, 4, MathMode::tf32x3);
  REQUIRE(warpgroup(split));
  CHECK(split.config.name() == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(split.variant.mma == MmaKind::tf32x3);
  CHECK(split.strips == StripWork::remainder_kernel);
  CHECK(!split.variant.strips);
  CHECK(split.corner_m == 3072);
  CHECK(split.corner_n == 3072);
  CHECK(split.strip_groups.right == 0);
  CHECK(split.strip_groups.bottom == 384);
  CHECK(split.global[0] == 24 * 64);
  CHECK(split.global[1] == 24 * 4);
  // One round of tiles (1025^3: 64 x 128 tiles 16 deep): the strips by work-groups of the same launch, 32 rows or
  // columns each, past the tiles' 8 rows of work-groups in dimension 1.
  const Plan one_round = plan_default(dense_shape(1025, 1025, 1025), hopper, 4, MathMode::tf32x3);
  CHECK(one_round.config.name() == "warpgroup_mma 64x128x16 2x32 s8");
  CHECK(one_round.strips == StripWork::fused);
  CHECK(one_round.variant.strips);
  CHECK(one_round.strip_groups.total() == 33 + 32);
  CHECK(one_round.tile_rows == 8);
  CHECK(split.depth == 3008);
  CHECK(split.a.parts == 2);
  CHECK(split.a.outer_padded == 24 * 128);
  // Strips wider than 16 (3000 = 23 x 128 + 56): all of C in tiles, the packed copies padded.
  const Plan whole = plan_default(dense_shape(3000, 3000, 3000), hopper, 4, MathMode::tf32x3);
  REQUIRE(warpgroup(whole));
  CHECK(whole.strips == StripWork::none);
  CHECK(whole.corner_m == 3000);
  CHECK(whole.global[0] == 24 * 64);
  CHECK(whole.a.outer_padded == 24 * 128);
  // tf32: 64 x 128 tiles where C has fewer 128 x 128 ones than compute units (1408^2 has 121 of the H200's 132);
  // else 128 x 256 where 1.75 times their rounds are fewer than those of 128 x 128 tiles: 4096^2 has 4 rounds of them
  // against 8, 4097^2 5 against 9, 2048^2 1 against 2, 1536^2 1 against 2 (72 and 144 tiles); not 3072^2, 3 against 5.
  const auto name = [&](int n, MathMode math) {
    return plan_default(dense_shape(n, n, n), hopper, 4, math).config.name();
  };
  CHECK(name(6144, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(4096, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(4097, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(2048, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(1536, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(3072, MathMode::tf32) == "warpgroup_mma 128x256x32 2x64 s4");
  CHECK(name(2304, MathMode::tf32) == "warpgroup_mma 128x128x32 2x32 s3");  // 2 rounds of 162 tiles, 3 of 324
  CHECK(name(1408, MathMode::tf32) == "warpgroup_mma 64x128x32 2x32 s4");
  CHECK(name(1024, MathMode::tf32) == "warpgroup_mma 64x128x32 2x32 s4");
  // tf32x3: 64 x 128 tiles 32 deep in 8 buffers where the tiled corner of C has at most one of them a compute unit
  // (1024^2 and the 1024^2 corners of 1025^2 to 1040^2 have 128 for the H200's 132, 1041^2 153), else 128 x 128
  // tiles 32 deep in 6 buffers. The small tiles are 32 deep in 8 buffers where they cover all of C:
  CHECK(name(8192, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(2048, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(1792, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(1088, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(1041, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(1024, MathMode::tf32x3) == "warpgroup_mma 64x128x32 2x32 s8");
  CHECK(name(1000, MathMode::tf32x3) == "warpgroup_mma 64x128x32 2x32 s8");  // all of C in 16 x 8 tiles
  CHECK(name(768, MathMode::tf32x3) == "warpgroup_mma 64x128x32 2x32 s8");
  // Where strips up to 8 wide are left past the corner, 16 deep (96 KiB, room for the strips' work-groups beside the
  // tiles); wider strips with 128 x 128 tiles.
  CHECK(name(1025, MathMode::tf32x3) == "warpgroup_mma 64x128x16 2x32 s8");
  CHECK(name(1032, MathMode::tf32x3) == "warpgroup_mma 64x128x16 2x32 s8");
  CHECK(name(1033, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(name(1040, MathMode::tf32x3) == "warpgroup_mma 128x128x32 2x32 s6");
  CHECK(plan_default(dense_shape(1040, 1025, 1024), hopper, 4, MathMode::tf32x3).config.name() ==
        "warpgroup_mma 128x128x32 2x32 s6");  // the wider strip decides
  // Not below a 64 x 128 tile for half the compute units (66 of the H200's 132: 768^2 has 72, 640^2 50), nor in
  // ieee, in double, or on other compute capabilities (8.0 lacks wgmma; 10.0's PTX has no sm_90a instructions).
  CHECK(warpgroup(plan_default(dense_shape(1025, 1025, 1025), hopper, 4, MathMode::tf32x3)));
  CHECK(warpgroup(plan_default(dense_shape(768, 768, 768), hopper, 4, MathMode::tf32)));
  CHECK(warpgroup(plan_default(dense_shape(768, 768, 768), hopper, 4, MathMode::tf32x3)));
  CHECK(!warpgroup(plan_default(dense_shape(640, 640, 640), hopper, 4, MathMode::tf32)));
  CHECK(!warpgroup(plan_default(dense_shape(640, 640, 640), hopper, 4, MathMode::tf32x3)));
  CHECK(warpgroup(plan_default(dense_shape(1536, 1536, 256), hopper, 4, MathMode::tf32)));
  CHECK(!warpgroup(plan_default(dense_shape(4096, 4096, 4096), hopper, 4, MathMode::ieee)));
  CHECK(!warpgroup(plan_default(dense_shape(4096, 4096, 4096), hopper, 8, MathMode::tf32)));
  for (int capability : {80, 89, 100}) {
    DeviceLimits other = hopper;
    other.compute_capability = capability;
    CHECK(!warpgroup(plan_default(dense_shape(4096, 4096, 4096), other, 4, MathMode::tf32)));
  }
}

TEST_CASE("the default plan reads float operands in place on mma.sync where C is small, in every tensor math mode",
          "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const DeviceLimits hopper = h200_with_tensor_cores();
  DeviceLimits a100 = hopper;
  a100.compute_capability = 80;
  const auto in_place = [](int m, int n, int k, const DeviceLimits& device, MathMode math) {
    const Plan plan = plan_default(dense_shape(m, n, k), device, 4, math);
    return plan.config.family == tilegemm::Family::in_place_tensor_cores && plan.strips == StripWork::none &&
           plan.corner_m == m && plan.corner_n == n;
  };
  // C of at most 320,000 elements (in_place_float_c_up_to), one launch, in 32 x 32 tiles.
  for (const DeviceLimits& device : {hopper, a100}) {
    for (const auto& [m, n, k] :
         {std::tuple{256, 256, 256}, std::tuple{512, 512, 512}, std::tuple{513, 513, 513}, std::tuple{1024, 256, 512},
          std::tuple{300, 500, 700}, std::tuple{2048, 128, 512}, std::tuple{565, 566, 600}}) {
      INFO(m << "x" << n << "x" << k << " on " << device.compute_capability);
      CHECK(in_place(m, n, k, device, MathMode::tf32));
      CHECK(in_place(m, n, k, device, MathMode::tf32x3) == (m != 512));  // 512^3: IEEE's staged tiles, below
      CHECK(in_place(m, n, k, device, MathMode::bf16));
      CHECK(in_place(m, n, k, device, MathMode::fp16));
      CHECK(!in_place(m, n, k, device, MathMode::ieee));
    }
    // bf16 and fp16 past that in 64 x 64 tiles, up to 640 x 640 of C.
    CHECK(chose(plan_default(dense_shape(640, 640, 640), device, 4, MathMode::bf16), "in_place_float_64x64"));
    CHECK(chose(plan_default(dense_shape(512, 512, 512), device, 4, MathMode::fp16), "in_place_float"));
    CHECK(chose(plan_default(dense_shape(566, 566, 566), device, 4, MathMode::fp16), "in_place_float_64x64"));
    CHECK(!in_place(641, 640, 640, device, MathMode::fp16));
    const Plan square = plan_default(dense_shape(512, 512, 512), device, 4, MathMode::tf32);
    CHECK(chose(square, "in_place_float"));
    CHECK(!square.a.packed);  // (the operand policy may still pack a small operand of a large product: 2048 x 128)
    CHECK(!square.b.packed);
    CHECK(chose(plan_default(dense_shape(384, 384, 384), device, 4, MathMode::tf32x3), "in_place_float"));
    // tf32x3 takes IEEE's staged 64 x 32 tiles where they apply (as accurate, and faster there); tf32 does not.
    const Plan accurate = plan_default(dense_shape(512, 512, 512), device, 4, MathMode::tf32x3);
    CHECK(chose(accurate, "staged_64x32"));
    CHECK(accurate.variant.mma == MmaKind::none);
    CHECK(chose(plan_default(dense_shape(1024, 1024, 1024), device, 4, MathMode::tf32x3), "staged_64x32") == false);
    // Larger C: the packed plans (wgmma on 9.0 from 736^2); long K: split-K (in tf32 its slices as a batch on the
    // 64 x 64 tiles); too small a product: the ordinary units; batches: their own rules.
    CHECK(!in_place(566, 566, 600, device, MathMode::tf32));
    CHECK(!in_place(640, 640, 640, device, MathMode::tf32x3));
    const Plan long_k = plan_default(dense_shape(512, 512, 4096), device, 4, MathMode::tf32);
    CHECK(chose(long_k, "in_place_float_64x64"));
    CHECK(long_k.slices > 1);
    CHECK(!in_place(200, 200, 200, device, MathMode::tf32));
    GemmShape batch = dense_shape(256, 256, 256);
    batch.batch = 20;
    CHECK(plan_default(batch, device, 4, MathMode::tf32).config.family != tilegemm::Family::in_place_tensor_cores);
  }
  // Nor where there is no mma.sync.
  DeviceLimits turing = hopper;
  turing.compute_capability = 75;
  CHECK(!in_place(512, 512, 512, turing, MathMode::tf32));
}

TEST_CASE("a warpgroup_mma configuration is refused where it cannot run, before anything is built",
          "[unit][plan][errors][tensor_cores]") {
  using tilegemm::MathMode;
  using Warpgroup = tilegemm::WarpgroupMma<128, 128, 8, 6>;
  PlanOptions options;
  options.math = MathMode::tf32;
  DeviceLimits ampere = h200_with_tensor_cores();
  ampere.compute_capability = 80;
  // "planned", or the code and message of the tilegemm::Error that refused the configuration.
  const auto refusal = [&](const DeviceLimits& device, std::size_t scalar_size, MathMode math,
                           const KernelDescription& config = describe<Warpgroup>) -> std::string {
    options.math = math;
    try {
      plan_product(config, dense_shape(256, 256, 64), device, scalar_size, options);
    } catch (const tilegemm::Error& e) {
      return std::to_string(e.code()) + " " + e.what();
    }
    return "planned";
  };
  CHECK_THAT(refusal(ampere, 4, MathMode::tf32),
             CONTAINS_ALL3(std::to_string(CL_INVALID_DEVICE),
                           "warpgroup_mma 128x128x8 2x32 s6 multiplies on tensor cores through wgmma, which needs an "
                           "NVIDIA GPU of compute capability 9.0 (H100, H200)",
                           "has compute capability 8.0"));
  CHECK_THAT(refusal(h200(), 4, MathMode::tf32), MESSAGE_CONTAINS("is not one"));
  CHECK_THAT(refusal(h200_with_tensor_cores(), 8, MathMode::tf32),
             CONTAINS_ALL3(std::to_string(CL_INVALID_OPERATION), "on TF32 tensor cores only", "product is in double"));
  CHECK_THAT(refusal(h200_with_tensor_cores(), 4, MathMode::ieee),
             CONTAINS_ALL2("the math mode ieee rules them out", "Choose MathMode::tf32x3 or MathMode::tf32"));
  CHECK(refusal(h200_with_tensor_cores(), 4, MathMode::tf32) == "planned");
  CHECK(refusal(h200_with_tensor_cores(), 4, MathMode::tf32x3) == "planned");
  // Local memory: the device reports 48 KiB, but a kernel of sm_90a may have 227 KiB (runtime/sm90a_local_memory.hpp);
  // 128 x 256 x 32 in 3 buffers takes 144 KiB and 48 bytes, in 6 buffers more than 227 KiB.
  const KernelDescription deep = describe<tilegemm::WarpgroupMma<128, 256, 32, 3>>;
  CHECK(local_memory_limit(deep, h200_with_tensor_cores()) == 227 * 1024);
  CHECK(local_memory_limit(deep, ampere) == 48 * 1024);
  CHECK(local_memory_limit(describe<tilegemm::TensorCores<128, 128, 16, 64, 32, 3>>, h200_with_tensor_cores()) ==
        48 * 1024);
  CHECK(config_fits(deep, h200_with_tensor_cores(), 4));
  // Where the driver refused it (run_gemm marks the device), only what the device reports, and AutoConfig plans
  // within that: mma.sync's tensor_cores family on this description, in both modes.
  DeviceLimits refused = h200_with_tensor_cores();
  refused.sm90a_local_memory_refused = true;
  CHECK(local_memory_limit(deep, refused) == 48 * 1024);
  CHECK(!config_fits(deep, refused, 4));
  for (MathMode math : {MathMode::tf32, MathMode::tf32x3}) {
    const Plan within = plan_default(dense_shape(4096, 4096, 4096), refused, 4, math);
    CHECK(within.config.family == tilegemm::Family::tensor_cores);
    CHECK(within.config.local_memory_elements * 4 <= 48 * 1024);
    const Plan wide = plan_default(dense_shape(4096, 4096, 4096), h200_with_tensor_cores(), 4, math);
    CHECK(beyond_reported_local_memory(wide, h200_with_tensor_cores(), 4));
    CHECK(!beyond_reported_local_memory(within, refused, 4));
  }
  // The errors that say the driver refused it: a failed build (of the source or of the retargeted PTX) or launch.
  CHECK(refuses_local_memory(tilegemm::Error(CL_BUILD_PROGRAM_FAILURE, "build")));
  CHECK(refuses_local_memory(tilegemm::Error(CL_INVALID_BINARY, "binary")));
  CHECK(refuses_local_memory(tilegemm::Error(CL_OUT_OF_RESOURCES, "launch")));
  CHECK(!refuses_local_memory(tilegemm::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "a buffer")));
  options.math = MathMode::tf32;
  CHECK(plan_product(deep, dense_shape(4096, 4096, 4096), h200_with_tensor_cores(), 4, options).config.name() ==
        deep.name());
  CHECK_THAT(refusal(h200_with_tensor_cores(), 4, MathMode::tf32, describe<tilegemm::WarpgroupMma<128, 256, 32, 6>>),
             CONTAINS_ALL3(std::to_string(CL_OUT_OF_RESOURCES), "needs 295008 bytes of local memory", "has 232448"));
  // tf32x3's slices take two buffers each (high and low parts): 6 stages at least; and it sums at most 32 of k on the
  // tensor cores (the error bound): slices 40 deep only in tf32.
  CHECK_THAT(refusal(h200_with_tensor_cores(), 4, MathMode::tf32x3, describe<tilegemm::WarpgroupMma<128, 128, 8, 4>>),
             CONTAINS_ALL2(std::to_string(CL_INVALID_OPERATION), "needs Stages of at least 6, or the tf32 mode"));
  CHECK_THAT(refusal(h200_with_tensor_cores(), 4, MathMode::tf32x3, describe<tilegemm::WarpgroupMma<64, 128, 40, 6>>),
             CONTAINS_ALL2(std::to_string(CL_INVALID_OPERATION), "needs TSK of at most 32, or the tf32 mode"));
  CHECK(refusal(h200_with_tensor_cores(), 4, MathMode::tf32, describe<tilegemm::WarpgroupMma<64, 128, 40, 6>>) ==
        "planned");
  options.math = MathMode::tf32x3;
  // In tf32x3 each operand's copy holds a high and a low image of every slice.
  const Plan split = plan_product(describe<Warpgroup>, dense_shape(256, 200, 64), h200_with_tensor_cores(), 4, options);
  CHECK(split.variant.mma == MmaKind::tf32x3);
  CHECK(split.a.parts == 2);
  CHECK(split.b.parts == 2);
  CHECK(copy_elements(split.b) == 2 * 256 * 64);
  CHECK(split.b.stride == copy_elements(split.b));
}

TEST_CASE(
    "warpgroup_mma reads 16-byte aligned operands through tensor maps in tf32: K-contiguous ones, and A in either "
    "layout",
    "[unit][plan][tensor_cores]") {
  using tilegemm::MathMode;
  const KernelDescription wide = describe<tilegemm::WarpgroupMma<128, 256, 32, 4>>;
  PlanOptions tf32;
  tf32.math = MathMode::tf32;
  const DeviceLimits hopper = h200_with_tensor_cores();
  // Which operands a plan maps: B where it is not stored transposed (K-contiguous; wgmma reads B K-major from local
  // memory), A either way (M-contiguous, wgmma takes its fragments from registers), and the local memory of A's boxes.
  // An NT product packs B alone.
  const auto mapped = [&](const GemmShape& s, const DeviceLimits& device = h200_with_tensor_cores(),
                          const KernelDescription& config = describe<tilegemm::WarpgroupMma<128, 256, 32, 4>>,
                          MathMode math = MathMode::tf32) {
    PlanOptions options;
    options.math = math;
    const Plan plan = plan_product(config, s, device, 4, options);
    CHECK(plan.variant.flag_a == plan.a.mapped);
    CHECK(plan.variant.flag_b == plan.b.mapped);
    CHECK(plan.variant.outer_a == (plan.a.mapped && !s.trans_a));
    CHECK(plan.a.packed != plan.a.mapped);
    CHECK(plan.b.packed != plan.b.mapped);
    if (plan.a.mapped) CHECK(plan.a.k_contiguous == s.trans_a);
    if (plan.b.mapped) CHECK(plan.b.k_contiguous);
    return std::pair{plan.a.mapped, plan.b.mapped};
  };
  CHECK(mapped(dense_shape(1024, 1024, 1024)) == std::pair{true, true});
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false)) == std::pair{true, true});
  CHECK(mapped(dense_shape(1024, 1024, 1024, false, true)) == std::pair{true, false});
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, true)) == std::pair{true, false});
  // The two layouts of A are two programs.
  PlanOptions options;
  options.math = MathMode::tf32;
  const Plan nn = plan_product(wide, dense_shape(1024, 1024, 1024), hopper, 4, options);
  const Plan tn = plan_product(wide, dense_shape(1024, 1024, 1024, true, false), hopper, 4, options);
  CHECK(whole_text(gemm_program(nn.config, false, nn.variant)).find("#define A_MAPPED 2") != std::string::npos);
  CHECK(whole_text(gemm_program(tn.config, false, tn.variant)).find("#define A_MAPPED 1") != std::string::npos);
  // The mapped operand is the caller's: its offset and leading dimension, K and the corner's rows for the map.
  GemmShape offset = dense_shape(1000, 700, 300, true, false);
  offset.a = {8, 304};
  offset.b = {12, 300};
  const Plan plan = plan_product(wide, offset, hopper, 4, tf32);
  CHECK(plan.a.offset == 8);
  CHECK(plan.a.ld == 304);
  CHECK(plan.b.offset == 12);
  CHECK(plan.b.ld == 300);
  CHECK(plan.depth == 320);
  CHECK_THAT(choice_line(plan, offset, hopper, 4, MathMode::tf32),
             MESSAGE_CONTAINS("warpgroup_mma 128x256x32 2x64 s4, A and B read through tensor maps (forced"));
  // Not where the copies cannot read the start or a leading dimension (16 bytes: 4 floats), not in tf32x3 (split
  // operands), not with slices of other depths than a box's 32, not for batches, not where the device failed to make
  // maps.
  GemmShape misaligned = dense_shape(512, 512, 512);
  misaligned.b = {2, 512};
  CHECK(mapped(misaligned) == std::pair{true, false});
  misaligned.b = {0, 514};
  CHECK(mapped(misaligned) == std::pair{true, false});
  misaligned.b = {4, 516};
  CHECK(mapped(misaligned) == std::pair{true, true});
  misaligned.a = {2, 512};
  CHECK(mapped(misaligned) == std::pair{false, true});
  misaligned.a = {0, 514};
  CHECK(mapped(misaligned) == std::pair{false, true});
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false), hopper, describe<tilegemm::WarpgroupMma<128, 128, 32, 6>>,
               MathMode::tf32x3) == std::pair{false, false});
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false), hopper, describe<tilegemm::WarpgroupMma<128, 128, 16, 4>>) ==
        std::pair{false, false});
  GemmShape batch = dense_shape(256, 256, 256);
  batch.batch = 4;
  batch.a.stride = batch.b.stride = batch.c.stride = 256 * 256;
  CHECK(mapped(batch) == std::pair{false, false});
  DeviceLimits refused = h200_with_tensor_cores();
  refused.tensor_maps_refused = true;
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false), refused) == std::pair{false, false});
  // Nor where the kernel's local memory fits but not with the mapped slices' alignment (1 KiB more).
  DeviceLimits tight = h200_with_tensor_cores();
  tight.sm90a_local_memory_refused = true;  // the device's own figure then
  tight.local_memory_bytes = wide.local_memory_elements * 4 + 512;
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false), tight) == std::pair{false, false});
  tight.local_memory_bytes = mapped_local_memory_bytes(wide, 4);
  CHECK(mapped(dense_shape(1024, 1024, 1024, true, false), tight) == std::pair{true, true});
  // An M-contiguous A's boxes hold 8 rows more per warpgroup in every buffer.
  CHECK(mapped(dense_shape(1024, 1024, 1024), tight) == std::pair{false, true});
  CHECK(mapped_local_memory_bytes(wide, 4, true) == mapped_local_memory_bytes(wide, 4) + 4 * 2 * 8 * 32 * 4);
  tight.local_memory_bytes = mapped_local_memory_bytes(wide, 4, true);
  CHECK(mapped(dense_shape(1024, 1024, 1024), tight) == std::pair{true, true});
  // Other families never map.
  const Plan tensor = plan_product(describe<tilegemm::TensorCores<64, 64, 16, 32, 32, 2>>,
                                   dense_shape(1024, 1024, 1024), hopper, 4, tf32);
  CHECK(!tensor.a.mapped);
  CHECK(!tensor.b.mapped);
  // AutoConfig's tf32 choice reads both so, at every size, and says how it reads A.
  for (int n : {1024, 2048, 4096, 8192}) {
    const Plan chosen = plan_default(dense_shape(n, n, n), hopper, 4, MathMode::tf32);
    CHECK(chosen.config.family == tilegemm::Family::warpgroup_mma);
    CHECK(chosen.a.mapped);
    CHECK(chosen.b.mapped);
    CHECK(chosen.variant.outer_a);
    CHECK_THAT(choice_line(chosen, dense_shape(n, n, n), hopper, 4, MathMode::tf32),
               MESSAGE_CONTAINS("A and B read through tensor maps (A's fragments loaded into registers)"));
  }
  CHECK(plan_default(dense_shape(4096, 4096, 4096, true, false), hopper, 4, MathMode::tf32).a.mapped);
}

TEST_CASE("a tensor_cores configuration is refused where it cannot run, before anything is built",
          "[unit][plan][errors][tensor_cores]") {
  using tilegemm::MathMode;
  using Tensor = tilegemm::TensorCores<64, 64, 16, 32, 32, 2>;
  PlanOptions tf32x3;
  tf32x3.math = MathMode::tf32x3;
  DeviceLimits turing = h200();
  turing.compute_capability = 75;
  for (const DeviceLimits& device : {h200(), turing}) {
    for (std::size_t scalar_size : {4, 8}) {
      try {
        plan_product(describe<Tensor>, dense_shape(64, 64, 64), device, scalar_size, tf32x3);
        FAIL("planned on a device without tensor cores");
      } catch (const tilegemm::Error& e) {
        CHECK(e.code() == CL_INVALID_DEVICE);
        const std::string what = e.what();
        CHECK(what.find("tensor_cores 64x64x16 4x8 v4 s2 multiplies on tensor cores through mma.sync, which needs an "
                        "NVIDIA GPU of compute capability 8.0 or newer") != std::string::npos);
        CHECK(what.find(device.compute_capability == 75 ? "has compute capability 7.5" : "is not one") !=
              std::string::npos);
      }
    }
  }
  // Float in the ieee mode stays off the tensor cores.
  CHECK(error_code([&] { plan_product(describe<Tensor>, dense_shape(64, 64, 64), h200_with_tensor_cores(), 4); }) ==
        CL_INVALID_OPERATION);
  const Plan plan = plan_product(describe<Tensor>, dense_shape(64, 64, 64), h200_with_tensor_cores(), 4, tf32x3);
  CHECK(plan.variant.mma == MmaKind::tf32x3);
  CHECK(plan.local[0] == 16);  // 4 warps: 2 x 2 of 32 x 32, 8 x 4 lanes each
  CHECK(plan.local[1] == 8);
  CHECK(plan.global[0] == 16);
  CHECK(plan.global[1] == 8);
  CHECK(plan.depth == 64);
}

TEST_CASE("a plan the device cannot run is none for the planner and the refusal for a named configuration",
          "[unit][plan][errors]") {
  DeviceLimits narrow = h200();
  narrow.max_work_group_size = 128;
  CHECK(!plan_if_fits(describe<Prefetch64>, dense_shape(64, 64, 64), narrow, 4));
  CHECK(error_code([&] { plan_product(describe<Prefetch64>, dense_shape(64, 64, 64), narrow, 4); }) ==
        CL_INVALID_WORK_GROUP_SIZE);
  // A packed copy larger than the device's largest buffer: none; named, its sentence.
  DeviceLimits small_buffers = h200();
  small_buffers.max_alloc_bytes = 1 << 20;
  using Packed = tilegemm::RegisterBlocking<64, 64, 16, 4, 4>;
  CHECK(!plan_if_fits(describe<Packed>, dense_shape(1001, 1001, 1001), small_buffers, 4));
  CHECK_THROWS_WITH(plan_product(describe<Packed>, dense_shape(1001, 1001, 1001), small_buffers, 4),
                    Catch::Matchers::Contains("the zero-padded copy of A that register_blocking"));
  // A batch for split-K, whose launch dimension 2 holds its slices: none; named, std::invalid_argument.
  GemmShape batch = dense_shape(64, 64, 64);
  batch.batch = 3;
  batch.c.stride = 64 * 64;
  batch.a.stride = batch.b.stride = 64 * 64;
  using Split = tilegemm::SplitK<64, 64, 16, 4, 4, 4>;
  CHECK(!plan_if_fits(describe<Split>, batch, h200(), 4));
  CHECK_THROWS_AS(plan_product(describe<Split>, batch, h200(), 4), std::invalid_argument);
  // Where it fits, the same plan either way.
  const std::optional<Plan> fits = plan_if_fits(describe<Prefetch64>, dense_shape(130, 70, 33), h200(), 4);
  REQUIRE(fits);
  const Plan named = plan_product(describe<Prefetch64>, dense_shape(130, 70, 33), h200(), 4);
  CHECK(fits->config.name() == named.config.name());
  CHECK(fits->global == named.global);
  CHECK(fits->a.packed == named.a.packed);
  CHECK(fits->b.packed == named.b.packed);
  CHECK(fits->variant.edges == named.variant.edges);
}

TEST_CASE("every entry of the built-in table obeys its family's rules, under one name", "[unit][plan]") {
  std::set<std::string_view> names;
  for (const BuiltinConfig& entry : builtin_configs) {
    INFO(entry.name);
    CHECK(names.insert(entry.name).second);
    CHECK(rule_broken(entry.config.family, entry.config.tile) == nullptr);
    CHECK(entry.serves != 0);
    CHECK(&builtin(entry.name) == &entry);
    CHECK(builtin_with(entry.config) == &entry);
    // The description at run time (as the tuner's file and the benchmark make it) is the table's.
    const std::optional<KernelDescription> again = describe_at_run_time(entry.config.family, entry.config.tile);
    REQUIRE(again);
    CHECK(again->name() == entry.config.name());
    CHECK(again->config_preamble.hash == entry.config.config_preamble.hash);
    // The GPU model's figures are for precisions the entry serves (one it serves without them is a rule's: the split
    // 128 x 64 tiles for long K in double).
    if (entry.model) {
      CHECK((!entry.model->in_float || (entry.serves & float_ieee) != 0));
      CHECK((!entry.model->in_double || (entry.serves & in_double) != 0));
      CHECK((entry.model->in_double || (entry.serves & in_double) == 0 || entry.name == "gpu_split_128x64"));
    }
  }
  CHECK(builtin_with(describe<tilegemm::Prefetch<64, 32, 16, 4, 2, 2>>) == nullptr);
}

TEST_CASE("AutoConfig's plan is of an entry of the built-in table that serves the product", "[unit][plan]") {
  using tilegemm::MathMode;
  DeviceLimits a100 = h200_with_tensor_cores();
  a100.compute_capability = 80;
  DeviceLimits cpu = h200();
  cpu.type = CL_DEVICE_TYPE_CPU;
  DeviceLimits little_local = h200();
  little_local.local_memory_bytes = 32 * 1024;
  const std::vector<DeviceLimits> devices = {h200(),
                                             h200_with_tensor_cores(),
                                             a100,
                                             cpu,
                                             little_local,
                                             with_work_groups(h200(), 64),
                                             with_work_groups(h200(), 8),
                                             with_work_groups(h200(), 2)};
  std::vector<GemmShape> shapes;
  for (const auto& [m, n, k] :
       {std::tuple{1, 1, 1}, std::tuple{100, 100, 100}, std::tuple{512, 512, 512}, std::tuple{600, 600, 600},
        std::tuple{768, 768, 768}, std::tuple{1000, 1000, 1000}, std::tuple{1024, 1024, 1024},
        std::tuple{1536, 1536, 1536}, std::tuple{2304, 2304, 2304}, std::tuple{4096, 4096, 256},
        std::tuple{1025, 1025, 1025}, std::tuple{2049, 1025, 1025}, std::tuple{4096, 4096, 4096},
        std::tuple{4097, 4097, 4097}, std::tuple{8192, 8192, 8192}, std::tuple{128, 128, 131072},
        std::tuple{64, 64, 65536}, std::tuple{8192, 64, 512}, std::tuple{64, 8192, 512}}) {
    shapes.push_back(dense_shape(m, n, k));
    shapes.push_back(dense_shape(m, n, k, true, true));
  }
  for (const auto& [m, count] :
       {std::pair{8, 10000}, std::pair{16, 1000}, std::pair{20, 10000}, std::pair{24, 1000}, std::pair{32, 10000},
        std::pair{64, 10000}, std::pair{65, 1000}, std::pair{256, 1000}}) {
    GemmShape s = dense_shape(m, m, m);
    s.batch = count;
    s.a.stride = s.b.stride = s.c.stride = m * m;
    shapes.push_back(s);
  }
  std::set<std::string_view> chosen;
  for (const DeviceLimits& device : devices) {
    for (const GemmShape& s : shapes) {
      for (const std::size_t size : {std::size_t(4), std::size_t(8)}) {
        for (const MathMode math : math_modes) {
          INFO(device.name << " cc " << device.compute_capability << ", " << s.m << "x" << s.n << "x" << s.k << " x"
                           << s.batch << ", scalar " << size << ", " << math_mode_name(math));
          const Plan plan = plan_default(s, device, size, math);
          if (plan.work == Work::sixteen_bit_wgmma) continue;  // no configuration of the table: the 16-bit product's
          const BuiltinConfig* entry = builtin_with(plan.config);
          REQUIRE(entry != nullptr);
          CHECK(plan.chosen == Chosen::model);
          CHECK(serves(*entry, size == sizeof(double), plan.config.uses_tensor_cores ? math : MathMode::ieee));
          chosen.insert(entry->name);
        }
      }
    }
  }
  // And it reaches every entry: the table holds no configuration the planner never takes.
  for (const BuiltinConfig& entry : builtin_configs) {
    INFO(entry.name);
    CHECK(chosen.count(entry.name) == 1);
  }
}

TEST_CASE("the 16-bit wgmma plan splits along k a last round of tiles that would leave half the units idle",
          "[unit][plan][tensor_cores]") {
  const DeviceLimits hopper = h200_with_tensor_cores();  // 132 compute units
  const auto plan = [&](long long m, long long n, long long k, long long batch = 1) {
    GemmShape s = dense_shape(m, n, k);
    s.batch = batch;
    s.c.stride = batch > 1 ? m * n : 0;
    const std::optional<Warpgroup16Plan> chosen = plan_warpgroup16(hopper, s, SixteenBit::bfloat16, false);
    REQUIRE(chosen);
    CHECK(chosen->split_tiles * chosen->splits <= 132);  // every piece finds a unit in the last round
    return *chosen;
  };
  // 4096: 32 x 16 tiles of 128 x 256, the last of 4 rounds 116 of 132 full: whole tiles only.
  const Warpgroup16Plan even = plan(4096, 4096, 4096);
  CHECK(even.columns == 256);
  CHECK(even.splits == 1);
  CHECK(even.split_tiles == 0);
  // 4097: 33 x 17 tiles, 4 rounds and 33 tiles: those in 4 pieces of 65 / 4 slices each.
  const Warpgroup16Plan odd = plan(4097, 4097, 4097);
  CHECK(odd.columns == 256);
  CHECK(odd.split_tiles == 33);
  CHECK(odd.splits == 4);
  // 257 x 257 x 4097: one round of 9 tiles of 128 x 128, in 4 pieces (a piece takes at least 16 slices: 65 / 16); with
  // k 2048, in 2; with k 1000 (16 slices), whole.
  const Warpgroup16Plan small = plan(257, 257, 4097);
  CHECK(small.columns == 128);
  CHECK(small.split_tiles == 9);
  CHECK(small.splits == 4);
  CHECK(plan(257, 257, 2048).splits == 2);
  CHECK(plan(257, 257, 1000).splits == 1);
  CHECK(plan(257, 257, 1000).split_tiles == 0);
  // Many small tiles in one round: 16 of 128 x 128 at 512 x 512 x 65536 in 8 pieces (132 / 16).
  CHECK(plan(512, 512, 65536).splits == 8);
  // Batches are not split (their problems fill the units).
  const Warpgroup16Plan batch = plan(257, 257, 4097, 3);
  CHECK(batch.splits == 1);
  CHECK(batch.split_tiles == 0);
}
