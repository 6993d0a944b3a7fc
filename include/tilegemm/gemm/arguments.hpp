// gemm/arguments: checking BLAS-style GEMM arguments against each other and the buffers, before anything runs.
#pragma once

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../config/linkage.hpp"
#include "../runtime/launch.hpp"
#include "../runtime/opencl.hpp"
#include "overlap.hpp"

namespace tilegemm {

enum class Transpose { no, yes };

namespace detail {

// Where an operand lies in its buffer, in elements: its first element and its leading dimension (column-major), and
// in a batch the distance from one problem's operand to the next one's (0 for a single product).
struct Storage {
  int offset = 0;
  int ld = 1;
  int stride = 0;
};

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n, all stored column-major: the shape of
// a product and where its operands lie, all that a plan needs to know of it; or of `batch` such products of one
// shape, each operand of problem p at its Storage's offset + p * stride.
struct GemmShape {
  bool trans_a = false;
  bool trans_b = false;
  int m = 0;
  int n = 0;
  int k = 0;
  Storage a;
  Storage b;
  Storage c;
  int batch = 1;
};

// A checked product: its shape, its scalars and its buffers. The same code runs it in float and in double.
struct GemmProblem {
  GemmShape shape;
  ScalarValue alpha;
  ScalarValue beta;
  cl::Buffer a;
  cl::Buffer b;
  cl::Buffer c;

  bool is_double() const { return alpha.is_double; }
  std::size_t scalar_size() const { return alpha.is_double ? sizeof(double) : sizeof(float); }
};

[[noreturn]] inline void fail(const std::string& message) { throw std::invalid_argument("tilegemm::gemm: " + message); }
inline void require(bool ok, const std::string& message) {
  if (!ok) fail(message);
}

// The buffer core's checks name tilegemm::gemm (or gemm_strided_batched) in their messages: the result of `check`,
// with `function`, the one the user called, named instead where another front end makes them.
template <class Check>
auto naming(const std::string& function, Check&& check) {
  try {
    return check();
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    const std::size_t end = message.find(": ");
    if (message.rfind("tilegemm::gemm", 0) != 0 || end == std::string::npos) throw;
    throw std::invalid_argument(function + message.substr(end));
  }
}

inline constexpr long long index_limit = INT_MAX;  // the kernels index buffers with 32-bit ints

// The leading dimension of a stored operand of `rows` rows: at least its rows (and 1), as in BLAS.
inline void check_leading_dimension(const std::string& name, long long ld, long long rows) {
  if (ld < (rows > 1 ? rows : 1))
    fail("the leading dimension of " + name + " is " + std::to_string(ld) + " but must be at least the " +
         std::to_string(rows) + " rows it has as stored (column-major).");
}

// m, n and k: not negative, and within the kernels' 32-bit indices.
inline void check_sizes(long long m, long long n, long long k) {
  if (m < 0 || n < 0 || k < 0)
    fail("m, n and k must not be negative (got m = " + std::to_string(m) + ", n = " + std::to_string(n) +
         ", k = " + std::to_string(k) + ").");
  if (m > index_limit || n > index_limit || k > index_limit)
    fail("m, n and k must fit in a 32-bit int (got m = " + std::to_string(m) + ", n = " + std::to_string(n) +
         ", k = " + std::to_string(k) + ").");
}

// Checks where one stored rows x cols operand lies (offset and leading dimension, in elements), with no arithmetic
// that can overflow on any input, and returns it in int terms; `needed` is the elements of its buffer it spans.
inline Storage check_storage(const std::string& name, long long offset, long long ld, long long rows, long long cols,
                             long long& needed) {
  if (offset < 0) fail("the offset of " + name + " must not be negative (got " + std::to_string(offset) + ").");
  if (offset > index_limit)
    fail("the offset of " + name + " is " + std::to_string(offset) +
         "; tilegemm indexes buffers with 32-bit integers, so it must be at most " + std::to_string(index_limit) + ".");
  check_leading_dimension(name, ld, rows);
  if (ld > index_limit)
    fail("the leading dimension of " + name + " is " + std::to_string(ld) +
         "; tilegemm indexes buffers with 32-bit integers, so it must be at most " + std::to_string(index_limit) + ".");
  // offset, ld, rows and cols are at most 2^31 - 1 here (rows and cols are m, n or k), so this cannot overflow.
  needed = rows > 0 && cols > 0 ? offset + (cols - 1) * ld + rows : offset;
  if (needed > index_limit)
    fail(name + " spans " + std::to_string(needed) +
         " elements of its buffer; tilegemm indexes buffers with 32-bit integers, so at "
         "most " +
         std::to_string(index_limit) + " are supported.");
  return {static_cast<int>(offset), static_cast<int>(ld)};
}

// Checks the buffer of an operand the product reads or writes: not null, large enough for the `needed` elements
// of `scalar_size` bytes it spans, of the queue's context. `problems` > 1: the operand of each of that many problems
// of a batch, `stride` elements apart, which `needed` counts all of.
inline void check_buffer(const std::string& name, const cl::Buffer& buffer, long long rows, long long cols,
                         const Storage& storage, long long needed, std::size_t scalar_size, const cl::Context& context,
                         long long problems = 1, long long stride = 0) {
  if (buffer() == nullptr) fail("buffer " + name + " is a null cl::Buffer.");
  std::size_t bytes = 0;
  buffer.getInfo(CL_MEM_SIZE, &bytes);
  if (static_cast<unsigned long long>(needed) * scalar_size > bytes) {
    const std::string operand = std::to_string(rows) + " x " + std::to_string(cols) + " operand";
    fail("buffer " + name + " holds " + std::to_string(bytes / scalar_size) + " elements but the " +
         (problems > 1 ? std::to_string(problems) + " problems' " + operand + "s" : operand) + " with offset " +
         std::to_string(storage.offset) + " and leading dimension " + std::to_string(storage.ld) +
         (problems > 1 ? ", " + std::to_string(stride) + " elements apart, need " : " needs ") +
         std::to_string(needed) + ".");
  }
  cl_context owner = nullptr;
  buffer.getInfo(CL_MEM_CONTEXT, &owner);
  if (owner != context()) fail("buffer " + name + " belongs to another OpenCL context than the command queue.");
}

// Every event a call waits for must be one: a null cl::Event would reach the driver as an invalid wait list.
inline void check_wait_list(const std::vector<cl::Event>& wait) {
  for (std::size_t i = 0; i < wait.size(); ++i) {
    if (wait[i]() == nullptr) fail("event " + std::to_string(i) + " of the wait list is a null cl::Event.");
  }
}

inline bool check_transpose(const char* name, Transpose value) {
  if (value != Transpose::no && value != Transpose::yes)
    fail(std::string(name) + " must be Transpose::no or Transpose::yes (got the value " +
         std::to_string(static_cast<long long>(value)) + ").");
  return value == Transpose::yes;
}

// What every product's checks begin with: the transposes, m, n and k, and each operand's storage from its offset
// (`*_needed`: the elements of its buffer it reaches). The buffers are the caller's to check.
struct CheckedStorage {
  GemmProblem problem;
  long long a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;
  long long a_needed = 0, b_needed = 0, c_needed = 0;
};
inline CheckedStorage check_sizes_and_storage(Transpose trans_a, Transpose trans_b, long long m, long long n,
                                              long long k, ScalarValue alpha, long long a_offset, long long lda,
                                              long long b_offset, long long ldb, ScalarValue beta, long long c_offset,
                                              long long ldc) {
  const bool ta = check_transpose("trans_a", trans_a);
  const bool tb = check_transpose("trans_b", trans_b);
  check_sizes(m, n, k);
  CheckedStorage s;
  GemmProblem& p = s.problem;
  p.alpha = alpha;
  p.beta = beta;
  s.a_rows = ta ? k : m;
  s.a_cols = ta ? m : k;
  s.b_rows = tb ? n : k;
  s.b_cols = tb ? k : n;
  p.shape.trans_a = ta;
  p.shape.trans_b = tb;
  p.shape.m = static_cast<int>(m);
  p.shape.n = static_cast<int>(n);
  p.shape.k = static_cast<int>(k);
  p.shape.a = check_storage("A", a_offset, lda, s.a_rows, s.a_cols, s.a_needed);
  p.shape.b = check_storage("B", b_offset, ldb, s.b_rows, s.b_cols, s.b_needed);
  p.shape.c = check_storage("C", c_offset, ldc, m, n, s.c_needed);
  return s;
}

// Checks the arguments of C = alpha * op(A) * op(B) + beta * C. Buffers are checked where the product uses them:
// A and B when it reads them (not for an empty C, k = 0 or alpha = 0, as in BLAS), C unless C is empty. C must not
// share memory with an A or B that is read.
TILEGEMM_ENTRY GemmProblem check_arguments(const cl::Context& context, Transpose trans_a, Transpose trans_b,
                                           long long m, long long n, long long k, ScalarValue alpha,
                                           const cl::Buffer& a, long long a_offset, long long lda, const cl::Buffer& b,
                                           long long b_offset, long long ldb, ScalarValue beta, const cl::Buffer& c,
                                           long long c_offset, long long ldc);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY GemmProblem check_arguments(const cl::Context& context, Transpose trans_a, Transpose trans_b,
                                           long long m, long long n, long long k, ScalarValue alpha,
                                           const cl::Buffer& a, long long a_offset, long long lda, const cl::Buffer& b,
                                           long long b_offset, long long ldb, ScalarValue beta, const cl::Buffer& c,
                                           long long c_offset, long long ldc) {
  CheckedStorage checked =
      check_sizes_and_storage(trans_a, trans_b, m, n, k, alpha, a_offset, lda, b_offset, ldb, beta, c_offset, ldc);
  GemmProblem& p = checked.problem;
  const std::size_t size = p.scalar_size();
  const long long a_rows = checked.a_rows, a_cols = checked.a_cols, b_rows = checked.b_rows, b_cols = checked.b_cols;
  const long long a_needed = checked.a_needed, b_needed = checked.b_needed, c_needed = checked.c_needed;
  const bool writes_c = m > 0 && n > 0;
  const bool reads_ab = writes_c && k > 0 && alpha.value != 0;
  if (reads_ab) {
    check_buffer("A", a, a_rows, a_cols, p.shape.a, a_needed, size, context);
    check_buffer("B", b, b_rows, b_cols, p.shape.b, b_needed, size, context);
  }
  if (writes_c) check_buffer("C", c, m, n, p.shape.c, c_needed, size, context);
  if (reads_ab) {
    for (const auto& [name, buffer, offset, ld, rows, cols] :
         {std::tuple{"A", a, a_offset, lda, a_rows, a_cols}, std::tuple{"B", b, b_offset, ldb, b_rows, b_cols}}) {
      if (operands_overlap(c, c_offset, ldc, m, n, buffer, offset, ld, rows, cols, size)) {
        fail(std::string("C overlaps ") + name + " in memory: the product would read elements of " + name +
             " that it has already overwritten. Give C memory of its own.");
      }
    }
  }
  p.a = a;
  p.b = b;
  p.c = c;
  return p;
}
#endif

// The same for arguments of type Scalar.
template <class Scalar>
GemmProblem check_arguments(const cl::Context& context, Transpose trans_a, Transpose trans_b, long long m, long long n,
                            long long k, Scalar alpha, const cl::Buffer& a, long long a_offset, long long lda,
                            const cl::Buffer& b, long long b_offset, long long ldb, Scalar beta, const cl::Buffer& c,
                            long long c_offset, long long ldc) {
  return check_arguments(context, trans_a, trans_b, m, n, k, scalar_value(alpha), a, a_offset, lda, b, b_offset, ldb,
                         scalar_value(beta), c, c_offset, ldc);
}

}  // namespace detail
}  // namespace tilegemm
