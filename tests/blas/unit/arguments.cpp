// blas/unit/arguments: reference BLAS's argument checks, CBLAS's mapping to column-major, the index limit.
#include "arguments.hpp"

#include <climits>

#include "catch.hpp"

using namespace tilegemm::detail::blas;

TEST_CASE("blas: transpose letters as reference BLAS reads them", "[unit]") {
  for (char letter : {'N', 'n'}) CHECK(transposes(letter) == 0);
  for (char letter : {'T', 't', 'C', 'c'}) CHECK(transposes(letter) == 1);
  for (char letter : {'X', ' ', '\0', 'R'}) CHECK(transposes(letter) == -1);
}

TEST_CASE("blas: ?gemm_'s INFO, the first invalid argument by its number", "[unit]") {
  CHECK(fortran_gemm_error('N', 'N', 3, 4, 5, 3, 5, 3) == 0);
  CHECK(fortran_gemm_error('T', 'C', 3, 4, 5, 5, 4, 3) == 0);
  CHECK(fortran_gemm_error('X', 'Y', -1, 4, 5, 3, 5, 3) == 1);
  CHECK(fortran_gemm_error('N', 'Y', -1, 4, 5, 3, 5, 3) == 2);
  CHECK(fortran_gemm_error('N', 'N', -1, 4, 5, 3, 5, 3) == 3);
  CHECK(fortran_gemm_error('N', 'N', 3, -4, 5, 3, 5, 3) == 4);
  CHECK(fortran_gemm_error('N', 'N', 3, 4, -5, 3, 5, 3) == 5);
  CHECK(fortran_gemm_error('N', 'N', 3, 4, 5, 2, 5, 3) == 8);   // lda < m
  CHECK(fortran_gemm_error('t', 'N', 3, 4, 5, 4, 5, 3) == 8);   // lda < k for A^T
  CHECK(fortran_gemm_error('N', 'N', 3, 4, 5, 3, 4, 3) == 10);  // ldb < k
  CHECK(fortran_gemm_error('N', 'c', 3, 4, 5, 3, 3, 3) == 10);  // ldb < n for B^T
  CHECK(fortran_gemm_error('N', 'N', 3, 4, 5, 3, 5, 2) == 13);
  // Empty matrices still need leading dimensions of at least 1.
  CHECK(fortran_gemm_error('N', 'N', 0, 0, 0, 1, 1, 1) == 0);
  CHECK(fortran_gemm_error('N', 'N', 0, 0, 0, 0, 1, 1) == 8);
  CHECK(fortran_gemm_error('N', 'N', 0, 0, 0, 1, 1, 0) == 13);
  CHECK(fortran_gemm_error('N', 'N', INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX) == 0);
}

TEST_CASE("blas: CBLAS calls as column-major ones", "[unit]") {
  // Column-major: unchanged.
  ColumnMajorCall call = column_major_call(cblas_col_major, cblas_trans, cblas_no_trans, 3, 4, 5, 5, 5, 3);
  CHECK(call.valid);
  CHECK_FALSE(call.swapped);
  CHECK(call.trans_a == 'T');
  CHECK(call.trans_b == 'N');
  CHECK(call.m == 3);
  CHECK(call.n == 4);
  // Row-major C (3 x 4) = A (3 x 5) B (5 x 4): column-major C^T (4 x 3) = B^T A^T, the letters and sizes swapped;
  // row-major leading dimensions are at least the columns (lda >= 5, ldb >= 4, ldc >= 4).
  call = column_major_call(cblas_row_major, cblas_no_trans, cblas_conj_trans, 3, 4, 5, 5, 5, 4);
  CHECK(call.valid);
  CHECK(call.swapped);
  CHECK(call.trans_a == 'C');
  CHECK(call.trans_b == 'N');
  CHECK(call.m == 4);
  CHECK(call.n == 3);
  CHECK_FALSE(column_major_call(cblas_row_major, cblas_no_trans, cblas_no_trans, 3, 4, 5, 4, 4, 4).valid);  // lda
  CHECK_FALSE(column_major_call(cblas_row_major, cblas_no_trans, cblas_no_trans, 3, 4, 5, 5, 3, 4).valid);  // ldb
  CHECK_FALSE(column_major_call(cblas_row_major, cblas_no_trans, cblas_no_trans, 3, 4, 5, 5, 4, 3).valid);  // ldc
  CHECK(column_major_call(cblas_row_major, cblas_no_trans, cblas_no_trans, 3, 4, 5, 5, 4, 4).valid);
  // Invalid orders and transposes: not valid, and an invalid transpose keeps no letter.
  CHECK_FALSE(column_major_call(99, cblas_no_trans, cblas_no_trans, 3, 4, 5, 5, 5, 3).valid);
  call = column_major_call(cblas_col_major, 42, cblas_no_trans, 3, 4, 5, 5, 5, 3);
  CHECK_FALSE(call.valid);
  CHECK(call.trans_a == '\0');
  CHECK(fortran_letter(cblas_no_trans) == 'N');
  CHECK(fortran_letter(cblas_trans) == 'T');
  CHECK(fortran_letter(cblas_conj_trans) == 'C');
  CHECK(fortran_letter(0) == '\0');
}

TEST_CASE("blas: products tilegemm's 32-bit indices cannot reach go to the CPU", "[unit]") {
  CHECK_FALSE(beyond_tilegemm_indices(46340, 46340, 46340));  // 46340^2 < 2^31 - 1
  CHECK(beyond_tilegemm_indices(46341, 46341, 1));            // C is too large
  CHECK(beyond_tilegemm_indices(1, 65536, 65536));            // B is too large
  CHECK(beyond_tilegemm_indices(INT_MAX, 1, 2));              // A is too large
  CHECK_FALSE(beyond_tilegemm_indices(INT_MAX, 1, 1));
}
