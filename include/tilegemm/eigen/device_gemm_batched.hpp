// eigen/device_gemm_batched: gpu_gemm_batched on std::vectors of DeviceMatrix. A batch whose matrices lie in one
// buffer at a constant stride (a device_batch, say) is read and written in place; any other is gathered into a pooled
// buffer by device-to-device copies, and C's results scattered back the same way. Either way the product is one
// launch for the whole batch.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../gemm/batch_overlap.hpp"
#include "../gemm/batched_arguments.hpp"
#include "../gemm/gemm.hpp"
#include "../gemm/overlap.hpp"
#include "../host/transfers.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "device_batch.hpp"
#include "device_matrix.hpp"
#include "gpu_gemm_batched.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {
namespace detail {

template <class T>
struct non_deduced {
  using type = T;
};
// A parameter of type T that takes part in no template argument deduction (alpha and beta: 2.0 for float matrices).
template <class T>
using non_deduced_t = typename non_deduced<T>::type;

// One operand of every problem as gemm_strided_batched takes it: one buffer, the first matrix's offset, one leading
// dimension, and the stride from each matrix to the next (in elements).
struct StridedOperand {
  cl::Buffer buffer;
  long long offset = 0;
  long long ld = 1;
  long long stride = 0;
};

// The matrices as one strided operand, if they lie in one buffer with one leading dimension, each a constant stride
// (0 or more) after the one before; false if they must be gathered.
template <class Scalar>
bool strided_in_place(const std::vector<DeviceMatrix<Scalar>>& x, StridedOperand& out) {
  const DeviceMatrix<Scalar>& first = x[0];
  const long long stride = x.size() > 1 ? x[1].offset() - first.offset() : 0;
  if (stride < 0) return false;
  for (std::size_t p = 1; p < x.size(); ++p) {
    if (x[p].buffer()() != first.buffer()() || x[p].ld() != first.ld() ||
        x[p].offset() != first.offset() + static_cast<long long>(p) * stride) {
      return false;
    }
  }
  out = {first.buffer(), first.offset(), first.ld(), stride};
  return true;
}

// One batched call on device matrices: the operands as the product takes them, and what gathering them took.
template <class Scalar>
struct DeviceBatchCall {
  CallContext call;
  std::vector<cl::Event> gathered_events;                // the copies the product waits for
  std::vector<std::unique_ptr<ScratchBuffer>> gathered;  // given back once the call has ended

  explicit DeviceBatchCall(const cl::CommandQueue& queue)
      : call(in_order_context(queue, "tilegemm::gpu_gemm_batched")) {}

  // The matrices in place where they lie at a constant stride, else copies of them one after the other in a pooled
  // buffer (rows * cols elements apart), copied in on the device when `copy_values` (not for a C that is not read).
  // T: the operand's scalar (C's may be float where A's and B's are 16-bit).
  template <class T>
  StridedOperand operand(const std::vector<DeviceMatrix<T>>& x, const char* name, bool copy_values) {
    StridedOperand strided;
    if (strided_in_place(x, strided)) return strided;
    const Eigen::Index rows = x[0].rows(), cols = x[0].cols();
    const long long one = static_cast<long long>(rows) * cols;
    if (one == 0) return {cl::Buffer(), 0, std::max<Eigen::Index>(rows, 1), 0};  // nothing to read or write
    require_batch_copy_fits(gpu_gemm_batched_name, call.limits, name, static_cast<Eigen::Index>(x.size()), rows, cols,
                            sizeof(T));
    gathered.push_back(std::make_unique<ScratchBuffer>(call, sizeof(T) * static_cast<std::size_t>(one) * x.size()));
    strided = {gathered.back()->buffer(), 0, rows, one};
    for (std::size_t p = 0; p < x.size(); ++p) {
      const std::string which = std::string(name) + "[" + std::to_string(p) + "]";
      long long needed = 0;
      const Storage storage = check_storage(which, x[p].offset(), x[p].ld(), rows, cols, needed);
      check_buffer(which, x[p].buffer(), rows, cols, storage, needed, sizeof(T), call.context);
      if (copy_values) {
        copy_matrix_on_device(call.queue, x[p].buffer(), x[p].offset(), x[p].ld(), strided.buffer,
                              static_cast<long long>(p) * one, rows, rows, cols, sizeof(T), {}, gathered_events);
      }
    }
    return strided;
  }

  // Copies the results of a gathered C back into its matrices after `done`; returns the events to wait for.
  template <class T>
  std::vector<cl::Event> scatter(const StridedOperand& from, std::vector<DeviceMatrix<T>>& c, const cl::Event& done) {
    const Eigen::Index rows = c[0].rows(), cols = c[0].cols();
    std::vector<cl::Event> copies;
    for (std::size_t p = 0; p < c.size(); ++p) {
      copy_matrix_on_device(call.queue, from.buffer, static_cast<long long>(p) * from.stride, from.ld, c[p].buffer(),
                            c[p].offset(), c[p].ld(), rows, cols, sizeof(T), {done}, copies);
    }
    return copies;
  }
};

// Whether two matrices C of a gathered batch share memory (scattered back one after the other, one would overwrite
// the other's result).
template <class Scalar>
bool device_matrices_overlap(const std::vector<DeviceMatrix<Scalar>>& c) {
  std::vector<PlacedSpans> placed;
  placed.reserve(c.size());
  const long long size = sizeof(Scalar);
  for (const DeviceMatrix<Scalar>& x : c) {
    const MemoryOrigin origin = origin_of(x.buffer());
    placed.push_back(
        {origin.root,
         {static_cast<long long>(origin.byte_offset) + x.offset() * size, x.ld() * size, x.rows() * size, x.cols()}});
  }
  return any_two_overlap(std::move(placed));
}

// c[p] = alpha * a[p] * b[p] + beta * c[p] for every p on device matrices, in one launch; blocking. C of Scalar, or
// float for 16-bit A and B (whose batches the 16-bit core multiplies).
template <class Scalar, class ScalarC>
void multiply_device_batch(const cl::CommandQueue& queue, const KernelDescription* config,
                           const std::vector<DeviceMatrix<Scalar>>& a, const std::vector<DeviceMatrix<Scalar>>& b,
                           std::vector<DeviceMatrix<ScalarC>>& c, factor_t<Scalar> alpha, factor_t<Scalar> beta) {
  using Factor = factor_t<Scalar>;
  check_batch_shapes(a, b, &c);
  if (a.empty() || c[0].size() == 0) return;
  const long long m = c[0].rows(), n = c[0].cols(), k = a[0].cols(), count = static_cast<long long>(a.size());
  DeviceBatchCall<Scalar> batch(queue);
  // A and B that the product does not read (k = 0 or alpha = 0) are neither gathered nor looked at.
  const bool reads_ab = k > 0 && alpha != Factor(0);
  const StridedOperand sa = reads_ab ? batch.operand(a, "A", true) : StridedOperand{cl::Buffer(), 0, std::max(m, 1LL)};
  const StridedOperand sb = reads_ab ? batch.operand(b, "B", true) : StridedOperand{cl::Buffer(), 0, std::max(k, 1LL)};
  StridedOperand sc;
  const bool c_in_place = strided_in_place(c, sc);
  if (!c_in_place) {
    if (device_matrices_overlap(c)) {
      throw std::invalid_argument(std::string(gpu_gemm_batched_name) +
                                  ": two matrices C of the batch share memory; each problem needs a C of its own.");
    }
    sc = batch.operand(c, "C", beta != Factor(0));
  }
  cl::Event done;
  if constexpr (is_sixteen_bit_v<Scalar>) {
    done = sixteen_bit_batch<Scalar, ScalarC>(batch.call.queue, m, n, k, alpha, sa.buffer, sa.offset, sa.ld, sa.stride,
                                              sb.buffer, sb.offset, sb.ld, sb.stride, beta, sc.buffer, sc.offset, sc.ld,
                                              sc.stride, count, batch.gathered_events);
  } else {
    const GemmProblem p = check_batched_arguments(batch.call.context, {Transpose::no,
                                                                       Transpose::no,
                                                                       m,
                                                                       n,
                                                                       k,
                                                                       scalar_value(alpha),
                                                                       {sa.buffer, sa.offset, sa.ld, sa.stride},
                                                                       {sb.buffer, sb.offset, sb.ld, sb.stride},
                                                                       scalar_value(beta),
                                                                       {sc.buffer, sc.offset, sc.ld, sc.stride},
                                                                       count});
    done = run_gemm(batch.call, config, p, batch.gathered_events);
  }
  const std::vector<cl::Event> finished = c_in_place ? std::vector<cl::Event>{done} : batch.scatter(sc, c, done);
  check(cl::WaitForEvents(finished), "clWaitForEvents");
  for (const auto& used : batch.gathered) used->give_back_after(cl::Event());
}

}  // namespace detail

// c[p] = alpha * a[p] * b[p] + beta * c[p] for every p, on device matrices of `queue`'s context, in one launch (as
// gpu_gemm_batched on host matrices: one shape, vectors of one length, an empty batch does nothing). Where the
// matrices of an operand lie in one buffer, one leading dimension and a constant stride apart (as device_batch makes
// them), they are read (and C written) in place; otherwise they are gathered into a pooled buffer by device-to-device
// copies before the launch, and C's results copied back after it. Returns when C is written. Eigen::half and
// Eigen::bfloat16 A and B take a C of their type or float, and float alpha and beta.
template <class Config = AutoConfig, class Scalar, class ScalarC>
void gpu_gemm_batched(const cl::CommandQueue& queue, const std::vector<DeviceMatrix<Scalar>>& a,
                      const std::vector<DeviceMatrix<Scalar>>& b, std::vector<DeviceMatrix<ScalarC>>& c,
                      detail::factor_t<detail::non_deduced_t<Scalar>> alpha,
                      detail::factor_t<detail::non_deduced_t<Scalar>> beta) {
  static_assert(detail::c_scalar_fits_v<Scalar, ScalarC>,
                "tilegemm::gpu_gemm_batched: A, B and C must have the same scalar type (or a float C, for "
                "Eigen::half and Eigen::bfloat16 A and B); cast one with .cast<T>().");
  detail::require_config_for<Config, Scalar>();
  detail::translate_cl_errors([&] {
    detail::naming(detail::gpu_gemm_batched_name, [&] {
      detail::multiply_device_batch(queue, detail::description_of<Config>(), a, b, c, alpha, beta);
    });
  });
}
// The same on the queue of a[0] (an empty batch does nothing).
template <class Config = AutoConfig, class Scalar, class ScalarC>
void gpu_gemm_batched(const std::vector<DeviceMatrix<Scalar>>& a, const std::vector<DeviceMatrix<Scalar>>& b,
                      std::vector<DeviceMatrix<ScalarC>>& c, detail::factor_t<detail::non_deduced_t<Scalar>> alpha,
                      detail::factor_t<detail::non_deduced_t<Scalar>> beta) {
  if (a.empty()) {
    detail::check_batch_shapes(a, b, &c);
    return;
  }
  gpu_gemm_batched<Config>(a[0].queue(), a, b, c, alpha, beta);
}

// The products a[p] * b[p] as a new contiguous batch on `queue` (device_batch), computed in one launch.
template <class Config = AutoConfig, class Scalar>
std::vector<DeviceMatrix<Scalar>> gpu_gemm_batched(const cl::CommandQueue& queue,
                                                   const std::vector<DeviceMatrix<Scalar>>& a,
                                                   const std::vector<DeviceMatrix<Scalar>>& b) {
  detail::check_batch_shapes(a, b);
  std::vector<DeviceMatrix<Scalar>> c = device_batch<Scalar>(
      static_cast<Eigen::Index>(a.size()), a.empty() ? 0 : a[0].rows(), b.empty() ? 0 : b[0].cols(), queue);
  gpu_gemm_batched<Config>(queue, a, b, c, detail::factor_t<Scalar>(1), detail::factor_t<Scalar>(0));
  return c;
}
// The same on the queue of a[0] (an empty batch gives an empty vector).
template <class Config = AutoConfig, class Scalar>
std::vector<DeviceMatrix<Scalar>> gpu_gemm_batched(const std::vector<DeviceMatrix<Scalar>>& a,
                                                   const std::vector<DeviceMatrix<Scalar>>& b) {
  detail::check_batch_shapes(a, b);
  if (a.empty()) return {};
  return gpu_gemm_batched<Config>(a[0].queue(), a, b);
}

}  // namespace tilegemm
