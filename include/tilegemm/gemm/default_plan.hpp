// gemm/default_plan: the rule by which AutoConfig chooses a configuration (of gemm/builtin_configs.hpp, or the
// tuner's winner) per device and shape.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "../kernels/kernel_description.hpp"
#include "../runtime/device_limits.hpp"
#include "builtin_configs.hpp"
#include "plan.hpp"
#include "shape_class.hpp"
#include "tuned_choices.hpp"

namespace tilegemm::detail {

// Where the configurations come from (gemm/builtin_configs.hpp), named for the planner's rules below.
inline constexpr const BuiltinConfig& processor_default = builtin("cpu");
inline constexpr const BuiltinConfig& split_k_default = builtin("gpu_split_k");
inline constexpr const BuiltinConfig& split_k_wide = builtin("gpu_split_128x64");
inline constexpr std::array<const BuiltinConfig*, 3> small_device_defaults = {  // the first that fits, in order
    &builtin("small_groups"), &builtin("tiny_groups"), &builtin("single_item")};
inline constexpr std::array<const BuiltinConfig*, 8> small_batch_defaults = {  // the smallest that holds C, in order
    &builtin("batch_16x16"),        &builtin("batch_20x20"),        &builtin("batch_24x24"),
    &builtin("batch_32x32"),        &builtin("batch_16x16_double"), &builtin("batch_20x20_double"),
    &builtin("batch_24x24_double"), &builtin("batch_32x32_double")};
inline constexpr const BuiltinConfig& medium_batch_tiles = builtin("batch_64x64");
inline constexpr const BuiltinConfig& medium_batch_small_tiles = builtin("batch_32x32_slices");
inline constexpr const BuiltinConfig& medium_batch_staged_tiles = builtin("batch_64x64_staged");
inline constexpr const BuiltinConfig& in_place_tiles = builtin("in_place_64x64");
inline constexpr const BuiltinConfig& in_place_small_tiles = builtin("in_place_32x32");
inline constexpr const BuiltinConfig& in_place_single_small_c = builtin("in_place_single_32x32");
inline constexpr const BuiltinConfig& in_place_single_medium_c = builtin("in_place_single_64x64");
inline constexpr const BuiltinConfig& staged_float_tiles = builtin("staged_64x32");
inline constexpr const BuiltinConfig& staged_shallow_tiles = builtin("staged_128x64_shallow");

// Products with fewer multiply-adds than this stay on the other families: the packing of operands and the launches
// it adds are not paid back.
inline constexpr double tensor_cores_from_volume = 256.0 * 256.0 * 256.0;

// Whether the device can run `entry` for elements of `scalar_size` bytes.
inline bool builtin_fits(const BuiltinConfig& entry, const DeviceLimits& device, std::size_t scalar_size) {
  return config_fits(entry.config, device, scalar_size);
}

// For devices that none of the others fit: the first of the small-work-group configurations that fits (one
// work-item per work-group always does).
inline const BuiltinConfig& fallback_for(const DeviceLimits& device, std::size_t scalar_size) {
  for (const BuiltinConfig* entry : small_device_defaults) {
    if (builtin_fits(*entry, device, scalar_size)) return *entry;
  }
  return *small_device_defaults.back();
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

// The estimated time of an m x n product (per unit of K), or of a batch of `batch` of them in one launch, with one of
// the GPU model's candidates (`figures`: its figures in the product's precision): its tiles (those of every problem)
// run in rounds of `resident` work-groups per compute unit, each round taking as long as `resident` tiles at the
// candidate's full throughput; the last round, with fewer work-groups on each unit, takes as long as the most any
// unit has.
inline double estimated_time(const TileShape& tile, const ModelFigures& figures, int m, int n, long long units,
                             int batch = 1) {
  const long long resident = figures.resident;
  const long long count =
      static_cast<long long>((m + tile.tsm - 1) / tile.tsm) * ((n + tile.tsn - 1) / tile.tsn) * batch;
  const long long full_rounds = count / (units * resident);
  const long long rest = count - full_rounds * units * resident;
  const long long last_round = (rest + units - 1) / units;  // work-groups on the busiest unit
  return static_cast<double>(full_rounds * resident + last_round) * tile.tsm * tile.tsn / figures.tflops;
}

// A split-K candidate's estimated time on `slices` slices of K, in estimated_time's units for a product k deep: its
// tiles times the slices in rounds, each slice 1 / slices of K, at split_k_rate of its single-pass twin's rate, plus
// the second pass (split_k_pass_seconds) and the slices' traffic, written and read back, and C written (at
// device_bytes_per_second). Measured on an H200 (float, 512 to 2048, benchmarks/README.md "Split-K at medium sizes"):
// three or four slices of 128 x 64 tiles gave 768 1.29 and 512 1.2 times one pass's speed; none gained at 1024 or 2048.
inline constexpr double split_k_pass_seconds = 5e-6;
inline constexpr double split_k_rate = 0.95;
inline constexpr double device_bytes_per_second = 3e12;
inline constexpr std::array<int, 4> split_k_model_slices = {2, 3, 4, 6};
inline double split_time(const TileShape& tile, const ModelFigures& figures, int m, int n, int k, long long units,
                         int slices, std::size_t scalar_size) {
  const double pass_seconds = split_k_pass_seconds + static_cast<double>(2 * slices + 1) * m * n *
                                                         static_cast<double>(scalar_size) / device_bytes_per_second;
  // estimated_time counts TFLOP/s against tile elements per unit of K: a second is units * 2 * k / 1e12 of its units.
  const double seconds_per_unit = static_cast<double>(units) * 2.0 * k * 1e-12;
  return estimated_time(tile, figures, m, n, units, slices) / (slices * split_k_rate) + pass_seconds / seconds_per_unit;
}

// The model's figures for `entry` in a precision; none where the model never takes it there.
inline const std::optional<ModelFigures>& model_figures(const BuiltinConfig& entry, bool is_double) {
  static const std::optional<ModelFigures> none;
  if (!entry.model) return none;
  return is_double ? entry.model->in_double : entry.model->in_float;
}

// The configuration for a batch of products of at most 32 x 32 on a GPU: the smallest of the scalar's whose tile holds
// a whole C, so that each work-group multiplies a whole problem (a batch of 32 x 32 x 32 products is bound by memory,
// and one tile per problem reads each operand once, with no idle rows: 10,000 products of 20 x 20 x 20 took 21.6 us
// in 20 x 20 tiles and 34.6 in 32 x 32 on an H200); none for single products, larger problems or configurations the
// device cannot run. In every math mode: such products are too small for the tensor cores to pay.
inline constexpr int whole_problems_up_to = 32;
inline const BuiltinConfig* small_batch_choice(const GemmShape& s, const DeviceLimits& device,
                                               std::size_t scalar_size) {
  if (s.batch <= 1 || std::max(s.m, s.n) > whole_problems_up_to) return nullptr;
  for (const BuiltinConfig* entry : small_batch_defaults) {
    const TileShape& tile = entry->config.tile;
    if (serves(*entry, scalar_size == sizeof(double), MathMode::ieee) && s.m <= tile.tsm && s.n <= tile.tsn &&
        builtin_fits(*entry, device, scalar_size)) {
      return entry;
    }
  }
  return nullptr;
}

// The configuration for a batch of products of at most 128 in every dimension in IEEE arithmetic, where its tiles
// give every compute unit one: 64 x 64 tiles, or 32 x 32 where those cover C with fewer elements (65 x 65: 9 of
// them against 4 of 64 x 64), whatever the model would say: on an H200 these beat every other tiling of the prefetch
// kernel at most sizes from 33 to 128 (10,000 x 64^3: float 193 us against 260 in the model's 64 x 64 tiles of 4 x 4
// in vectors of 4, double 304 against 646). None for single products, larger ones (left to the model and the tensor
// cores as before), tf32 products or devices they do not fit.
inline constexpr int medium_batches_up_to = 128;
inline const BuiltinConfig* medium_batch_choice(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                                MathMode math) {
  if (s.batch <= 1 || std::max({s.m, s.n, s.k}) > medium_batches_up_to ||
      (scalar_size != sizeof(double) && math != MathMode::ieee)) {
    return nullptr;
  }
  const auto covered = [&](const BuiltinConfig& entry) {
    const TileShape& t = entry.config.tile;
    return tiles_of(s, t) * t.tsm * t.tsn;
  };
  const BuiltinConfig& entry =
      covered(medium_batch_small_tiles) < covered(medium_batch_tiles) ? medium_batch_small_tiles : medium_batch_tiles;
  if (batch_tiles_of(s, entry.config.tile) < static_cast<long long>(device.compute_units) ||
      !builtin_fits(entry, device, scalar_size)) {
    return nullptr;
  }
  return &entry;
}

// medium_batch_choice's 64 x 64 tiles for float with their slices copied by cp.async, where the device has it, K is
// whole slices of 16 and the operands are read in vectors: on an H200 10,000 x 64^3 took 172 us against 193 through
// registers (cuBLAS 186), 1,000 x 128^3 125 against 127 (cuBLAS 124), 10,000 x 48^3 126 against 129; 2,000 x 100^3,
// whose last slice is a partial one, 216 against 212. None elsewhere.
// The plan of a staged_prefetch entry on the whole C, where the device runs it and the operands are read in vectors
// (an element at a time its copies were slower than the prefetch kernel's loads); none elsewhere.
inline std::optional<Plan> plan_staged(const BuiltinConfig& entry, const GemmShape& s, const DeviceLimits& device,
                                       std::size_t scalar_size, MathMode math) {
  if (!builtin_fits(entry, device, scalar_size) ||
      !implementation_on(entry.config, device, scalar_size, math).possible()) {
    return std::nullopt;
  }
  std::optional<Plan> plan = plan_if_fits(entry.config, s, device, scalar_size,
                                          corner_options(entry.config, s, device, scalar_size, math, true));
  if (!plan || plan->variant.edges == EdgeMode::elements) return std::nullopt;
  return plan;
}
inline std::optional<Plan> plan_staged_batch(const BuiltinConfig& chosen, const GemmShape& s,
                                             const DeviceLimits& device, std::size_t scalar_size) {
  if (&chosen != &medium_batch_tiles || scalar_size != sizeof(float) ||
      s.k % medium_batch_staged_tiles.config.tile.tsk != 0) {
    return std::nullopt;
  }
  return plan_staged(medium_batch_staged_tiles, s, device, scalar_size, MathMode::ieee);
}

// The configuration for double on FP64 tensor cores where packing the operands would cost more than the product:
// batches of products 25 to 256 on a side (smaller ones keep small_batch_choice's whole problems), in 64 x 64 tiles
// or 32 x 32 where those cover C with fewer elements, where the batch's tiles give every compute unit one; single
// products up to 1024 on a side: 32 x 32 tiles up to 512 x 512 of C, 64 x 64 tiles through registers up to 640 on
// every side, else those of batches. On an H200 (benchmarks/README.md "Double on tensor cores in place") 10,000 x 64^3
// took 243 us against 332 on the ordinary units, 1,000 x 128^3 149 against 236, a single 512^3 16 against 27 and 1024^3
// 55 against 65 on the copy engine. Larger single products weigh the same 64 x 64 tiles by their rounds beside the
// packed families' (plan_double_rounds). None on devices without them.
inline constexpr int in_place_batches_from = 25;
inline constexpr int in_place_batches_up_to = 256;
inline constexpr long long in_place_single_small_c_up_to = 512 * 512;
inline constexpr int in_place_single_medium_up_to = 640;
inline constexpr int in_place_singles_up_to = 1024;
inline const BuiltinConfig* in_place_double_choice(const GemmShape& s, const DeviceLimits& device,
                                                   std::size_t scalar_size) {
  if (scalar_size != sizeof(double)) return nullptr;
  const int largest = std::max({s.m, s.n, s.k});
  const BuiltinConfig* entry = nullptr;
  if (s.batch > 1) {
    if (std::max(s.m, s.n) < in_place_batches_from || largest > in_place_batches_up_to) return nullptr;
    const auto covered = [&](const BuiltinConfig& e) {
      return tiles_of(s, e.config.tile) * e.config.tile.tsm * e.config.tile.tsn;
    };
    entry = covered(in_place_small_tiles) < covered(in_place_tiles) ? &in_place_small_tiles : &in_place_tiles;
    if (batch_tiles_of(s, entry->config.tile) < static_cast<long long>(device.compute_units)) return nullptr;
  } else if (largest > in_place_singles_up_to) {
    return nullptr;
  } else if (static_cast<long long>(s.m) * s.n <= in_place_single_small_c_up_to) {
    entry = &in_place_single_small_c;
  } else {
    entry = largest <= in_place_single_medium_up_to ? &in_place_single_medium_c : &in_place_tiles;
  }
  if (!builtin_fits(*entry, device, scalar_size) ||
      !implementation_on(entry->config, device, scalar_size, MathMode::ieee).possible()) {
    return nullptr;
  }
  return entry;
}

// The configuration for a single float product in a tensor math mode whose C is small, on devices with mma.sync: its
// operands read in place, so one launch and no pack kernel, which at these sizes cost more than the product. 32 x 32
// tiles where C has at most in_place_float_c_up_to elements; in bf16 and fp16 64 x 64 tiles up to 640 x 640 of C. On
// an H200 (benchmarks/README.md "Float on tensor cores in place"; whole calls against the packed mma.sync plans) tf32
// took 512^3 in 13-15 us against 22, tf32x3 19.8 against 26.1, bf16 and fp16 12-15 against 23; 640^3 in bf16 17.3 to
// 20.3 against 24; in tf32 and tf32x3 the packed plans were level or faster from 640^3, and from about 736^2 wgmma is.
// Larger C, batches and long K (split-K, planned before) keep their plans; so does tf32x3 where IEEE's staged tiles
// apply (plan_staged_float, planned before: 512^3).
inline constexpr long long in_place_float_c_up_to = 320000;
inline constexpr long long in_place_sixteen_bit_c_up_to = 640 * 640;
inline const BuiltinConfig* in_place_float_choice(const GemmShape& s, const DeviceLimits& device,
                                                  std::size_t scalar_size, MathMode math) {
  const long long c = static_cast<long long>(s.m) * s.n;
  if (scalar_size != sizeof(float) || math == MathMode::ieee || s.batch > 1 ||
      c > (sixteen_bit_math(math) ? in_place_sixteen_bit_c_up_to : in_place_float_c_up_to)) {
    return nullptr;
  }
  const BuiltinConfig& entry = builtin(c > in_place_float_c_up_to ? "in_place_float_64x64" : "in_place_float");
  if (!builtin_fits(entry, device, scalar_size) ||
      !implementation_on(entry.config, device, scalar_size, math).possible()) {
    return nullptr;
  }
  return &entry;
}

// Single float products in IEEE arithmetic on devices with cp.async whose slices are best copied into local memory
// several ahead (staged_prefetch), in two kinds, each where the operands are read in vectors (none elsewhere):
// - 512 to 1100 on each side of C and at least 512 deep: 64 x 32 tiles, where their count fills the compute units'
//   last round to at least staged_fill_from. On an H200 (benchmarks/README.md "Float at medium sizes: slices copied
//   ahead") they took 512^3 in 16.9 us against the model's 21.1 (split-K), 896^3 49.3 against 65.4, 1024^3 69.3
//   against 74.2 and 1100^3 92.3 against 96.2; where the last round is emptier the model's plans were level or faster
//   (640^3 28.4 against 30.9, 768 and 1280 within 4%), and read an element at a time (1025) they were slower.
// - C of at least 2048 on each side, 128 to 512 deep: 128 x 64 tiles, slices 16 deep copied one ahead. There
//   4096 x 4096 x 256 took 218 us against the model's 253, x 128 142 against 170, x 512 399 against 413, 2048 x 2048
//   x 256 68 against 72 and 8192 x 8192 x 256 787 against 833; at 1024 deep they were level.
inline constexpr int staged_float_from = 512;
inline constexpr int staged_float_up_to = 1100;
inline constexpr double staged_fill_from = 0.9;
inline constexpr int staged_shallow_from = 2048;
inline constexpr int staged_shallow_depth_from = 128;
inline constexpr int staged_shallow_depth_up_to = 512;
inline const BuiltinConfig* staged_float_choice(const GemmShape& s, long long units) {
  if (std::min(s.m, s.n) >= staged_shallow_from && s.k >= staged_shallow_depth_from &&
      s.k <= staged_shallow_depth_up_to) {
    return &staged_shallow_tiles;
  }
  if (std::min(s.m, s.n) < staged_float_from || std::max(s.m, s.n) > staged_float_up_to || s.k < staged_float_from) {
    return nullptr;
  }
  const long long tiles = tiles_of(s, staged_float_tiles.config.tile);
  const long long rounds = (tiles + units - 1) / units;
  return static_cast<double>(tiles) >= staged_fill_from * static_cast<double>(rounds * units) ? &staged_float_tiles
                                                                                              : nullptr;
}
// tf32x3 (FP32-accurate) takes them too where C is no larger than the in-place tiles take (in_place_float_choice):
// IEEE arithmetic, as accurate, was faster there on an H200 (512^3 16.7 us against 18.8 in place).
inline std::optional<Plan> plan_staged_float(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                             MathMode math) {
  const bool accurate_and_small =
      math == MathMode::tf32x3 && static_cast<long long>(s.m) * s.n <= in_place_float_c_up_to;
  if (scalar_size != sizeof(float) || (math != MathMode::ieee && !accurate_and_small) || s.batch > 1 ||
      device.compute_units == 0) {
    return std::nullopt;
  }
  const BuiltinConfig* entry = staged_float_choice(s, device.compute_units);
  return entry ? plan_staged(*entry, s, device, scalar_size, math) : std::nullopt;
}

// A tensor-core plan with strips replaced by the 96 x 96 tiles of the whole C where those are at most one per
// compute unit: a corner with strips costs more than the larger tiles lose there. The plan stays as it is where the
// device cannot run those tiles, or their packed copies do not fit.
inline void odd_sizes_whole(Plan& plan, const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                            MathMode math) {
  const KernelDescription& odd =
      builtin(scalar_size == sizeof(double) ? "tensor_double_odd" : "tensor_float_odd").config;
  if (tiles_of(s, odd.tile) > static_cast<long long>(device.compute_units) || !config_fits(odd, device, scalar_size)) {
    return;
  }
  if (std::optional<Plan> whole =
          plan_if_fits(odd, s, device, scalar_size, corner_options(odd, s, device, scalar_size, math, true))) {
    plan = std::move(*whole);
  }
}

// Float products in the tf32 and tf32x3 modes on wgmma (kernels/warpgroup_mma.hpp; it refuses bf16 and fp16, which
// stay on mma.sync for now), where the device has it and C has a 64 x 128 tile for at least half the compute units.
// tf32x3 takes the tiled corner rule of the other configurations, the thin strips past it multiplied by extra
// work-groups of the same launch where the corner's tiles take at most one round, else by the remainder kernel beside
// the tiles (H200, "Strips beside the tiles": 2049^3 in 199.5 us against 209.0 in the same launch, 4097^3 1280
// against 1331; 1025^3, one round, 55.1 against 47.4); tf32 all of C in tiles (the packed copies are padded; its
// products are short enough that the strips' SIMT arithmetic would cost more).
// Smaller products keep mma.sync's plans; batches count the tiles of all their products. tf32 takes the smallest
// tiles where 128 x 128 ones would leave compute units idle (in 4 buffers: 8 ran 1024^3 within 3%, "tf32x3 at
// medium sizes"), else 128 x 256 in 4 buffers where their rounds over the compute units finish first, one of them
// taking warpgroup_large_tile_cost times a 128 x 128 tile's time: on an H200
// (benchmarks/README.md, "wgmma: 64 x 256 a step, four buffers, bands") they ran 2048^3, 4096^3, 4097^3 and 8192^3
// 1.10, 1.17, 1.13 and 1.29 times as fast as 128 x 128 tiles (1, 4, 5 and 16 rounds of them against 2, 8, 9 and 32),
// 3072^3 1.06 times (3 rounds against 5; benchmarks/README.md "More buffers at medium sizes"). tf32x3 takes 64 x 128
// tiles where the tiled corner of C has at most one of them a compute unit, else 128 x 128 x 32 in 6 buffers: on an
// H200 ("tf32x3 at medium sizes") 1024^3 in 37.6 us against 46.9, 1088^3 in 50.4 against 65.8 (153 small tiles, 81
// large ones). The small tiles are 32 deep in 8 buffers (192 KiB, 1024^3 in 37.6 against 43.0 us 16 deep), or 16
// deep in 8 (96 KiB) where strips of C up to warpgroup_narrow_strips wide are left past the corner: the launch's strip
// work-groups take as much local memory as its tiles, and 192 KiB would put them on no unit beside a tile (1025^3 in
// 60 us against 47; 1032^3 49 against 50 for 128 x 128 tiles). Wider strips beside 128 small tiles took longer than
// 128 x 128 tiles with them (1040^3: 64 us against 51).
inline constexpr double warpgroup_large_tile_cost = 1.65;
inline constexpr int warpgroup_narrow_strips = 8;
inline const KernelDescription& warpgroup_choice(const GemmShape& s, long long units, MathMode math) {
  const KernelDescription& tf32x3 = builtin("warpgroup_tf32x3").config;
  const KernelDescription& tf32_large = builtin("warpgroup_tf32_large").config;
  const KernelDescription& tf32 = builtin("warpgroup_tf32").config;
  if (math == MathMode::tf32x3) {
    const KernelDescription& small = builtin("warpgroup_tf32x3_small").config;
    GemmShape corner = s;  // what the small tiles cover (a batch: all of C)
    if (s.batch <= 1) std::tie(corner.m, corner.n) = tiled_corner(s.m, s.n, small.tile.tsm, small.tile.tsn);
    if (batch_tiles_of(corner, small.tile) > units) return tf32x3;
    if (corner.m == s.m && corner.n == s.n) return small;
    return std::max(s.m - corner.m, s.n - corner.n) <= warpgroup_narrow_strips
               ? builtin("warpgroup_tf32x3_small_strips").config
               : tf32x3;
  }
  const long long tiles = batch_tiles_of(s, tf32.tile);
  if (tiles < units) return builtin("warpgroup_tf32_small").config;
  const auto rounds = [&](long long count) { return static_cast<double>((count + units - 1) / units); };
  return warpgroup_large_tile_cost * rounds(batch_tiles_of(s, tf32_large.tile)) < rounds(tiles) ? tf32_large : tf32;
}
inline std::optional<Plan> plan_warpgroup_mma(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                              MathMode math) {
  const long long units = static_cast<long long>(device.compute_units);
  const KernelDescription& config = warpgroup_choice(s, units, math);
  if (!implementation_on(config, device, scalar_size, math).possible() ||
      2 * batch_tiles_of(s, builtin("warpgroup_tf32_small").config.tile) < units ||
      !config_fits(config, device, scalar_size)) {
    return std::nullopt;
  }
  const bool whole_c = math != MathMode::tf32x3 || s.batch > 1;  // the strip code takes single products
  PlanOptions options = corner_options(config, s, device, scalar_size, math, whole_c);
  GemmShape corner = s;
  corner.m = options.corner_m;
  corner.n = options.corner_n;
  options.strips_apart = tiles_of(corner, config.tile) > units;
  // None where a packed copy is larger than the device's largest buffer.
  return plan_if_fits(config, s, device, scalar_size, options);
}

// Double on the copy engine's pipeline (kernels/bulk_tensor_cores.hpp), in tiles 128 x 128 (bulk_double) where C has
// one for 9 in 10 compute units at least, or 64 x 128 (bulk_double_narrow) where their rounds over the units are 70%
// full at least and cost less: a narrow tile takes bulk_narrow_tile_cost times half a wide one's time. Fewer or
// emptier rounds ran slower than mma.sync's tiles (1024 in wide tiles, 1025 in narrow ones). Only single products take
// the narrow tiles: batches' were not measured. Figures: benchmarks/README.md, "Double below 4096". For the products
// plan_double_rounds leaves: batches, and single products with C smaller than 1024 x 1024.
inline constexpr double bulk_narrow_tile_cost = 1.15;
inline constexpr double bulk_wide_fill = 0.9, bulk_narrow_fill = 0.7;
inline const KernelDescription* bulk_choice(const GemmShape& s, long long units) {
  const KernelDescription& wide = builtin("bulk_double").config;
  const KernelDescription& narrow = builtin("bulk_double_narrow").config;
  const long long wide_tiles = batch_tiles_of(s, wide.tile), narrow_tiles = batch_tiles_of(s, narrow.tile);
  const auto rounds = [&](long long tiles) { return static_cast<double>((tiles + units - 1) / units); };
  const bool wide_fills = static_cast<double>(wide_tiles) >= bulk_wide_fill * static_cast<double>(units);
  const bool narrow_fills =
      s.batch == 1 && static_cast<double>(narrow_tiles) >= bulk_narrow_fill * rounds(narrow_tiles) * units;
  if (narrow_fills && (!wide_fills || bulk_narrow_tile_cost * rounds(narrow_tiles) < 2 * rounds(wide_tiles))) {
    return &narrow;
  }
  return wide_fills ? &wide : nullptr;
}

// All of C in tiles (the packed copies are padded).
inline std::optional<Plan> plan_bulk_tensor_cores(const GemmShape& s, const DeviceLimits& device,
                                                  std::size_t scalar_size) {
  const KernelDescription* bulk = bulk_choice(s, std::max<long long>(device.compute_units, 1));
  if (bulk == nullptr || !implementation_on(*bulk, device, scalar_size, MathMode::ieee).possible() ||
      !config_fits(*bulk, device, scalar_size)) {
    return std::nullopt;
  }
  // None where a packed copy is larger than the device's largest buffer, or past the kernels' 32-bit indices, padding
  // in: the other tensor-core plans may read in place.
  return plan_if_fits(*bulk, s, device, scalar_size,
                      corner_options(*bulk, s, device, scalar_size, MathMode::ieee, true));
}

// Double on compute capability 9.0, single products with C of at least double_rounds_from elements: of the copy
// engine's tiles (128 x 128, 64 x 128), mma.sync's on packed operands (128 x 128, 96 x 96) and its 64 x 64 tiles on
// the operands in place, those whose rounds over the compute units finish first, each round at the rate its family and
// tiles kept on an H200 when C had that many rounds of them (TFLOP/s: one round, two, more; benchmarks/README.md
// "Double at medium sizes" and "Double in place past 1024": the fastest at every size from 1024 to 3000 measured). The
// copy engine's tiles start slower and keep a higher rate; 96 x 96 tiles fill the units at 1041 to 1056 and 1536; the
// tiles in place, which run three work-groups a unit and need no pack kernel, take 1025 to 1040 (on the corner), 1088
// to 1224 (1217 on the corner), 2049 to 2176 and C of 1024^2 with long K.
enum class RoundTiling {
  whole_c,      // all of C in tiles (the copy engine's copies are padded; 96 x 96 tiles are for sizes off 128's)
  thin_corner,  // the tiled corner where the strips past it are thin (corner_options)
  saved_round,  // the tiled corner where its strips (in_place_corner_strips) save more than they cost
};
struct RoundFigures {
  std::string_view entry;
  double one_round, two_rounds, more_rounds;
  RoundTiling tiling;
};
inline constexpr std::array<RoundFigures, 5> double_round_figures = {
    {{"bulk_double", 45.0, 50.5, 50.5, RoundTiling::whole_c},
     {"bulk_double_narrow", 34.0, 40.5, 43.5, RoundTiling::whole_c},
     {"tensor_double_large", 47.0, 49.0, 49.0, RoundTiling::thin_corner},
     {"tensor_double_odd", 31.0, 38.0, 40.0, RoundTiling::whole_c},
     {"in_place_64x64", 41.5, 41.5, 40.5, RoundTiling::saved_round}}};  // one round: never past 255 tiles
inline constexpr long long double_rounds_from = 1024LL * 1024;
// The strips the in-place tiles may leave to the remainder kernel, which runs beside them (gemm/executor.hpp), and what
// they add to the time of the corner's tiles, measured on an H200: up to strip_width wide (one pass of the remainder
// kernel) 4 to 9 us (1025^3, 1030^3, 1032 x 1027 x 333 and x 1500, 2049 x 1025 x 64); two passes (up to 16 wide) 19
// to 24 us at 1036^3 to 1040^3 and 73 at 1040 x 1040 x 4096, where the corner is two rounds of tiles (74 to 78 us
// against 90 to 91 on all of C in 96 x 96 tiles, 282 against 331), but 14 with K 64 (23 against 19) and 26 to 73 at
// 2057^3 and 2064^3, whose corners are eight rounds (469 and 492 against 461 and 460 on all of C): two passes only
// where the corner is at most two rounds and K at least in_place_wide_strips_depth. 24 wide, 1048^3 ran level.
inline constexpr int in_place_corner_strips = strip_width;
inline constexpr double in_place_strips_us = 8.0;
inline constexpr int in_place_wide_corner_strips = 2 * strip_width;
inline constexpr double in_place_wide_strips_us = 20.0;
inline constexpr int in_place_wide_strips_depth = 256;
// Time in the rounds' measure (tile elements over TFLOP/s, per unit of K) from microseconds of a product K deep.
inline double rounds_measure(double microseconds, int k, long long units) {
  return microseconds * 1e6 / (2.0 * std::max(k, 1) * static_cast<double>(units));
}
inline double rounds_time(const TileShape& tile, const RoundFigures& figures, const GemmShape& s, long long units) {
  const long long rounds = (tiles_of(s, tile) + units - 1) / units;
  const double rate = rounds == 1 ? figures.one_round : rounds == 2 ? figures.two_rounds : figures.more_rounds;
  return static_cast<double>(rounds) * tile.tsm * tile.tsn / rate;
}
// A candidate's plan options (its corner) and its time in the rounds' measure.
inline std::pair<PlanOptions, double> round_tiling(const KernelDescription& config, const RoundFigures& figures,
                                                   const GemmShape& s, const DeviceLimits& device, long long units) {
  const auto options_for = [&](bool whole_c) {
    return corner_options(config, s, device, sizeof(double), MathMode::ieee, whole_c);
  };
  const double whole_time = rounds_time(config.tile, figures, s, units);
  if (figures.tiling != RoundTiling::saved_round) {
    return {options_for(figures.tiling == RoundTiling::whole_c), whole_time};
  }
  // The thin corner where the strip code runs (all of C otherwise, which the strips' launch makes slower than itself).
  const PlanOptions corner = options_for(false);
  GemmShape tiled = s;
  tiled.m = corner.corner_m;
  tiled.n = corner.corner_n;
  const int widest = std::max(s.m - tiled.m, s.n - tiled.n);
  const bool wide_strips_pay = widest <= in_place_wide_corner_strips && s.k >= in_place_wide_strips_depth &&
                               tiles_of(tiled, config.tile) <= 2 * units;
  if (widest > in_place_corner_strips && !wide_strips_pay) return {options_for(true), whole_time};
  const double strips_us = widest > in_place_corner_strips ? in_place_wide_strips_us : in_place_strips_us;
  const double corner_time = rounds_time(config.tile, figures, tiled, units) + rounds_measure(strips_us, s.k, units);
  if (corner_time >= whole_time) return {options_for(true), whole_time};
  return {corner, corner_time};
}
inline std::optional<Plan> plan_double_rounds(const GemmShape& s, const DeviceLimits& device) {
  const KernelDescription& copy_engine = builtin("bulk_double").config;
  if (s.batch > 1 || static_cast<long long>(s.m) * s.n < double_rounds_from ||
      !implementation_on(copy_engine, device, sizeof(double), MathMode::ieee).possible() ||
      !config_fits(copy_engine, device, sizeof(double))) {
    return std::nullopt;
  }
  const long long units = std::max<long long>(device.compute_units, 1);
  std::optional<Plan> best;
  double best_time = 0;
  for (const RoundFigures& figures : double_round_figures) {
    const KernelDescription& config = builtin(figures.entry).config;
    const auto [options, time] = round_tiling(config, figures, s, device, units);
    if ((best && time >= best_time) || !config_fits(config, device, sizeof(double))) continue;
    if (std::optional<Plan> plan = plan_if_fits(config, s, device, sizeof(double), options)) {
      best = std::move(plan);
      best_time = time;
    }
  }
  return best;
}

// Float in the bf16 and fp16 modes on compute capability 9.0, where C is past the in-place tiles' range: A and B
// rounded to 16 bits as they are packed into core tiles, multiplied by wgmma m64nNk16 (the 16-bit storage's product,
// gemm/sixteen_bit_warpgroup_plan.hpp). mma.sync's float slices ran these modes at TF32 mma.sync's rate (137 TFLOP/s
// at 4096^3 on an H200); wgmma on 16-bit core tiles runs at twice TF32's. None where the device has no wgmma, its
// driver refused the kernel's local memory, or a packed copy passes 32-bit indices.
inline std::optional<Plan> plan_sixteen_bit_wgmma(const GemmShape& s, const DeviceLimits& device,
                                                  std::size_t scalar_size, MathMode math) {
  if (scalar_size != sizeof(float) || !sixteen_bit_math(math)) return std::nullopt;
  const SixteenBit element = math == MathMode::fp16 ? SixteenBit::half : SixteenBit::bfloat16;
  const std::optional<Warpgroup16Plan> wgmma = plan_warpgroup16(device, s, element, true);
  if (!wgmma) return std::nullopt;
  Plan plan;
  plan.work = Work::sixteen_bit_wgmma;
  plan.batch_count = s.batch;
  plan.warpgroup16 = *wgmma;
  return plan;
}

// Long K in bf16 and fp16 (where plan_split_k_default would take SIMT slices): wgmma's tiles in pieces along k
// (plan_warpgroup16's split) where C (a single product's, as split-K's are) has at least 4 of them. The last piece of a
// tile sums every piece's partial tile alone, which costs more than it saves with 33 to 128 pieces a tile. On an H200
// (benchmarks/README.md, "bf16 and fp16 on wgmma"), us: 256 x 256 x 16384 47 against 70 for split-K, 256 x 256 x 65536
// 112 against 220, 384 x 384 x 16384 55 against 170, 512 x 512 x 8192 42 against 147; C of one tile: 128 x 128 x 131072
// 169 against 124, 100 x 100 x 50000 73 against 62, 64 x 64 x 65536 81 against 33.
inline constexpr long long warpgroup16_long_k_tiles_from = 4;
inline bool warpgroup16_long_k_pays(const Warpgroup16Plan& plan) {
  return plan.m_padded / warpgroup16_rows * (plan.n_padded / plan.columns) >= warpgroup16_long_k_tiles_from;
}

// The tensor-core plan of a product, where tensor cores run it (plan_warpgroup_mma, in_place_float_choice,
// plan_sixteen_bit_wgmma, plan_double_rounds, plan_bulk_tensor_cores, else
// mma.sync's: large tiles where C has one for every compute unit, else small ones), with the tiled corner rule of the
// other configurations (and odd_sizes_whole); none where they do not.
inline std::optional<Plan> plan_tensor_cores(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                             MathMode math) {
  // Any tensor_cores configuration answers for the family.
  if (!implementation_on(builtin("tensor_float_small").config, device, scalar_size, math).possible() ||
      static_cast<double>(s.m) * s.n * s.k < tensor_cores_from_volume) {
    return std::nullopt;
  }
  if (std::optional<Plan> plan = plan_warpgroup_mma(s, device, scalar_size, math)) return plan;
  if (const BuiltinConfig* entry = in_place_float_choice(s, device, scalar_size, math)) {
    const PlanOptions whole_c = corner_options(entry->config, s, device, scalar_size, math, true);
    if (std::optional<Plan> plan = plan_if_fits(entry->config, s, device, scalar_size, whole_c)) return plan;
  }
  if (std::optional<Plan> plan = plan_sixteen_bit_wgmma(s, device, scalar_size, math)) return plan;
  if (scalar_size == sizeof(double)) {
    if (std::optional<Plan> plan = plan_double_rounds(s, device)) return plan;
  }
  if (std::optional<Plan> plan = plan_bulk_tensor_cores(s, device, scalar_size)) return plan;
  const bool is_double = scalar_size == sizeof(double);
  const KernelDescription& large = builtin(is_double                ? "tensor_double_large"
                                           : sixteen_bit_math(math) ? "tensor_16bit_large"
                                           : math == MathMode::tf32 ? "tensor_tf32_large"
                                                                    : "tensor_float_large")
                                       .config;
  const KernelDescription& small = builtin(is_double ? "tensor_double_small" : "tensor_float_small").config;
  const bool large_fills = batch_tiles_of(s, large.tile) >= static_cast<long long>(device.compute_units);
  for (const KernelDescription* config : {large_fills ? &large : &small, &small}) {
    if (!config_fits(*config, device, scalar_size)) continue;
    const PlanOptions options = corner_options(*config, s, device, scalar_size, math, s.batch > 1);
    // None where a packed copy is larger than the device's largest buffer: the other families read such operands in
    // place.
    if (std::optional<Plan> plan = plan_if_fits(*config, s, device, scalar_size, options)) {
      if (plan->strips != StripWork::none) odd_sizes_whole(*plan, s, device, scalar_size, math);
      return plan;
    }
  }
  return std::nullopt;
}

// The plan of a product with the tuner's winner for its class (a configuration read at run time, not necessarily one
// of the table's), where that winner runs on this device in this math mode; none otherwise (the model decides then).
// Tiled corner and strips as for the model's configurations.
inline std::optional<Plan> plan_tuned(const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                                      std::size_t scalar_size, MathMode math) {
  if (!config_fits(config, device, scalar_size) || !implementation_on(config, device, scalar_size, math).possible()) {
    return std::nullopt;
  }
  const PlanOptions options = corner_options(config, s, device, scalar_size, math, config.splits_k);
  // None where e.g. a packed copy or a workspace is larger than the device's largest buffer.
  std::optional<Plan> plan = plan_if_fits(config, s, device, scalar_size, options);
  if (plan) plan->chosen = Chosen::tuned;
  return plan;
}

// Split-K where C is too small to fill the device (fewer than one 64 x 64 tile per two compute units) while K is long:
// in 128 x 64 tiles where those cover C with no more elements than 64 x 64 ones (so not C of one 64 x 64 tile) and the
// device runs them, else 64 x 64; none where the workspace does not fit one buffer of the device (a single pass
// then). On an H200 (benchmarks/README.md, "Long K in 128 x 64 tiles"; tilegemm-tune's winner for long K there since
// 2026-11-23) the 128 x 64 tiles took 128 x 128 x 131072 in 124 us against 143 in float and 265 against 430 in double,
// 256 x 256 x 16384 in 70 against 102 and 148 against 296, 100 x 100 x 50000 in 62 against 65 and 119 against 177;
// 64 x 64 x 65536 stays on 64 x 64 tiles (34 us against 49, 80 against 95).
inline std::optional<Plan> plan_split_k_default(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                                long long units) {
  const KernelDescription& narrow = split_k_default.config;
  if (s.batch > 1 || tiles_of(s, narrow.tile) * 2 >= units || s.k < 2048 || s.k < 4 * std::max(s.m, s.n)) {
    return std::nullopt;
  }
  const auto covered = [&](const KernelDescription& c) { return tiles_of(s, c.tile) * c.tile.tsm * c.tile.tsn; };
  const KernelDescription& wide = split_k_wide.config;
  const KernelDescription& split_k =
      covered(wide) <= covered(narrow) && builtin_fits(split_k_wide, device, scalar_size) ? wide : narrow;
  if (!config_fits(split_k, device, scalar_size)) return std::nullopt;
  return plan_if_fits(split_k, s, device, scalar_size);
}

// Where plan_split_k_default would split K on the ordinary units, on tensor cores instead: 64 x 64 tiles that read A
// and B in place, their slices of K as the problems of a batch (plan_slices_as_batch), in the number of slices that
// divides K, keeps each at least in_place_slice_depth deep and finishes first by in_place_split_us; none where no
// number does (the ordinary units' slices then). Double on FP64 tensor cores (in_place_64x64); float in tf32, bf16 and
// fp16 (in_place_float_64x64; tf32x3's three products gained nothing, IEEE has no tensor cores). On an H200
// (benchmarks/README.md "Long K in double on tensor cores", "Long K in float on tensor cores"), us: double 128 x 128 x
// 131072 121 against 264, 256 x 256 x 16384 64 against 146, 512 x 512 x 8192 116 against 364; tf32 128 x 128 x 131072
// 77 against 126, 256 x 256 x 16384 44 against 70, 512 x 512 x 8192 73 against 147, 64 x 64 x 65536 23 against 34.
inline constexpr int in_place_slice_depth = 256;
// What a slice of K costs on the in-place tiles, measured on an H200: a 64 x 64 x 1024 tile with at most two a compute
// unit (one alone, with half the warps busy, is counted as 1.5 of two's) and with three or more, each tile's own cost,
// and the launch's; the slices' sum is their bytes read at 3 TB/s besides.
struct InPlaceSliceFigures {
  double two_a_unit_us;
  double more_a_unit_us;
  double per_tile_us;
  double launch_us;
};
// Double: 26.5 and 29.3 us ("Double in place past 1024"); float (fitted to 17 forced slice counts of four shapes in
// tf32, within 10% but for 64 x 64 x 65536 in 128 and 256 slices, 21 and 19 against 23): 17.2 and 15.2, 1.5 a tile,
// 5.9.
inline constexpr InPlaceSliceFigures in_place_double_slices{26.5, 29.3, 0, 5};
inline constexpr InPlaceSliceFigures in_place_float_slices{17.2, 15.2, 1.5, 5.9};
// The time of `slices` slices of K, in microseconds on an H200: the busiest compute unit's tiles, each K / slices deep,
// then the sum of the slices.
inline double in_place_split_us(const GemmShape& s, std::size_t scalar_size, const InPlaceSliceFigures& figures,
                                long long tiles, long long units, int slices) {
  const long long busiest = (tiles * slices + units - 1) / units;
  const double tile_1024_us = busiest <= 2 ? figures.two_a_unit_us * std::max(1.5, static_cast<double>(busiest))
                                           : figures.more_a_unit_us * static_cast<double>(busiest);
  const double sum_us = static_cast<double>(slices) * s.m * s.n * static_cast<double>(scalar_size) / 3e6;
  return tile_1024_us * (s.k / slices) / 1024.0 + figures.per_tile_us * static_cast<double>(busiest) +
         figures.launch_us + sum_us;
}
inline std::optional<Plan> plan_in_place_split(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                                               MathMode math) {
  const bool is_double = scalar_size == sizeof(double);
  if (s.batch > 1 || (!is_double && math != MathMode::tf32 && !sixteen_bit_math(math))) return std::nullopt;
  const BuiltinConfig& entry = is_double ? in_place_tiles : builtin("in_place_float_64x64");
  const MathMode run_math = is_double ? MathMode::ieee : math;
  if (!builtin_fits(entry, device, scalar_size) ||
      !implementation_on(entry.config, device, scalar_size, run_math).possible()) {
    return std::nullopt;
  }
  const InPlaceSliceFigures& figures = is_double ? in_place_double_slices : in_place_float_slices;
  const long long units = std::max<long long>(device.compute_units, 1);
  const long long tiles = tiles_of(s, entry.config.tile);
  int best = 0;
  double best_us = 0;
  for (long long slices = std::min<long long>(s.k / in_place_slice_depth, 4 * units); slices >= 2; --slices) {
    const int n = static_cast<int>(slices);
    if (s.k % n != 0) continue;
    const double us = in_place_split_us(s, scalar_size, figures, tiles, units, n);
    if (best == 0 || us < best_us) {
      best = n;
      best_us = us;
    }
  }
  if (best == 0) return std::nullopt;
  return plan_slices_as_batch(entry.config, s, device, scalar_size, best, run_math);
}

// The plan AutoConfig makes for a product on a device in a math mode: the configuration, the corner of C its tiles
// cover (the thin rest goes to the strip code) and how it takes the operands. Each of the GPU model's candidates is
// planned in full, so that the choice sees the edge mode the run will use. A batch of small products gets a whole
// problem per work-group (small_batch_choice), one of products up to 128 fixed tiles (medium_batch_choice); double
// on tensor cores takes them in place where packing would not pay (in_place_double_choice); other
// batches are chosen for by the same rules and model with the tiles of the whole batch (many small products fill a
// device that one would not), without split-K or corners: one launch of whole tiles. Single float products also weigh
// the model's tiles split along K (split_time).
inline Plan plan_model(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                       MathMode math = MathMode::ieee) {
  if (device.type & CL_DEVICE_TYPE_CPU) {
    const BuiltinConfig& entry =
        builtin_fits(processor_default, device, scalar_size) ? processor_default : fallback_for(device, scalar_size);
    return plan_product(entry.config, s, device, scalar_size);
  }
  if (const BuiltinConfig* entry = in_place_double_choice(s, device, scalar_size)) {
    return plan_product(entry->config, s, device, scalar_size);
  }
  if (const BuiltinConfig* entry = small_batch_choice(s, device, scalar_size)) {
    return plan_product(entry->config, s, device, scalar_size);
  }
  if (const BuiltinConfig* entry = medium_batch_choice(s, device, scalar_size, math)) {
    if (std::optional<Plan> staged = plan_staged_batch(*entry, s, device, scalar_size)) return *staged;
    return plan_product(entry->config, s, device, scalar_size);
  }
  const long long units = device.compute_units > 0 ? device.compute_units : 1;
  if (std::optional<Plan> split = plan_split_k_default(s, device, scalar_size, units)) {
    if (std::optional<Plan> wgmma = plan_sixteen_bit_wgmma(s, device, scalar_size, math)) {
      if (warpgroup16_long_k_pays(wgmma->warpgroup16)) return *wgmma;
    }
    if (std::optional<Plan> tensor = plan_in_place_split(s, device, scalar_size, math)) return *tensor;
    return *split;
  }
  if (std::optional<Plan> staged = plan_staged_float(s, device, scalar_size, math)) return *staged;
  if (std::optional<Plan> tensor = plan_tensor_cores(s, device, scalar_size, math)) return *tensor;
  const bool is_double = scalar_size == sizeof(double);
  std::optional<Plan> best;
  double best_time = 0;
  const auto consider = [&](const BuiltinConfig& entry, const PlanOptions& options, double time) {
    if (best && time >= best_time) return;  // not planned: it cannot win (every call plans)
    // A split-K plan whose workspace does not fit is passed over; the others' refusals are the caller's.
    std::optional<Plan> plan = entry.config.splits_k ? plan_if_fits(entry.config, s, device, scalar_size, options)
                                                     : plan_product(entry.config, s, device, scalar_size, options);
    // Operands that are neither whole tiles nor whole vectors are read an element at a time in small products
    // (see operand_policy.hpp), which some configurations do slowly.
    if (!plan || (plan->variant.edges == EdgeMode::elements && !entry.model->reads_elements_well)) return;
    best = std::move(plan);
    best_time = time;
  };
  for (const BuiltinConfig& entry : builtin_configs) {
    const std::optional<ModelFigures>& figures = model_figures(entry, is_double);
    if (!figures || !builtin_fits(entry, device, scalar_size)) continue;
    PlanOptions options =
        corner_options(entry.config, s, device, scalar_size, MathMode::ieee, s.batch > 1 || entry.config.splits_k);
    if (!entry.config.splits_k) {
      consider(entry, options,
               estimated_time(entry.config.tile, *figures, options.corner_m, options.corner_n, units, s.batch));
      continue;
    }
    // Split-K takes single products, in slices at least four tiles deep.
    if (s.batch > 1) continue;
    const int k_tiles = (s.k + entry.config.tile.tsk - 1) / entry.config.tile.tsk;
    for (const int slices : split_k_model_slices) {
      if (slices * 4 > k_tiles) break;
      options.slices = slices;
      consider(
          entry, options,
          split_time(entry.config.tile, *figures, options.corner_m, options.corner_n, s.k, units, slices, scalar_size));
    }
  }
  return best ? *best : plan_product(fallback_for(device, scalar_size).config, s, device, scalar_size);
}

// AutoConfig's plan: the tuner's winner for the shape's class where `tuned` (the winners for this device and
// precision, gemm/tuned_configs.hpp; null: none) has one that runs here, else the model's (plan_model). A batch of
// several products always takes the model's: the tuner times single products.
inline Plan plan_default(const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                         MathMode math = MathMode::ieee, const TunedChoices* tuned = nullptr) {
  bool confirmed = false;
  if (tuned != nullptr && s.batch <= 1) {
    const TunedChoice& choice = (*tuned)[static_cast<std::size_t>(shape_class(s.m, s.n, s.k))];
    if (choice.present && !choice.model) {
      if (std::optional<Plan> plan = plan_tuned(choice.config, s, device, scalar_size, math)) return *plan;
    }
    confirmed = choice.present && choice.model;
  }
  Plan plan = plan_model(s, device, scalar_size, math);
  plan.chosen = confirmed ? Chosen::model_tuned : Chosen::model;
  return plan;
}

}  // namespace tilegemm::detail
