// gpu_gemm: the Eigen front end, C = A * B (or C = alpha * A * B + beta * C) on an OpenCL device.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/scalar.hpp"
#include "../gemm/gemm.hpp"
#include "../host/host_gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/device_list.hpp"
#include "../runtime/disk_cache.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "eigen_operand.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {
namespace detail {

// Writes a host result into C on the waiting thread: a block passed as a temporary is kept by value (it refers to
// its matrix's memory), a named matrix by reference.
template <class S, class C>
std::function<void(const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>&)> host_writer_to(C&& c) {
  using Result = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  if constexpr (std::is_lvalue_reference_v<C>) {
    return [destination = &c](const Result& result) { *destination = result; };
  } else {
    return [destination = std::decay_t<C>(c)](const Result& result) mutable { destination = result; };
  }
}

// c = alpha * a * b + beta * c on Eigen operands in host memory: the one entry of every such form, blocking or not
// (`blocking`: C is written before it returns). A and B are read before it returns. A C without plain columns (an
// inner stride) takes the product in a dense copy, written into it on the waiting thread; the rest (aliasing,
// k = 0, the staged and direct paths) is the host floor's, host/host_gemm.hpp.
// `Queues` is a cl::CommandQueue or a std::vector of them (one product over several devices, host/multi_device.hpp).
template <class S, class Queues, class A, class B, class C>
Pending<void> multiply_host(const Queues& queue, const KernelDescription* config, const A& a, const B& b, C&& c,
                            S alpha, S beta, bool blocking) {
  try {
    check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols(), c.rows(), c.cols());
    if (c.size() == 0) return Pending<void>::enqueued_void(cl::Event());
    HostOperand<S, S*> storage_c;
    if (!direct_storage(c, storage_c)) {  // e.g. a Map with an inner stride: go through a copy
      auto result = std::make_shared<Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>>(c.rows(), c.cols());
      if (beta != S(0)) *result = c;
      auto product =
          std::make_shared<Pending<void>>(multiply_host(queue, config, a, b, *result, alpha, beta, blocking));
      Pending<void> pending = Pending<void>::enqueued_void(product->event());
      pending.then([product, result, write = host_writer_to<S>(std::forward<C>(c))] {
        product->wait();
        write(*result);
      });
      if (blocking) pending.wait();
      return pending;
    }
    InputOperand<S> storage_a, storage_b;
    describe_input(a, storage_a);
    describe_input(b, storage_b);
    return host_gemm(queue, config, "tilegemm::gpu_gemm",
                     host_product_of<S>(storage_a, storage_b, storage_c, alpha, beta), blocking);
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}

template <class DA, class DB>
void check_scalars() {
  using Scalar = typename DA::Scalar;
  require_front_end_scalar<Scalar>();
  static_assert(
      std::is_same_v<Scalar, typename DB::Scalar>,
      "tilegemm::gpu_gemm: A and B must have the same scalar type (mixed inputs, such as an Eigen::half A with a "
      "float or Eigen::bfloat16 B, are not multiplied); cast one with .cast<T>().");
}

// C's scalar: A's, or float for Eigen::half and Eigen::bfloat16 A and B.
template <class S, class SC>
constexpr void check_scalar_of_c() {
  static_assert(c_scalar_fits_v<S, SC>,
                "tilegemm::gpu_gemm: C must have the scalar type of A and B (or float, for Eigen::half and "
                "Eigen::bfloat16 A and B).");
}

// c = alpha * a * b + beta * c for 16-bit A and B and a host C (of their type or float), blocking, through the 16-bit
// core's host-pointer form: A and B as their storage (expressions evaluated first, row-major as the transpose), C in
// place, or through a copy where it has no plain columns or shares A's or B's memory.
template <class S, class A, class B, class C>
void multiply_host_sixteen_bit(const cl::CommandQueue& queue, const A& a, const B& b, C&& c, float alpha, float beta) {
  using SC = typename std::decay_t<C>::Scalar;
  check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols(), c.rows(), c.cols());
  if (c.size() == 0) return;
  InputOperand<S> storage_a, storage_b;
  describe_input(a, storage_a);
  describe_input(b, storage_b);
  HostOperand<SC, SC*> storage_c;
  const bool plain_c = direct_storage(c, storage_c);
  if (!plain_c || storages_overlap(raw_input(storage_a), raw_output(storage_c)) ||
      storages_overlap(raw_input(storage_b), raw_output(storage_c))) {
    // A C without plain columns (a Map with an inner stride), or one that shares A's or B's memory: through a copy.
    Eigen::Matrix<SC, Eigen::Dynamic, Eigen::Dynamic> result(c.rows(), c.cols());
    if (beta != 0.0f) result = c;
    multiply_host_sixteen_bit<S>(queue, a, b, result, alpha, beta);
    c = result;
    return;
  }
  HostOperand<S> sa = storage_a, sb = storage_b;
  if (storage_c.transposed) {  // row-major C: C^T = op(B)^T * op(A)^T, column-major
    sa.transposed = !sa.transposed;
    sb.transposed = !sb.transposed;
    storage_c.transposed = false;
    std::swap(sa, sb);
  }
  const long long k = sa.transposed ? sa.rows : sa.cols;
  sixteen_bit_host<S, SC>(queue, sa.transposed, sb.transposed, storage_c.rows, storage_c.cols, k, alpha, sa.data, sa.ld,
                          sb.data, sb.ld, beta, storage_c.data, storage_c.ld);
}

}  // namespace detail

// c = alpha * a * b + beta * c on the device of `queue`, for any dense Eigen operands: transposed views,
// blocks, strided Maps and row-major matrices are read in place; other expressions are evaluated first.
// c is any writable dense expression (matrix, block, Map); when beta is zero it is not read (NaN is ignored).
// Eigen::half and Eigen::bfloat16 A and B take a C of their type (the float sum rounded once, to nearest even) or a
// float C, and float alpha and beta.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
              Eigen::MatrixBase<DC>& c, detail::factor_t<typename DA::Scalar> alpha,
              detail::factor_t<typename DA::Scalar> beta) {
  using Scalar = typename DA::Scalar;
  detail::check_scalars<DA, DB>();
  detail::check_scalar_of_c<Scalar, typename DC::Scalar>();
  detail::require_writable<DC>();
  if constexpr (detail::is_sixteen_bit_v<Scalar>) {
    detail::require_config_for<Config, Scalar>();
    detail::multiply_host_sixteen_bit<Scalar>(queue, a.derived(), b.derived(), c.derived(), alpha, beta);
  } else {
    detail::multiply_host(queue, detail::description_of<Config>(), a.derived(), b.derived(), c.derived(), alpha, beta,
                          true)
        .get();
  }
}

// The same over the devices of `queues` (one queue each): C's tiles shared out among them as tilegemm::gemm on a list
// of queues does (host/multi_device.hpp).
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const std::vector<cl::CommandQueue>& queues, const Eigen::MatrixBase<DA>& a,
              const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>& c, typename DA::Scalar alpha,
              typename DA::Scalar beta) {
  using Scalar = typename DA::Scalar;
  detail::check_scalars<DA, DB>();
  detail::require_one_device_for<Scalar>();
  static_assert(std::is_same_v<Scalar, typename DC::Scalar>,
                "tilegemm::gpu_gemm: C must have the scalar type of A and B.");
  detail::require_writable<DC>();
  detail::multiply_host(queues, detail::description_of<Config>(), a.derived(), b.derived(), c.derived(), alpha, beta,
                        true)
      .get();
}
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const std::vector<cl::CommandQueue>& queues, const Eigen::MatrixBase<DA>& a,
              const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>&& c, typename DA::Scalar alpha,
              typename DA::Scalar beta) {
  gpu_gemm<Config>(queues, a, b, c, alpha, beta);
}

// The same on the devices TILEGEMM_DEVICES names, else on the one TILEGEMM_DEVICE chooses.
// (16-bit products on the one device TILEGEMM_DEVICE chooses.)
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>& c,
              detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  if constexpr (detail::is_sixteen_bit_v<typename DA::Scalar>) {
    gpu_gemm<Config>(default_queue(), a, b, c, alpha, beta);
  } else {
    const std::vector<cl::CommandQueue> queues = default_queues();
    if (queues.empty()) {
      gpu_gemm<Config>(default_queue(), a, b, c, alpha, beta);
    } else {
      gpu_gemm<Config>(queues, a, b, c, alpha, beta);
    }
  }
}

// Temporaries such as c.block(...) or c.col(j) as the destination.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
              Eigen::MatrixBase<DC>&& c, detail::factor_t<typename DA::Scalar> alpha,
              detail::factor_t<typename DA::Scalar> beta) {
  gpu_gemm<Config>(queue, a, b, c, alpha, beta);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>&& c,
              detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  gpu_gemm<Config>(a, b, c, alpha, beta);
}

// A read-only C (a const matrix, or a const reference to one) cannot take the result: a sentence, not a list of
// overloads that do not match.
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const cl::CommandQueue&, const Eigen::MatrixBase<DA>&, const Eigen::MatrixBase<DB>&,
              const Eigen::MatrixBase<DC>&, detail::factor_t<typename DA::Scalar>,
              detail::factor_t<typename DA::Scalar>) {
  detail::require_writable<const DC>();
}
template <class Config = AutoConfig, class DA, class DB, class DC>
void gpu_gemm(const Eigen::MatrixBase<DA>&, const Eigen::MatrixBase<DB>&, const Eigen::MatrixBase<DC>&,
              detail::factor_t<typename DA::Scalar>, detail::factor_t<typename DA::Scalar>) {
  detail::require_writable<const DC>();
}

}  // namespace tilegemm
