// eigen/device_gemm: gpu_gemm on DeviceMatrix and DeviceView operands, alone or mixed with Eigen ones, and the
// asynchronous gpu_gemm_async of every form: device operands are read in place, host ones uploaded for the call,
// and a product of any device operand stays on the device.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "../gemm/gemm.hpp"
#include "../host/host_gemm.hpp"
#include "../host/pending.hpp"
#include "../host/transfers.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/scratch_pool.hpp"
#include "device_matrix.hpp"
#include "eigen_operand.hpp"
#include "gpu_gemm.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {
namespace detail {

template <class T>
struct scalar_of {
  using type = typename T::Scalar;  // Eigen expressions
};
template <class S>
struct scalar_of<DeviceMatrix<S>> {
  using type = S;
};
template <class S>
struct scalar_of<DeviceView<S>> {
  using type = S;
};
template <class T>
using scalar_of_t = typename scalar_of<std::decay_t<T>>::type;

template <class T>
inline constexpr bool is_eigen_v = std::is_base_of_v<Eigen::EigenBase<std::decay_t<T>>, std::decay_t<T>>;
template <class... T>
inline constexpr bool any_device_v = (is_device_operand_v<T> || ...);
// Operands gpu_gemm takes here: Eigen expressions and device matrices, at least one of them on the device.
template <class... T>
inline constexpr bool device_call_v = any_device_v<T...> && ((is_eigen_v<T> || is_device_operand_v<T>)&&...);

// The queue of the first device operand: the queue a call without one runs on.
template <class First, class... Rest>
const cl::CommandQueue& queue_of(const First& first, const Rest&... rest) {
  if constexpr (is_device_operand_v<First>) {
    return first.queue();
  } else {
    return queue_of(rest...);
  }
}

template <class S>
DeviceView<S> view_of(const DeviceMatrix<S>& m) {
  return m.view();
}
template <class S>
DeviceView<S> view_of(const DeviceView<S>& v) {
  return v;
}

// The operands and result of one call on the device, and what its commands use until they end.
template <class S>
struct DeviceCall {
  CallContext call;
  std::vector<std::shared_ptr<ScratchBuffer>> uploads;  // device copies of host operands, given back at the end

  explicit DeviceCall(const cl::CommandQueue& queue) : call(in_order_context(queue, "tilegemm::gpu_gemm")) {}

  // A device operand as it is; a host operand uploaded (before this returns, so its memory may change after).
  template <class T>
  DeviceView<S> operand(const T& x) {
    if constexpr (is_device_operand_v<T>) {
      return view_of(x);
    } else {
      InputOperand<S> storage;
      describe_input(x, storage);
      require_dense_copy_fits(call.limits, "tilegemm::gpu_gemm", "a host operand", storage.rows, storage.cols,
                              sizeof(S));
      auto upload = std::make_shared<ScratchBuffer>(call, std::max<std::size_t>(dense_bytes(storage), sizeof(S)));
      if (storage.rows * storage.cols > 0) to_device(call.queue, storage, upload->buffer());
      uploads.push_back(upload);
      return {upload->buffer(),  call.queue, 0, storage.rows, storage.cols, std::max<Eigen::Index>(storage.rows, 1),
              storage.transposed};
    }
  }

  // C = alpha * op(A) * op(B) + beta * C on device views; a transposed C is the product's transpose. C is of S, or
  // float for 16-bit A and B (whose products the 16-bit core makes).
  template <class SC>
  cl::Event product(const KernelDescription* config, const DeviceView<S>& a, const DeviceView<S>& b,
                    const DeviceView<SC>& c, factor_t<S> alpha, factor_t<S> beta) {
    if (c.transposed()) return product(config, b.transpose(), a.transpose(), c.transpose(), alpha, beta);
    if constexpr (is_sixteen_bit_v<S>) {
      return sixteen_bit_product<S, SC>(call.queue, a.transposed(), b.transposed(), c.rows(), c.cols(), a.cols(), alpha,
                                        a.buffer(), a.offset(), a.ld(), b.buffer(), b.offset(), b.ld(), beta,
                                        c.buffer(), c.offset(), c.ld());
    } else {
      const GemmProblem p = check_arguments(call.context, {a.transposed() ? Transpose::yes : Transpose::no,
                                                           b.transposed() ? Transpose::yes : Transpose::no,
                                                           c.rows(),
                                                           c.cols(),
                                                           a.cols(),
                                                           scalar_value(alpha),
                                                           {a.buffer(), a.offset(), a.ld()},
                                                           {b.buffer(), b.offset(), b.ld()},
                                                           scalar_value(beta),
                                                           {c.buffer(), c.offset(), c.ld()}});
      return run_gemm(call, config, p, {});
    }
  }

  // Hands the uploads back to the pool once `done` has completed; they live until then in what this returns.
  std::shared_ptr<void> keep_until(const cl::Event& done) {
    for (const auto& upload : uploads) upload->give_back_after(done);
    return std::make_shared<std::vector<std::shared_ptr<ScratchBuffer>>>(std::move(uploads));
  }
};

// A * B of operands at least one of which is on the device: a new device matrix on the queue.
template <class S, class A, class B>
Pending<DeviceMatrix<S>> multiply_to_device(const cl::CommandQueue& queue, const KernelDescription* config, const A& a,
                                            const B& b) {
  try {
    check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols());
    DeviceCall<S> call(queue);
    DeviceMatrix<S> c(a.rows(), b.cols(), queue);
    if (c.size() == 0) return Pending<DeviceMatrix<S>>::enqueued(cl::Event(), std::move(c));
    const cl::Event done =
        call.product(config, call.operand(a), call.operand(b), c.view(), factor_t<S>(1), factor_t<S>(0));
    auto keep = call.keep_until(done);
    return Pending<DeviceMatrix<S>>::enqueued(done, std::move(c), std::move(keep));
  } catch (...) {
    return Pending<DeviceMatrix<S>>::failed(std::current_exception());
  }
}

// Writes a device result into a host C that the commands could not write directly (an inner stride, say), on the
// waiting thread: a block passed as a temporary is kept by value (it refers to its matrix's memory), a named
// matrix by reference.
template <class S, class C>
std::function<void(const DeviceMatrix<S>&)> writer_to(C&& c) {  // S: C's scalar
  if constexpr (std::is_lvalue_reference_v<C>) {
    return [destination = &c](const DeviceMatrix<S>& result) { result.to_host(*destination); };
  } else {
    return [destination = std::decay_t<C>(c)](const DeviceMatrix<S>& result) mutable { result.to_host(destination); };
  }
}

// c = alpha * a * b + beta * c with any mix of host and device operands: in place for a device C; for a host C
// (which must stay alive until the commands end) through a device copy, read back into C's storage as soon as the
// product ends, or on the waiting thread where C's storage is not plain columns.
template <class S, class A, class B, class C>
Pending<void> multiply_into_device(const cl::CommandQueue& queue, const KernelDescription* config, const A& a,
                                   const B& b, C&& c, factor_t<S> alpha, factor_t<S> beta) {
  using SC = scalar_of_t<C>;
  try {
    check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols(), c.rows(), c.cols());
    DeviceCall<S> call(queue);
    if (c.rows() * c.cols() == 0) return Pending<void>::enqueued_void(cl::Event());
    const DeviceView<S> av = call.operand(a), bv = call.operand(b);
    if constexpr (is_device_operand_v<C>) {
      const cl::Event done = call.product(config, av, bv, view_of(c), alpha, beta);
      return Pending<void>::enqueued_void(done, call.keep_until(done));
    } else {
      HostOperand<SC, SC*> storage;
      if (direct_storage(c.derived(), storage)) {
        // The product in C's own layout on the device (row-major C: its transpose), then read straight into C.
        auto result = std::make_shared<DeviceMatrix<SC>>(storage.rows, storage.cols, queue);
        if (beta != factor_t<S>(0)) to_device(queue, storage, result->buffer());
        const DeviceView<SC> view = storage.transposed ? result->view().transpose() : result->view();
        const cl::Event product = call.product(config, av, bv, view, alpha, beta);
        const cl::Event done = start_reading(queue, result->buffer(), storage, {product}, 0, result->ld(), true);
        auto keep = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<DeviceMatrix<SC>>>>(
            call.keep_until(done), result);
        return Pending<void>::enqueued_void(done, keep);
      }
      auto result = std::make_shared<DeviceMatrix<SC>>(c.rows(), c.cols(), queue);
      if (beta != factor_t<S>(0)) *result = DeviceMatrix<SC>(c, queue);
      const cl::Event done = call.product(config, av, bv, result->view(), alpha, beta);
      Pending<void> pending = Pending<void>::enqueued_void(done, call.keep_until(done));
      pending.then([result, write = writer_to<SC>(std::forward<C>(c))] { write(*result); });
      return pending;
    }
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}

// The asynchronous in-place forms: on host operands only the host floor's entry (out-of-order queues included, as
// for the blocking forms), with any device operand the device's. 16-bit host operands take the device's too (uploaded
// before it returns; an in-order queue).
template <class S, class A, class B, class C>
Pending<void> multiply_into(const cl::CommandQueue& queue, const KernelDescription* config, const A& a, const B& b,
                            C&& c, factor_t<S> alpha, factor_t<S> beta) {
  if constexpr (any_device_v<A, B, C> || is_sixteen_bit_v<S>) {
    return multiply_into_device<S>(queue, config, a, b, std::forward<C>(c), alpha, beta);
  } else {
    return multiply_host(queue, config, a, b, std::forward<C>(c), alpha, beta, false);
  }
}

// A * B of host operands, asynchronously: a new host matrix, read back as soon as the product ends.
template <class S, class A, class B>
Pending<Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>> multiply_to_host(const cl::CommandQueue& queue,
                                                                           const KernelDescription* config, const A& a,
                                                                           const B& b) {
  using Result = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  try {
    check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols());
    Result c(a.rows(), b.cols());
    Pending<void> product = multiply_into<S>(queue, config, a, b, c, factor_t<S>(1), factor_t<S>(0));
    // c's memory stays where it is when the matrix moves into the handle, so the read goes on writing it.
    cl::Event done = product.event();
    auto keep = std::make_shared<Pending<void>>(std::move(product));
    if (done() == nullptr) keep->wait();  // failed before enqueueing (or nothing to do): rethrow now
    return Pending<Result>::enqueued(done, std::move(c), keep);
  } catch (...) {
    return Pending<Result>::failed(std::current_exception());
  }
}

}  // namespace detail

// A * B where A or B (or both) is a DeviceMatrix or a view of one, on `queue`: a new DeviceMatrix there. Host operands
// are uploaded for the call; device ones must be of the queue's context.
template <class Config = AutoConfig, class A, class B, std::enable_if_t<detail::device_call_v<A, B>, int> = 0>
Pending<DeviceMatrix<detail::scalar_of_t<A>>> gpu_gemm_async(const cl::CommandQueue& queue, const A& a, const B& b) {
  using S = detail::scalar_of_t<A>;
  static_assert(
      std::is_same_v<S, detail::scalar_of_t<B>>,
      "tilegemm::gpu_gemm: A and B must have the same scalar type (mixed inputs, such as an Eigen::half A with a "
      "float or Eigen::bfloat16 B, are not multiplied); cast one with .cast<T>().");
  detail::require_config_for<Config, S>();
  return detail::multiply_to_device<S>(queue, detail::description_of<Config>(), a, b);
}
template <class Config = AutoConfig, class A, class B, std::enable_if_t<detail::device_call_v<A, B>, int> = 0>
Pending<DeviceMatrix<detail::scalar_of_t<A>>> gpu_gemm_async(const A& a, const B& b) {
  return gpu_gemm_async<Config>(detail::queue_of(a, b), a, b);
}
template <class Config = AutoConfig, class A, class B, std::enable_if_t<detail::device_call_v<A, B>, int> = 0>
DeviceMatrix<detail::scalar_of_t<A>> gpu_gemm(const cl::CommandQueue& queue, const A& a, const B& b) {
  return gpu_gemm_async<Config>(queue, a, b).get();
}
template <class Config = AutoConfig, class A, class B, std::enable_if_t<detail::device_call_v<A, B>, int> = 0>
DeviceMatrix<detail::scalar_of_t<A>> gpu_gemm(const A& a, const B& b) {
  return gpu_gemm_async<Config>(detail::queue_of(a, b), a, b).get();
}

// c = alpha * a * b + beta * c where any of a, b, c is on the device; a host C is written when the call ends. C has
// the scalar of A and B, or is float for Eigen::half and Eigen::bfloat16 ones (alpha and beta float then).
template <class Config = AutoConfig, class A, class B, class C,
          std::enable_if_t<detail::device_call_v<A, B, std::decay_t<C>>, int> = 0>
Pending<void> gpu_gemm_async(const cl::CommandQueue& queue, const A& a, const B& b, C&& c,
                             detail::factor_t<detail::scalar_of_t<A>> alpha,
                             detail::factor_t<detail::scalar_of_t<A>> beta) {
  using S = detail::scalar_of_t<A>;
  static_assert(std::is_same_v<S, detail::scalar_of_t<B>> && detail::c_scalar_fits_v<S, detail::scalar_of_t<C>>,
                "tilegemm::gpu_gemm: A, B and C must have the same scalar type (or a float C, for Eigen::half and "
                "Eigen::bfloat16 A and B); cast one with .cast<T>().");
  detail::require_config_for<Config, S>();
  if constexpr (detail::is_eigen_v<C>) detail::require_writable<C>();
  return detail::multiply_into<S>(queue, detail::description_of<Config>(), a, b, std::forward<C>(c), alpha, beta);
}
template <class Config = AutoConfig, class A, class B, class C,
          std::enable_if_t<detail::device_call_v<A, B, std::decay_t<C>>, int> = 0>
Pending<void> gpu_gemm_async(const A& a, const B& b, C&& c, detail::factor_t<detail::scalar_of_t<A>> alpha,
                             detail::factor_t<detail::scalar_of_t<A>> beta) {
  return gpu_gemm_async<Config>(detail::queue_of(a, b, c), a, b, std::forward<C>(c), alpha, beta);
}
template <class Config = AutoConfig, class A, class B, class C,
          std::enable_if_t<detail::device_call_v<A, B, std::decay_t<C>>, int> = 0>
void gpu_gemm(const cl::CommandQueue& queue, const A& a, const B& b, C&& c,
              detail::factor_t<detail::scalar_of_t<A>> alpha, detail::factor_t<detail::scalar_of_t<A>> beta) {
  gpu_gemm_async<Config>(queue, a, b, std::forward<C>(c), alpha, beta).get();
}
template <class Config = AutoConfig, class A, class B, class C,
          std::enable_if_t<detail::device_call_v<A, B, std::decay_t<C>>, int> = 0>
void gpu_gemm(const A& a, const B& b, C&& c, detail::factor_t<detail::scalar_of_t<A>> alpha,
              detail::factor_t<detail::scalar_of_t<A>> beta) {
  gpu_gemm_async<Config>(detail::queue_of(a, b, c), a, b, std::forward<C>(c), alpha, beta).get();
}

// The asynchronous forms of the Eigen front end (gpu_gemm.hpp): host operands are uploaded before they return, the
// product and the reading back of C go on after; C, in the in-place form, must stay alive until the handle is
// waited on.
template <class Config = AutoConfig, class DA, class DB>
Pending<Eigen::Matrix<typename DA::Scalar, Eigen::Dynamic, Eigen::Dynamic>> gpu_gemm_async(
    const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  detail::check_scalars<DA, DB>();
  detail::require_config_for<Config, typename DA::Scalar>();
  return detail::multiply_to_host<typename DA::Scalar>(queue, detail::description_of<Config>(), a, b);
}
template <class Config = AutoConfig, class DA, class DB>
Pending<Eigen::Matrix<typename DA::Scalar, Eigen::Dynamic, Eigen::Dynamic>> gpu_gemm_async(
    const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  return gpu_gemm_async<Config>(default_queue(), a, b);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
Pending<void> gpu_gemm_async(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a,
                             const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>& c,
                             detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  detail::check_scalars<DA, DB>();
  detail::check_scalar_of_c<typename DA::Scalar, typename DC::Scalar>();
  detail::require_config_for<Config, typename DA::Scalar>();
  detail::require_writable<DC>();
  return detail::multiply_into<typename DA::Scalar>(queue, detail::description_of<Config>(), a.derived(), b.derived(),
                                                    c.derived(), alpha, beta);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
Pending<void> gpu_gemm_async(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a,
                             const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>&& c,
                             detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  detail::check_scalars<DA, DB>();
  detail::check_scalar_of_c<typename DA::Scalar, typename DC::Scalar>();
  detail::require_config_for<Config, typename DA::Scalar>();
  detail::require_writable<DC>();
  return detail::multiply_into<typename DA::Scalar>(queue, detail::description_of<Config>(), a.derived(), b.derived(),
                                                    std::move(c.derived()), alpha, beta);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
Pending<void> gpu_gemm_async(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>& c,
                             detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  return gpu_gemm_async<Config>(default_queue(), a, b, c, alpha, beta);
}
template <class Config = AutoConfig, class DA, class DB, class DC>
Pending<void> gpu_gemm_async(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Eigen::MatrixBase<DC>&& c,
                             detail::factor_t<typename DA::Scalar> alpha, detail::factor_t<typename DA::Scalar> beta) {
  return gpu_gemm_async<Config>(default_queue(), a, b, std::move(c), alpha, beta);
}

}  // namespace tilegemm
