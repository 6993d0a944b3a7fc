// fuzz_eigen: one fuzz product through tilegemm::gpu_gemm<Config> on Eigen operands of the drawn types and forms,
// compared with the double-precision reference; C's surroundings (the rest of the larger matrix, or of the Map's
// storage) must be unchanged. Only the call itself depends on the operand types and the configuration, since each
// combination is a template instantiation (about 0.1 s of compile time each).
#pragma once

#include <Eigen/Dense>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "fuzz_buffers.hpp"
#include "fuzz_product.hpp"
#include "reference.hpp"

namespace tilegemm_fuzz {

template <class Scalar>
using RowMajorMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class Scalar>
using StridedMap = Eigen::Map<const Matrix<Scalar>, 0, Eigen::OuterStride<>>;
template <class Scalar>
using WritableStridedMap = Eigen::Map<Matrix<Scalar>, 0, Eigen::OuterStride<>>;

// One input (A or B) as the drawn type holds it: X, with NaN around it where X lies in larger storage.
template <class Scalar>
struct EigenInput {
  InputType type;
  InputForm form;
  int x_rows, x_cols;
  Matrix<Scalar> matrix;  // the matrix, or the larger one a block lies in
  RowMajorMatrix<Scalar> row_major;
  std::vector<Scalar> storage;  // a Map's

  EigenInput(InputType t, const InputForm& f, int rows, int cols)
      : type(t), form(f), x_rows(stored_rows(f, rows, cols)), x_cols(stored_cols(f, rows, cols)) {
    const Matrix<Scalar> values = tilegemm_test::random_matrix<Scalar>(x_rows, x_cols);
    const Scalar nan = tilegemm_test::poison<Scalar>();
    switch (type) {
      case InputType::matrix:
        matrix = values;
        break;
      case InputType::block:
        matrix = Matrix<Scalar>::Constant(x_rows + form.more_rows, x_cols + form.more_cols, nan);
        matrix.block(form.first_row, form.first_col, x_rows, x_cols) = values;
        break;
      case InputType::row_major:
        row_major = values;
        break;
      case InputType::map:
        storage.assign(form.offset + form.outer_stride * std::max(x_cols - 1, 0) + x_rows + form.tail + 1, nan);
        // With overlapping columns, later ones overwrite earlier ones: the operand is what the Map then reads.
        WritableStridedMap<Scalar>(storage.data() + form.offset, x_rows, x_cols,
                                   Eigen::OuterStride<>(form.outer_stride)) = values;
        break;
    }
  }

  Eigen::Block<const Matrix<Scalar>> block() const {
    return matrix.block(form.first_row, form.first_col, x_rows, x_cols);
  }
  StridedMap<Scalar> map() const {
    return StridedMap<Scalar>(storage.data() + form.offset, x_rows, x_cols, Eigen::OuterStride<>(form.outer_stride));
  }

  // The operand's values, read through X as Eigen reads it.
  Matrix<Scalar> value() const {
    Matrix<Scalar> x;
    switch (type) {
      case InputType::matrix:
        x = matrix;
        break;
      case InputType::block:
        x = block();
        break;
      case InputType::row_major:
        x = row_major;
        break;
      case InputType::map:
        x = map();
        break;
    }
    return form.transposed_view ? Matrix<Scalar>(x.transpose()) : x;
  }
};

// f(op(XA), op(XB)) with op each input's view: the four combinations of transposes.
template <class XA, class XB, class F>
void with_views(const XA& xa, bool transpose_a, const XB& xb, bool transpose_b, F&& f) {
  if (transpose_a) {
    if (transpose_b) {
      f(xa.transpose(), xb.transpose());
    } else {
      f(xa.transpose(), xb);
    }
  } else if (transpose_b) {
    f(xa, xb.transpose());
  } else {
    f(xa, xb);
  }
}

// f(A, B) with A and B as the drawn type holds them; with EveryType false only Maps, as stored.
template <bool EveryType, class Scalar, class F>
void with_operands(const EigenInput<Scalar>& a, const EigenInput<Scalar>& b, F&& f) {
  if constexpr (EveryType) {
    const bool ta = a.form.transposed_view, tb = b.form.transposed_view;
    switch (a.type) {
      case InputType::matrix:
        return with_views(a.matrix, ta, b.matrix, tb, f);
      case InputType::block:
        return with_views(a.block(), ta, b.block(), tb, f);
      case InputType::row_major:
        return with_views(a.row_major, ta, b.row_major, tb, f);
      case InputType::map:
        return with_views(a.map(), ta, b.map(), tb, f);
    }
  } else {
    f(a.map(), b.map());
  }
}

// C in its drawn form: before the product (c0 inside, random values around it), then the product's result.
template <class Scalar>
struct EigenOutput {
  const Product& p;
  Matrix<Scalar> c0;  // NaN where beta is zero: C must not be read then
  Matrix<Scalar> fresh;
  Matrix<Scalar> column_major, column_major_before;
  RowMajorMatrix<Scalar> row_major, row_major_before;
  std::vector<Scalar> storage;

  explicit EigenOutput(const Product& product) : p(product) {
    c0 = p.beta == 0 ? Matrix<Scalar>::Constant(p.m, p.n, tilegemm_test::poison<Scalar>())
                     : tilegemm_test::random_matrix<Scalar>(p.m, p.n);
    switch (p.form_c) {
      case OutputForm::new_matrix:
        break;
      case OutputForm::block:
        column_major = tilegemm_test::random_matrix<Scalar>(p.m + p.c_more_rows, p.n + p.c_more_cols);
        column_major.block(p.c_first_row, p.c_first_col, p.m, p.n) = c0;
        column_major_before = column_major;
        break;
      case OutputForm::row_major_block:
        row_major = tilegemm_test::random_matrix<Scalar>(p.m + p.c_more_rows, p.n + p.c_more_cols);
        row_major.block(p.c_first_row, p.c_first_col, p.m, p.n) = c0;
        row_major_before = row_major;
        break;
      case OutputForm::zero_stride_column:
        storage.assign(p.c_offset + p.m + p.c_tail, sentinel<Scalar>());
        column().col(0) = c0.col(0);
        break;
    }
  }

  WritableStridedMap<Scalar> column() { return {storage.data() + p.c_offset, p.m, 1, Eigen::OuterStride<>(0)}; }

  // C = gpu_gemm<Config>(a, b) or gpu_gemm<Config>(a, b, C, alpha, beta) into C's form; with EveryForm false, C
  // is never the zero-stride column (see draw_product).
  template <class Config, bool EveryForm, class DA, class DB>
  void receive(const DA& a, const DB& b) {
    const Scalar alpha = static_cast<Scalar>(p.alpha), beta = static_cast<Scalar>(p.beta);
    switch (p.form_c) {
      case OutputForm::new_matrix:
        fresh = tilegemm::gpu_gemm<Config>(a, b);
        break;
      case OutputForm::block:
        tilegemm::gpu_gemm<Config>(a, b, column_major.block(p.c_first_row, p.c_first_col, p.m, p.n), alpha, beta);
        break;
      case OutputForm::row_major_block:
        tilegemm::gpu_gemm<Config>(a, b, row_major.block(p.c_first_row, p.c_first_col, p.m, p.n), alpha, beta);
        break;
      case OutputForm::zero_stride_column:
        if constexpr (EveryForm) {
          WritableStridedMap<Scalar> c = column();
          tilegemm::gpu_gemm<Config>(a, b, c, alpha, beta);
        }
        break;
    }
  }

  Matrix<Scalar> result() {
    switch (p.form_c) {
      case OutputForm::new_matrix:
        return fresh;
      case OutputForm::block:
        return column_major.block(p.c_first_row, p.c_first_col, p.m, p.n);
      case OutputForm::row_major_block:
        return row_major.block(p.c_first_row, p.c_first_col, p.m, p.n);
      default:
        return column();
    }
  }

  // "" when nothing outside C changed.
  std::string outside_changes() const {
    const auto changed = [&](const auto& before, const auto& after) -> std::string {
      for (Eigen::Index j = 0; j < after.cols(); ++j) {
        for (Eigen::Index i = 0; i < after.rows(); ++i) {
          const bool inside =
              i >= p.c_first_row && i < p.c_first_row + p.m && j >= p.c_first_col && j < p.c_first_col + p.n;
          if (!inside && !(after(i, j) == before(i, j))) {
            return "element (" + std::to_string(i) + ", " + std::to_string(j) +
                   ") of the larger matrix, outside the block C, changed from " + std::to_string(before(i, j)) +
                   " to " + std::to_string(after(i, j));
          }
        }
      }
      return "";
    };
    switch (p.form_c) {
      case OutputForm::block:
        return changed(column_major_before, column_major);
      case OutputForm::row_major_block:
        return changed(row_major_before, row_major);
      case OutputForm::zero_stride_column:
        for (std::size_t i = 0; i < storage.size(); ++i) {
          const bool inside =
              i >= static_cast<std::size_t>(p.c_offset) && i < static_cast<std::size_t>(p.c_offset + p.m);
          if (!inside && !(storage[i] == sentinel<Scalar>())) {
            return "element " + std::to_string(i) + " of the storage of C's Map, outside C, was overwritten";
          }
        }
        return "";
      default:
        return "";
    }
  }
};

// The product with Config on the inputs' and C's types: every type and form for AutoConfig, Maps into blocks or a
// new matrix for the others (see draw_product).
template <class Scalar>
using EigenGemmFunction = void (*)(const EigenInput<Scalar>&, const EigenInput<Scalar>&, EigenOutput<Scalar>&);
template <class Scalar, class Config>
void call_gpu_gemm(const EigenInput<Scalar>& a, const EigenInput<Scalar>& b, EigenOutput<Scalar>& c) {
  constexpr bool every_type = std::is_same_v<Config, tilegemm::AutoConfig>;
  with_operands<every_type>(
      a, b, [&](const auto& op_a, const auto& op_b) { c.template receive<Config, every_type>(op_a, op_b); });
}

// Runs product p through `gpu_gemm`; returns "" when C is right and nothing around it changed, else what went wrong.
template <class Scalar>
std::string run_through_eigen(const Product& p, EigenGemmFunction<Scalar> gpu_gemm) {
  const EigenInput<Scalar> a(p.input_type, p.form_a, p.m, p.k), b(p.input_type, p.form_b, p.k, p.n);
  EigenOutput<Scalar> c(p);
  gpu_gemm(a, b, c);
  const std::string wrong =
      tilegemm_test::compare_with_reference<Scalar>(c.result(), p.alpha, a.value(), b.value(), p.beta, c.c0);
  if (!wrong.empty()) return "wrong result: " + wrong;
  return c.outside_changes();
}

}  // namespace tilegemm_fuzz
