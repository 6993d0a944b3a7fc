// blas/calibration: the cost model's constants for this device, scalar, CPU BLAS and core count: read from
// tilegemm's cache folder, or measured (a few timed products on each side) and kept there.
#pragma once

#include "cost_model.hpp"
#include "cpu_blas.hpp"
#include "device_facts.hpp"

namespace tilegemm::detail::blas {

// The model (measured at the first call that asks, under a lock; later calls read it), or null when measuring
// failed (said once on stderr; auto then keeps calls on the CPU).
template <class Scalar>
const CostModel* calibrated_model(const DeviceFacts& device, const CpuBlas& cpu);

}  // namespace tilegemm::detail::blas
