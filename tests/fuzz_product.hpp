// fuzz_product: one product of the fuzz sweep: everything drawn for it (path, scalar, configuration, the device it
// is planned for, shape, transposes or operand forms, placements, alpha and beta), the shape tilegemm plans for it,
// and the text that says how to replay it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <tilegemm/core.hpp>

#include "fuzz_devices.hpp"
#include "fuzz_random.hpp"

namespace tilegemm_fuzz {

enum class Path {
  buffers,  // tilegemm::gemm<Scalar, Config> on cl::Buffers
  eigen,    // tilegemm::gpu_gemm<Config> on Eigen operands
};

// The Eigen path's inputs: the C++ type of A and B (the same for both, each maybe seen through .transpose(), so
// that the number of template instantiations stays small), and for Maps the outer stride.
enum class InputType { matrix, block, row_major, map };
enum class MapStride {
  tight,        // the rows as stored
  padded,       // more
  overlapping,  // fewer, above zero: columns share elements (known problem: the library fails on it)
  zero,         // every column the same elements (known problem, where there is more than one column)
};

// One Eigen input, an m x k A or a k x n B: an object X of the input type, the operand being X or X.transpose().
struct InputForm {
  bool transposed_view = false;
  int first_row = 0, first_col = 0, more_rows = 0, more_cols = 0;  // block: X within a larger matrix
  MapStride stride = MapStride::tight;                             // map: X's storage
  int outer_stride = 0;
  int offset = 0;
  int tail = 0;
};

// The Eigen path's C: the eager product's new matrix, a block of a larger column- or row-major matrix, or (when C
// is a single column) a Map with outer stride 0.
enum class OutputForm { new_matrix, block, row_major_block, zero_stride_column };

struct Product {
  long long draw = 0;  // the index that seeds everything drawn for this product
  Path path = Path::buffers;
  bool is_double = false;
  std::size_t configuration = 0;  // index into the sweep's list of configurations
  std::string configuration_name;
  PlannedFor planned_for = PlannedFor::this_device;
  unsigned gpu_units = 132;
  std::size_t narrow_group = 128;
  int m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;  // converted to the scalar type exactly (drawn as such)
  // buffers
  bool trans_a = false, trans_b = false;
  Placement a, b, c;
  // eigen
  InputType input_type = InputType::matrix;
  InputForm form_a, form_b;
  OutputForm form_c = OutputForm::block;
  int c_first_row = 0, c_first_col = 0, c_more_rows = 0, c_more_cols = 0;  // block
  int c_offset = 0, c_tail = 0;                                            // zero-stride column

  // Whether the Eigen inputs are row-major matrices, stored as their transposes are.
  bool input_is_row_major() const { return input_type == InputType::row_major; }
};

// The rows and columns of the object X of an Eigen input that is the operand (rows x cols) or its transpose.
inline int stored_rows(const InputForm& f, int rows, int cols) { return f.transposed_view ? cols : rows; }
inline int stored_cols(const InputForm& f, int rows, int cols) { return f.transposed_view ? rows : cols; }

// What drawing may choose: how many configurations there are (index 0 is AutoConfig), and whether to keep clear of
// the two problems known in the library: Maps with an outer stride below the rows, and AutoConfig on GPUs whose
// work-groups hold fewer than 256 work-items. (Described narrow GPUs change only the plan, which runs on the device
// there is; the problem shows where the device itself is narrow, e.g. PoCL with POCL_MAX_WORK_GROUP_SIZE=128.)
struct DrawRules {
  std::size_t configurations = 1;
  bool skip_known = false;
  bool gpu_descriptions = true;  // the device runs work-groups as large as the described H200's (1024 work-items)
};

inline InputForm draw_input_form(InputType type, bool transposed_views, int rows, int cols, const DrawRules& rules) {
  InputForm f;
  f.transposed_view = transposed_views && chance(0.5);
  const int x_rows = stored_rows(f, rows, cols), x_cols = stored_cols(f, rows, cols);
  if (type == InputType::block) {
    f.first_row = uniform_int(0, 5);
    f.first_col = uniform_int(0, 3);
    f.more_rows = f.first_row + uniform_int(0, 4);
    f.more_cols = f.first_col + uniform_int(0, 2);
  } else if (type == InputType::map) {
    const double u = uniform01();
    f.stride = u < 0.35   ? MapStride::tight
               : u < 0.75 ? MapStride::padded
               : u < 0.9  ? MapStride::overlapping
                          : MapStride::zero;
    if (rules.skip_known && (f.stride == MapStride::overlapping || (f.stride == MapStride::zero && x_cols > 1))) {
      f.stride = MapStride::padded;
    }
    if (f.stride == MapStride::overlapping && (x_rows < 2 || x_cols < 2)) f.stride = MapStride::padded;
    f.outer_stride = f.stride == MapStride::tight         ? x_rows
                     : f.stride == MapStride::padded      ? x_rows + uniform_int(1, 9)
                     : f.stride == MapStride::overlapping ? uniform_int(1, x_rows - 1)
                                                          : 0;
    f.offset = uniform_int(0, 7);
    f.tail = uniform_int(0, 5);
  }
  return f;
}

inline Product draw_product(long long draw, const DrawRules& rules) {
  Product p;
  p.draw = draw;
  p.path = chance(0.5) ? Path::buffers : Path::eigen;
  p.is_double = chance(0.5);
  const double where = uniform01();
  const auto any_configuration = [&] {
    return static_cast<std::size_t>(uniform_int(0, int(rules.configurations) - 1));
  };
  if (where < 0.03 && !rules.skip_known) {
    p.planned_for = PlannedFor::narrow_gpu;
    p.narrow_group = one_of<std::size_t>({64, 128});
    p.configuration = 0;  // the fallback AutoConfig takes there is what the known problem is about
  } else if (where < 0.36 && rules.gpu_descriptions) {
    p.planned_for = PlannedFor::gpu;
    p.gpu_units = one_of<unsigned>({132, 16, 4});
    p.configuration = chance(0.6) ? 0 : any_configuration();
  } else {
    p.configuration = any_configuration();
  }
  const bool whole_tiles = chance(0.04);
  if (whole_tiles) {
    p.m = draw_whole_tiles_size();
    p.n = draw_whole_tiles_size();
    p.k = draw_whole_tiles_depth();
  } else if (chance(0.03)) {
    p.k = draw_long_k();
    p.m = draw_size_beside_long_k();
    p.n = draw_size_beside_long_k();
  } else if (p.planned_for == PlannedFor::gpu && chance(0.25)) {
    p.m = draw_size_near_large_tiles();
    p.n = draw_size_near_large_tiles();
    p.k = draw_size() % 41;
  } else {
    p.m = draw_size();
    p.n = draw_size();
    p.k = draw_size();
  }
  p.alpha = draw_scale(0.05);
  p.beta = draw_scale(0.35);
  if (!p.is_double) {  // the values the product gets, so that the description and the reference use them exactly
    p.alpha = static_cast<float>(p.alpha);
    p.beta = static_cast<float>(p.beta);
  }
  if (p.path == Path::buffers) {
    p.trans_a = chance(0.5);
    p.trans_b = chance(0.5);
    p.a = draw_placement(p.trans_a ? p.k : p.m, whole_tiles);
    p.b = draw_placement(p.trans_b ? p.n : p.k, whole_tiles);
    p.c = draw_placement(p.m);
    return p;
  }
  // Configurations other than AutoConfig see Maps only, not transposed views (a row-major C still transposes
  // them): the front end's handling of operand types does not depend on the configuration, and every combination
  // of types costs a template instantiation per configuration.
  const bool every_type = p.configuration == 0;
  p.input_type =
      every_type ? one_of({InputType::matrix, InputType::block, InputType::row_major, InputType::map}) : InputType::map;
  p.form_a = draw_input_form(p.input_type, every_type, p.m, p.k, rules);
  p.form_b = draw_input_form(p.input_type, every_type, p.k, p.n, rules);
  const double u = uniform01();
  p.form_c = u < 0.2    ? OutputForm::new_matrix
             : u < 0.65 ? OutputForm::block
             : u < 0.9  ? OutputForm::row_major_block
                        : OutputForm::zero_stride_column;
  if (p.form_c == OutputForm::zero_stride_column && (p.n != 1 || !every_type)) p.form_c = OutputForm::block;
  if (p.form_c == OutputForm::new_matrix) {
    p.alpha = 1;
    p.beta = 0;
  }
  p.c_first_row = uniform_int(0, 4);
  p.c_first_col = uniform_int(0, 3);
  p.c_more_rows = p.c_first_row + uniform_int(0, 3);
  p.c_more_cols = p.c_first_col + uniform_int(0, 2);
  p.c_offset = uniform_int(0, 6);
  p.c_tail = uniform_int(0, 6);
  return p;
}

// The shape and storage of the product that reaches tilegemm::gemm: the caller's for the buffers path; for the
// Eigen path the front end's dense device copies (offset 0, leading dimension the rows as stored), with
// row-major storage as a transpose, and a row-major C as C^T = B^T A^T.
inline tilegemm::detail::GemmShape gemm_shape(const Product& p) {
  tilegemm::detail::GemmShape s;
  s.m = p.m;
  s.n = p.n;
  s.k = p.k;
  if (p.path == Path::buffers) {
    s.trans_a = p.trans_a;
    s.trans_b = p.trans_b;
    s.a = {p.a.offset, p.a.ld};
    s.b = {p.b.offset, p.b.ld};
    s.c = {p.c.offset, p.c.ld};
    return s;
  }
  const bool a_transposed = p.form_a.transposed_view != p.input_is_row_major();
  const bool b_transposed = p.form_b.transposed_view != p.input_is_row_major();
  const int a_rows = a_transposed ? p.k : p.m, b_rows = b_transposed ? p.n : p.k;
  if (p.form_c == OutputForm::row_major_block) {
    s.m = p.n;
    s.n = p.m;
    s.trans_a = !b_transposed;
    s.trans_b = !a_transposed;
    s.a = {0, std::max(b_rows, 1)};
    s.b = {0, std::max(a_rows, 1)};
    s.c = {0, std::max(p.n, 1)};
  } else {
    s.trans_a = a_transposed;
    s.trans_b = b_transposed;
    s.a = {0, std::max(a_rows, 1)};
    s.b = {0, std::max(b_rows, 1)};
    s.c = {0, std::max(p.m, 1)};
  }
  return s;
}

inline const char* input_type_name(InputType t) {
  switch (t) {
    case InputType::matrix:
      return "Matrix";
    case InputType::block:
      return "Block of a larger Matrix";
    case InputType::row_major:
      return "row-major Matrix";
    default:
      return "Map<..., 0, OuterStride<>>";
  }
}

inline std::string describe_input(const char* name, InputType type, const InputForm& f, int rows, int cols) {
  std::ostringstream out;
  const int x_rows = stored_rows(f, rows, cols), x_cols = stored_cols(f, rows, cols);
  out << name << " = " << (f.transposed_view ? "X.transpose()" : "X") << " with X a " << x_rows << "x" << x_cols << " "
      << input_type_name(type);
  if (type == InputType::block) {
    out << " at (" << f.first_row << ", " << f.first_col << ") of a " << x_rows + f.more_rows << "x"
        << x_cols + f.more_cols << " Matrix";
  } else if (type == InputType::map) {
    out << " with outer stride " << f.outer_stride << " at element " << f.offset << " of its storage, " << f.tail
        << " elements after it";
  }
  return out.str();
}

// Everything drawn for the product, as a sentence.
inline std::string describe(const Product& p, std::uint32_t seed) {
  std::ostringstream out;
  out << std::setprecision(17);
  out << "product " << p.draw << " of seed " << seed << ": "
      << (p.path == Path::buffers ? "tilegemm::gemm on cl::Buffers" : "tilegemm::gpu_gemm on Eigen operands") << ", "
      << (p.is_double ? "double" : "float") << ", configuration " << p.configuration_name << ", planned for ";
  if (p.planned_for == PlannedFor::gpu) {
    out << gpu_description(p.gpu_units).name;
  } else if (p.planned_for == PlannedFor::narrow_gpu) {
    out << narrow_gpu_description(p.narrow_group).name;
  } else {
    out << "the device itself";
  }
  out << "; m=" << p.m << " n=" << p.n << " k=" << p.k << ", alpha=" << p.alpha << " beta=" << p.beta;
  if (p.path == Path::buffers) {
    out << ", transA=" << p.trans_a << " transB=" << p.trans_b << "; A offset " << p.a.offset << " lda " << p.a.ld
        << ", B offset " << p.b.offset << " ldb " << p.b.ld << ", C offset " << p.c.offset << " ldc " << p.c.ld
        << " (tails " << p.a.tail << "/" << p.b.tail << "/" << p.c.tail << ")";
  } else {
    out << "; " << describe_input("A", p.input_type, p.form_a, p.m, p.k) << "; "
        << describe_input("B", p.input_type, p.form_b, p.k, p.n) << "; C ";
    switch (p.form_c) {
      case OutputForm::new_matrix:
        out << "= gpu_gemm(A, B), a new matrix";
        break;
      case OutputForm::zero_stride_column:
        out << "a single-column Map with outer stride 0 at element " << p.c_offset << " of its storage";
        break;
      default:
        out << "a block at (" << p.c_first_row << ", " << p.c_first_col << ") of a " << p.m + p.c_more_rows << "x"
            << p.n + p.c_more_cols << (p.form_c == OutputForm::row_major_block ? " row-major" : " column-major")
            << " Matrix";
    }
  }
  return out.str();
}

}  // namespace tilegemm_fuzz
