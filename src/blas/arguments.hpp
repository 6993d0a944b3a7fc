// blas/arguments: the ?gemm arguments as BLAS checks them (letters, sizes, leading dimensions) and CBLAS's orders
// mapped to one column-major product; pure functions, no OpenCL.
#pragma once

#include <algorithm>
#include <climits>

namespace tilegemm::detail::blas {

// CBLAS's enumerators (reference cblas.h), which are ints in the C ABI.
inline constexpr int cblas_row_major = 101;
inline constexpr int cblas_col_major = 102;
inline constexpr int cblas_no_trans = 111;
inline constexpr int cblas_trans = 112;
inline constexpr int cblas_conj_trans = 113;

// A transpose letter as reference BLAS reads it: 0 for N or n, 1 for T, t, C or c (C is T for real scalars), -1 for
// anything else.
constexpr int transposes(char letter) {
  switch (letter) {
    case 'N':
    case 'n':
      return 0;
    case 'T':
    case 't':
    case 'C':
    case 'c':
      return 1;
    default:
      return -1;
  }
}

// The number of the first argument reference ?gemm_ refuses (its INFO for xerbla_), or 0 when all are valid:
// 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc; a leading dimension must be at least max(1, rows as
// stored).
constexpr int fortran_gemm_error(char trans_a, char trans_b, int m, int n, int k, int lda, int ldb, int ldc) {
  const int ta = transposes(trans_a), tb = transposes(trans_b);
  if (ta < 0) return 1;
  if (tb < 0) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, ta ? k : m)) return 8;
  if (ldb < std::max(1, tb ? n : k)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

// A CBLAS transpose as a Fortran letter ('N', 'T', 'C'), or 0 for an invalid value.
constexpr char fortran_letter(int cblas_transpose) {
  return cblas_transpose == cblas_no_trans     ? 'N'
         : cblas_transpose == cblas_trans      ? 'T'
         : cblas_transpose == cblas_conj_trans ? 'C'
                                               : '\0';
}

// A cblas_?gemm call as the column-major ?gemm_ call that computes it: row-major C = op(A) op(B) is column-major
// C^T = op(B)^T op(A)^T, so the operands, their letters and m, n swap (as the reference CBLAS does). `valid` is false
// when CBLAS or the mapped Fortran call refuses an argument; the caller then forwards the call unchanged.
struct ColumnMajorCall {
  bool valid = false;
  bool swapped = false;  // row-major: A and B (and their leading dimensions) trade places
  char trans_a = 'N';    // the column-major call's letters ('\0' for an invalid CBLAS value) and sizes
  char trans_b = 'N';
  int m = 0;
  int n = 0;
};
constexpr ColumnMajorCall column_major_call(int order, int trans_a, int trans_b, int m, int n, int k, int lda, int ldb,
                                            int ldc) {
  ColumnMajorCall call;
  const char ta = fortran_letter(trans_a), tb = fortran_letter(trans_b);
  call.swapped = order == cblas_row_major;
  call.trans_a = call.swapped ? tb : ta;
  call.trans_b = call.swapped ? ta : tb;
  call.m = call.swapped ? n : m;
  call.n = call.swapped ? m : n;
  const int first_ld = call.swapped ? ldb : lda, second_ld = call.swapped ? lda : ldb;
  if ((order != cblas_row_major && order != cblas_col_major) || ta == '\0' || tb == '\0') return call;
  call.valid = fortran_gemm_error(call.trans_a, call.trans_b, call.m, call.n, k, first_ld, second_ld, ldc) == 0;
  return call;
}

// Whether tilegemm refuses a valid product because an operand has more elements than its kernels' 32-bit indices
// reach (host/host_gemm.hpp's require_dense_copy_fits): such calls go to the CPU BLAS without an attempt.
// The dense copies are rows x cols whether transposed or not: m k, k n and m n elements.
constexpr bool beyond_tilegemm_indices(int m, int n, int k) {
  const long long limit = INT_MAX;
  return static_cast<long long>(m) * k > limit || static_cast<long long>(k) * n > limit ||
         static_cast<long long>(m) * n > limit;
}

}  // namespace tilegemm::detail::blas
