// blas/cblas_gemm: cblas_sgemm and cblas_dgemm (NumPy, C callers), row-major calls mapped to column-major ones.
#include "arguments.hpp"
#include "cpu_blas.hpp"
#include "dispatch.hpp"
#include "exports.hpp"

namespace tilegemm::detail::blas {
namespace {

// The letter of a CBLAS transpose for the log ('?' for a value that is none).
char log_letter(int transpose) {
  const char letter = fortran_letter(transpose);
  return letter == '\0' ? '?' : letter;
}

template <class Scalar>
void cblas_gemm(const char* routine, int order, int trans_a, int trans_b, int m, int n, int k, Scalar alpha,
                const Scalar* a, int lda, const Scalar* b, int ldb, Scalar beta, Scalar* c, int ldc) {
  const ColumnMajorCall call = column_major_call(order, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  // The CPU's own cblas_?gemm takes the call unchanged; a BLAS without one gets the column-major Fortran call (an
  // invalid argument is then reported by its xerbla_, numbered as ?gemm_ numbers it).
  const auto on_cpu = [&](const CpuBlas& cpu) {
    if (const CblasGemm<Scalar> cblas = cpu.cblas<Scalar>()) {
      ForwardingScope scope;
      cblas(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
    const bool known_order = order == cblas_row_major || order == cblas_col_major;
    const char ta = !known_order || call.trans_a == '\0' ? '?' : call.trans_a;
    const char tb = call.trans_b == '\0' ? '?' : call.trans_b;
    cpu_fortran_gemm<Scalar>(cpu, ta, tb, call.m, call.n, k, alpha, call.swapped ? b : a, call.swapped ? ldb : lda,
                             call.swapped ? a : b, call.swapped ? lda : ldb, beta, c, ldc);
  };
  if (forwarding_now()) {
    if (const CpuBlas* cpu = cpu_blas()) return on_cpu(*cpu);
  }
  const CallLabel label{routine,
                        order == cblas_row_major   ? "row"
                        : order == cblas_col_major ? "col"
                                                   : "?",
                        log_letter(trans_a),
                        log_letter(trans_b),
                        m,
                        n,
                        k};
  if (!call.valid) {
    dispatch<Scalar>(label, nullptr, on_cpu);
    return;
  }
  const Product<Scalar> product{transposes(call.trans_a) == 1,
                                transposes(call.trans_b) == 1,
                                call.m,
                                call.n,
                                k,
                                alpha,
                                call.swapped ? b : a,
                                call.swapped ? ldb : lda,
                                call.swapped ? a : b,
                                call.swapped ? lda : ldb,
                                beta,
                                c,
                                ldc};
  dispatch(label, &product, on_cpu);
}

}  // namespace
}  // namespace tilegemm::detail::blas

extern "C" TILEGEMM_BLAS_EXPORT void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                                                 const float* a, int lda, const float* b, int ldb, float beta, float* c,
                                                 int ldc) noexcept {
  tilegemm::detail::blas::cblas_gemm("cblas_sgemm", order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                     ldc);
}

extern "C" TILEGEMM_BLAS_EXPORT void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                                                 const double* a, int lda, const double* b, int ldb, double beta,
                                                 double* c, int ldc) noexcept {
  tilegemm::detail::blas::cblas_gemm("cblas_dgemm", order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                     ldc);
}
