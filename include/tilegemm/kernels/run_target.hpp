// kernels/run_target: what a family is asked before it runs (the device, the scalar, the math mode) and its answer,
// as CUTLASS's can_implement: each family says in its own file what it can run on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "../config/math_mode.hpp"
#include "../config/tile_config.hpp"
#include "variant.hpp"

namespace tilegemm::detail {

// Where a product would run: the facts of the device a family may need, the scalar and the math mode.
struct RunTarget {
  std::string_view device_name;
  int compute_capability = 0;  // NVIDIA's, major * 10 + minor; 0 on other devices
  std::size_t scalar_size = sizeof(float);
  MathMode math = MathMode::ieee;
};

// Why a family refuses a target: the device cannot run it, or the scalar or math mode rules it out.
enum class RefusalKind { none, device, operation };

// A family's answer: the tensor-core instructions it would use there (MmaKind::none for the others), or a refusal
// with its reason, a sentence that follows the configuration's name ("multiplies double only ...").
struct Implementation {
  MmaKind mma = MmaKind::none;
  RefusalKind refusal = RefusalKind::none;
  std::string why;

  static Implementation uses(MmaKind mma) { return {mma, RefusalKind::none, {}}; }
  static Implementation refused(RefusalKind refusal, std::string why) {
    return {MmaKind::none, refusal, std::move(why)};
  }
  bool possible() const { return refusal == RefusalKind::none; }
};

// The compute capability `target` reports, as words for a message.
inline std::string compute_capability_words(const RunTarget& target) {
  return target.compute_capability > 0 ? " has compute capability " + std::to_string(target.compute_capability / 10) +
                                             "." + std::to_string(target.compute_capability % 10)
                                       : " is not one (it has no cl_nv_device_attribute_query)";
}

}  // namespace tilegemm::detail
