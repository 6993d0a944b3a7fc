// blas/cpu_blas: the CPU BLAS every call that stays on the CPU is forwarded to (the next sgemm_ in the process, or a
// library opened for it), and the guard that sends a call it makes back into ours straight to it.
#pragma once

#include <cstddef>
#include <string>

namespace tilegemm::detail::blas {

// The Fortran routines, with gfortran's hidden string lengths (we pass 1 and 1: a BLAS that reads them gets the
// truth, one that does not ignores them).
template <class Scalar>
using FortranGemm = void (*)(const char*, const char*, const int*, const int*, const int*, const Scalar*, const Scalar*,
                             const int*, const Scalar*, const int*, const Scalar*, Scalar*, const int*, std::size_t,
                             std::size_t);
template <class Scalar>
using CblasGemm = void (*)(int, int, int, int, int, int, Scalar, const Scalar*, int, const Scalar*, int, Scalar,
                           Scalar*, int);

struct CpuBlas {
  FortranGemm<float> sgemm = nullptr;
  FortranGemm<double> dgemm = nullptr;
  CblasGemm<float> cblas_sgemm = nullptr;  // null where the library has none: its Fortran routine runs the call
  CblasGemm<double> cblas_dgemm = nullptr;
  std::string library;  // "RTLD_NEXT" or the path opened
  std::string file;     // the file that holds sgemm_ (dladdr), for the calibration's key

  template <class Scalar>
  FortranGemm<Scalar> fortran() const {
    if constexpr (sizeof(Scalar) == sizeof(float)) {
      return sgemm;
    } else {
      return dgemm;
    }
  }
  template <class Scalar>
  CblasGemm<Scalar> cblas() const {
    if constexpr (sizeof(Scalar) == sizeof(float)) {
      return cblas_sgemm;
    } else {
      return cblas_dgemm;
    }
  }
};

// The CPU BLAS, found on first use (thread-safe); null when there is none (said once on stderr: calls then run on
// tilegemm).
const CpuBlas* cpu_blas();
// The same without looking: null until cpu_blas() has found one.
const CpuBlas* cpu_blas_if_found();

// While a thread forwards a call to the CPU BLAS, a ?gemm call it makes back into this library (Debian's reference
// cblas_sgemm calls sgemm_ through its PLT, which resolves to ours) goes straight to the CPU BLAS: no second decision,
// no second count.
bool forwarding_now();
class ForwardingScope {
 public:
  ForwardingScope();
  ~ForwardingScope();
  ForwardingScope(const ForwardingScope&) = delete;
  ForwardingScope& operator=(const ForwardingScope&) = delete;

 private:
  bool was_;
};

// Runs a column-major ?gemm on the CPU BLAS's Fortran routine, inside a ForwardingScope (the BLAS must exist).
template <class Scalar>
void cpu_fortran_gemm(const CpuBlas& cpu, char trans_a, char trans_b, int m, int n, int k, Scalar alpha,
                      const Scalar* a, int lda, const Scalar* b, int ldb, Scalar beta, Scalar* c, int ldc) {
  ForwardingScope scope;
  cpu.fortran<Scalar>()(&trans_a, &trans_b, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

}  // namespace tilegemm::detail::blas
