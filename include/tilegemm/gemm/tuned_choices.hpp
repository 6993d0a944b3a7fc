// gemm/tuned_choices: the tuner's winners for one device and precision, one per shape class: what plan_default
// takes as an input (gemm/tuned_configs.hpp reads them from the tuner's file).
#pragma once

#include <array>

#include "../kernels/kernel_description.hpp"
#include "shape_class.hpp"

namespace tilegemm::detail {

struct TunedChoice {
  bool present = false;  // the tuner measured this class
  bool model = false;    // and kept the built-in choice (none of its candidates was faster)
  KernelDescription config{};
};
using TunedChoices = std::array<TunedChoice, shape_class_count>;

}  // namespace tilegemm::detail
