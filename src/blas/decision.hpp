// blas/decision: where one valid ?gemm call runs (GPU or CPU) and why, by the mode, the size pre-filter, the device
// and the cost model.
#pragma once

#include "cpu_blas.hpp"
#include "product.hpp"

namespace tilegemm::detail::blas {

struct Route {
  bool gpu;
  const char* why;  // the log's word: forced, small, model, cpu-device, refused, after-fork, no-device, no-cpu-blas
};

template <class Scalar>
Route choose(const Product<Scalar>& p, const CpuBlas* cpu);

}  // namespace tilegemm::detail::blas
