// gemm/arguments: checking BLAS-style GEMM arguments against each other and the buffers, before anything runs.
#pragma once

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "../runtime/launch_basics.hpp"
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

// The problems a dense device copy of an operand holds (a widened or packed one): one where every problem of the
// batch reads the same matrix (stride 0).
inline long long copied_problems(int batch, int stride) { return batch > 1 && stride != 0 ? batch : 1; }

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

// Where one of the caller's operands lies: its buffer, its first element and its leading dimension (column-major,
// in elements), and in a strided batch the distance from one problem's operand to the next one's.
struct OperandArguments {
  OperandArguments() = default;
  OperandArguments(cl::Buffer buffer_, long long offset_, long long ld_, long long stride_ = 0)
      : buffer(std::move(buffer_)), offset(offset_), ld(ld_), stride(stride_) {}
  cl::Buffer buffer;
  long long offset = 0;
  long long ld = 1;
  long long stride = 0;
};

// The arguments of C = alpha * op(A) * op(B) + beta * C, or of batch_count such products a stride apart, as the
// caller gave them (in BLAS's order): what check_arguments and check_batched_arguments check.
struct GemmArguments {
  GemmArguments(Transpose trans_a_, Transpose trans_b_, long long m_, long long n_, long long k_, ScalarValue alpha_,
                OperandArguments a_, OperandArguments b_, ScalarValue beta_, OperandArguments c_,
                long long batch_count_ = 1)
      : trans_a(trans_a_),
        trans_b(trans_b_),
        m(m_),
        n(n_),
        k(k_),
        alpha(alpha_),
        a(std::move(a_)),
        b(std::move(b_)),
        beta(beta_),
        c(std::move(c_)),
        batch_count(batch_count_) {}
  Transpose trans_a;
  Transpose trans_b;
  long long m, n, k;
  ScalarValue alpha;
  OperandArguments a;
  OperandArguments b;
  ScalarValue beta;
  OperandArguments c;
  long long batch_count;
};

// What every product's checks begin with: the transposes, m, n and k, and each operand's storage from its offset
// (`*_needed`: the elements of its buffer it reaches). The buffers are the caller's to check.
struct CheckedStorage {
  GemmProblem problem;
  long long a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;
  long long a_needed = 0, b_needed = 0, c_needed = 0;
};
inline CheckedStorage check_sizes_and_storage(const GemmArguments& x) {
  const bool ta = check_transpose("trans_a", x.trans_a);
  const bool tb = check_transpose("trans_b", x.trans_b);
  check_sizes(x.m, x.n, x.k);
  CheckedStorage s;
  GemmProblem& p = s.problem;
  p.alpha = x.alpha;
  p.beta = x.beta;
  s.a_rows = ta ? x.k : x.m;
  s.a_cols = ta ? x.m : x.k;
  s.b_rows = tb ? x.n : x.k;
  s.b_cols = tb ? x.k : x.n;
  p.shape.trans_a = ta;
  p.shape.trans_b = tb;
  p.shape.m = static_cast<int>(x.m);
  p.shape.n = static_cast<int>(x.n);
  p.shape.k = static_cast<int>(x.k);
  p.shape.a = check_storage("A", x.a.offset, x.a.ld, s.a_rows, s.a_cols, s.a_needed);
  p.shape.b = check_storage("B", x.b.offset, x.b.ld, s.b_rows, s.b_cols, s.b_needed);
  p.shape.c = check_storage("C", x.c.offset, x.c.ld, x.m, x.n, s.c_needed);
  return s;
}

// Checks the arguments of C = alpha * op(A) * op(B) + beta * C (strides and batch_count are not looked at). Buffers
// are checked where the product uses them: A and B when it reads them (not for an empty C, k = 0 or alpha = 0, as
// in BLAS), C unless C is empty. C must not share memory with an A or B that is read.
TILEGEMM_ENTRY GemmProblem check_arguments(const cl::Context& context, const GemmArguments& x);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY GemmProblem check_arguments(const cl::Context& context, const GemmArguments& x) {
  CheckedStorage checked = check_sizes_and_storage(x);
  GemmProblem& p = checked.problem;
  const std::size_t size = p.scalar_size();
  const long long m = x.m, n = x.n;
  const long long a_rows = checked.a_rows, a_cols = checked.a_cols, b_rows = checked.b_rows, b_cols = checked.b_cols;
  const bool writes_c = m > 0 && n > 0;
  const bool reads_ab = writes_c && x.k > 0 && x.alpha.value != 0;
  if (reads_ab) {
    check_buffer("A", x.a.buffer, a_rows, a_cols, p.shape.a, checked.a_needed, size, context);
    check_buffer("B", x.b.buffer, b_rows, b_cols, p.shape.b, checked.b_needed, size, context);
  }
  if (writes_c) check_buffer("C", x.c.buffer, m, n, p.shape.c, checked.c_needed, size, context);
  if (reads_ab) {
    for (const auto& [name, operand, rows, cols] :
         {std::tuple{"A", &x.a, a_rows, a_cols}, std::tuple{"B", &x.b, b_rows, b_cols}}) {
      if (operands_overlap(x.c.buffer, x.c.offset, x.c.ld, m, n, operand->buffer, operand->offset, operand->ld, rows,
                           cols, size)) {
        fail(std::string("C overlaps ") + name + " in memory: the product would read elements of " + name +
             " that it has already overwritten. Give C memory of its own.");
      }
    }
  }
  p.a = x.a.buffer;
  p.b = x.b.buffer;
  p.c = x.c.buffer;
  return p;
}
#endif

}  // namespace detail
}  // namespace tilegemm
