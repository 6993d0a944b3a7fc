// run_plan: a product with a chosen configuration, planned the way a test asks (how edges are read, a tiled
// corner) and carried out on a queue; the plan is returned with the event, so that tests can say what ran.
#pragma once

#include <tilegemm/core.hpp>
#include <utility>

namespace tilegemm_test {

// The plan of `Config` for the problem on the queue's device, as `options` ask.
template <class Config>
tilegemm::detail::Plan planned(const cl::CommandQueue& queue, const tilegemm::detail::GemmProblem& problem,
                               const tilegemm::detail::PlanOptions& options) {
  using namespace tilegemm::detail;
  return plan_gemm(&describe<Config>, problem.shape, problem.alpha.value == 0, CallContext::of(queue).limits,
                   problem.scalar_size(), options);
}

// Options for a tiled corner of corner_m x corner_n, the strip code on the rest of C.
inline tilegemm::detail::PlanOptions corner_options(int corner_m, int corner_n) {
  tilegemm::detail::PlanOptions options;
  options.corner_m = corner_m;
  options.corner_n = corner_n;
  return options;
}

template <class Config>
std::pair<tilegemm::detail::Plan, cl::Event> run_planned(const cl::CommandQueue& queue,
                                                         const tilegemm::detail::GemmProblem& problem,
                                                         const tilegemm::detail::PlanOptions& options) {
  const tilegemm::detail::Plan plan = planned<Config>(queue, problem, options);
  return {plan, tilegemm::detail::execute(tilegemm::detail::CallContext::of(queue), plan, problem, {})};
}

}  // namespace tilegemm_test
