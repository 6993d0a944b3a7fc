// blas/exports: the library's exported C functions (the ?gemm entry points and blas.h's control API), declared with
// default visibility; everything else in the library is hidden (-fvisibility=hidden and exports.map).
#pragma once

// blas.h declares the control API without attributes (it is the users' header): exported here.
#pragma GCC visibility push(default)
#include <tilegemm/blas.h>
#pragma GCC visibility pop

#define TILEGEMM_BLAS_EXPORT __attribute__((visibility("default")))

extern "C" {
// Eigen's Eigen/src/misc/blas.h and the reference BLAS: pointers to everything, no hidden string lengths read.
TILEGEMM_BLAS_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                 const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                                 const float* beta, float* c, const int* ldc) noexcept;
TILEGEMM_BLAS_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                 const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
                                 const double* beta, double* c, const int* ldc) noexcept;
// The reference cblas.h, its enums as the ints they are in the C ABI.
TILEGEMM_BLAS_EXPORT void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                                      const float* a, int lda, const float* b, int ldb, float beta, float* c,
                                      int ldc) noexcept;
TILEGEMM_BLAS_EXPORT void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                                      const double* a, int lda, const double* b, int ldb, double beta, double* c,
                                      int ldc) noexcept;
}
