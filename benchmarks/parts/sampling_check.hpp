// sampling_check: checks a product on a sample of C (edges plus random entries) against exact double dot products.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "problem.hpp"

namespace bench {

// One sampled entry of C with its reference value and the scale it is compared at, sum over l of
// |op(A)(i, l)| |op(B)(l, j)|.
struct SampledEntry {
  Eigen::Index i;
  Eigen::Index j;
  double reference;
  double scale;
};

// The largest relative error a correct product may have: float and double rounding over long dot products.
template <class Scalar>
constexpr double error_limit() {
  return std::is_same_v<Scalar, float> ? 1e-5 : 1e-13;
}
// The same for float products on operands rounded to TF32 (2^-11 each): products off by up to 2^-10, then FP32 sums.
inline constexpr double tf32_error_limit = 4e-3;
// Operands rounded to half (2^-11 each, as TF32) or to bfloat16 (2^-8 each: products off by up to 2^-7).
inline constexpr double fp16_error_limit = tf32_error_limit;
inline constexpr double bf16_error_limit = 3e-2;

// Row i of op(A) and column j of op(B), in double.
template <class Scalar>
std::vector<double> op_a_row(const HostOperands<Scalar>& operands, Eigen::Index i) {
  std::vector<double> row(operands.shape.k);
  for (Eigen::Index l = 0; l < operands.shape.k; ++l) row[l] = static_cast<double>(operands.op_a(i, l));
  return row;
}

template <class Scalar>
std::vector<double> op_b_column(const HostOperands<Scalar>& operands, Eigen::Index j) {
  std::vector<double> column(operands.shape.k);
  for (Eigen::Index l = 0; l < operands.shape.k; ++l) column[l] = static_cast<double>(operands.op_b(l, j));
  return column;
}

// The dot product of the k-long x and y in double (exact products of floats), with the sum of the absolute
// products as its scale.
template <class X, class Y>
SampledEntry dot_entry(Eigen::Index i, Eigen::Index j, const X* x, const Y* y, Eigen::Index k) {
  double sum = 0;
  double scale = 0;
  for (Eigen::Index l = 0; l < k; ++l) {
    const double product = static_cast<double>(x[l]) * static_cast<double>(y[l]);
    sum += product;
    scale += std::abs(product);
  }
  return {i, j, sum, scale};
}

template <class Scalar>
SampledEntry reference_entry(const HostOperands<Scalar>& operands, Eigen::Index i, Eigen::Index j) {
  return dot_entry(i, j, op_a_row(operands, i).data(), op_b_column(operands, j).data(), operands.shape.k);
}

// A whole row or column of C, `length` entries, as the sum over l of weight[l] * line(l), where line(l) points to
// `length` contiguous elements of an operand: how to read an operand whose elements lie across the dot products.
template <class Line, class MakeEntry>
void add_accumulated(Eigen::Index length, const std::vector<double>& weight, Line&& line, MakeEntry&& make_entry,
                     std::vector<SampledEntry>& samples) {
  std::vector<double> sum(length, 0.0);
  std::vector<double> scale(length, 0.0);
  for (std::size_t l = 0; l < weight.size(); ++l) {
    const auto* elements = line(static_cast<Eigen::Index>(l));
    for (Eigen::Index x = 0; x < length; ++x) {
      const double product = weight[l] * static_cast<double>(elements[x]);
      sum[x] += product;
      scale[x] += std::abs(product);
    }
  }
  for (Eigen::Index x = 0; x < length; ++x) samples.push_back(make_entry(x, sum[x], scale[x]));
}

// Row i of C, every column, reading B contiguously whichever way it is stored.
template <class Scalar>
void add_row(const HostOperands<Scalar>& operands, Eigen::Index i, std::vector<SampledEntry>& samples) {
  const Eigen::Index n = operands.shape.n;
  const std::vector<double> row = op_a_row(operands, i);
  if (!operands.transposes.b) {  // column j of op(B) is column j of B
    for (Eigen::Index j = 0; j < n; ++j) {
      samples.push_back(dot_entry(i, j, row.data(), operands.b.col(j).data(), operands.shape.k));
    }
    return;
  }
  add_accumulated(  // row l of op(B) is column l of B
      n, row, [&](Eigen::Index l) { return operands.b.col(l).data(); },
      [&](Eigen::Index j, double sum, double scale) {
        return SampledEntry{i, j, sum, scale};
      },
      samples);
}

// Column j of C, every row, reading A contiguously whichever way it is stored.
template <class Scalar>
void add_column(const HostOperands<Scalar>& operands, Eigen::Index j, std::vector<SampledEntry>& samples) {
  const Eigen::Index m = operands.shape.m;
  const std::vector<double> column = op_b_column(operands, j);
  if (operands.transposes.a) {  // row i of op(A) is column i of A
    for (Eigen::Index i = 0; i < m; ++i) {
      samples.push_back(dot_entry(i, j, operands.a.col(i).data(), column.data(), operands.shape.k));
    }
    return;
  }
  add_accumulated(  // column l of op(A) is column l of A
      m, column, [&](Eigen::Index l) { return operands.a.col(l).data(); },
      [&](Eigen::Index i, double sum, double scale) {
        return SampledEntry{i, j, sum, scale};
      },
      samples);
}

// The whole first and last row and column of C, and `random_count` entries anywhere, with their references.
template <class Scalar>
std::vector<SampledEntry> sample_references(const HostOperands<Scalar>& operands, std::mt19937_64& random,
                                            int random_count = 2000) {
  const Eigen::Index m = operands.shape.m;
  const Eigen::Index n = operands.shape.n;
  std::vector<SampledEntry> samples;
  add_row(operands, 0, samples);
  if (m > 1) add_row(operands, m - 1, samples);
  add_column(operands, 0, samples);
  if (n > 1) add_column(operands, n - 1, samples);
  std::uniform_int_distribution<Eigen::Index> row(0, m - 1);
  std::uniform_int_distribution<Eigen::Index> column(0, n - 1);
  for (int s = 0; s < random_count; ++s) samples.push_back(reference_entry(operands, row(random), column(random)));
  return samples;
}

// max |c - reference| / max(scale, tiny) over the sample; NaN when any sampled entry of C is not a number.
template <class Scalar>
double max_relative_error(const std::vector<SampledEntry>& samples, const HostMatrix<Scalar>& c) {
  double worst = 0;
  for (const SampledEntry& s : samples) {
    const double got = static_cast<double>(c(s.i, s.j));
    if (std::isnan(got)) return std::numeric_limits<double>::quiet_NaN();
    const double error = std::abs(got - s.reference) / std::max(s.scale, std::numeric_limits<double>::min());
    worst = std::max(worst, error);
  }
  return worst;
}

// Whether an error passes: NaN (a missing or poisoned entry) never does.
template <class Scalar>
bool error_acceptable(double error) {
  return error <= error_limit<Scalar>();
}

}  // namespace bench
