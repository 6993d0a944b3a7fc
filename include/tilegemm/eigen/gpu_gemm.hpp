// gpu_gemm: the Eigen front end, C = A * B (or C = alpha * A * B + beta * C) on an OpenCL device.
#pragma once

#include <Eigen/Core>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/scalar.hpp"
#include "../gemm/gemm.hpp"
#include "../host/host_gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/disk_cache.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "eigen_operand.hpp"
#include "shapes.hpp"

namespace tilegemm {
namespace detail {

template <class DA, class DB>
void check_scalars() {
  using Scalar = typename DA::Scalar;
  require_supported_scalar<Scalar>();
  static_assert(std::is_same_v<Scalar, typename DB::Scalar>,
                "tilegemm::gpu_gemm: A and B must have the same scalar type; cast one with .cast<T>().");
}

}  // namespace detail

// c = alpha * a * b + beta * c on the device of `queue`, for any dense Eigen operands: transposed views,
// blocks, strided Maps and row-major matrices are read in place; other expressions are evaluated first.
// c is any writable dense expression (matrix, block, Map); when beta is zero it is not read (NaN is ignored).
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
              Eigen::MatrixBase<DC>& c, typename DA::Scalar alpha, typename DA::Scalar beta) {
  using Scalar = typename DA::Scalar;
  detail::check_scalars<DA, DB>();
  static_assert(std::is_same_v<Scalar, typename DC::Scalar>,
                "tilegemm::gpu_gemm: C must have the scalar type of A and B.");
  static_assert((Eigen::internal::traits<DC>::Flags & Eigen::LvalueBit) != 0,
                "tilegemm::gpu_gemm: C must be writable (a Matrix, a block of one or a Map of non-const data).");
  detail::check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols(), c.rows(), c.cols());
  if (c.size() == 0) return;
  detail::HostOperand<Scalar, Scalar*> storage_c;
  if (!detail::direct_storage(c.derived(), storage_c)) {  // e.g. a Map with an inner stride: go through a copy
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> result(c.rows(), c.cols());
    if (beta != Scalar(0)) result = c;
    gpu_gemm<Config>(queue, a, b, result, alpha, beta);
    c = result;
    return;
  }
  detail::InputOperand<Scalar> storage_a, storage_b;
  detail::describe_input(a, storage_a);
  detail::describe_input(b, storage_b);
  detail::host_gemm(queue, detail::description_of<Config>(), "tilegemm::gpu_gemm",
                    detail::host_product_of<Scalar>(storage_a, storage_b, storage_c, alpha, beta), true)
      .get();
}

// The same on the device TILEGEMM_DEVICE chooses.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>& c,
              typename DA::Scalar alpha, typename DA::Scalar beta) {
  gpu_gemm<Config>(default_queue(), a, b, c, alpha, beta);
}

// Temporaries such as c.block(...) or c.col(j) as the destination.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
              Eigen::MatrixBase<DC>&& c, typename DA::Scalar alpha, typename DA::Scalar beta) {
  gpu_gemm<Config>(queue, a, b, c, alpha, beta);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>&& c,
              typename DA::Scalar alpha, typename DA::Scalar beta) {
  gpu_gemm<Config>(default_queue(), a, b, c, alpha, beta);
}

// A read-only C (a const matrix, or a const reference to one) cannot take the result: a sentence, not a list of
// overloads that do not match.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue&, const Eigen::MatrixBase<DA>&, const Eigen::MatrixBase<DB>&,
              const Eigen::MatrixBase<DC>&, typename DA::Scalar, typename DA::Scalar) {
  static_assert(sizeof(DC) == 0,
                "tilegemm::gpu_gemm: C must be writable (a Matrix, a block of one or a Map of non-const data); this C "
                "is const.");
}
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>&, const Eigen::MatrixBase<DB>&, const Eigen::MatrixBase<DC>&,
              typename DA::Scalar, typename DA::Scalar) {
  static_assert(sizeof(DC) == 0,
                "tilegemm::gpu_gemm: C must be writable (a Matrix, a block of one or a Map of non-const data); this C "
                "is const.");
}

}  // namespace tilegemm
