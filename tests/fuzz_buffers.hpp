// fuzz_buffers: one fuzz product through tilegemm::gemm<Scalar, Config> on cl::Buffers: operands at offsets with
// padded leading dimensions, NaN around A and B (so that a read outside them poisons C) and a sentinel around C (so
// that a write outside it shows), compared with the double-precision reference.
#pragma once

#include <stdexcept>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

#include "fuzz_product.hpp"
#include "reference.hpp"

namespace tilegemm_fuzz {

using tilegemm_test::Matrix;

// A value no product of these operands, alpha and beta gives: marks memory that must not be written.
template <class Scalar>
constexpr Scalar sentinel() {
  return Scalar(-9876.5);
}

// The host image of a buffer holding `stored` column-major where `where` says, `surround` everywhere else.
template <class Scalar>
std::vector<Scalar> place(const Matrix<Scalar>& stored, const Placement& where, Scalar surround) {
  std::vector<Scalar> memory(where.buffer_elements(static_cast<int>(stored.rows()), static_cast<int>(stored.cols())),
                             surround);
  for (Eigen::Index j = 0; j < stored.cols(); ++j)
    for (Eigen::Index i = 0; i < stored.rows(); ++i) memory[where.offset + i + j * where.ld] = stored(i, j);
  return memory;
}

template <class Scalar>
cl::Buffer upload(const cl::Context& context, std::vector<Scalar>& memory) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(Scalar) * memory.size(), memory.data(),
                    &status);
  if (status != CL_SUCCESS) throw std::runtime_error("creating a buffer failed with " + std::to_string(status));
  return buffer;
}

inline tilegemm::Transpose transpose_flag(bool transposed) {
  return transposed ? tilegemm::Transpose::yes : tilegemm::Transpose::no;
}

// tilegemm::gemm<Scalar, Config> as a function pointer, so that the rest of a product is compiled once per scalar.
using GemmFunction = cl::Event (*)(const cl::CommandQueue&, const Product&, const cl::Buffer&, const cl::Buffer&,
                                   const cl::Buffer&);
template <class Scalar, class Config>
cl::Event call_gemm(const cl::CommandQueue& queue, const Product& p, const cl::Buffer& a, const cl::Buffer& b,
                    const cl::Buffer& c) {
  return tilegemm::gemm<Scalar, Config>(queue, transpose_flag(p.trans_a), transpose_flag(p.trans_b), p.m, p.n, p.k,
                                        static_cast<Scalar>(p.alpha), a, p.a.offset, p.a.ld, b, p.b.offset, p.b.ld,
                                        static_cast<Scalar>(p.beta), c, p.c.offset, p.c.ld);
}

// Runs product p through `gemm`; returns "" when C is right and nothing around it changed, else what went wrong.
template <class Scalar>
std::string run_on_buffers(const cl::CommandQueue& queue, const Product& p, GemmFunction gemm) {
  const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(p.m, p.k);
  const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(p.k, p.n);
  const Matrix<Scalar> c0 = p.beta == 0 ? Matrix<Scalar>::Constant(p.m, p.n, tilegemm_test::poison<Scalar>())
                                        : tilegemm_test::random_matrix<Scalar>(p.m, p.n);
  std::vector<Scalar> memory_a =
      place<Scalar>(p.trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a, p.a, tilegemm_test::poison<Scalar>());
  std::vector<Scalar> memory_b =
      place<Scalar>(p.trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b, p.b, tilegemm_test::poison<Scalar>());
  std::vector<Scalar> memory_c = place<Scalar>(c0, p.c, sentinel<Scalar>());
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Buffer a = upload(context, memory_a), b = upload(context, memory_b), c = upload(context, memory_c);
  const cl_int waited = gemm(queue, p, a, b, c).wait();
  if (waited != CL_SUCCESS) return "waiting for the product's event failed with " + std::to_string(waited);
  const cl_int read = queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(Scalar) * memory_c.size(), memory_c.data());
  if (read != CL_SUCCESS) return "reading C back failed with " + std::to_string(read);

  Matrix<Scalar> got(p.m, p.n);
  for (int j = 0; j < p.n; ++j) {
    for (int i = 0; i < p.m; ++i) {
      Scalar& element = memory_c[p.c.offset + i + j * p.c.ld];
      got(i, j) = element;
      element = sentinel<Scalar>();  // what is left must be the sentinel everywhere
    }
  }
  const std::string wrong = tilegemm_test::compare_with_reference<Scalar>(got, p.alpha, op_a, op_b, p.beta, c0);
  if (!wrong.empty()) return "wrong result: " + wrong;
  for (std::size_t i = 0; i < memory_c.size(); ++i) {
    if (!(memory_c[i] == sentinel<Scalar>())) {
      return "element " + std::to_string(i) + " of C's buffer, outside C, changed from the sentinel to " +
             std::to_string(memory_c[i]);
    }
  }
  return "";
}

}  // namespace tilegemm_fuzz
