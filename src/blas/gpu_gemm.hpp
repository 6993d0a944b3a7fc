// blas/gpu_gemm: one product on tilegemm's default device through the host floor, its failures caught.
#pragma once

#include <string>

#include "product.hpp"

namespace tilegemm::detail::blas {

enum class GpuOutcome {
  done,
  failed,          // C is as it was: the call can be redone elsewhere
  partly_written,  // tilegemm::PartialWrite: C's old values are lost
};

// Never throws; `failure` gets the exception's message.
template <class Scalar>
GpuOutcome gpu_gemm(const Product<Scalar>& p, std::string& failure) noexcept;

}  // namespace tilegemm::detail::blas
