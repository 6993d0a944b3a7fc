// gemm/verbose: TILEGEMM_VERBOSE=1 prints, on stderr, the configuration each call used and why (the caller's
// Config, the tuner's winner for the shape's class, or the built-in model).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../config/math_mode.hpp"
#include "plan.hpp"
#include "shape_class.hpp"
#include "tuned_configs.hpp"

namespace tilegemm::detail {

// TILEGEMM_VERBOSE's rule on its value (nullptr when unset): 1, on, true or yes (any case) turn the lines on.
inline bool verbose_switched_on(const char* value) {
  const std::string text = value ? lowercase(value) : "";
  return text == "1" || text == "on" || text == "true" || text == "yes";
}
inline bool verbose_calls() {
  static const bool on = verbose_switched_on(std::getenv("TILEGEMM_VERBOSE"));  // read once per process
  return on;
}

// A 16-bit wgmma product's name, e.g. "wgmma 128x256 on 16-bit core tiles, A and B rounded to bfloat16".
inline std::string warpgroup16_name(const Warpgroup16Plan& w) {
  return "wgmma " + std::to_string(warpgroup16_rows) + "x" + std::to_string(w.columns) + " on 16-bit core tiles" +
         (w.float_operands ? std::string(", A and B rounded to ") + sixteen_bit_name(w.element) : std::string());
}
// What runs a plan's product: its configuration, or the 16-bit wgmma product.
inline std::string planned_kernel_name(const Plan& plan) {
  return plan.work == Work::sixteen_bit_wgmma ? warpgroup16_name(plan.warpgroup16) : plan.config.name();
}

// The line for a product's plan, e.g. "tilegemm: 1000x800x500 float on NVIDIA H200: prefetch 128x64x8 8x8 v4
// (tuned for square_medium)".
inline std::string choice_line(const Plan& plan, const GemmShape& s, const DeviceLimits& device,
                               std::size_t scalar_size, MathMode math) {
  std::string line = "tilegemm: " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.batch > 1) line += " (batch of " + std::to_string(s.batch) + ")";
  line += " " + precision_name(scalar_size, math) + " on " + device.name + ": ";
  if (plan.work == Work::nothing) return line + "nothing to do";
  if (plan.work == Work::scale_c) return line + "no product, C = beta * C";
  line += planned_kernel_name(plan);
  if (reads_through_maps(plan)) {
    line += plan.a.mapped && plan.b.mapped
                ? ", A and B read through tensor maps"
                : std::string(", ") + (plan.a.mapped ? "A" : "B") + " read through a tensor map";
    if (plan.variant.outer_a) line += " (A's fragments loaded into registers)";
  }
  if (plan.slices > 1) line += ", " + std::to_string(plan.slices) + " slices of K";
  const std::string shape = std::string(shape_class_name(shape_class(s.m, s.n, s.k)));
  switch (plan.chosen) {
    case Chosen::given:
      return line + " (forced by the Config template argument)";
    case Chosen::tuned:
      return line + " (tuned for " + shape + ")";
    case Chosen::model_tuned:
      return line + " (built-in model; the tuner found nothing faster for " + shape + ")";
    default:
      if (s.batch > 1) return line + " (built-in model; batches are not tuned)";
      return line + " (built-in model; no tuned winner for " + shape + " on this device)";
  }
}

inline void report_choice(const Plan& plan, const GemmShape& s, const DeviceLimits& device, std::size_t scalar_size,
                          MathMode math) {
  if (!verbose_calls()) return;
  const std::string line = choice_line(plan, s, device, scalar_size, math) + "\n";
  std::fputs(line.c_str(), stderr);  // one call per line, so that lines of threads do not mix
}

// The line for a product of 16-bit storage on wgmma (gemm/sixteen_bit_gemm.hpp), which takes no Plan, e.g.
// "tilegemm: 4096x4096x4096 bfloat16 on NVIDIA H200: wgmma 128x256 on 16-bit core tiles".
inline void report_warpgroup16(const GemmShape& s, const DeviceLimits& device, const Warpgroup16Plan& w) {
  if (!verbose_calls()) return;
  const std::string line = "tilegemm: " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                           " " + sixteen_bit_name(w.element) + " on " + device.name + ": " + warpgroup16_name(w) + "\n";
  std::fputs(line.c_str(), stderr);  // one call per line, so that lines of threads do not mix
}

// The line for a default plan the driver refused (see run_gemm in gemm/gemm.hpp); the new plan's line follows.
inline void report_refusal(const Plan& plan, const DeviceLimits& device, const std::string& why) {
  if (!verbose_calls()) return;
  const std::string line = "tilegemm: the driver of " + device.name + " did not run " + planned_kernel_name(plan) +
                           " with more local memory than the device reports; planning within that from now on. " +
                           "The error: " + why + "\n";
  std::fputs(line.c_str(), stderr);
}

// The line for a plan whose kernel, which makes tensor maps, the driver did not build (see run_gemm); the new plan's
// line follows.
inline void report_tensor_maps_refusal(const Plan& plan, const DeviceLimits& device, const std::string& why) {
  if (!verbose_calls()) return;
  const std::string line = "tilegemm: the driver of " + device.name + " did not build " + planned_kernel_name(plan) +
                           " with the tensor maps it reads its operands through; packing them from now on. " +
                           "The error: " + why + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace tilegemm::detail
