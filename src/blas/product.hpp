// blas/product: a valid ?gemm call as the column-major product it computes (CBLAS's row-major calls mapped).
#pragma once

namespace tilegemm::detail::blas {

template <class Scalar>
struct Product {
  bool trans_a, trans_b;
  int m, n, k;
  Scalar alpha;
  const Scalar* a;
  int lda;
  const Scalar* b;
  int ldb;
  Scalar beta;
  Scalar* c;
  int ldc;
};

}  // namespace tilegemm::detail::blas
