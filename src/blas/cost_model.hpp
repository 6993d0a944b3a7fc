// blas/cost_model: the auto mode's rule, whether a ?gemm call runs faster on the GPU (transfers included) than on the
// CPU BLAS, from a few calibrated constants; pure functions, no OpenCL.
#pragma once

#include <algorithm>
#include <cmath>

namespace tilegemm::detail::blas {

// The rule. A host-to-host product on the GPU costs a fixed time (launches, synchronisation, the pipeline's start)
// plus the larger of moving its bytes across the bus (A and B up, C down: beta * C is folded into the copy out, so C
// is never uploaded) and the product on the device, which the staged path overlaps with the transfers. The CPU BLAS
// costs the larger of its flops at its rate and its memory traffic: A and B read once, C read and written (with
// beta = 0 too: the cache reads a line before it writes it, and BLAS zeroes C first), so that thin products (k of a
// few dozen, or m of a few dozen) are bound by memory on both sides. Its rate falls with the smallest dimension
// (OpenBLAS on 16 cores: 1.1 TFLOP/s in float at 4096^3, 0.4 at 8192 x 32 x 8192, whose bytes alone would take a
// third of its time): measured at 32 and at 1024, interpolated between in log scale. The GPU is chosen when its
// estimate is lower by more than the model's error (gpu_margin): a tie stays on the CPU.
// Every constant is measured on this machine (calibration.cpp), none is a vendor's peak: the GPU's rate is a lower
// bound (from a product that may itself be transfer-bound), which only matters far above the crossover, where the
// GPU wins by a wide margin anyway.
struct CostModel {
  double gpu_fixed_s = 0;             // one small host-to-host call
  double gpu_bytes_per_s = 0;         // host memory to device and back, as the host floor achieves it
  double gpu_flops_per_s = 0;         // the product on the device (a lower bound)
  double cpu_flops_per_s = 0;         // the CPU BLAS on a square product (cpu_square_dimension)
  double cpu_bytes_per_s = 0;         // the CPU BLAS on a thin product (bound by writing C)
  double cpu_narrow_flops_per_s = 0;  // the CPU BLAS on a product one of whose sizes is cpu_narrow_dimension

  // Whether every constant is a usable measurement (a file that says otherwise is remeasured).
  bool valid() const {
    for (double value :
         {gpu_fixed_s, gpu_bytes_per_s, gpu_flops_per_s, cpu_flops_per_s, cpu_bytes_per_s, cpu_narrow_flops_per_s}) {
      if (!std::isfinite(value) || value <= 0) return false;
    }
    return true;
  }
};

// Products below this many flops (2 m n k) go to the CPU without looking at a device: about 2 * 64^3, which a
// single CPU core running any BLAS (10 GFLOP/s or more) finishes in 50 us, less than one host-to-host GPU call's
// fixed cost (a launch, synchronisation and three transfers). Eigen's and LAPACK's many small products stop here,
// and a process that makes only those never touches OpenCL.
inline constexpr double small_product_flops = 524288;

inline double product_flops(double m, double n, double k) { return 2 * m * n * k; }

// The smallest dimension at which the CPU's rate is measured, and the one from which it is taken as the square rate.
inline constexpr double cpu_narrow_dimension = 32, cpu_square_dimension = 1024;

// The CPU BLAS's rate on a product whose smallest dimension is `smallest`.
inline double cpu_flops_per_s(const CostModel& model, double smallest) {
  const double narrow = std::min(model.cpu_narrow_flops_per_s, model.cpu_flops_per_s);
  if (smallest >= cpu_square_dimension) return model.cpu_flops_per_s;
  if (smallest <= cpu_narrow_dimension) return narrow;
  const double position =
      std::log(smallest / cpu_narrow_dimension) / std::log(cpu_square_dimension / cpu_narrow_dimension);
  return narrow * std::pow(model.cpu_flops_per_s / narrow, position);
}

inline double gpu_seconds(const CostModel& model, double m, double n, double k, double scalar_bytes) {
  const double bytes = (m * k + k * n + m * n) * scalar_bytes;
  return model.gpu_fixed_s + std::max(bytes / model.gpu_bytes_per_s, product_flops(m, n, k) / model.gpu_flops_per_s);
}

inline double cpu_seconds(const CostModel& model, double m, double n, double k, double scalar_bytes) {
  const double bytes = (m * k + k * n + 2 * m * n) * scalar_bytes;
  return std::max(product_flops(m, n, k) / cpu_flops_per_s(model, std::min({m, n, k})), bytes / model.cpu_bytes_per_s);
}

// How much faster the GPU's estimate must be for a call to go there. The same route's time moves by 10% and more
// from call to call, and a GPU call that only ties takes pinned memory, a device and a bus that other ranks or
// threads may share: so ties (ScaLAPACK's rank-32 panel updates, bound by moving C on both sides) stay on the CPU.
inline constexpr double gpu_margin = 0.9;

// The model's choice for a product it is asked about (not small, on a GPU tilegemm can run it on).
inline bool gpu_is_faster(const CostModel& model, double m, double n, double k, double scalar_bytes) {
  return gpu_seconds(model, m, n, k, scalar_bytes) < gpu_margin * cpu_seconds(model, m, n, k, scalar_bytes);
}

// The constants from the calibration's timings (seconds, each the best of a few runs), for the calibration's shapes:
// a small square product on the GPU gives its fixed time; a thin one (large m = n, small k) on each side gives the
// bandwidths; a large square one the rates (the GPU's from what is left after its transfers, at least the whole time);
// a narrow one on the CPU (narrow_mk x cpu_narrow_dimension x narrow_mk, its large operand beyond the CPU's caches)
// its rate there.
struct CalibrationTimes {
  double small_n = 0, thin_mn = 0, thin_k = 0, square_n = 0, cpu_square_n = 0, narrow_mk = 0;  // the shapes
  double gpu_small_s = 0, gpu_thin_s = 0, gpu_square_s = 0;
  double cpu_thin_s = 0, cpu_square_s = 0, cpu_narrow_s = 0;
};
inline CostModel fit_cost_model(const CalibrationTimes& t, double scalar_bytes) {
  CostModel model;
  model.gpu_fixed_s = t.gpu_small_s;
  const double thin_bytes = (2 * t.thin_mn * t.thin_k + t.thin_mn * t.thin_mn) * scalar_bytes;
  model.gpu_bytes_per_s = thin_bytes / std::max(t.gpu_thin_s - model.gpu_fixed_s, 0.5 * t.gpu_thin_s);
  model.gpu_flops_per_s = product_flops(t.square_n, t.square_n, t.square_n) /
                          std::max(t.gpu_square_s - model.gpu_fixed_s, 0.5 * t.gpu_square_s);
  model.cpu_flops_per_s = product_flops(t.cpu_square_n, t.cpu_square_n, t.cpu_square_n) / t.cpu_square_s;
  model.cpu_bytes_per_s = (thin_bytes + t.thin_mn * t.thin_mn * scalar_bytes) / t.cpu_thin_s;  // C twice
  model.cpu_narrow_flops_per_s = product_flops(t.narrow_mk, cpu_narrow_dimension, t.narrow_mk) / t.cpu_narrow_s;
  return model;
}

}  // namespace tilegemm::detail::blas
