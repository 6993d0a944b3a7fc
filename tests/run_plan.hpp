// run_plan: a product with a chosen configuration, planned the way a test asks (how edges are read, a tiled
// corner) and carried out on a queue; the plan is returned with the event, so that tests can say what ran.
#pragma once

#include <tilegemm/core.hpp>
#include <utility>

namespace tilegemm_test {

template <class Config>
std::pair<tilegemm::detail::Plan, cl::Event> run_planned(const cl::CommandQueue& queue,
                                                         const tilegemm::detail::GemmProblem& problem,
                                                         const tilegemm::detail::PlanOptions& options) {
  using namespace tilegemm::detail;
  const CallContext call = CallContext::of(queue);
  const Plan plan = plan_gemm(&describe<Config>, problem.shape, problem.alpha.value == 0, call.limits,
                              problem.scalar_size(), options);
  return {plan, execute(call, plan, problem, {})};
}

}  // namespace tilegemm_test
