// sixteen_bit_reference: Eigen::half and Eigen::bfloat16 test data (random values, random bit patterns, poison) and
// the bound a 16-bit product with float accumulation is held to against a double reference.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>

#include "reference.hpp"

namespace tilegemm_test {

// The 16 bits of a value, and a value from 16 bits.
template <class S>
std::uint16_t bits_of(S x) {
  static_assert(sizeof(S) == 2);
  std::uint16_t bits;
  std::memcpy(&bits, static_cast<const void*>(&x), 2);
  return bits;
}
template <class S>
S from_bits(std::uint16_t bits) {
  S x;
  std::memcpy(static_cast<void*>(&x), &bits, 2);
  return x;
}

// The unit roundoff of a result stored in S: 2^-11 for half, 2^-8 for bfloat16, 0 for float (no rounding after the
// float sum).
template <class S>
constexpr double output_rounding() {
  if constexpr (std::is_same_v<S, Eigen::half>) {
    return 1.0 / 2048;
  } else if constexpr (std::is_same_v<S, Eigen::bfloat16>) {
    return 1.0 / 256;
  } else {
    return 0;
  }
}
// Half the smallest step of S near zero: what rounding a tiny result to S may lose besides the relative error.
template <class S>
constexpr double absolute_rounding() {
  if constexpr (std::is_same_v<S, Eigen::half>) {
    return 1.0 / (1 << 25);  // half's smallest subnormal is 2^-24
  } else {
    return std::numeric_limits<float>::denorm_min();  // bfloat16 and float share float's exponent range
  }
}

// Uniform in [-1, 1], rounded to S (the reference is computed from these rounded values).
template <class S>
Matrix<S> random_sixteen_bit(Eigen::Index rows, Eigen::Index cols) {
  return random_matrix<float>(rows, cols).template cast<S>();
}

// Any 16 bits, with every special kind among them: NaNs with payloads, infinities, subnormals, -0.
template <class S>
Matrix<S> random_bit_patterns(Eigen::Index rows, Eigen::Index cols) {
  std::uniform_int_distribution<unsigned> any(0, 0xFFFF);
  Matrix<S> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = from_bits<S>(static_cast<std::uint16_t>(any(generator())));
  // Half: exponent bits 0x7C00; bfloat16: 0x7F80. NaN payloads (signalling and quiet), +-inf, subnormals, -0, max.
  const bool half = std::is_same_v<S, Eigen::half>;
  const std::uint16_t specials[] = {static_cast<std::uint16_t>(half ? 0x7C01 : 0x7F81),   // signalling NaN, payload 1
                                    static_cast<std::uint16_t>(half ? 0xFE3A : 0xFFC5),   // negative quiet NaN
                                    static_cast<std::uint16_t>(half ? 0x7D55 : 0x7FAA),   // NaN with a payload
                                    static_cast<std::uint16_t>(half ? 0x7C00 : 0x7F80),   // +inf
                                    static_cast<std::uint16_t>(half ? 0xFC00 : 0xFF80),   // -inf
                                    0x0001,                                               // smallest subnormal
                                    0x8203,                                               // negative subnormal
                                    0x8000,                                               // -0
                                    static_cast<std::uint16_t>(half ? 0x7BFF : 0x7F7F)};  // largest finite
  for (std::size_t s = 0; s < sizeof(specials) / sizeof(specials[0]) && static_cast<Eigen::Index>(s) < m.size(); ++s) {
    m.data()[s * 7 % m.size()] = from_bits<S>(specials[s]);
  }
  return m;
}

// "" when every element of got has the bits of the same element of expected.
template <class DA, class DB>
std::string same_bits(const Eigen::MatrixBase<DA>& got, const Eigen::MatrixBase<DB>& expected) {
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) return "wrong shape";
  for (Eigen::Index j = 0; j < got.cols(); ++j) {
    for (Eigen::Index i = 0; i < got.rows(); ++i) {
      if (bits_of(got(i, j)) != bits_of(expected(i, j))) {
        std::ostringstream out;
        out << std::hex << "element (" << std::dec << i << ", " << j << ") has the bits 0x" << std::hex
            << bits_of(got(i, j)) << " but should have 0x" << bits_of(expected(i, j));
        return out.str();
      }
    }
  }
  return "";
}

// A 16-bit NaN (poison for a 16-bit output), or float's.
template <class S>
S poison_of() {
  if constexpr (std::is_same_v<S, float>) {
    return std::numeric_limits<float>::quiet_NaN();
  } else {
    return from_bits<S>(std::is_same_v<S, Eigen::half> ? 0x7E00 : 0x7FC0);
  }
}
template <class S>
Matrix<S> poisoned_of(Eigen::Index rows, Eigen::Index cols) {
  return Matrix<S>::Constant(rows, cols, poison_of<S>());
}

// Checks got (of Out: the 16-bit input type or float) == alpha * a * b + beta * c0 against a double reference computed
// from the (rounded) inputs as stored, element by element within
// (K * 2^-23 + u_out) * |alpha| * sum_k |a(i,k)| |b(k,j)|, plus (2^-23 + u_out) |beta c0(i,j)| for the one addition of
// C and the rounding of it, and half of Out's smallest step. Returns "" when it holds.
template <class Out, class Got, class DA, class DB, class DC>
std::string compare_sixteen_bit(const Eigen::MatrixBase<Got>& got, double alpha, const Eigen::MatrixBase<DA>& a,
                                const Eigen::MatrixBase<DB>& b, double beta, const Eigen::MatrixBase<DC>& c0) {
  const Eigen::MatrixXd ad = a.template cast<float>().template cast<double>();
  const Eigen::MatrixXd bd = b.template cast<float>().template cast<double>();
  Eigen::MatrixXd expected = alpha * (ad * bd);
  const Eigen::MatrixXd sums = std::abs(alpha) * (ad.cwiseAbs() * bd.cwiseAbs());
  Eigen::MatrixXd c_terms = Eigen::MatrixXd::Zero(expected.rows(), expected.cols());
  if (beta != 0) {
    const Eigen::MatrixXd cd = c0.template cast<float>().template cast<double>();
    expected += beta * cd;
    c_terms = std::abs(beta) * cd.cwiseAbs();
  }
  const double eps = 1.0 / (1 << 23), u = output_rounding<Out>();
  const double k = static_cast<double>(a.cols());
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) return "wrong shape";
  for (Eigen::Index j = 0; j < got.cols(); ++j) {
    for (Eigen::Index i = 0; i < got.rows(); ++i) {
      const double value = static_cast<double>(static_cast<float>(got(i, j)));
      const double allowed =
          ((k + 1) * eps + u) * sums(i, j) + (2 * eps + u) * c_terms(i, j) + absolute_rounding<Out>();
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
