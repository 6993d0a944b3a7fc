// tune/measure: running one plan on random operands of a shape: its time (batches of back-to-back calls, median),
// and checks of its result against a double-precision reference (in full on odd sizes, sampled on the timed ones).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

#include "options.hpp"

namespace tune {

using tilegemm::detail::CallContext;
using tilegemm::detail::GemmProblem;
using tilegemm::detail::Plan;

// Random operands of an m x n x k product on the device (column-major, no transposes), C poisoned with NaN before
// each plan runs, so that elements a kernel leaves unwritten show.
template <class Scalar>
struct Operands {
  ProductShape shape;
  std::vector<Scalar> a, b;
  cl::Buffer a_buffer, b_buffer, c_buffer;
  GemmProblem problem;

  Operands(const CallContext& call, ProductShape s, unsigned seed) : shape(s) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    a.resize(static_cast<std::size_t>(s.m) * s.k);
    b.resize(static_cast<std::size_t>(s.k) * s.n);
    for (Scalar& x : a) x = static_cast<Scalar>(value(random));
    for (Scalar& x : b) x = static_cast<Scalar>(value(random));
    a_buffer = cl::Buffer(call.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * sizeof(Scalar), a.data());
    b_buffer = cl::Buffer(call.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(Scalar), b.data());
    c_buffer = cl::Buffer(call.context, CL_MEM_READ_WRITE, static_cast<std::size_t>(s.m) * s.n * sizeof(Scalar));
    problem = tilegemm::detail::check_arguments(call.context, {tilegemm::Transpose::no,
                                                               tilegemm::Transpose::no,
                                                               s.m,
                                                               s.n,
                                                               s.k,
                                                               tilegemm::detail::scalar_value(Scalar(1)),
                                                               {a_buffer, 0, s.m},
                                                               {b_buffer, 0, s.k},
                                                               tilegemm::detail::scalar_value(Scalar(0)),
                                                               {c_buffer, 0, s.m}});
  }

  void poison(const CallContext& call) const {
    const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
    call.queue.enqueueFillBuffer(c_buffer, nan, 0, static_cast<std::size_t>(shape.m) * shape.n * sizeof(Scalar));
  }
  std::vector<Scalar> result(const CallContext& call) const {
    std::vector<Scalar> c(static_cast<std::size_t>(shape.m) * shape.n);
    call.queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, c.size() * sizeof(Scalar), c.data());
    return c;
  }

  // C(i, j) in double, and the sum of |A(i, l) B(l, j)| that bounds its rounding error.
  void reference(int i, int j, double& value, double& magnitude) const {
    value = 0;
    magnitude = 0;
    for (int l = 0; l < shape.k; ++l) {
      const double p = static_cast<double>(a[static_cast<std::size_t>(l) * shape.m + i]) *
                       b[static_cast<std::size_t>(j) * shape.k + l];
      value += p;
      magnitude += std::abs(p);
    }
  }

  // "" when the elements checked (all, or `samples` random ones and the four corners) are within `tolerance` of the
  // reference, relative to their magnitude; else what is wrong, with the worst element.
  std::string check(const CallContext& call, double tolerance, int samples = 0) const {
    std::vector<std::pair<int, int>> elements;
    if (samples == 0) {
      for (int j = 0; j < shape.n; ++j)
        for (int i = 0; i < shape.m; ++i) elements.push_back({i, j});
    } else {
      std::mt19937 random(12345);
      elements = {{0, 0}, {shape.m - 1, 0}, {0, shape.n - 1}, {shape.m - 1, shape.n - 1}};
      for (int s = 0; s < samples; ++s) {
        elements.push_back({static_cast<int>(random() % shape.m), static_cast<int>(random() % shape.n)});
      }
    }
    // All of C, or only the sampled elements (a large C read whole would take longer than its product).
    std::vector<Scalar> c;
    if (samples == 0) {
      c = result(call);
    } else {
      c.resize(elements.size());
      for (std::size_t e = 0; e < elements.size(); ++e) {
        const std::size_t at = static_cast<std::size_t>(elements[e].second) * shape.m + elements[e].first;
        call.queue.enqueueReadBuffer(c_buffer, CL_FALSE, at * sizeof(Scalar), sizeof(Scalar), &c[e]);
      }
      call.queue.finish();
    }
    double worst = 0;
    std::string where;
    for (std::size_t e = 0; e < elements.size(); ++e) {
      const auto [i, j] = elements[e];
      double value = 0, magnitude = 0;
      reference(i, j, value, magnitude);
      const double got = samples == 0 ? c[static_cast<std::size_t>(j) * shape.m + i] : c[e];
      const double error = std::isfinite(got) ? std::abs(got - value) / std::max(magnitude, 1e-30)
                                              : std::numeric_limits<double>::infinity();
      if (!(error <= worst)) {
        worst = error;
        where = "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(got) + ", expected " +
                std::to_string(value);
      }
    }
    if (worst <= tolerance) return "";
    char text[64];
    std::snprintf(text, sizeof text, "relative error %.2g", worst);
    return std::string(text) + " at " + shape.text() + ": " + where;
  }
};

// Milliseconds of one call of `plan`: batches of back-to-back calls of about 3 ms each, the median of three; after a
// first call (which compiles its programs) and one timed alone. A plan whose lone call takes longer than
// `give_up_ms` is not timed further: that call's time is returned.
template <class Scalar>
double time_plan(const CallContext& call, const Plan& plan, const Operands<Scalar>& operands, double give_up_ms) {
  using Clock = std::chrono::steady_clock;
  const auto run = [&] { tilegemm::detail::execute(call, plan, operands.problem, {}); };
  const auto ms_of = [&](int calls) {
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) run();
    call.queue.finish();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / calls;
  };
  run();
  call.queue.finish();
  const double alone = ms_of(1);
  if (alone > give_up_ms) return alone;
  const int calls = std::clamp(static_cast<int>(3.0 / std::max(alone, 1e-3)), 1, 50);
  std::vector<double> batches = {ms_of(calls), ms_of(calls), ms_of(calls)};
  std::sort(batches.begin(), batches.end());
  return batches[1];
}

}  // namespace tune
