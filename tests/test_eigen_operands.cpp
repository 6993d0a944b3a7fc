// test_eigen_operands: tilegemm::gpu_gemm on every kind of Eigen operand, aliasing, alpha/beta, empty and odd shapes.
#include <Eigen/Dense>
#include <cmath>
#include <sstream>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "scalar_builds.hpp"
#include "untouched_memory.hpp"

using Eigen::Dynamic;
using Eigen::Index;
using tilegemm_test::compare_with_reference;
using tilegemm_test::gaps_unchanged;
using tilegemm_test::Matrix;
using tilegemm_test::outside_unchanged;
using tilegemm_test::poison;
using tilegemm_test::poisoned;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;
using tilegemm_test::sentinel;

namespace {

template <class S>
using RowMajorMatrix = Eigen::Matrix<S, Dynamic, Dynamic, Eigen::RowMajor>;
template <class S>
using Vector = Eigen::Matrix<S, Dynamic, 1>;
template <class S>
using RowVector = Eigen::Matrix<S, 1, Dynamic>;

bool all_zero(const Eigen::Ref<const Eigen::MatrixXd>& m) { return (m.array() == 0.0).all(); }

// The eager product, the in-place one with random alpha and beta, and the in-place one with beta = 0 into a poisoned
// C, of any two operands; `a` and `b` are also what the reference reads, so expressions must be passed evaluated.
template <class S, class DA, class DB>
void check_product(const std::string& what, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  INFO(what << ": A is " << a.rows() << "x" << a.cols() << ", B is " << b.rows() << "x" << b.cols());
  const Matrix<S> eager = tilegemm::gpu_gemm(a, b);
  CHECK(compare_with_reference<S>(eager, 1, a, b, 0, eager) == "");

  const Matrix<S> c0 = random_matrix<S>(a.rows(), b.cols());
  Matrix<S> c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, c, alpha, beta);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

  Matrix<S> overwritten = poisoned<S>(a.rows(), b.cols());
  tilegemm::gpu_gemm(a, b, overwritten, alpha, S(0));
  CHECK(compare_with_reference<S>(overwritten, alpha, a, b, 0, c0) == "");
}

// All three operands in the given storage orders (column- or row-major), in place and eager.
template <class S, class MA, class MB, class MC>
void check_layouts(const std::string& what, Index m, Index n, Index k) {
  INFO(what);
  const MA a = random_matrix<S>(m, k);
  const MB b = random_matrix<S>(k, n);
  const MC c0 = random_matrix<S>(m, n);
  MC c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, c, alpha, beta);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

  MC overwritten = poisoned<S>(m, n);
  tilegemm::gpu_gemm(a, b, overwritten, alpha, S(0));
  CHECK(compare_with_reference<S>(overwritten, alpha, a, b, 0, c0) == "");

  const Matrix<S> eager = tilegemm::gpu_gemm(a, b);
  CHECK(compare_with_reference<S>(eager, 1, a, b, 0, eager) == "");
}

}  // namespace

TEMPLATE_TEST_CASE("gpu_gemm on plain matrices of sizes 1, 7, 61 and 129", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index shapes[][3] = {{1, 1, 1},    {7, 7, 7},    {61, 61, 61}, {129, 129, 129},
                             {7, 61, 129}, {129, 7, 61}, {61, 129, 1}, {1, 129, 7}};
  for (const auto& shape : shapes) {
    const Index m = shape[0], n = shape[1], k = shape[2];
    check_product<S>("plain MatrixX", random_matrix<S>(m, k), random_matrix<S>(k, n));
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on transposed views, all four combinations", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 29, n = 37, k = 45;
  const Matrix<S> a = random_matrix<S>(m, k), at = random_matrix<S>(k, m);
  const Matrix<S> b = random_matrix<S>(k, n), bt = random_matrix<S>(n, k);
  check_product<S>("A * B", a, b);
  check_product<S>("A.transpose() * B", at.transpose(), b);
  check_product<S>("A * B.transpose()", a, bt.transpose());
  check_product<S>("A.transpose() * B.transpose()", at.transpose(), bt.transpose());
}

TEMPLATE_TEST_CASE("gpu_gemm on blocks of larger matrices as A, B and C, leaving the rest of C untouched",
                   "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 23, n = 17, k = 31;
  const Matrix<S> parent_a = random_matrix<S>(40, 50), parent_b = random_matrix<S>(45, 40);
  const auto a = parent_a.block(3, 5, m, k);
  const auto b = parent_b.block(2, 4, k, n);
  check_product<S>("blocks as A and B", a, b);
  check_product<S>("transposed blocks as A and B", parent_a.block(1, 2, k, m).transpose(),
                   parent_b.block(6, 3, n, k).transpose());
  const RowMajorMatrix<S> row_major_parent = random_matrix<S>(35, 40);
  check_product<S>("blocks of a row-major matrix as A", row_major_parent.block(4, 1, m, k), b);

  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  SECTION("a block of a column-major matrix as C") {
    Matrix<S> parent_c = random_matrix<S>(60, 40);
    const Matrix<S> before = parent_c;
    auto c = parent_c.block(5, 7, m, n);
    tilegemm::gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_with_reference<S>(c, alpha, a, b, beta, before.block(5, 7, m, n)) == "");
    CHECK(outside_unchanged(before, parent_c, 5, 7, m, n) == "");

    parent_c.block(5, 7, m, n).setConstant(poison<S>());
    const Matrix<S> poisoned_before = parent_c;
    tilegemm::gpu_gemm(a, b, c, alpha, S(0));
    CHECK(compare_with_reference<S>(c, alpha, a, b, 0, before.block(5, 7, m, n)) == "");
    CHECK(outside_unchanged(poisoned_before, parent_c, 5, 7, m, n) == "");
  }
  SECTION("a block of a row-major matrix as C") {
    RowMajorMatrix<S> parent_c = random_matrix<S>(30, 50);
    const RowMajorMatrix<S> before = parent_c;
    auto c = parent_c.block(2, 9, m, n);
    tilegemm::gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_with_reference<S>(c, alpha, a, b, beta, before.block(2, 9, m, n)) == "");
    CHECK(outside_unchanged(before, parent_c, 2, 9, m, n) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on Maps with an outer stride as inputs and as the output", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  using StridedMap = Eigen::Map<Matrix<S>, 0, Eigen::OuterStride<>>;
  using ConstStridedMap = Eigen::Map<const Matrix<S>, 0, Eigen::OuterStride<>>;
  const Index m = 21, n = 19, k = 33, lda = 25, ldb = 40, ldc = 24;
  std::vector<S> storage_a(lda * k, sentinel<S>()), storage_b(ldb * n, sentinel<S>());
  std::vector<S> storage_c(ldc * n, sentinel<S>());
  StridedMap a(storage_a.data(), m, k, Eigen::OuterStride<>(lda));
  StridedMap b(storage_b.data(), k, n, Eigen::OuterStride<>(ldb));
  StridedMap c(storage_c.data(), m, n, Eigen::OuterStride<>(ldc));
  a = random_matrix<S>(m, k);
  b = random_matrix<S>(k, n);
  const ConstStridedMap const_a(storage_a.data(), m, k, Eigen::OuterStride<>(lda));
  check_product<S>("strided Maps as A and B", const_a, b);
  check_product<S>("a strided Map as B^T", random_matrix<S>(m, k / 2),
                   StridedMap(storage_b.data(), n, k / 2, Eigen::OuterStride<>(ldb)).transpose());

  const Matrix<S> c0 = random_matrix<S>(m, n);
  c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, c, alpha, beta);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");
  const auto in_c = [&](std::size_t i) { return static_cast<Index>(i % ldc) < m; };
  CHECK(gaps_unchanged(storage_c, in_c) == "");

  c.setConstant(poison<S>());
  tilegemm::gpu_gemm(a, b, c, alpha, S(0));
  CHECK(compare_with_reference<S>(c, alpha, a, b, 0, c0) == "");
  CHECK(gaps_unchanged(storage_c, in_c) == "");

  // Row-major storage with an outer stride as C: C^T is computed into column-major storage.
  using RowMajorStridedMap = Eigen::Map<RowMajorMatrix<S>, 0, Eigen::OuterStride<>>;
  const Index ld_row = n + 3;
  std::vector<S> storage_r(ld_row * m, sentinel<S>());
  RowMajorStridedMap r(storage_r.data(), m, n, Eigen::OuterStride<>(ld_row));
  r = c0;
  tilegemm::gpu_gemm(a, b, r, alpha, beta);
  CHECK(compare_with_reference<S>(r, alpha, a, b, beta, c0) == "");
  CHECK(gaps_unchanged(storage_r, [&](std::size_t i) { return static_cast<Index>(i % ld_row) < n; }) == "");
}

TEMPLATE_TEST_CASE("gpu_gemm on Maps with an inner stride, through an evaluated copy", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  using InnerMap = Eigen::Map<Matrix<S>, 0, Eigen::InnerStride<>>;
  using BothMap = Eigen::Map<Matrix<S>, 0, Eigen::Stride<Dynamic, Dynamic>>;
  const Index m = 13, n = 11, k = 17;
  std::vector<S> storage_a(2 * m * k, sentinel<S>()), storage_b(3 * k * n, sentinel<S>());
  InnerMap a(storage_a.data(), m, k, Eigen::InnerStride<>(2));  // outer stride 2 * m
  InnerMap b(storage_b.data(), k, n, Eigen::InnerStride<>(3));
  a = random_matrix<S>(m, k);
  b = random_matrix<S>(k, n);
  check_product<S>("inner-strided Maps as A and B", a, b);
  check_product<S>("an inner-strided Map as A^T", InnerMap(storage_a.data(), k, m, Eigen::InnerStride<>(2)).transpose(),
                   random_matrix<S>(k, n));

  // C with inner stride 2 and outer stride 2 * m + 5: only every other element of each column is C's.
  const Index inner = 2, outer = inner * m + 5;
  std::vector<S> storage_c(outer * n, sentinel<S>());
  BothMap c(storage_c.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(outer, inner));
  const auto in_c = [&](std::size_t i) {
    const Index r = static_cast<Index>(i % outer);
    return r % inner == 0 && r / inner < m;
  };
  const Matrix<S> c0 = random_matrix<S>(m, n);
  c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, c, alpha, beta);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");
  CHECK(gaps_unchanged(storage_c, in_c) == "");

  c.setConstant(poison<S>());
  tilegemm::gpu_gemm(a, b, c, alpha, S(0));
  CHECK(compare_with_reference<S>(c, alpha, a, b, 0, c0) == "");
  CHECK(gaps_unchanged(storage_c, in_c) == "");
}

TEMPLATE_TEST_CASE("gpu_gemm on Maps whose columns overlap (outer stride below the rows, or 0)",
                   "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  // Eigen reads and writes such Maps element by element; tilegemm must do the same product without reading or
  // writing past the memory they cover (with outer stride 0, all columns are the same 7 elements).
  using S = TestType;
  using StridedMap = Eigen::Map<Matrix<S>, 0, Eigen::OuterStride<>>;
  const Index m = 7, k = 5, n = 4;
  std::vector<S> memory(m + 8, sentinel<S>());  // 7 elements, then a guard
  SECTION("outer stride 0 as A") {
    StridedMap(memory.data(), m, 1, Eigen::OuterStride<>(m)) = random_matrix<S>(m, 1);
    const StridedMap a(memory.data(), m, k, Eigen::OuterStride<>(0));
    check_product<S>("a Map with outer stride 0 as A", a, random_matrix<S>(k, n));
    check_product<S>("its transpose as B", random_matrix<S>(n, m), a);
  }
  SECTION("outer stride 3 of 7 rows as B") {
    std::vector<S> b_memory(3 * (n - 1) + k + 8, sentinel<S>());
    for (Index i = 0; i < 3 * (n - 1) + k; ++i) b_memory[i] = random_matrix<S>(1, 1)(0, 0);
    const StridedMap b(b_memory.data(), k, n, Eigen::OuterStride<>(3));
    check_product<S>("a Map with outer stride 3 < 5 rows as B", random_matrix<S>(m, k), b);
  }
  SECTION("outer stride 0 and 2 as C") {
    const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
    for (const Index stride : {Index(0), Index(2)}) {
      INFO("outer stride " << stride);
      std::vector<S> c_memory(stride * (n - 1) + m + 8, sentinel<S>()), expected_memory = c_memory;
      StridedMap c(c_memory.data(), m, n, Eigen::OuterStride<>(stride));
      StridedMap expected(expected_memory.data(), m, n, Eigen::OuterStride<>(stride));
      tilegemm::gpu_gemm(a, b, c, S(1), S(0));
      expected = (a.template cast<double>() * b.template cast<double>()).template cast<S>();  // as Eigen writes it
      for (std::size_t i = 0; i < c_memory.size(); ++i) {
        INFO("element " << i << " of the Map's memory");
        if (expected_memory[i] == sentinel<S>()) {
          CHECK(c_memory[i] == sentinel<S>());  // past the Map: untouched
        } else {
          CHECK(std::abs(double(c_memory[i]) - double(expected_memory[i])) <=
                1e-4 * (1 + std::abs(double(expected_memory[i]))));
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on row-major matrices as A, B and C", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  using C = Matrix<S>;
  using R = RowMajorMatrix<S>;
  const Index m = 19, n = 23, k = 27;
  check_layouts<S, C, C, C>("A col, B col, C col", m, n, k);
  check_layouts<S, R, C, C>("A row, B col, C col", m, n, k);
  check_layouts<S, C, R, C>("A col, B row, C col", m, n, k);
  check_layouts<S, R, R, C>("A row, B row, C col", m, n, k);
  check_layouts<S, C, C, R>("A col, B col, C row", m, n, k);
  check_layouts<S, R, C, R>("A row, B col, C row", m, n, k);
  check_layouts<S, C, R, R>("A col, B row, C row", m, n, k);
  check_layouts<S, R, R, R>("A row, B row, C row", m, n, k);
  const R a = random_matrix<S>(k, m);
  check_product<S>("a transposed row-major A", a.transpose(), random_matrix<S>(k, n));
}

#ifndef TILEGEMM_TEST_DOUBLE
TEST_CASE("gpu_gemm on fixed-size matrices in and out", "[eigen]") {
  SECTION("Matrix4f") {
    const Eigen::Matrix4f a = random_matrix<float>(4, 4), b = random_matrix<float>(4, 4);
    const Eigen::Matrix4f c = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");

    const Eigen::Matrix4f c0 = random_matrix<float>(4, 4);
    Eigen::Matrix4f d = c0;
    const float alpha = random_scalar<float>(), beta = random_scalar<float>();
    tilegemm::gpu_gemm(a, b, d, alpha, beta);
    CHECK(compare_with_reference<float>(d, alpha, a, b, beta, c0) == "");

    Eigen::Matrix4f e = Eigen::Matrix4f::Constant(poison<float>());
    tilegemm::gpu_gemm(a.transpose(), b, e, alpha, 0.0f);
    CHECK(compare_with_reference<float>(e, alpha, a.transpose(), b, 0, c0) == "");
  }
  SECTION("Matrix<double, 3, 5> times Matrix<double, 5, 2> and times a dynamic matrix") {
    const Eigen::Matrix<double, 3, 5> a = random_matrix<double>(3, 5);
    const Eigen::Matrix<double, 5, 2> b = random_matrix<double>(5, 2);
    const Eigen::Matrix<double, 3, 2> c = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<double>(c, 1, a, b, 0, c) == "");

    const Eigen::Matrix<double, 3, 2> c0 = random_matrix<double>(3, 2);
    Eigen::Matrix<double, 3, 2> d = c0;
    const double alpha = random_scalar<double>(), beta = random_scalar<double>();
    tilegemm::gpu_gemm(a, b, d, alpha, beta);
    CHECK(compare_with_reference<double>(d, alpha, a, b, beta, c0) == "");

    check_product<double>("Matrix<double, 3, 5> * MatrixXd", a, random_matrix<double>(5, 9));
    check_product<double>("MatrixXd * Matrix<double, 3, 5>", random_matrix<double>(6, 3), a);
  }
  SECTION("fixed-size row-major Matrix<float, 2, 3, RowMajor> as C") {
    const Eigen::Matrix<float, 2, 7> a = random_matrix<float>(2, 7);
    const Eigen::Matrix<float, 7, 3, Eigen::RowMajor> b = random_matrix<float>(7, 3);
    const Eigen::Matrix<float, 2, 3, Eigen::RowMajor> c0 = random_matrix<float>(2, 3);
    Eigen::Matrix<float, 2, 3, Eigen::RowMajor> c = c0;
    const float alpha = random_scalar<float>(), beta = random_scalar<float>();
    tilegemm::gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_with_reference<float>(c, alpha, a, b, beta, c0) == "");
  }
}
#endif

TEMPLATE_TEST_CASE("gpu_gemm evaluates general expressions first", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 14, n = 9, k = 22;
  const Matrix<S> a = random_matrix<S>(m, k), a2 = random_matrix<S>(m, k), a3 = random_matrix<S>(k, k);
  const Matrix<S> b = random_matrix<S>(k, n), b2 = random_matrix<S>(k, n);
  // The reference reads the expressions' values as Eigen computes them in S (what gpu_gemm must upload).
  const auto check = [&](const std::string& what, const auto& x, const auto& y) {
    INFO(what);
    const Matrix<S> xv = x, yv = y;
    const Matrix<S> eager = tilegemm::gpu_gemm(x, y);
    CHECK(compare_with_reference<S>(eager, 1, xv, yv, 0, eager) == "");
    const Matrix<S> c0 = random_matrix<S>(xv.rows(), yv.cols());
    Matrix<S> c = c0;
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    tilegemm::gpu_gemm(x, y, c, alpha, beta);
    CHECK(compare_with_reference<S>(c, alpha, xv, yv, beta, c0) == "");
  };
  check("A + A2 times B", a + a2, b);
  check("2 * A times B - B2", S(2) * a, b - b2);
  check("|A| times B", a.array().abs().matrix(), b);
  check("A times |B| * 3", a, (b.array().abs() * S(3)).matrix());
  check("(A + A2)^T^T times B", (a + a2).transpose().transpose(), b);
  check("(B + B2)^T times A^T", (b + b2).transpose(), a.transpose());
  check("the product expression A * A3 times B", a * a3, b);
  check("A times the lazy product (A3 * B).lazyProduct", a, a3.lazyProduct(b));
}

TEMPLATE_TEST_CASE("gpu_gemm on vectors: A * v, u^T * A, outer and inner products", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 37, k = 53;
  const Matrix<S> a = random_matrix<S>(m, k);
  const Vector<S> v = random_matrix<S>(k, 1), u = random_matrix<S>(m, 1), w = random_matrix<S>(m, 1);
  const RowVector<S> r = random_matrix<S>(1, m);
  check_product<S>("A * v", a, v);
  check_product<S>("u^T * A", u.transpose(), a);
  check_product<S>("RowVectorX * A", r, a);
  check_product<S>("outer product v * u^T", v, u.transpose());
  check_product<S>("outer product of a column and a RowVectorX", u, r);
  check_product<S>("inner product u^T * w", u.transpose(), w);
  check_product<S>("A^T * u", a.transpose(), u);
  check_product<S>("a column of A as the vector", a.transpose(), a.col(3));
  check_product<S>("a row of A (inner stride) as the vector", a.row(2), a.transpose());

  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  SECTION("into a VectorX") {
    const Vector<S> y0 = random_matrix<S>(m, 1);
    Vector<S> y = y0;
    tilegemm::gpu_gemm(a, v, y, alpha, beta);
    CHECK(compare_with_reference<S>(y, alpha, a, v, beta, y0) == "");
    const Vector<S> eager = tilegemm::gpu_gemm(a, v);
    CHECK(compare_with_reference<S>(eager, 1, a, v, 0, y0) == "");
  }
  SECTION("into a RowVectorX") {
    const RowVector<S> y0 = random_matrix<S>(1, k);
    RowVector<S> y = y0;
    tilegemm::gpu_gemm(u.transpose(), a, y, alpha, beta);
    CHECK(compare_with_reference<S>(y, alpha, u.transpose(), a, beta, y0) == "");
    y.setConstant(poison<S>());
    tilegemm::gpu_gemm(r, a, y, alpha, S(0));
    CHECK(compare_with_reference<S>(y, alpha, r, a, 0, y0) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm writes into C.block(...), C.col(j) and C.row(i) passed as temporaries",
                   "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index rows = 30, cols = 25, m = 11, n = 13, k = 16;
  Matrix<S> parent = random_matrix<S>(rows, cols);
  const Matrix<S> before = parent;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  SECTION("C.block(3, 4, m, n)") {
    const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
    tilegemm::gpu_gemm(a, b, parent.block(3, 4, m, n), alpha, beta);
    CHECK(compare_with_reference<S>(parent.block(3, 4, m, n), alpha, a, b, beta, before.block(3, 4, m, n)) == "");
    CHECK(outside_unchanged(before, parent, 3, 4, m, n) == "");

    parent.block(3, 4, m, n).setConstant(poison<S>());
    const Matrix<S> poisoned_before = parent;
    tilegemm::gpu_gemm(a, b, parent.block(3, 4, m, n), alpha, S(0));
    CHECK(compare_with_reference<S>(parent.block(3, 4, m, n), alpha, a, b, 0, before.block(3, 4, m, n)) == "");
    CHECK(outside_unchanged(poisoned_before, parent, 3, 4, m, n) == "");
  }
  SECTION("C.col(5)") {
    const Matrix<S> a = random_matrix<S>(rows, k), v = random_matrix<S>(k, 1);
    tilegemm::gpu_gemm(a, v, parent.col(5), alpha, beta);
    CHECK(compare_with_reference<S>(parent.col(5), alpha, a, v, beta, before.col(5)) == "");
    CHECK(outside_unchanged(before, parent, 0, 5, rows, 1) == "");
  }
  SECTION("C.row(2), whose inner stride makes it go through a copy") {
    const Matrix<S> u = random_matrix<S>(1, k), b = random_matrix<S>(k, cols);
    tilegemm::gpu_gemm(u, b, parent.row(2), alpha, beta);
    CHECK(compare_with_reference<S>(parent.row(2), alpha, u, b, beta, before.row(2)) == "");
    CHECK(outside_unchanged(before, parent, 2, 0, 1, cols) == "");
  }
  SECTION("C.block(...).transpose()") {
    const Matrix<S> a = random_matrix<S>(n, k), b = random_matrix<S>(k, m);
    tilegemm::gpu_gemm(a, b, parent.block(6, 2, m, n).transpose(), alpha, beta);
    CHECK(compare_with_reference<S>(parent.block(6, 2, m, n).transpose(), alpha, a, b, beta,
                                    before.block(6, 2, m, n).transpose()) == "");
    CHECK(outside_unchanged(before, parent, 6, 2, m, n) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm with C aliasing A or B uses the old values", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index n = 37;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  Matrix<S> a = random_matrix<S>(n, n), b = random_matrix<S>(n, n);
  SECTION("C is A") {
    const Matrix<S> a0 = a;
    tilegemm::gpu_gemm(a, b, a, alpha, beta);
    CHECK(compare_with_reference<S>(a, alpha, a0, b, beta, a0) == "");
  }
  SECTION("C is B") {
    const Matrix<S> b0 = b;
    tilegemm::gpu_gemm(a, b, b, alpha, beta);
    CHECK(compare_with_reference<S>(b, alpha, a, b0, beta, b0) == "");
  }
  SECTION("C is A and B") {
    const Matrix<S> a0 = a;
    tilegemm::gpu_gemm(a, a, a, alpha, beta);
    CHECK(compare_with_reference<S>(a, alpha, a0, a0, beta, a0) == "");
  }
  SECTION("C is A, read transposed, with beta = 0") {
    const Matrix<S> a0 = a;
    tilegemm::gpu_gemm(a.transpose(), b, a, alpha, S(0));
    CHECK(compare_with_reference<S>(a, alpha, a0.transpose(), b, 0, a0) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm follows BLAS for alpha and beta", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 26, n = 15, k = 20;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  SECTION("beta = 0 ignores NaN in C") {
    Matrix<S> c = poisoned<S>(m, n);
    const S alpha = random_scalar<S>();
    tilegemm::gpu_gemm(a, b, c, alpha, S(0));
    CHECK(!c.hasNaN());
    CHECK(compare_with_reference<S>(c, alpha, a, b, 0, c0) == "");
  }
  SECTION("random alpha and beta") {
    for (int repeat = 0; repeat < 4; ++repeat) {
      Matrix<S> c = c0;
      const S alpha = random_scalar<S>(), beta = random_scalar<S>();
      tilegemm::gpu_gemm(a, b, c, alpha, beta);
      CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");
    }
  }
  SECTION("alpha = 0 gives beta * C without reading A and B") {
    const Matrix<S> nan_a = poisoned<S>(m, k), nan_b = poisoned<S>(k, n);
    Matrix<S> c = c0;
    const S beta = random_scalar<S>();
    tilegemm::gpu_gemm(nan_a, nan_b, c, S(0), beta);
    CHECK(compare_with_reference<S>(c, 0, a, b, beta, c0) == "");  // a and b only give the reference its shapes

    c.setConstant(poison<S>());
    tilegemm::gpu_gemm(nan_a, nan_b, c, S(0), S(0));
    CHECK(all_zero(c.template cast<double>()));
  }
  SECTION("beta = 1 accumulates") {
    Matrix<S> c = c0;
    tilegemm::gpu_gemm(a, b, c, S(1), S(1));
    CHECK(compare_with_reference<S>(c, 1, a, b, 1, c0) == "");
    const Matrix<S> c1 = c, a2 = random_matrix<S>(m, k), b2 = random_matrix<S>(k, n);
    const S alpha = random_scalar<S>();
    tilegemm::gpu_gemm(a2, b2, c, alpha, S(1));
    CHECK(compare_with_reference<S>(c, alpha, a2, b2, 1, c1) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on empty shapes and k = 0 follows BLAS", "[eigen]" TILEGEMM_TEST_TIER,
                   TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  SECTION("0 x K times K x 5 is 0 x 5") {
    const Matrix<S> c = tilegemm::gpu_gemm(random_matrix<S>(0, 7), random_matrix<S>(7, 5));
    CHECK(c.rows() == 0);
    CHECK(c.cols() == 5);
    Matrix<S> d(0, 5);
    tilegemm::gpu_gemm(random_matrix<S>(0, 7), random_matrix<S>(7, 5), d, random_scalar<S>(), random_scalar<S>());
    CHECK(d.size() == 0);
  }
  SECTION("5 x K times K x 0 is 5 x 0") {
    const Matrix<S> c = tilegemm::gpu_gemm(random_matrix<S>(5, 3), random_matrix<S>(3, 0));
    CHECK(c.rows() == 5);
    CHECK(c.cols() == 0);
  }
  SECTION("3 x 0 times 0 x 4 is a 3 x 4 matrix of zeros") {
    const Matrix<S> c = tilegemm::gpu_gemm(random_matrix<S>(3, 0), random_matrix<S>(0, 4));
    REQUIRE(c.rows() == 3);
    REQUIRE(c.cols() == 4);
    CHECK(all_zero(c.template cast<double>()));
  }
  SECTION("k = 0 in place gives beta * C") {
    const Matrix<S> a = random_matrix<S>(3, 0), b = random_matrix<S>(0, 4), c0 = random_matrix<S>(3, 4);
    Matrix<S> c = c0;
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    tilegemm::gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

    c.setConstant(poison<S>());
    tilegemm::gpu_gemm(a, b, c, alpha, S(0));
    CHECK(all_zero(c.template cast<double>()));
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on tall-skinny and long-K shapes", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  check_product<S>("tall-skinny 1000x3 * 3x2", random_matrix<S>(1000, 3), random_matrix<S>(3, 2));
  check_product<S>("long K 5x2000 * 2000x4", random_matrix<S>(5, 2000), random_matrix<S>(2000, 4));
  const Matrix<S> at = random_matrix<S>(2000, 5), bt = random_matrix<S>(4, 2000);
  check_product<S>("long K, both transposed", at.transpose(), bt.transpose());
}

TEMPLATE_TEST_CASE("gpu_gemm with an explicit configuration", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 37, n = 45, k = 29;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), bt = random_matrix<S>(n, k);
  SECTION("LocalTiles<16>, eager") {
    const Matrix<S> c = tilegemm::gpu_gemm<tilegemm::LocalTiles<16>>(a, b);
    CHECK(compare_with_reference<S>(c, 1, a, b, 0, c) == "");
    const Matrix<S> d = tilegemm::gpu_gemm<tilegemm::LocalTiles<16>>(a, bt.transpose());
    CHECK(compare_with_reference<S>(d, 1, a, bt.transpose(), 0, d) == "");
  }
  SECTION("RegisterBlocking<32, 32, 16, 2, 2>, in place") {
    const Matrix<S> c0 = random_matrix<S>(m, n);
    Matrix<S> c = c0;
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    tilegemm::gpu_gemm<tilegemm::RegisterBlocking<32, 32, 16, 2, 2>>(a, b, c, alpha, beta);
    CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

    RowMajorMatrix<S> r = c0;
    tilegemm::gpu_gemm<tilegemm::RegisterBlocking<32, 32, 16, 2, 2>>(a, bt.transpose(), r, alpha, beta);
    CHECK(compare_with_reference<S>(r, alpha, a, bt.transpose(), beta, c0) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm on the user's own context and queue", "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const tilegemm::DeviceEntry entry = tilegemm::find_device("");
  cl_int status = CL_SUCCESS;
  cl::Context context(entry.device, nullptr, nullptr, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  cl::CommandQueue queue(context, entry.device, 0, &status);
  REQUIRE(status == CL_SUCCESS);
  REQUIRE(queue() != tilegemm::queue_for(entry.device)());

  const Index m = 33, n = 18, k = 41;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const Matrix<S> eager = tilegemm::gpu_gemm(queue, a, b);
  CHECK(compare_with_reference<S>(eager, 1, a, b, 0, c0) == "");

  Matrix<S> c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(queue, a.transpose().transpose(), b, c, alpha, beta);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

  const Matrix<S> configured = tilegemm::gpu_gemm<tilegemm::LocalTiles<8>>(queue, a, b);
  CHECK(compare_with_reference<S>(configured, 1, a, b, 0, c0) == "");

  Matrix<S> parent = random_matrix<S>(m + 4, n + 2);
  const Matrix<S> before = parent;
  tilegemm::gpu_gemm(queue, a, b, parent.block(2, 1, m, n), alpha, beta);
  CHECK(compare_with_reference<S>(parent.block(2, 1, m, n), alpha, a, b, beta, before.block(2, 1, m, n)) == "");
  CHECK(outside_unchanged(before, parent, 2, 1, m, n) == "");
}

TEMPLATE_TEST_CASE("C = gpu_gemm(A, B) computes into C: its memory when the shape fits, += and -=, aliasing",
                   "[eigen]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 43, n = 29, k = 31;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  SECTION("into C of the product's shape: the same memory, every element written") {
    Matrix<S> c = Matrix<S>::Constant(m, n, poison<S>());
    const S* memory = c.data();
    c = tilegemm::gpu_gemm(a, b);
    CHECK(c.data() == memory);
    CHECK(compare_with_reference<S>(c, 1, a, b, 0, c0) == "");
  }
  SECTION("into C of another shape, or an empty one: resized") {
    Matrix<S> c = Matrix<S>::Constant(3, 5, poison<S>()), empty;
    c = tilegemm::gpu_gemm(a, b);
    empty = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(c, 1, a, b, 0, c0) == "");
    CHECK(compare_with_reference<S>(empty, 1, a, b, 0, c0) == "");
  }
  SECTION("C += A B and C -= A B are C = A B + C and C = -A B + C") {
    Matrix<S> plus = c0, minus = c0;
    plus += tilegemm::gpu_gemm(a, b);
    minus -= tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(plus, 1, a, b, 1, c0) == "");
    CHECK(compare_with_reference<S>(minus, -1, a, b, 1, c0) == "");
  }
  SECTION("into a block and a row-major matrix; the rest of the parent untouched") {
    Matrix<S> parent = random_matrix<S>(m + 5, n + 3);
    const Matrix<S> before = parent;
    parent.block(4, 2, m, n) = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(parent.block(4, 2, m, n), 1, a, b, 0, c0) == "");
    CHECK(outside_unchanged(before, parent, 4, 2, m, n) == "");
    RowMajorMatrix<S> row_major = RowMajorMatrix<S>::Constant(m, n, poison<S>());
    row_major = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(row_major, 1, a, b, 0, c0) == "");
  }
  SECTION("A = A B with A changing shape, B = A B, A = A^T A: the old values are read") {
    Matrix<S> x = random_matrix<S>(m, k), y = random_matrix<S>(k, k);
    const Matrix<S> x0 = x, y0 = y, b0 = b;
    Matrix<S> z = b;
    x = tilegemm::gpu_gemm(x, z);  // m x k times k x n: x becomes m x n
    CHECK(compare_with_reference<S>(x, 1, x0, b0, 0, c0) == "");
    y = tilegemm::gpu_gemm(x0, y);
    CHECK(compare_with_reference<S>(y, 1, x0, y0, 0, x0) == "");
    Matrix<S> w = x0;
    w = tilegemm::gpu_gemm(w.transpose(), w);
    CHECK(compare_with_reference<S>(w, 1, x0.transpose(), x0, 0, w) == "");
  }
  SECTION("C overlapping the operand in a parent, += through an alias") {
    Matrix<S> parent = random_matrix<S>(k, k + n);
    const Matrix<S> before = parent;
    parent.leftCols(n) += tilegemm::gpu_gemm(parent.leftCols(k).transpose(), parent.rightCols(n));
    const Matrix<S> left = before.leftCols(k), right = before.rightCols(n);
    CHECK(compare_with_reference<S>(parent.leftCols(n), 1, left.transpose(), right, 1, before.leftCols(n)) == "");
  }
  SECTION("a new matrix, a nested product and further expressions") {
    const Matrix<S> made = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(made, 1, a, b, 0, c0) == "");
    const Matrix<S> ab = made, bt = b.transpose();
    const Matrix<S> nested = tilegemm::gpu_gemm(tilegemm::gpu_gemm(a, b), bt);
    CHECK(compare_with_reference<S>(nested, 1, ab, bt, 0, nested) == "");
    const Matrix<S> twice = tilegemm::gpu_gemm(a, b) * S(2);
    CHECK(compare_with_reference<S>(twice, 2, a, b, 0, c0) == "");
  }
  SECTION("shapes that do not fit are refused when the product is made and when it is assigned to a block") {
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, a), MESSAGE_CONTAINS("columns of A must equal the rows of B"));
    Matrix<S> parent = random_matrix<S>(m, n);
    const Matrix<S> before = parent;
    CHECK_THROWS_WITH(parent.topRows(3) = tilegemm::gpu_gemm(a, b), MESSAGE_CONTAINS("but A * B"));
    CHECK(parent == before);
  }
}
