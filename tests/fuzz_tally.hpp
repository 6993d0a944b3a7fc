// fuzz_tally: what the fuzz sweep ran: products per path and scalar, the configurations the plans used, and how
// often each plan shape occurred (tiled corner with fused strips, remainder kernel, split-K, packed operands, edge
// modes), printed as one line at the end.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <tilegemm/core.hpp>

#include "fuzz_product.hpp"

namespace tilegemm_fuzz {

// The plan shapes the sweep must show it reaches (see Tally::missing_shapes).
inline bool is_corner_with_fused_strips(const tilegemm::detail::Plan& plan) {
  return plan.strips == tilegemm::detail::StripWork::fused;
}
inline bool is_remainder_kernel(const tilegemm::detail::Plan& plan) {
  return plan.strips == tilegemm::detail::StripWork::remainder_kernel;
}
// Split-K as AutoConfig chooses it: the default plan for a GPU, C small and K long.
inline bool is_default_split_k(const Product& p, const tilegemm::detail::Plan& plan) {
  return p.configuration == 0 && plan.work == tilegemm::detail::Work::product && plan.config.splits_k;
}

struct Tally {
  std::array<std::array<long long, 2>, 2> products{};  // [path][is_double]
  long long planned_for_gpu = 0, planned_for_narrow_gpu = 0;
  long long skipped = 0;  // draws passed over so as not to compile more programs
  std::set<std::string> configurations;
  long long corner_fused = 0, remainder = 0, default_split_k = 0, split_k_slices = 0, packed = 0;
  std::array<long long, 3> edges{};  // EdgeMode whole_tiles, vectors, elements (families that read either layout)
  long long scale_only = 0, empty = 0;
  long long refused = 0;  // configurations the planned device cannot run, refused with tilegemm::Error

  long long total() const { return products[0][0] + products[0][1] + products[1][0] + products[1][1]; }

  // Whether `plan` reaches something the sweep has not run yet: a configuration, a plan shape, an edge mode.
  bool reaches_something_new(const Product& p, const tilegemm::detail::Plan& plan) const {
    using namespace tilegemm::detail;
    if (plan.work != Work::product) return false;
    return configurations.count(plan.config.name()) == 0 || (is_corner_with_fused_strips(plan) && corner_fused == 0) ||
           (is_remainder_kernel(plan) && remainder == 0) || (is_default_split_k(p, plan) && default_split_k == 0) ||
           ((plan.a.packed || plan.b.packed) && packed == 0) ||
           (plan.config.access == OperandAccess::either_layout && edges[static_cast<int>(plan.variant.edges)] == 0);
  }

  void add(const Product& p, const tilegemm::detail::Plan* plan) {
    using namespace tilegemm::detail;
    ++products[p.path == Path::eigen][p.is_double];
    planned_for_gpu += p.planned_for == PlannedFor::gpu;
    planned_for_narrow_gpu += p.planned_for == PlannedFor::narrow_gpu;
    if (plan == nullptr) {
      ++refused;
      return;
    }
    if (plan->work == Work::nothing) ++empty;
    if (plan->work == Work::scale_c) ++scale_only;
    if (plan->work != Work::product) return;
    configurations.insert(plan->config.name());
    corner_fused += is_corner_with_fused_strips(*plan);
    remainder += is_remainder_kernel(*plan);
    default_split_k += is_default_split_k(p, *plan);
    split_k_slices += plan->config.splits_k && plan->slices > 1;
    packed += plan->a.packed || plan->b.packed;
    if (plan->config.access == OperandAccess::either_layout) ++edges[static_cast<int>(plan->variant.edges)];
  }

  // The shapes a sweep of a minute or more must have reached, by name; "" when it reached them all.
  std::string missing_shapes() const {
    std::string missing;
    if (corner_fused == 0) missing += " corner+fused strips";
    if (remainder == 0) missing += " remainder kernel";
    if (default_split_k == 0) missing += " split-K (AutoConfig)";
    return missing;
  }

  std::string summary(std::uint32_t seed, double seconds, std::size_t programs, double compile_seconds) const {
    std::ostringstream out;
    out.precision(3);
    out << "test_fuzz summary: seed " << seed << ", " << total() << " products in " << seconds << " s ("
        << total() / seconds << " per s); buffers float " << products[0][0] << ", double " << products[0][1]
        << "; eigen float " << products[1][0] << ", double " << products[1][1] << "; " << configurations.size()
        << " configurations; planned for a GPU " << planned_for_gpu << ", a narrow GPU " << planned_for_narrow_gpu
        << "; corner+fused strips " << corner_fused << ", remainder kernel " << remainder << ", split-K (AutoConfig) "
        << default_split_k << ", split-K in more than one slice " << split_k_slices << ", packed operands " << packed
        << ", edges whole tiles/vectors/elements " << edges[0] << "/" << edges[1] << "/" << edges[2]
        << ", C = beta C only " << scale_only << ", empty C " << empty << ", refused as too large for the device "
        << refused << "; " << programs << " programs built in " << compile_seconds << " s; " << skipped
        << " draws passed over to save compiling";
    return out.str();
  }
};

}  // namespace tilegemm_fuzz
