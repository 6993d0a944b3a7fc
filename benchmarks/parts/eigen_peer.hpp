// eigen_peer: Eigen's own product on the host CPU, C.noalias() = op(A) * op(B), on the same operands.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "contender.hpp"
#include "timing.hpp"

namespace bench {

inline std::string eigen_label() {
  const int threads = Eigen::nbThreads();
  return "eigen (cpu, " + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

// Eigen is far slower than a GPU: above 2048, no warm-up beyond the first call and at most 3 timed calls.
inline TimingPlan eigen_timing_plan(TimingPlan plan, double size) {
  if (size > 2048) plan = {0, std::min(plan.repeats, 3)};
  return plan;
}

template <class Scalar>
void eigen_product(const HostOperands<Scalar>& host, HostMatrix<Scalar>& c) {
  if (host.transposes.a && host.transposes.b) {
    c.noalias() = host.a.transpose() * host.b.transpose();
  } else if (host.transposes.a) {
    c.noalias() = host.a.transpose() * host.b;
  } else if (host.transposes.b) {
    c.noalias() = host.a * host.b.transpose();
  } else {
    c.noalias() = host.a * host.b;
  }
}

// `host` must outlive the contender.
template <class Scalar>
Contender<Scalar> eigen_contender(const HostOperands<Scalar>& host) {
  auto c = std::make_shared<HostMatrix<Scalar>>(
      HostMatrix<Scalar>::Constant(host.shape.m, host.shape.n, std::numeric_limits<Scalar>::quiet_NaN()));
  Contender<Scalar> contender;
  contender.product.start = [&host, c] { eigen_product(host, *c); };
  contender.read_result = [c](HostMatrix<Scalar>& result) { result = *c; };
  return contender;
}

}  // namespace bench
