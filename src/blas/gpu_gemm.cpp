// blas/gpu_gemm: the host floor's tilegemm::gemm on the caller's pointers (the form without a queue: over the devices
// TILEGEMM_DEVICES names where it is set); every exception becomes an outcome, so that none crosses the C ABI.
#include "gpu_gemm.hpp"

#include <exception>
#include <tilegemm/core.hpp>
#include <tilegemm/host/partial_write.hpp>

namespace tilegemm::detail::blas {

template <class Scalar>
GpuOutcome gpu_gemm(const Product<Scalar>& p, std::string& failure) noexcept {
  try {
    tilegemm::gemm<Scalar>(p.trans_a ? Transpose::yes : Transpose::no, p.trans_b ? Transpose::yes : Transpose::no, p.m,
                           p.n, p.k, p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc);
    return GpuOutcome::done;
  } catch (const tilegemm::PartialWrite& error) {
    failure = error.what();
    return GpuOutcome::partly_written;
  } catch (const std::exception& error) {
    failure = error.what();
  } catch (...) {
    failure = "an unknown exception";
  }
  return GpuOutcome::failed;
}

template GpuOutcome gpu_gemm<float>(const Product<float>&, std::string&) noexcept;
template GpuOutcome gpu_gemm<double>(const Product<double>&, std::string&) noexcept;

}  // namespace tilegemm::detail::blas
