// blas/fortran_gemm: sgemm_ and dgemm_, the Fortran entry points Eigen (EIGEN_USE_BLAS), LAPACK and most callers use.
#include "arguments.hpp"
#include "cpu_blas.hpp"
#include "dispatch.hpp"
#include "exports.hpp"

namespace tilegemm::detail::blas {
namespace {

template <class Scalar>
void fortran_gemm(const char* routine, const char* transa, const char* transb, const int* m, const int* n, const int* k,
                  const Scalar* alpha, const Scalar* a, const int* lda, const Scalar* b, const int* ldb,
                  const Scalar* beta, Scalar* c, const int* ldc) {
  const auto on_cpu = [&](const CpuBlas& cpu) {
    ForwardingScope scope;
    cpu.fortran<Scalar>()(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  };
  if (forwarding_now()) {  // a call the CPU BLAS makes while we forward to it (see ForwardingScope)
    if (const CpuBlas* cpu = cpu_blas()) return on_cpu(*cpu);
  }
  const CallLabel label{routine, "col", *transa, *transb, *m, *n, *k};
  if (fortran_gemm_error(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc) != 0) {
    dispatch<Scalar>(label, nullptr, on_cpu);
    return;
  }
  const Product<Scalar> product{
      transposes(*transa) == 1, transposes(*transb) == 1, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc};
  dispatch(label, &product, on_cpu);
}

}  // namespace
}  // namespace tilegemm::detail::blas

extern "C" TILEGEMM_BLAS_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                            const int* k, const float* alpha, const float* a, const int* lda,
                                            const float* b, const int* ldb, const float* beta, float* c,
                                            const int* ldc) noexcept {
  tilegemm::detail::blas::fortran_gemm("sgemm_", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

extern "C" TILEGEMM_BLAS_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                            const int* k, const double* alpha, const double* a, const int* lda,
                                            const double* b, const int* ldb, const double* beta, double* c,
                                            const int* ldc) noexcept {
  tilegemm::detail::blas::fortran_gemm("dgemm_", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
