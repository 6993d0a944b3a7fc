// eigen/gpu_gemm_batched: gpu_gemm_batched on std::vectors of Eigen matrices: a batch of products of one shape,
// each operand's matrices packed into one device buffer (one upload each), one launch for the batch, one download.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../config/scalar.hpp"
#include "../gemm/batch_overlap.hpp"
#include "../gemm/batched_arguments.hpp"
#include "../gemm/gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "batch_staging.hpp"
#include "eigen_operand.hpp"
#include "gpu_gemm.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {
namespace detail {

template <class T>
inline constexpr bool is_eigen_matrix_v = std::is_base_of_v<Eigen::MatrixBase<T>, T>;

inline constexpr char gpu_gemm_batched_name[] = "tilegemm::gpu_gemm_batched";

// Writes a host matrix's values into a new pooled device buffer (blocking) and returns it.
template <class Scalar>
std::unique_ptr<ScratchBuffer> upload(const CallContext& call, const HostMatrix<Scalar>& host) {
  auto buffer = std::make_unique<ScratchBuffer>(call, sizeof(Scalar) * static_cast<std::size_t>(host.size()));
  check(call.queue.enqueueWriteBuffer(buffer->buffer(), CL_TRUE, 0, sizeof(Scalar) * host.size(), host.data()),
        "clEnqueueWriteBuffer");
  return buffer;
}

// Where a host matrix lies in the address space, as columns of bytes (gemm/overlap.hpp): row-major storage is its
// transpose's columns, an inner stride widens each column to all it spans; an expression without storage is none.
template <class Matrix>
PlacedSpans host_spans(const Matrix& x) {
  if constexpr (has_direct_access<Matrix>) {
    const long long size = sizeof(typename Matrix::Scalar);
    const bool row_major = Matrix::IsRowMajor;
    const long long rows = row_major ? x.cols() : x.rows(), cols = row_major ? x.rows() : x.cols();
    const long long column = rows > 0 ? ((rows - 1) * x.innerStride() + 1) * size : 0;
    const long long first = static_cast<long long>(reinterpret_cast<std::uintptr_t>(x.data()));
    if (cols > 1 && x.outerStride() * size < column) {  // columns that meet: the whole extent as one column
      return {nullptr, {first, 1, (cols - 1) * x.outerStride() * size + column, 1}};
    }
    return {nullptr, {first, std::max<long long>(x.outerStride() * size, 1), column, cols}};
  } else {
    return {};
  }
}

// Whether two host matrices of `c` share memory.
template <class Matrix>
bool host_matrices_overlap(const std::vector<Matrix>& c) {
  std::vector<PlacedSpans> placed;
  placed.reserve(c.size());
  for (const Matrix& x : c) placed.push_back(host_spans(x));
  return any_two_overlap(std::move(placed));
}

// c[p] = alpha * a[p] * b[p] + beta * c[p] for every p, with `config` (null: the default choice): the operands side
// by side in one device buffer each (C uploaded only when beta is not zero), one batched product, C read back. A and
// B of Scalar, C of ScalarC (Scalar, or float for 16-bit A and B, whose batches the 16-bit core multiplies).
template <class Scalar, class MatrixA, class MatrixB, class MatrixC>
void multiply_batch(const cl::CommandQueue& queue, const KernelDescription* config, const std::vector<MatrixA>& a,
                    const std::vector<MatrixB>& b, std::vector<MatrixC>& c, factor_t<Scalar> alpha,
                    factor_t<Scalar> beta) {
  using ScalarC = typename MatrixC::Scalar;
  using Factor = factor_t<Scalar>;
  check_batch_shapes(a, b, &c);
  if (host_matrices_overlap(c)) {  // scattered back one after the other, one would overwrite another's result
    throw std::invalid_argument(std::string(gpu_gemm_batched_name) +
                                ": two matrices C of the batch share memory; each problem needs a C of its own.");
  }
  if (a.empty()) return;
  const Eigen::Index count = static_cast<Eigen::Index>(a.size());
  const Eigen::Index m = a[0].rows(), k = a[0].cols(), n = b[0].cols();
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == Factor(0)) {  // C = beta * C, without reading C when beta is zero
    for (MatrixC& x : c) {
      if (beta == Factor(0)) {
        x.setZero();
      } else if constexpr (is_sixteen_bit_v<ScalarC>) {
        x = (x.template cast<float>() * beta).template cast<ScalarC>();  // rounded once, as the core's products are
      } else {
        x *= beta;
      }
    }
    return;
  }
  const CallContext call = CallContext::of(queue);
  require_batch_copy_fits(gpu_gemm_batched_name, call.limits, "A", count, m, k, sizeof(Scalar));
  require_batch_copy_fits(gpu_gemm_batched_name, call.limits, "B", count, k, n, sizeof(Scalar));
  require_batch_copy_fits(gpu_gemm_batched_name, call.limits, "C", count, m, n, sizeof(ScalarC));
  const auto device_a = upload(call, side_by_side<Scalar>(a, m, k));
  const auto device_b = upload(call, side_by_side<Scalar>(b, k, n));
  HostMatrix<ScalarC> host_c(m, n * count);
  std::unique_ptr<ScratchBuffer> device_c;
  if (beta != Factor(0)) {
    host_c = side_by_side<ScalarC>(c, m, n);
    device_c = upload(call, host_c);
  } else {  // C is not read
    device_c = std::make_unique<ScratchBuffer>(call, sizeof(ScalarC) * static_cast<std::size_t>(host_c.size()));
  }
  std::vector<cl::Event> done;
  if constexpr (is_sixteen_bit_v<Scalar>) {
    done = {sixteen_bit_batch<Scalar, ScalarC>(queue, m, n, k, alpha, device_a->buffer(), 0, m, m * k,
                                               device_b->buffer(), 0, k, k * n, beta, device_c->buffer(), 0, m, m * n,
                                               count)};
  } else {
    const GemmProblem p = naming(gpu_gemm_batched_name, [&] {
      return check_batched_arguments(call.context, {Transpose::no,
                                                    Transpose::no,
                                                    m,
                                                    n,
                                                    k,
                                                    scalar_value(alpha),
                                                    {device_a->buffer(), 0, m, m * k},
                                                    {device_b->buffer(), 0, k, k * n},
                                                    scalar_value(beta),
                                                    {device_c->buffer(), 0, m, m * n},
                                                    count});
    });
    done = {run_gemm(call, config, p, {})};
  }
  check(queue.enqueueReadBuffer(device_c->buffer(), CL_TRUE, 0, sizeof(ScalarC) * host_c.size(), host_c.data(), &done),
        "clEnqueueReadBuffer");  // blocking: every command of this call has finished
  for (ScratchBuffer* used : {device_a.get(), device_b.get(), device_c.get()}) used->give_back_after(cl::Event());
  scatter_side_by_side(host_c, c);
}

template <class Config, class MatrixA, class MatrixB, class MatrixC>
void check_batch_types() {
  using Scalar = typename MatrixA::Scalar;
  require_front_end_scalar<Scalar>();
  static_assert(std::is_same_v<Scalar, typename MatrixB::Scalar> && c_scalar_fits_v<Scalar, typename MatrixC::Scalar>,
                "tilegemm::gpu_gemm_batched: A, B and C must have the same scalar type (or a float C, for "
                "Eigen::half and Eigen::bfloat16 A and B); cast one with .cast<T>().");
  require_config_for<Config, Scalar>();
  require_writable<MatrixC>();
}

}  // namespace detail

// c[p] = alpha * a[p] * b[p] + beta * c[p] for every p, on the device of `queue`, in one launch: a batch of products
// of one shape (every a[p] of one shape, every b[p] of one, c[p] of the product's). The vectors must be of one
// length; an empty batch does nothing. The matrices are any dense Eigen matrices or Maps (expressions are evaluated
// as they are packed); each operand's matrices go to the device in one upload (C's only when beta is not zero, since
// C is then not read), the results come back in one download. Unequal shapes or lengths throw std::invalid_argument.
template <class Config = AutoConfig, class MatrixA, class MatrixB, class MatrixC,
          std::enable_if_t<detail::is_eigen_matrix_v<MatrixA> && detail::is_eigen_matrix_v<MatrixB> &&
                               detail::is_eigen_matrix_v<MatrixC>,
                           int> = 0>
void gpu_gemm_batched(const cl::CommandQueue& queue, const std::vector<MatrixA>& a, const std::vector<MatrixB>& b,
                      std::vector<MatrixC>& c, detail::factor_t<typename MatrixA::Scalar> alpha,
                      detail::factor_t<typename MatrixA::Scalar> beta) {
  detail::check_batch_types<Config, MatrixA, MatrixB, MatrixC>();
  detail::translate_cl_errors([&] {
    detail::multiply_batch<typename MatrixA::Scalar>(queue, detail::description_of<Config>(), a, b, c, alpha, beta);
  });
}
template <class Config = AutoConfig, class MatrixA, class MatrixB, class MatrixC,
          std::enable_if_t<detail::is_eigen_matrix_v<MatrixA> && detail::is_eigen_matrix_v<MatrixB> &&
                               detail::is_eigen_matrix_v<MatrixC>,
                           int> = 0>
void gpu_gemm_batched(const std::vector<MatrixA>& a, const std::vector<MatrixB>& b, std::vector<MatrixC>& c,
                      detail::factor_t<typename MatrixA::Scalar> alpha,
                      detail::factor_t<typename MatrixA::Scalar> beta) {
  gpu_gemm_batched<Config>(default_queue(), a, b, c, alpha, beta);
}

// The products a[p] * b[p] as new column-major matrices, computed as one batch on the device of `queue` (as above);
// an empty batch gives an empty vector.
template <class Config = AutoConfig, class MatrixA, class MatrixB,
          std::enable_if_t<detail::is_eigen_matrix_v<MatrixA> && detail::is_eigen_matrix_v<MatrixB>, int> = 0>
std::vector<detail::HostMatrix<typename MatrixA::Scalar>> gpu_gemm_batched(const cl::CommandQueue& queue,
                                                                           const std::vector<MatrixA>& a,
                                                                           const std::vector<MatrixB>& b) {
  using Result = detail::HostMatrix<typename MatrixA::Scalar>;
  using Factor = detail::factor_t<typename MatrixA::Scalar>;
  detail::check_batch_types<Config, MatrixA, MatrixB, Result>();
  detail::check_batch_shapes(a, b);
  std::vector<Result> c(a.size(), Result(a.empty() ? 0 : a[0].rows(), b.empty() ? 0 : b[0].cols()));
  gpu_gemm_batched<Config>(queue, a, b, c, Factor(1), Factor(0));
  return c;
}
template <class Config = AutoConfig, class MatrixA, class MatrixB,
          std::enable_if_t<detail::is_eigen_matrix_v<MatrixA> && detail::is_eigen_matrix_v<MatrixB>, int> = 0>
std::vector<detail::HostMatrix<typename MatrixA::Scalar>> gpu_gemm_batched(const std::vector<MatrixA>& a,
                                                                           const std::vector<MatrixB>& b) {
  return gpu_gemm_batched<Config>(default_queue(), a, b);
}

}  // namespace tilegemm
