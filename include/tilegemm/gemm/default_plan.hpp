// gemm/default_plan: the configurations AutoConfig chooses from, and the rule that chooses one per device and shape.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include "../kernels/kernel_description.hpp"
#include "../runtime/device_limits.hpp"
#include "plan.hpp"
#include "shape_class.hpp"
#include "tuned_choices.hpp"

namespace tilegemm::detail {

// The candidates, in the order of default_candidates. The measurements behind the choice are in benchmarks/.
enum DefaultChoice : std::size_t {
  gpu_128x128,   // GPUs: C of many tiles
  gpu_128x64,    //
  gpu_64x128,    //
  gpu_64x64,     //
  gpu_32x32,     // GPUs: small C
  gpu_split_k,   // GPUs: C too small to fill the device while K is long
  cpu,           // processors (PoCL): vector arithmetic without barriers in the inner loop
  small_groups,  // devices whose work-groups hold fewer than 256 work-items: 64 of them
  tiny_groups,   // 8 work-items
  single_item,   // any device: one work-item per work-group
  batch_16x16,   // GPUs, batches of products of up to 16 x 16: one whole product per work-group
  batch_32x32,   // up to 32 x 32, its slices of K as deep as the tile
};
// clang-format off
inline constexpr std::array<KernelDescription, 12> default_candidates = {
    describe<Prefetch<128, 128, 8, 8, 8, 4>>, describe<Prefetch<128, 64, 8, 8, 8, 4>>,
    describe<Prefetch<64, 128, 16, 4, 8, 4>>, describe<Prefetch<64, 64, 16, 4, 4, 4>>,
    describe<Prefetch<32, 32, 16, 2, 2, 2>>,  describe<SplitK<64, 64, 16, 4, 4, 4>>,
    describe<WideTypes<16, 16>>,              describe<MoreWorkPerThread<16, 4>>,
    describe<MoreWorkPerThread<8, 8>>,        describe<Naive<1, 1>>,
    describe<Prefetch<16, 16, 16, 2, 2, 2>>,  describe<Prefetch<32, 32, 32, 2, 4, 2>>};
// clang-format on

// The tensor-core candidates (kernels/tensor_cores.hpp), taken where the device has tensor cores, the math mode
// allows them (double always, float in tf32x3 and tf32) and the product is large enough to gain from them: large
// tiles where C has a tile for every compute unit, else smaller ones. The fastest of those timed on an H200
// (benchmarks/README.md, h200-tensor-*.csv): 4 warps of 64 x 64 in float (5 slices 8 deep in tf32x3), 8 of 64 x 32
// in double (4 slices 4 deep; 128 x 64 tiles read 1.5 times as much per product and were 13% slower at 4096).
// A C just past a multiple of the tiles (a corner with strips) that 96 x 96 tiles cover whole in one round, one
// work-group per compute unit, takes those instead (tensor_*_odd): at 1025^3 the strips' launch and the packing
// that the corner needs added about 20 us to products of 46 to 79 us (H200), and the 64 x 64 tiles of the whole C
// would put three work-groups on some units where 1024 puts two (see odd_sizes_whole below).
enum TensorChoice : std::size_t {
  tensor_float_large,
  tensor_float_small,
  tensor_tf32_large,
  tensor_double_large,
  tensor_double_small,
  tensor_float_odd,
  tensor_double_odd,
};
// clang-format off
inline constexpr std::array<KernelDescription, 7> tensor_candidates = {
    describe<TensorCores<128, 128, 8, 64, 64, 5>>, describe<TensorCores<64, 64, 16, 32, 32, 3>>,
    describe<TensorCores<128, 128, 8, 64, 64, 4>>,
    describe<TensorCores<128, 128, 4, 64, 32, 4>>, describe<TensorCores<64, 64, 8, 32, 32, 4>>,
    describe<TensorCores<96, 96, 16, 48, 48, 3>>,  describe<TensorCores<96, 96, 4, 48, 24, 4>>};
// clang-format on
// Products with fewer multiply-adds than this stay on the other families: the packing of operands and the launches
// it adds are not paid back.
inline constexpr double tensor_cores_from_volume = 256.0 * 256.0 * 256.0;

// What the choice among the GPU candidates knows of each, measured on an NVIDIA H200 (benchmarks/README.md):
// how many of its work-groups one compute unit runs at once (from the registers per work-item the compiler
// reported, out of 64K per unit), its throughput once every unit is that busy, in TFLOP/s, per scalar, and
// whether its variant that reads an element at a time keeps up (see operand_policy.hpp).
struct CandidateModel {
  int resident_float;
  int resident_double;
  double tflops_float;
  double tflops_double;
  bool reads_elements_well;
};
inline constexpr std::array<CandidateModel, 5> gpu_models = {{
    {2, 1, 47.0, 19.8, true},   // gpu_128x128: 127 registers per work-item in float
    {4, 2, 45.7, 17.6, false},  // gpu_128x64: 127 (128 work-items); reading elements, 138 and 30% slower
    {3, 1, 41.1, 0.0, true},    // gpu_64x128: 80; in double it needs more than 48 KiB of local memory
    {4, 3, 34.4, 10.6, true},   // gpu_64x64: 64
    {8, 8, 18.4, 9.2, true},    // gpu_32x32
}};

// Whether the device can run candidate `choice` for elements of `scalar_size` bytes.
inline bool candidate_fits(std::size_t choice, const DeviceLimits& device, std::size_t scalar_size) {
  const KernelDescription& c = default_candidates[choice];
  return config_fits(c, device, scalar_size);
}

// For devices that none of the others fit: the first of the small-work-group candidates that fits (one
// work-item per work-group always does).
inline std::size_t fallback_for(const DeviceLimits& device, std::size_t scalar_size) {
  for (std::size_t choice : {small_groups, tiny_groups}) {
    if (candidate_fits(choice, device, scalar_size)) return choice;
  }
  return single_item;
}

// The tiles of C in t's shape.
inline long long tiles_of(const GemmShape& s, const TileShape& t) {
  return static_cast<long long>((s.m + t.tsm - 1) / t.tsm) * ((s.n + t.tsn - 1) / t.tsn);
}
// The tiles of all the products of a batch, which are all in one launch.
inline long long batch_tiles_of(const GemmShape& s, const TileShape& t) {
  return tiles_of(s, t) * std::max(s.batch, 1);
}

// Rows and columns of C that may be left outside the tiled corner for the strip code.
inline constexpr int thin_remainder = 16;

// The corner of an m x n C that whole tsm x tsn tiles cover, if what it leaves is thin (see kernels/strip.hpp);
// otherwise all of C.
inline std::pair<int, int> tiled_corner(int m, int n, int tsm, int tsn) {
  const int corner_m = m / tsm * tsm;
  const int corner_n = n / tsn * tsn;
  if (corner_m == 0 || corner_n == 0 || m - corner_m > thin_remainder || n - corner_n > thin_remainder) return {m, n};
  return {corner_m, corner_n};
}

// The options that tile `config`'s corner of C and leave the thin rest to the strip code, or put all of C in tiles
// where `whole_c` (a batch, split-K) or no strip code runs on the device.
inline PlanOptions corner_options(const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                                  std::size_t scalar_size, MathMode math, bool whole_c) {
  PlanOptions options;
  std::tie(options.corner_m, options.corner_n) = tiled_corner(s.m, s.n, config.tile.tsm, config.tile.tsn);
  if (whole_c || !strips_run_on(config, device, scalar_size)) {
    options.corner_m = s.m;
    options.corner_n = s.n;
  }
  options.math = math;
  return options;
}

// The estimated time of an m x n product (per unit of K), or of a batch of `batch` of them in one launch, with GPU
// candidate `choice`: its tiles (those of every problem) run in rounds of `resident` work-groups per compute unit,
// each round taking as long as `resident` tiles at the candidate's full throughput; the last round, with fewer
// work-groups on each unit, takes as long as the most any unit has.
inline double estimated_time(std::size_t choice, bool is_double, int m, int n, long long units, int batch = 1) {
  const int tsm = default_candidates[choice].tile.tsm;
  const int tsn = default_candidates[choice].tile.tsn;
  const CandidateModel& model = gpu_models[choice];
  const long long resident = is_double ? model.resident_double : model.resident_float;
  const double tflops = is_double ? model.tflops_double : model.tflops_float;
  const long long count = static_cast<long long>((m + tsm - 1) / tsm) * ((n + tsn - 1) / tsn) * batch;
  const long long full_rounds = count / (units * resident);
  const long long rest = count - full_rounds * units * resident;
  const long long last_round = (rest + units - 1) / units;  // work-groups on the busiest unit
  return static_cast<double>(full_rounds * resident + last_round) * tsm * tsn / tflops;
}

// The candidate for a batch of products of at most 32 x 32 on a GPU: the smallest whose tile holds a whole C, so that
// each work-group multiplies a whole problem (a batch of 32 x 32 x 32 products is bound by memory, and one tile per
// problem reads each operand once, with no idle rows); none for single products, larger problems (the model below
// chooses their tiles with the whole batch's) or candidates the device cannot run. Measured on an H200, 10,000
// products in one call (benchmark --batched, benchmarks/README.md): of 32 x 32 x 32 in 44 to 46 us with batch_32x32
// against 55 us with gpu_32x32; of 16 x 16 x 16 in 12 to 18 us with batch_16x16 against 30 us.
inline constexpr int whole_problems_up_to = 32;
inline bool small_batch_choice(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                               std::size_t& choice) {
  if (s.batch <= 1 || std::max(s.m, s.n) > whole_problems_up_to) return false;
  for (const std::size_t candidate : {batch_16x16, batch_32x32}) {
    const TileShape& tile = default_candidates[candidate].tile;
    if (s.m <= tile.tsm && s.n <= tile.tsn && candidate_fits(candidate, device, scalar_size)) {
      choice = candidate;
      return true;
    }
  }
  return false;
}

// A tensor-core plan with strips replaced by the 96 x 96 tiles of the whole C where those are at most one per
// compute unit (see TensorChoice). Measured on an H200 (whole calls, 1025^3, against the 64 x 64 corner with the
// remainder kernel): tf32 42.4 against 32.0 TFLOP/s (1024^3 with 64 x 64 tiles: 45.8), tf32x3 25.5 against 23.5
// (30.1), double 22.2 against 20.5 (27.2); strips in the tiles' own launch instead of the remainder kernel measured
// no faster. The plan stays as it is where the device cannot run those tiles.
inline void odd_sizes_whole(Plan& plan, const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                            MathMode math) {
  const KernelDescription& odd =
      tensor_candidates[scalar_size == sizeof(double) ? tensor_double_odd : tensor_float_odd];
  if (tiles_of(s, odd.tile) > static_cast<long long>(device.compute_units) || !config_fits(odd, device, scalar_size)) {
    return;
  }
  try {
    plan = plan_product(odd, s, device, scalar_size, corner_options(odd, s, device, scalar_size, math, true));
  } catch (const Error&) {
    // A packed copy larger than the device's largest buffer: keep the corner and its strips.
  }
}

// Float products in the tf32 and tf32x3 modes on wgmma (kernels/warpgroup_mma.hpp), where the device has it and C
// has a 64 x 128 tile for at least half the compute units. tf32x3 takes the tiled corner rule of the other
// candidates, the thin strips past it multiplied by extra work-groups of the same launch; tf32 all of C in tiles (the
// packed copies are padded). On an H200 (2026-11-27, whole calls, TFLOP/s) the corner and its strips took tf32x3 at
// 1025^3 from 31.3 to 38.2 (1024: 42.7), where C's 153 tiles had put two work-groups on some compute units and
// 1024's 128 put one, and at 4097 from 76.9 to 81.2 (the remainder kernel's launch instead: 33.1 at 1025); tf32,
// whose products take less than half as long, lost to the strips' SIMT arithmetic: 189 against 209 at 4097.
// Smaller products keep mma.sync's plans; batches count the tiles of all their products.
// The tiles, measured on an H200 (2026-11-27, benchmarks/h200-wgmma-tiles.csv, whole calls, TFLOP/s at 1024 / 2048 /
// 3072 / 4096 / 4097 / 8192): deep slices in local memory beyond the 48 KiB the device reports
// (runtime/sm90a_local_memory.hpp) ran fastest, where 48 KiB had held tf32 to 218 / 245 at 4096 / 8192 (64 x 256 x 8
// in 4 buffers).
// - tf32: 128 x 256 x 32 in 3 buffers (144 KiB, one work-group per compute unit) 51 / 204 / 204 / 281 / 230 / 315;
//   128 x 128 x 32 in 3 (96 KiB) 63 / 200 / 222 / 273 / 236 / 264; 64 x 128 x 32 in 4 (96 KiB) 70 / 189 / 215 / 246
//   / 216 / 212. The large tiles from 8 per compute unit (6144^2 up), so that 4097 (561 of them on 132 units: five
//   rounds where 4096 takes four) is not 0.82 of 4096; the smallest where 128 x 128 tiles leave compute units idle.
// - tf32x3: 128 x 128 x 32 in 6 buffers (192 KiB) 42 / 95 / 97 / 110 / 97 / 102; 64 x 128 x 16 in 8 (96 KiB)
//   46 / 91 / 93 / 101 / 92 / 88.
inline constexpr KernelDescription warpgroup_tf32_small = describe<WarpgroupMma<64, 128, 32, 4>>;
inline constexpr KernelDescription warpgroup_tf32 = describe<WarpgroupMma<128, 128, 32, 3>>;
inline constexpr KernelDescription warpgroup_tf32_large = describe<WarpgroupMma<128, 256, 32, 3>>;
inline constexpr KernelDescription warpgroup_tf32x3_small = describe<WarpgroupMma<64, 128, 16, 8>>;
inline constexpr KernelDescription warpgroup_tf32x3 = describe<WarpgroupMma<128, 128, 32, 6>>;
inline constexpr int warpgroup_large_tiles_per_unit = 8;
inline constexpr int warpgroup_tf32x3_tiles_per_unit = 4;
inline const KernelDescription& warpgroup_choice(const GemmShape& s, long long units, MathMode math) {
  if (math == MathMode::tf32x3) {
    return batch_tiles_of(s, warpgroup_tf32x3.tile) >= warpgroup_tf32x3_tiles_per_unit * units ? warpgroup_tf32x3
                                                                                               : warpgroup_tf32x3_small;
  }
  if (batch_tiles_of(s, warpgroup_tf32_large.tile) >= warpgroup_large_tiles_per_unit * units) {
    return warpgroup_tf32_large;
  }
  return batch_tiles_of(s, warpgroup_tf32.tile) >= units ? warpgroup_tf32 : warpgroup_tf32_small;
}
inline bool plan_warpgroup_mma(Plan& plan, const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                               MathMode math) {
  const long long units = static_cast<long long>(device.compute_units);
  const KernelDescription& config = warpgroup_choice(s, units, math);
  if (scalar_size == sizeof(double) || math == MathMode::ieee || !has_warpgroup_mma(device) ||
      2 * batch_tiles_of(s, warpgroup_tf32_small.tile) < units || !config_fits(config, device, scalar_size)) {
    return false;
  }
  try {
    const bool whole_c = math != MathMode::tf32x3 || s.batch > 1;  // the strip code takes single products
    plan = plan_product(config, s, device, scalar_size, corner_options(config, s, device, scalar_size, math, whole_c));
    return true;
  } catch (const Error&) {
    return false;  // a packed copy larger than the device's largest buffer
  }
}

// Double on the copy engine's pipeline (kernels/bulk_tensor_cores.hpp) where the device has it and C has a tile for
// every compute unit, all of C in tiles (the packed copies are padded). On an H200 (2026-11-27, whole calls, TFLOP/s
// at 4096 / 8192, cuBLAS DGEMM 46.8 / 47.7 in the same run): 128 x 128 x 32 in 3 buffers (203 KiB) 54.0 / 52.0;
// 128 x 128 x 16 in 3, 4 and 5 51.1 to 51.6 / 51.4; 128 x 128 x 8 in 6 45.9 / 46.0; 128 x 128 x 32 in 2 34.3 / 35.0;
// against 45.9 / 47.1 for the tensor_cores family's 128 x 128 x 4 in 4, which had been AutoConfig's.
inline constexpr KernelDescription bulk_double = describe<BulkTensorCores<128, 128, 32, 64, 32, 3>>;
inline bool plan_bulk_tensor_cores(Plan& plan, const GemmShape& s, const DeviceLimits& device,
                                   std::size_t scalar_size) {
  if (scalar_size != sizeof(double) || !has_copy_engine(device) ||
      batch_tiles_of(s, bulk_double.tile) < static_cast<long long>(device.compute_units) ||
      !config_fits(bulk_double, device, scalar_size)) {
    return false;
  }
  try {
    plan = plan_product(bulk_double, s, device, scalar_size,
                        corner_options(bulk_double, s, device, scalar_size, MathMode::ieee, true));
    return true;
  } catch (const Error&) {
    return false;  // a packed copy larger than the device's largest buffer
  } catch (const std::invalid_argument&) {
    return false;  // or past the kernels' 32-bit indices, padding in: the other tensor-core plans may read in place
  }
}

// The tensor-core plan of a product, where tensor cores run it (see TensorChoice and plan_warpgroup_mma), with the
// tiled corner rule of the other candidates (and odd_sizes_whole); false where they do not.
inline bool plan_tensor_cores(Plan& plan, const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                              MathMode math) {
  if (!has_tensor_cores(device) || !math_allows_tensor_cores(scalar_size, math) ||
      static_cast<double>(s.m) * s.n * s.k < tensor_cores_from_volume) {
    return false;
  }
  if (plan_warpgroup_mma(plan, s, device, scalar_size, math) || plan_bulk_tensor_cores(plan, s, device, scalar_size)) {
    return true;
  }
  const bool is_double = scalar_size == sizeof(double);
  const std::size_t large = is_double                ? tensor_double_large
                            : math == MathMode::tf32 ? tensor_tf32_large
                                                     : tensor_float_large;
  const std::size_t small = is_double ? tensor_double_small : tensor_float_small;
  const TileShape& t = tensor_candidates[large].tile;
  const long long large_tiles = batch_tiles_of(s, t);
  for (std::size_t choice : {large_tiles >= static_cast<long long>(device.compute_units) ? large : small, small}) {
    const KernelDescription& config = tensor_candidates[choice];
    if (!config_fits(config, device, scalar_size)) {
      continue;
    }
    const PlanOptions options = corner_options(config, s, device, scalar_size, math, s.batch > 1);
    try {
      plan = plan_product(config, s, device, scalar_size, options);
      if (plan.strips != StripWork::none) odd_sizes_whole(plan, s, device, scalar_size, math);
      return true;
    } catch (const Error&) {
      // A packed copy larger than the device's largest buffer: the other families read such operands in place.
    }
  }
  return false;
}

// The plan of a product with the tuner's winner for its class (a configuration read at run time, not necessarily one
// of the candidates above), where that winner runs on this device in this math mode; false otherwise (the model
// decides then). Tiled corner and strips as for the model's candidates.
inline bool plan_tuned(Plan& plan, const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                       std::size_t scalar_size, MathMode math) {
  if (!config_fits(config, device, scalar_size) ||
      (config.uses_tensor_cores && (!has_tensor_cores(device) || !math_allows_tensor_cores(scalar_size, math)))) {
    return false;
  }
  const PlanOptions options = corner_options(config, s, device, scalar_size, math, config.splits_k);
  try {
    plan = plan_product(config, s, device, scalar_size, options);
    plan.chosen = Chosen::tuned;
    return true;
  } catch (const Error&) {
    return false;  // e.g. a packed copy or a workspace larger than the device's largest buffer
  }
}

// The plan AutoConfig makes for a product on a device in a math mode: the candidate, the corner of C its tiles cover
// (the thin rest goes to the strip code) and how it takes the operands. Each GPU candidate is planned in full, so
// that the choice sees the edge mode the run will use. A batch of small products gets a whole problem per
// work-group (small_batch_choice); other batches are chosen for by the same rules and model with the tiles of the
// whole batch (many small products fill a device that one would not), without split-K or corners: one launch of
// whole tiles.
inline Plan plan_model(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                       MathMode math = MathMode::ieee) {
  if (device.type & CL_DEVICE_TYPE_CPU) {
    const std::size_t choice = candidate_fits(cpu, device, scalar_size) ? cpu : fallback_for(device, scalar_size);
    return plan_product(default_candidates[choice], s, device, scalar_size);
  }
  if (std::size_t choice = 0; small_batch_choice(s, device, scalar_size, choice)) {
    return plan_product(default_candidates[choice], s, device, scalar_size);
  }
  const long long units = device.compute_units > 0 ? device.compute_units : 1;
  const long long tiles_64 = static_cast<long long>((s.m + 63) / 64) * ((s.n + 63) / 64);
  if (s.batch <= 1 && tiles_64 * 2 < units && s.k >= 2048 && s.k >= 4 * std::max(s.m, s.n) &&
      candidate_fits(gpu_split_k, device, scalar_size)) {
    try {
      return plan_product(default_candidates[gpu_split_k], s, device, scalar_size);
    } catch (const Error&) {
      // Its workspace does not fit one buffer of the device: a single pass instead.
    }
  }
  if (Plan tensor; plan_tensor_cores(tensor, s, device, scalar_size, math)) return tensor;
  const bool is_double = scalar_size == sizeof(double);
  bool found = false;
  Plan best;
  double best_time = 0;
  for (std::size_t choice = gpu_128x128; choice <= gpu_32x32; ++choice) {
    if ((is_double ? gpu_models[choice].tflops_double : gpu_models[choice].tflops_float) <= 0 ||
        !candidate_fits(choice, device, scalar_size)) {
      continue;
    }
    const PlanOptions options =
        corner_options(default_candidates[choice], s, device, scalar_size, MathMode::ieee, s.batch > 1);
    Plan plan = plan_product(default_candidates[choice], s, device, scalar_size, options);
    // Operands that are neither whole tiles nor whole vectors are read an element at a time in small products
    // (see operand_policy.hpp), which some candidates do slowly.
    if (plan.variant.edges == EdgeMode::elements && !gpu_models[choice].reads_elements_well) continue;
    const double time = estimated_time(choice, is_double, options.corner_m, options.corner_n, units, s.batch);
    if (!found || time < best_time) {
      best = plan;
      best_time = time;
      found = true;
    }
  }
  return found ? best : plan_product(default_candidates[fallback_for(device, scalar_size)], s, device, scalar_size);
}

// AutoConfig's plan: the tuner's winner for the shape's class where `tuned` (the winners for this device and
// precision, gemm/tuned_configs.hpp; null: none) has one that runs here, else the model's (plan_model). A batch of
// several products always takes the model's: the tuner times single products.
inline Plan plan_default(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                         MathMode math = MathMode::ieee, const TunedChoices* tuned = nullptr) {
  bool confirmed = false;
  if (tuned != nullptr && s.batch <= 1) {
    const TunedChoice& choice = (*tuned)[static_cast<std::size_t>(shape_class(s.m, s.n, s.k))];
    if (Plan plan; choice.present && !choice.model && plan_tuned(plan, choice.config, s, device, scalar_size, math)) {
      return plan;
    }
    confirmed = choice.present && choice.model;
  }
  Plan plan = plan_model(s, device, scalar_size, math);
  plan.chosen = confirmed ? Chosen::model_tuned : Chosen::model;
  return plan;
}

}  // namespace tilegemm::detail
