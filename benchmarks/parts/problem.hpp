// problem: one benchmarked product, C = op(A) * op(B): its shape, transposes and random operands on the host.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>

namespace bench {

// C is m x n, op(A) m x k, op(B) k x n.
struct Shape {
  long long m = 0;
  long long n = 0;
  long long k = 0;

  // The side of the cube with as many multiply-adds: N for square products. Size limits and plots use it.
  double size() const { return std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k)); }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  std::string text() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
  bool operator==(const Shape& other) const { return m == other.m && n == other.n && k == other.k; }
};

// Whether A and B are stored transposed (BLAS's 'T'), as in --transpose NT.
struct Transposes {
  bool a = false;
  bool b = false;

  std::string text() const { return std::string(a ? "T" : "N") + (b ? "T" : "N"); }
};

template <class Scalar>
using HostMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;  // column-major, as BLAS

// The operands as stored (column-major, leading dimension = rows): A is m x k, or k x m when transposed; B is
// k x n, or n x k when transposed.
template <class Scalar>
struct HostOperands {
  Shape shape;
  Transposes transposes;
  HostMatrix<Scalar> a;
  HostMatrix<Scalar> b;

  Scalar op_a(Eigen::Index i, Eigen::Index l) const { return transposes.a ? a(l, i) : a(i, l); }
  Scalar op_b(Eigen::Index l, Eigen::Index j) const { return transposes.b ? b(j, l) : b(l, j); }
};

// Uniform in [-1, 1] and never exactly zero, so that a kernel that skips or misreads elements shows in the check.
template <class Scalar>
HostMatrix<Scalar> random_matrix(long long rows, long long cols, std::mt19937_64& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  HostMatrix<Scalar> matrix(rows, cols);
  for (Eigen::Index i = 0; i < matrix.size(); ++i) {
    Scalar value = 0;
    while (value == Scalar(0)) value = static_cast<Scalar>(uniform(random));
    matrix.data()[i] = value;
  }
  return matrix;
}

template <class Scalar>
HostOperands<Scalar> random_operands(const Shape& shape, const Transposes& transposes, std::mt19937_64& random) {
  HostOperands<Scalar> operands{shape, transposes, {}, {}};
  operands.a =
      transposes.a ? random_matrix<Scalar>(shape.k, shape.m, random) : random_matrix<Scalar>(shape.m, shape.k, random);
  operands.b =
      transposes.b ? random_matrix<Scalar>(shape.n, shape.k, random) : random_matrix<Scalar>(shape.k, shape.n, random);
  return operands;
}

}  // namespace bench
