// tune/builtin_table: the built-in table of configurations (gemm/builtin_configs.hpp) as text, a line per entry with
// its configuration as the winners file writes one, for `tilegemm-tune --builtin`.
#pragma once

#include <string>
#include <tilegemm/gemm/builtin_configs.hpp>
#include <tilegemm/gemm/tuned_file.hpp>

namespace tune {

inline std::string level_text(tilegemm::detail::DeviceLevel level) {
  using tilegemm::detail::DeviceLevel;
  switch (level) {
    case DeviceLevel::any_device:
      return "any device";
    case DeviceLevel::processors:
      return "processors";
    case DeviceLevel::gpus:
      return "GPUs";
    case DeviceLevel::tensor_cores:
      return "compute capability 8.0+";
    case DeviceLevel::warpgroup_mma:
      return "compute capability 9.0";
    case DeviceLevel::bulk_tensor_cores:
      return "compute capability 9.0+";
  }
  return "";
}

inline std::string serves_text(unsigned serves) {
  using namespace tilegemm::detail;
  std::string text;
  for (const auto& [bit, word] :
       {std::pair{float_ieee, "float"}, std::pair{float_tf32x3, "float-tf32x3"}, std::pair{float_tf32, "float-tf32"},
        std::pair{float_bf16, "float-bf16"}, std::pair{float_fp16, "float-fp16"}, std::pair{in_double, "double"}}) {
    if ((serves & bit) != 0) text += (text.empty() ? "" : ",") + std::string(word);
  }
  return text;
}

// The table: a header, then "name | devices | precisions | configuration" per entry, in the table's order.
inline std::string builtin_table_text() {
  using namespace tilegemm::detail;
  const std::string separator(tuned_file::separator);
  std::string text =
      "# tilegemm's built-in configurations, the defaults below the tuner's winners: name | devices | precisions | "
      "configuration (family TSM TSN TSK WPTM WPTN VW Stages)\n";
  for (const BuiltinConfig& entry : builtin_configs) {
    text += std::string(entry.name) + separator + level_text(entry.level) + separator + serves_text(entry.serves) +
            separator + tuned_file::configuration_text(entry.config.family, entry.config.tile) + "\n";
  }
  return text;
}

}  // namespace tune
