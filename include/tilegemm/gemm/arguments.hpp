// gemm/arguments: checking BLAS-style GEMM arguments against each other and the buffers, before anything runs.
#pragma once

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../runtime/launch.hpp"
#include "../runtime/opencl.hpp"

namespace tilegemm {

enum class Transpose { no, yes };

namespace detail {

// Where an operand lies in its buffer, in elements: its first element and its leading dimension (column-major).
struct Storage {
  int offset = 0;
  int ld = 1;
};

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n, all stored column-major: the shape of
// a product and where its operands lie, all that a plan needs to know of it.
struct GemmShape {
  bool trans_a = false;
  bool trans_b = false;
  int m = 0;
  int n = 0;
  int k = 0;
  Storage a;
  Storage b;
  Storage c;
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

inline void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("tilegemm::gemm: " + message);
}

// Checks one stored rows x cols operand of `scalar_size`-byte elements against its buffer and returns where it
// lies, in int terms.
inline Storage check_operand(const char* name, const cl::Buffer& buffer, long long offset, long long ld, long long rows,
                             long long cols, std::size_t scalar_size, const cl::Context& context) {
  const std::string n(name);
  require(offset >= 0, "the offset of " + n + " must not be negative (got " + std::to_string(offset) + ").");
  require(ld >= (rows > 1 ? rows : 1), "the leading dimension of " + n + " is " + std::to_string(ld) +
                                           " but must be at least the " + std::to_string(rows) +
                                           " rows it has as stored (column-major).");
  const long long needed = rows > 0 && cols > 0 ? offset + (cols - 1) * ld + rows : offset;
  require(needed <= INT_MAX, n + " spans " + std::to_string(needed) +
                                 " elements of its buffer; tilegemm indexes buffers with 32-bit integers, so at most " +
                                 std::to_string(INT_MAX) + " are supported.");
  if (rows == 0 || cols == 0) return {static_cast<int>(offset), static_cast<int>(ld)};  // never read
  require(buffer() != nullptr, "buffer " + n + " is a null cl::Buffer.");
  std::size_t bytes = 0;
  buffer.getInfo(CL_MEM_SIZE, &bytes);
  require(static_cast<unsigned long long>(needed) * scalar_size <= bytes,
          "buffer " + n + " holds " + std::to_string(bytes / scalar_size) + " elements but the " +
              std::to_string(rows) + " x " + std::to_string(cols) + " operand with offset " + std::to_string(offset) +
              " and leading dimension " + std::to_string(ld) + " needs " + std::to_string(needed) + ".");
  cl_context owner = nullptr;
  buffer.getInfo(CL_MEM_CONTEXT, &owner);
  require(owner == context(), "buffer " + n + " belongs to another OpenCL context than the command queue.");
  return {static_cast<int>(offset), static_cast<int>(ld)};
}

inline GemmProblem check_arguments(const cl::Context& context, Transpose trans_a, Transpose trans_b, long long m,
                                   long long n, long long k, ScalarValue alpha, const cl::Buffer& a, long long a_offset,
                                   long long lda, const cl::Buffer& b, long long b_offset, long long ldb,
                                   ScalarValue beta, const cl::Buffer& c, long long c_offset, long long ldc) {
  require(m >= 0 && n >= 0 && k >= 0, "m, n and k must not be negative (got m = " + std::to_string(m) +
                                          ", n = " + std::to_string(n) + ", k = " + std::to_string(k) + ").");
  require(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "m, n and k must fit in a 32-bit int.");
  const bool ta = trans_a == Transpose::yes;
  const bool tb = trans_b == Transpose::yes;
  GemmProblem p;
  p.alpha = alpha;
  p.beta = beta;
  const std::size_t size = p.scalar_size();
  p.shape.trans_a = ta;
  p.shape.trans_b = tb;
  p.shape.m = static_cast<int>(m);
  p.shape.n = static_cast<int>(n);
  p.shape.k = static_cast<int>(k);
  p.shape.a = check_operand("A", a, a_offset, lda, ta ? k : m, ta ? m : k, size, context);
  p.shape.b = check_operand("B", b, b_offset, ldb, tb ? n : k, tb ? k : n, size, context);
  p.shape.c = check_operand("C", c, c_offset, ldc, m, n, size, context);
  p.a = a;
  p.b = b;
  p.c = c;
  return p;
}

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
