// gemm_arguments: checking BLAS-style GEMM arguments against each other and the buffers, before anything runs.
#pragma once

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../runtime/opencl.hpp"

namespace tilegemm {

enum class Transpose { no, yes };

namespace detail {

// One operand after the checks: the buffer, its offset and leading dimension in elements, all within int range.
struct MatrixOperand {
  cl::Buffer buffer;
  int offset;
  int ld;
};

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n, all stored column-major.
template <class Scalar>
struct GemmProblem {
  bool trans_a;
  bool trans_b;
  int m;
  int n;
  int k;
  Scalar alpha;
  Scalar beta;
  MatrixOperand a;
  MatrixOperand b;
  MatrixOperand c;
};

inline void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("tilegemm::gemm: " + message);
}

// Checks one stored rows x cols operand and returns it in int terms.
template <class Scalar>
MatrixOperand check_operand(const char* name, const cl::Buffer& buffer, long long offset, long long ld, long long rows,
                            long long cols, const cl::Context& context) {
  const std::string n(name);
  require(offset >= 0, "the offset of " + n + " must not be negative (got " + std::to_string(offset) + ").");
  require(ld >= (rows > 1 ? rows : 1), "the leading dimension of " + n + " is " + std::to_string(ld) +
                                           " but must be at least the " + std::to_string(rows) +
                                           " rows it has as stored (column-major).");
  const long long needed = rows > 0 && cols > 0 ? offset + (cols - 1) * ld + rows : offset;
  require(needed <= INT_MAX, n + " spans " + std::to_string(needed) +
                                 " elements of its buffer; tilegemm indexes buffers with 32-bit integers, so at most " +
                                 std::to_string(INT_MAX) + " are supported.");
  if (rows == 0 || cols == 0) return {buffer, static_cast<int>(offset), static_cast<int>(ld)};  // never read
  require(buffer() != nullptr, "buffer " + n + " is a null cl::Buffer.");
  std::size_t bytes = 0;
  buffer.getInfo(CL_MEM_SIZE, &bytes);
  require(static_cast<unsigned long long>(needed) * sizeof(Scalar) <= bytes,
          "buffer " + n + " holds " + std::to_string(bytes / sizeof(Scalar)) + " elements but the " +
              std::to_string(rows) + " x " + std::to_string(cols) + " operand with offset " + std::to_string(offset) +
              " and leading dimension " + std::to_string(ld) + " needs " + std::to_string(needed) + ".");
  cl_context owner = nullptr;
  buffer.getInfo(CL_MEM_CONTEXT, &owner);
  require(owner == context(), "buffer " + n + " belongs to another OpenCL context than the command queue.");
  return {buffer, static_cast<int>(offset), static_cast<int>(ld)};
}

template <class Scalar>
GemmProblem<Scalar> check_arguments(const cl::Context& context, Transpose trans_a, Transpose trans_b, long long m,
                                    long long n, long long k, Scalar alpha, const cl::Buffer& a, long long a_offset,
                                    long long lda, const cl::Buffer& b, long long b_offset, long long ldb, Scalar beta,
                                    const cl::Buffer& c, long long c_offset, long long ldc) {
  require(m >= 0 && n >= 0 && k >= 0, "m, n and k must not be negative (got m = " + std::to_string(m) +
                                          ", n = " + std::to_string(n) + ", k = " + std::to_string(k) + ").");
  require(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "m, n and k must fit in a 32-bit int.");
  const bool ta = trans_a == Transpose::yes;
  const bool tb = trans_b == Transpose::yes;
  GemmProblem<Scalar> p{ta,
                        tb,
                        static_cast<int>(m),
                        static_cast<int>(n),
                        static_cast<int>(k),
                        alpha,
                        beta,
                        check_operand<Scalar>("A", a, a_offset, lda, ta ? k : m, ta ? m : k, context),
                        check_operand<Scalar>("B", b, b_offset, ldb, tb ? n : k, tb ? k : n, context),
                        check_operand<Scalar>("C", c, c_offset, ldc, m, n, context)};
  return p;
}

}  // namespace detail
}  // namespace tilegemm
