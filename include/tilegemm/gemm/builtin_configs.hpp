// gemm/builtin_configs: the one table of built-in configurations, each named, with the devices and products AutoConfig
// takes it for: read by the planner (default_plan.hpp), the tuner's candidates and the benchmark's rows.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../config/math_mode.hpp"
#include "../kernels/kernel_description.hpp"
#include "../kernels/runtime_description.hpp"

namespace tilegemm::detail {

// The level of devices an entry is a default for, from any device to the most specific (as CLBlast's database keeps
// a default at each level; the tuner's file, gemm/tuned_file.hpp, is the level below: one device and driver).
enum class DeviceLevel {
  any_device,         // what every device runs: for devices none of the others fit
  processors,         // CL_DEVICE_TYPE_CPU (PoCL)
  gpus,               // every other device
  tensor_cores,       // NVIDIA, compute capability 8.0 and newer: mma.sync (and cp.async)
  warpgroup_mma,      // 9.0: wgmma
  bulk_tensor_cores,  // 9.0 and newer: the copy engine
};

// The products an entry serves, as a set: float in each math mode (bf16 and fp16 on mma.sync only, for now), and double
// (whose product is the same in every mode). The benchmark times an entry in each.
enum Serves : unsigned {
  float_ieee = 1U << 0,
  float_tf32x3 = 1U << 1,
  float_tf32 = 1U << 2,
  in_double = 1U << 3,
  float_bf16 = 1U << 4,
  float_fp16 = 1U << 5,
  ieee_both = float_ieee | in_double,
  tf32_both = float_tf32x3 | float_tf32,
  sixteen_bits = float_bf16 | float_fp16,
  tensor_float = tf32_both | sixteen_bits,
};

// What the GPU model (default_plan.hpp's estimated_time) knows of one of its candidates in one precision, measured on
// an NVIDIA H200: how many work-groups one compute unit runs at once (from the registers per work-item the compiler
// reported, out of 64K per unit), and the throughput once every unit is that busy, in TFLOP/s.
struct ModelFigures {
  int resident = 1;
  double tflops = 0;
};
struct GpuModel {
  std::optional<ModelFigures> in_float;   // none: the model never takes it in float
  std::optional<ModelFigures> in_double;  // none: nor in double
  bool reads_elements_well = true;        // its variant that reads an element at a time keeps up (operand_policy.hpp)
};

struct BuiltinConfig {
  std::string_view name;
  DeviceLevel level;
  unsigned serves;  // Serves
  KernelDescription config;
  std::optional<GpuModel> model;  // one of the GPU model's candidates
};

// The table. Every entry's measurements are in docs/configurations.md.
// clang-format off
inline constexpr std::array<BuiltinConfig, 48> builtin_configs = {{
    // Whole C in tiles, chosen per shape by the GPU model; 64 x 128 needs more than 48 KiB of local memory in double.
    {"gpu_128x128", DeviceLevel::gpus, ieee_both, describe<Prefetch<128, 128, 8, 8, 8, 4>>,
     GpuModel{ModelFigures{2, 47.0}, ModelFigures{1, 19.8}, true}},
    {"gpu_128x64", DeviceLevel::gpus, ieee_both, describe<Prefetch<128, 64, 8, 8, 8, 4>>,
     GpuModel{ModelFigures{4, 45.7}, ModelFigures{2, 17.6}, false}},
    {"gpu_64x128", DeviceLevel::gpus, float_ieee, describe<Prefetch<64, 128, 16, 4, 8, 4>>,
     GpuModel{ModelFigures{3, 41.1}, std::nullopt, true}},
    {"gpu_64x64", DeviceLevel::gpus, ieee_both, describe<Prefetch<64, 64, 16, 4, 4, 4>>,
     GpuModel{ModelFigures{4, 34.4}, ModelFigures{3, 10.6}, true}},
    {"gpu_32x32", DeviceLevel::gpus, ieee_both, describe<Prefetch<32, 32, 16, 2, 2, 2>>,
     GpuModel{ModelFigures{8, 18.4}, ModelFigures{8, 9.2}, true}},
    {"gpu_96x96", DeviceLevel::gpus, float_ieee, describe<Prefetch<96, 96, 16, 6, 8, 2>>,
     GpuModel{ModelFigures{2, 41.0}, std::nullopt, false}},
    // Float on NVIDIA 8.0+, slices copied by cp.async (default_plan.hpp's staged_float_choice): 512 to 1100 on a side
    // in small tiles...
    {"staged_64x32", DeviceLevel::tensor_cores, float_ieee, describe<StagedPrefetch<64, 32, 16, 4, 4, 4, 2>>, std::nullopt},
    // ... and C of 2048 and more on each side, 128 to 512 deep: 128 x 64 tiles.
    {"staged_128x64_shallow", DeviceLevel::tensor_cores, float_ieee, describe<StagedPrefetch<128, 64, 16, 8, 8, 4, 2>>, std::nullopt},
    // C too small to fill the device while K is long.
    {"gpu_split_k", DeviceLevel::gpus, ieee_both, describe<SplitK<64, 64, 16, 4, 4, 4>>, std::nullopt},
    // The model's tiles on slices of K, for float products whose tiles leave compute units idle (the model chooses
    // the slices: default_plan.hpp's split_time); figures as their single-pass twins'. 128 x 64 also for long K in
    // float and double (plan_split_k_default), which the model does not weigh in double.
    {"gpu_split_128x128", DeviceLevel::gpus, float_ieee, describe<SplitK<128, 128, 8, 8, 8, 4>>,
     GpuModel{ModelFigures{2, 47.0}, std::nullopt, true}},
    {"gpu_split_128x64", DeviceLevel::gpus, ieee_both, describe<SplitK<128, 64, 8, 8, 8, 4>>,
     GpuModel{ModelFigures{4, 45.7}, std::nullopt, false}},
    // Batches of products that one tile holds whole, smallest first; double reads single elements (vectors of two
    // doubles were 5-20% slower there on an H200).
    {"batch_16x16", DeviceLevel::gpus, float_ieee, describe<Prefetch<16, 16, 16, 2, 2, 2>>, std::nullopt},
    {"batch_20x20", DeviceLevel::gpus, float_ieee, describe<Prefetch<20, 20, 20, 2, 2, 2>>, std::nullopt},
    {"batch_24x24", DeviceLevel::gpus, float_ieee, describe<Prefetch<24, 24, 24, 2, 2, 2>>, std::nullopt},
    {"batch_32x32", DeviceLevel::gpus, float_ieee, describe<Prefetch<32, 32, 32, 2, 4, 2>>, std::nullopt},
    {"batch_16x16_double", DeviceLevel::gpus, in_double, describe<Prefetch<16, 16, 16, 2, 2, 1>>, std::nullopt},
    {"batch_20x20_double", DeviceLevel::gpus, in_double, describe<Prefetch<20, 20, 20, 2, 2, 1>>, std::nullopt},
    {"batch_24x24_double", DeviceLevel::gpus, in_double, describe<Prefetch<24, 24, 24, 2, 2, 1>>, std::nullopt},
    {"batch_32x32_double", DeviceLevel::gpus, in_double, describe<Prefetch<32, 32, 32, 2, 4, 1>>, std::nullopt},
    // Batches of products up to 128 on a side: 64 x 64 tiles, or 32 x 32 where those cover C with fewer elements.
    {"batch_64x64", DeviceLevel::gpus, ieee_both, describe<Prefetch<64, 64, 16, 4, 8, 2>>, std::nullopt},
    {"batch_32x32_slices", DeviceLevel::gpus, ieee_both, describe<Prefetch<32, 32, 16, 2, 4, 2>>, std::nullopt},
    // The same 64 x 64 tiles for float where cp.async runs, their slices copied two ahead, where K is whole slices.
    {"batch_64x64_staged", DeviceLevel::tensor_cores, float_ieee, describe<StagedPrefetch<64, 64, 16, 4, 8, 2, 2>>, std::nullopt},
    // Double on FP64 tensor cores, operands read in place, the slices copied by cp.async (Stages 4 and 3): batches of
    // 25 to 256 on a side in 64 x 64 tiles, or 32 x 32 where those cover C with fewer elements; single products up to
    // 1024 on a side, in 32 x 32 tiles (slices through registers) up to 512 x 512 of C, 64 x 64 ones (the same) up to
    // 640 on every side, else the 64 x 64 tiles of batches.
    {"in_place_64x64", DeviceLevel::tensor_cores, in_double, describe<InPlaceTensorCores<64, 64, 8, 4, 8, 1, 4>>, std::nullopt},
    {"in_place_32x32", DeviceLevel::tensor_cores, in_double, describe<InPlaceTensorCores<32, 32, 8, 2, 4, 1, 3>>, std::nullopt},
    {"in_place_single_32x32", DeviceLevel::tensor_cores, in_double, describe<InPlaceTensorCores<32, 32, 16, 2, 4, 1>>, std::nullopt},
    {"in_place_single_64x64", DeviceLevel::tensor_cores, in_double, describe<InPlaceTensorCores<64, 64, 16, 4, 4, 2>>, std::nullopt},
    // Float in the tensor math modes, operands read in place (no pack kernel, one launch), slices copied in stages:
    // single products with small C (default_plan.hpp's in_place_float_choice), in 64 x 64 tiles for larger C in bf16
    // and fp16; the 64 x 64 tiles also take long K's slices as a batch in tf32, bf16 and fp16 (plan_in_place_split).
    {"in_place_float", DeviceLevel::tensor_cores, tensor_float, describe<InPlaceTensorCores<32, 32, 16, 2, 4, 4, 4>>, std::nullopt},
    {"in_place_float_64x64", DeviceLevel::tensor_cores, float_tf32 | sixteen_bits, describe<InPlaceTensorCores<64, 64, 16, 4, 8, 4, 3>>, std::nullopt},
    // Processors: vector arithmetic without barriers in the inner loop.
    {"cpu", DeviceLevel::processors, ieee_both, describe<WideTypes<16, 16>>, std::nullopt},
    // Devices none of the above fit, the first that fits: 64 work-items, 8, one.
    {"small_groups", DeviceLevel::any_device, ieee_both, describe<MoreWorkPerThread<16, 4>>, std::nullopt},
    {"tiny_groups", DeviceLevel::any_device, ieee_both, describe<MoreWorkPerThread<8, 8>>, std::nullopt},
    {"single_item", DeviceLevel::any_device, ieee_both, describe<Naive<1, 1>>, std::nullopt},
    // mma.sync: large tiles where C has one per compute unit, else small; odd: C just past a multiple of the tiles.
    {"tensor_float_large", DeviceLevel::tensor_cores, float_tf32x3, describe<TensorCores<128, 128, 8, 64, 64, 5>>, std::nullopt},
    {"tensor_16bit_large", DeviceLevel::tensor_cores, sixteen_bits, describe<TensorCores<128, 128, 16, 64, 64, 2>>, std::nullopt},
    {"tensor_tf32_large", DeviceLevel::tensor_cores, float_tf32, describe<TensorCores<128, 128, 8, 64, 64, 4>>, std::nullopt},
    {"tensor_float_small", DeviceLevel::tensor_cores, tensor_float, describe<TensorCores<64, 64, 16, 32, 32, 3>>, std::nullopt},
    {"tensor_float_odd", DeviceLevel::tensor_cores, tensor_float, describe<TensorCores<96, 96, 16, 48, 48, 3>>, std::nullopt},
    {"tensor_double_large", DeviceLevel::tensor_cores, in_double, describe<TensorCores<128, 128, 4, 64, 32, 4>>, std::nullopt},
    {"tensor_double_small", DeviceLevel::tensor_cores, in_double, describe<TensorCores<64, 64, 8, 32, 32, 4>>, std::nullopt},
    {"tensor_double_odd", DeviceLevel::tensor_cores, in_double, describe<TensorCores<96, 96, 4, 48, 24, 4>>, std::nullopt},
    // wgmma, by the tiles of C per compute unit.
    {"warpgroup_tf32_small", DeviceLevel::warpgroup_mma, float_tf32, describe<WarpgroupMma<64, 128, 32, 4>>, std::nullopt},
    {"warpgroup_tf32", DeviceLevel::warpgroup_mma, float_tf32, describe<WarpgroupMma<128, 128, 32, 3>>, std::nullopt},
    {"warpgroup_tf32_large", DeviceLevel::warpgroup_mma, float_tf32, describe<WarpgroupMma<128, 256, 32, 4>>, std::nullopt},
    {"warpgroup_tf32x3_small", DeviceLevel::warpgroup_mma, float_tf32x3, describe<WarpgroupMma<64, 128, 32, 8>>, std::nullopt},
    {"warpgroup_tf32x3_small_strips", DeviceLevel::warpgroup_mma, float_tf32x3, describe<WarpgroupMma<64, 128, 16, 8>>, std::nullopt},
    {"warpgroup_tf32x3", DeviceLevel::warpgroup_mma, float_tf32x3, describe<WarpgroupMma<128, 128, 32, 6>>, std::nullopt},
    // Double on the copy engine's pipeline.
    {"bulk_double", DeviceLevel::bulk_tensor_cores, in_double, describe<BulkTensorCores<128, 128, 32, 64, 32, 3>>, std::nullopt},
    {"bulk_double_narrow", DeviceLevel::bulk_tensor_cores, in_double, describe<BulkTensorCores<64, 128, 32, 32, 32, 3>>, std::nullopt},
}};
// clang-format on

// The entry named `name`. A name the table does not have fails to compile where the call is a constant, and throws
// std::logic_error (a bug in tilegemm) where it runs.
constexpr const BuiltinConfig& builtin(std::string_view name) {
  for (const BuiltinConfig& entry : builtin_configs) {
    if (entry.name == name) return entry;
  }
  throw std::logic_error("tilegemm: no built-in configuration is named " + std::string(name));
}

// Every entry obeys TileConfig's and its family's rules, and the names are distinct.
constexpr bool builtin_configs_valid() {
  for (std::size_t i = 0; i < builtin_configs.size(); ++i) {
    const KernelDescription& c = builtin_configs[i].config;
    if (rule_broken(c.family, c.tile) != nullptr || builtin_configs[i].serves == 0) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (builtin_configs[j].name == builtin_configs[i].name) return false;
    }
  }
  return true;
}
static_assert(builtin_configs_valid(),
              "tilegemm: every built-in configuration obeys its family's rules, once by name.");

// Whether the entry serves float products in `math`, or double.
constexpr bool serves(const BuiltinConfig& entry, bool is_double, MathMode math) {
  if (is_double) return (entry.serves & in_double) != 0;
  const unsigned mode = math == MathMode::tf32x3 ? float_tf32x3
                        : math == MathMode::tf32 ? float_tf32
                        : math == MathMode::bf16 ? float_bf16
                        : math == MathMode::fp16 ? float_fp16
                                                 : float_ieee;
  return (entry.serves & mode) != 0;
}

// Whether two configurations are one: the same family and tiles.
constexpr bool same_configuration(Family family_a, const TileShape& s, Family family_b, const TileShape& t) {
  return family_a == family_b && s.tsm == t.tsm && s.tsn == t.tsn && s.tsk == t.tsk && s.wptm == t.wptm &&
         s.wptn == t.wptn && s.vw == t.vw && s.stages == t.stages;
}
constexpr bool same_configuration(const KernelDescription& a, const KernelDescription& b) {
  return same_configuration(a.family, a.tile, b.family, b.tile);
}

// The entry whose configuration is `config`, or null.
inline const BuiltinConfig* builtin_with(const KernelDescription& config) {
  for (const BuiltinConfig& entry : builtin_configs) {
    if (same_configuration(entry.config, config)) return &entry;
  }
  return nullptr;
}

}  // namespace tilegemm::detail
