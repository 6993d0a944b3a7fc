// fuzz_compile_budget: the share of the fuzz sweep's time that building OpenCL programs may take. PoCL takes up to
// two seconds a program on a cold cache, and the sweep's draws can need a few hundred (configuration, scalar,
// layout flags, edge mode, strips): once the share is spent, draws that need a program not built yet are passed
// over, unless they reach something the sweep has not run yet (see Tally::reaches_something_new).
#pragma once

#include <set>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

#include "fuzz_product.hpp"

namespace tilegemm_fuzz {

// The programs a plan runs (kernels/kernel_description.hpp, gemm/executor.hpp), each named by what tells it apart.
inline std::vector<std::string> programs_of(const Product& p, const tilegemm::detail::Plan& plan) {
  using namespace tilegemm::detail;
  const std::string scalar = p.is_double ? "double " : "float ";
  if (plan.work == Work::nothing) return {};
  if (plan.work == Work::scale_c) {  // the Eigen front end scales C on the host
    return p.path == Path::buffers ? std::vector<std::string>{scalar + "scale"} : std::vector<std::string>{};
  }
  std::vector<std::string> programs = {scalar + plan.config.name() + " flags " + std::to_string(plan.variant.flag_a) +
                                       std::to_string(plan.variant.flag_b) + " edges " +
                                       std::to_string(static_cast<int>(plan.variant.edges)) + " strips " +
                                       std::to_string(plan.variant.strips)};
  if (plan.a.packed || plan.b.packed) programs.push_back(scalar + "pack");
  if (plan.config.splits_k) programs.push_back(scalar + "sum of slices");
  if (plan.strips == StripWork::remainder_kernel) {
    const GemmShape s = gemm_shape(p);
    programs.push_back(scalar + "remainder " + std::to_string(s.trans_a) + std::to_string(s.trans_b));
  }
  return programs;
}

class CompileBudget {
 public:
  explicit CompileBudget(double seconds) : seconds_(seconds) {}

  // Whether to run a draw that needs `programs`; `reaches_new`: it reaches something not run yet.
  bool allows(const std::vector<std::string>& programs, bool reaches_new) const {
    if (spent_ < seconds_ || reaches_new) return true;
    for (const std::string& program : programs)
      if (built_.count(program) == 0) return false;
    return true;
  }

  // After a product: the programs it needed exist now; `compiled`: it built some, taking `seconds` in all.
  void record(const std::vector<std::string>& programs, bool compiled, double seconds) {
    built_.insert(programs.begin(), programs.end());
    if (compiled) spent_ += seconds;
  }

  double spent() const { return spent_; }

 private:
  double seconds_;
  double spent_ = 0;
  std::set<std::string> built_;
};

}  // namespace tilegemm_fuzz
