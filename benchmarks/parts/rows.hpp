// rows: the configurations the benchmark times, a row each: AutoConfig, every entry of the built-in table
// (gemm/builtin_configs.hpp) in each mode it serves, and the benchmark's own; described at run time.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

namespace bench {

using tilegemm::MathMode;
using tilegemm::detail::KernelDescription;

// A configuration in a math mode (float rows; a double product is the same in every mode), as values.
struct Listed {
  tilegemm::Family family;
  tilegemm::detail::TileShape tile;
  MathMode math;
};
template <class Config, MathMode Math = MathMode::ieee>
inline constexpr Listed listed = {Config::family, Config::shape, Math};

// The benchmark's own configurations, besides the table's: the SGEMM tutorial's kernels and other tiles of each family.
// clang-format off
inline constexpr std::array<Listed, 31> own_configurations = {{
    listed<tilegemm::Naive<16, 16>>,                        // tutorial kernel 1
    listed<tilegemm::LocalTiles<16>>,                       // 2
    listed<tilegemm::MoreWorkPerThread<32, 8>>,             // 3
    listed<tilegemm::WideTypes<32, 8>>,                     // 4
    listed<tilegemm::TransposedB<64, 64, 16, 8>>,           // 5
    listed<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>,   // 6
    listed<tilegemm::RegisterBlocking<128, 128, 16, 8, 8>>,
    listed<tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>>,     // 7
    listed<tilegemm::VectorLoads<128, 128, 16, 8, 8, 4>>,
    listed<tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>>, // 10: 10x10 per work-item
    listed<tilegemm::Prefetch<128, 128, 16, 8, 8, 4>>,      // 9
    listed<tilegemm::SplitK<32, 32, 16, 2, 2, 2>>,
    // Tensor cores (NVIDIA, compute capability 8.0+): double, and float in both modes.
    listed<tilegemm::TensorCores<128, 128, 4, 64, 32, 5>>,
    listed<tilegemm::TensorCores<128, 64, 8, 64, 32, 3>>,
    listed<tilegemm::TensorCores<128, 64, 4, 64, 32, 6>>,
    listed<tilegemm::TensorCores<128, 128, 16, 64, 64, 2>, MathMode::tf32x3>,
    listed<tilegemm::TensorCores<128, 128, 8, 64, 64, 5>, MathMode::tf32>,
    listed<tilegemm::TensorCores<256, 128, 8, 64, 64, 3>, MathMode::tf32>,
    // Float on operands rounded to 16 bits (mma.sync m16n8k16, m16n8k8 for slices 8 deep): other tiles than the table's.
    listed<tilegemm::TensorCores<128, 128, 8, 64, 64, 5>, MathMode::bf16>,
    listed<tilegemm::TensorCores<128, 128, 8, 64, 64, 4>, MathMode::bf16>,
    listed<tilegemm::TensorCores<128, 64, 16, 64, 32, 3>, MathMode::bf16>,
    listed<tilegemm::TensorCores<64, 64, 32, 32, 32, 2>, MathMode::bf16>,
    // The copy engine's double (compute capability 9.0).
    listed<tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>>,
    listed<tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 3>>,
    listed<tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 5>>,
    listed<tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 2>>,
    listed<tilegemm::BulkTensorCores<128, 128, 8, 64, 32, 6>>,
    listed<tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>>,      // within 48 KiB
    // wgmma (compute capability 9.0), TF32 only.
    listed<tilegemm::WarpgroupMma<64, 256, 8, 4>, MathMode::tf32>,   // within 48 KiB
    listed<tilegemm::WarpgroupMma<64, 128, 16, 4>, MathMode::tf32>,
    listed<tilegemm::WarpgroupMma<64, 128, 8, 8>, MathMode::tf32x3>, // within 48 KiB
}};
// clang-format on

// One row's configuration: none for AutoConfig.
struct RowConfig {
  std::optional<KernelDescription> config;
  MathMode math = MathMode::ieee;

  std::string label() const {
    const std::string name = config ? config->name() : "default (auto)";
    return math == MathMode::ieee ? name : name + " " + std::string(tilegemm::detail::math_mode_name(math));
  }
};

// Whether a configuration has a row in a precision: in double only in ieee (the modes change nothing there); in float,
// the families that multiply on tensor cores only in a tensor mode (ieee rules them out); never where its family
// refuses the scalar or the mode on every device (staged_prefetch's vectors of 4 doubles, more than cp.async moves).
inline bool has_row(const KernelDescription& config, MathMode math, bool is_double) {
  const tilegemm::detail::RunTarget newest_gpu{"", 90, is_double ? sizeof(double) : sizeof(float), math};
  if (config.can_implement(config.tile, newest_gpu).refusal == tilegemm::detail::RefusalKind::operation) return false;
  return is_double ? math == MathMode::ieee : math != MathMode::ieee || !config.uses_tensor_cores;
}

// The rows of a precision, in the order of the families (AutoConfig's after split-K's, before the tensor cores'), in
// each family the benchmark's own before the table's.
inline std::vector<RowConfig> benchmark_rows(bool is_double) {
  using tilegemm::detail::builtin_configs;
  using tilegemm::detail::BuiltinConfig;
  std::vector<std::pair<int, RowConfig>> ranked;  // (rank, row): AutoConfig's rank is between two families'
  const auto rank_of = [](tilegemm::Family family) { return 2 * static_cast<int>(family); };
  const int auto_rank = rank_of(tilegemm::Family::split_k) + 1;
  for (const Listed& own : own_configurations) {
    std::optional<KernelDescription> config = tilegemm::detail::describe_at_run_time(own.family, own.tile);
    if (config && has_row(*config, own.math, is_double)) ranked.push_back({rank_of(own.family), {config, own.math}});
  }
  for (const BuiltinConfig& entry : builtin_configs) {
    for (MathMode math : tilegemm::detail::math_modes) {
      // The modes it serves; and ieee in both precisions off the tensor cores, as the benchmark's own.
      const bool timed = serves(entry, is_double, math) || (math == MathMode::ieee && !entry.config.uses_tensor_cores);
      if (timed && has_row(entry.config, math, is_double)) {
        ranked.push_back({rank_of(entry.config.family), {entry.config, math}});
      }
    }
  }
  for (MathMode math : tilegemm::detail::math_modes) {
    if (!is_double || math == MathMode::ieee) ranked.push_back({auto_rank, {std::nullopt, math}});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<RowConfig> rows;
  for (auto& [rank, row] : ranked) {
    const std::string label = row.label();
    const bool seen =
        std::any_of(rows.begin(), rows.end(), [&](const RowConfig& other) { return other.label() == label; });
    if (!seen) rows.push_back(std::move(row));
  }
  return rows;
}

// Kernels 1 to 4 reach a few percent of a GPU's peak: at 8192 each of them would need tens of seconds on an H200
// for its 8 calls, more than all the other rows together, so a default run skips them above this size (of a cube
// with as many multiply-adds, for other shapes). Work-groups of fewer than a warp's work-items (the table's
// configurations for small devices) are slower still: skipped above the smaller size.
constexpr long long slow_family_limit = 4096;
constexpr long long small_group_limit = 1024;
constexpr int small_group = 32;

// Why a row is skipped at a shape of `size` (of a cube with as many multiply-adds), or "" where it runs.
inline std::string slow_row_skip(const RowConfig& row, double size) {
  if (!row.config) return "";
  const tilegemm::Family family = row.config->family;
  if (row.config->threads() < small_group && size > small_group_limit) {
    return "fewer than " + std::to_string(small_group) + " work-items per group above " +
           std::to_string(small_group_limit);
  }
  const bool slow = family == tilegemm::Family::naive || family == tilegemm::Family::local_tiles ||
                    family == tilegemm::Family::wide_types;
  return slow && size > slow_family_limit ? "slow family above " + std::to_string(slow_family_limit) : "";
}

}  // namespace bench
