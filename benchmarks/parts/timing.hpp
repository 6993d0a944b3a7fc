// timing: how each product is timed: a first call apart, untimed warm-up calls, then batches of back-to-back calls.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace bench {

inline constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

// How many calls: `warmup` untimed ones after the first call, then `repeats` timed batches.
struct TimingPlan {
  int warmup = 2;
  int repeats = 10;
};

// The plan for a shape of the given size (Shape::size): --repeats when given, else 10 up to 2048, 5 above.
inline TimingPlan timing_plan(int repeats_option, int warmup_option, double size) {
  return {warmup_option, repeats_option > 0 ? repeats_option : (size <= 2048 ? 10 : 5)};
}

// A product ready to be timed: `start` enqueues one whole call (all its kernels) without waiting for it, and
// `finish` waits until everything started so far has completed.
struct TimedProduct {
  std::function<void()> start;
  std::function<void()> finish = [] {};
};

// Milliseconds. `call_ms`: one call from the host's point of view, start to finished (median), which includes the
// round trip to the device. `device_ms`: one call's share of a batch of calls started back to back and finished
// once (median over the batches): the device's time for the whole call, every kernel of it included, with the
// host's enqueueing hidden behind the device's work as in a program that does not wait after every product.
struct Timing {
  double first_ms = unknown;
  double call_ms = unknown;
  double device_ms = unknown;
  int batch = 0;  // calls per batch
};

inline double median(std::vector<double> values) {
  if (values.empty()) return unknown;
  const auto middle = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

// Host milliseconds of `calls` back-to-back calls and one finish, on the steady clock.
inline double batch_ms(const TimedProduct& product, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) product.start();
  product.finish();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Batches long enough (about 20 ms, at most 100 calls) that the launch of the first call is a small part.
inline int batch_size(double call_ms) {
  if (!(call_ms > 0)) return 1;
  return static_cast<int>(std::clamp(std::ceil(20.0 / call_ms), 1.0, 100.0));
}

inline Timing measure(const TimedProduct& product, const TimingPlan& plan) {
  Timing timing;
  timing.first_ms = batch_ms(product, 1);
  for (int i = 0; i < plan.warmup; ++i) batch_ms(product, 1);
  std::vector<double> calls;
  for (int i = 0; i < plan.repeats; ++i) calls.push_back(batch_ms(product, 1));
  timing.call_ms = median(calls);
  timing.batch = batch_size(timing.call_ms);
  if (timing.batch == 1) {  // a call of 20 ms or more: its host time is the device's, give or take 0.1%
    timing.device_ms = timing.call_ms;
    return timing;
  }
  std::vector<double> per_call;
  for (int i = 0; i < plan.repeats; ++i) per_call.push_back(batch_ms(product, timing.batch) / timing.batch);
  timing.device_ms = median(per_call);
  return timing;
}

}  // namespace bench
