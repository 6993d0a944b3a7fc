// reference: fresh random operands, poisoned outputs and the double-precision reference every test compares with.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace tilegemm_test {

template <class Scalar>
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

// The seed of this run: TILEGEMM_TEST_SEED when set (to replay a failure), else fresh from std::random_device.
inline std::uint32_t run_seed() {
  static const std::uint32_t seed = [] {
    if (const char* text = std::getenv("TILEGEMM_TEST_SEED")) return static_cast<std::uint32_t>(std::stoul(text));
    return static_cast<std::uint32_t>(std::random_device{}());
  }();
  return seed;
}

inline std::mt19937& generator() {
  thread_local std::mt19937 engine(run_seed() + std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000);
  return engine;
}

// Uniform in [-1, 1], never all zeros: a kernel that forgets to write or reads the wrong element shows.
template <class Scalar>
Matrix<Scalar> random_matrix(Eigen::Index rows, Eigen::Index cols) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Matrix<Scalar> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(uniform(generator()));
  return m;
}

template <class Scalar>
Scalar random_scalar() {
  std::uniform_real_distribution<double> uniform(0.25, 2.0);
  return static_cast<Scalar>(std::bernoulli_distribution(0.5)(generator()) ? uniform(generator())
                                                                           : -uniform(generator()));
}

template <class Scalar>
constexpr Scalar poison() {
  return std::numeric_limits<Scalar>::quiet_NaN();
}

// `m` with every element rounded to nearest even to bfloat16 (`half` false) or half, as the bf16 and fp16 math modes
// round float operands before multiplying them; as float.
inline Matrix<float> rounded_to_16_bits(const Matrix<float>& m, bool half) {
  Matrix<float> r(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    r.data()[i] =
        half ? static_cast<float>(Eigen::half(m.data()[i])) : static_cast<float>(Eigen::bfloat16(m.data()[i]));
  }
  return r;
}

// Checks got == alpha * a * b + beta * c0 element by element against a double-precision reference, within the
// worst-case rounding bound of a k-term dot product, (k + 2) eps (|alpha| |A| |B| + |beta| |C0|), plus
// 2 operand_rounding where the kernel rounds the operands first (TF32: 2^-11). Returns an empty string when it
// holds, else a description of the first element that does not.
template <class Scalar, class Got, class DA, class DB, class DC>
std::string compare_with_reference(const Eigen::MatrixBase<Got>& got, double alpha, const Eigen::MatrixBase<DA>& a,
                                   const Eigen::MatrixBase<DB>& b, double beta, const Eigen::MatrixBase<DC>& c0,
                                   double operand_rounding = 0) {
  const Eigen::MatrixXd ad = a.template cast<double>(), bd = b.template cast<double>();
  const Eigen::MatrixXd cd = c0.template cast<double>();
  Eigen::MatrixXd expected = alpha * (ad * bd);
  Eigen::MatrixXd bound = std::abs(alpha) * (ad.cwiseAbs() * bd.cwiseAbs());
  if (beta != 0) {
    expected += beta * cd;
    bound += std::abs(beta) * cd.cwiseAbs();
  }
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const double tolerance = (static_cast<double>(a.cols()) + 2) * eps + 2 * operand_rounding;
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) return "wrong shape";
  for (Eigen::Index j = 0; j < got.cols(); ++j) {
    for (Eigen::Index i = 0; i < got.rows(); ++i) {
      const double value = static_cast<double>(got(i, j));
      const double allowed = tolerance * bound(i, j) + std::numeric_limits<Scalar>::min();
      if (!(std::abs(value - expected(i, j)) <= allowed)) {  // also catches NaN
        std::ostringstream out;
        out << "element (" << i << ", " << j << ") of the " << got.rows() << "x" << got.cols() << " result is " << value
            << " but should be " << expected(i, j) << " (allowed error " << allowed << ")";
        return out.str();
      }
    }
  }
  return "";
}

}  // namespace tilegemm_test
