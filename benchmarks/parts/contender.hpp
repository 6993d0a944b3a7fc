// contender: one product set up to be benchmarked (tilegemm or a peer), and the timing and check of it.
#pragma once

#include <functional>
#include <vector>

#include "problem.hpp"
#include "report.hpp"
#include "sampling_check.hpp"
#include "timing.hpp"

namespace bench {

// A product on its operands, with C poisoned (NaN) beforehand so that entries it never writes fail the check.
template <class Scalar>
struct Contender {
  TimedProduct product;
  std::function<void(HostMatrix<Scalar>&)> read_result;  // C (m x n) after the timed calls
  double error_limit = bench::error_limit<Scalar>();     // larger for products on TF32-rounded operands
};

// Times the contender by `plan`, then checks its C on `samples` (none: no check) and fills in the row.
template <class Scalar>
Row evaluate(Row row, const Contender<Scalar>& contender, const TimingPlan& plan,
             const std::vector<SampledEntry>& samples) {
  row.timing = measure(contender.product, plan);
  if (!samples.empty()) {
    HostMatrix<Scalar> c(row.shape.m, row.shape.n);
    contender.read_result(c);
    row.max_rel_error = max_relative_error(samples, c);
    row.check = row.max_rel_error <= contender.error_limit ? "ok" : "WRONG";  // NaN never passes
  }
  return row;
}

}  // namespace bench
