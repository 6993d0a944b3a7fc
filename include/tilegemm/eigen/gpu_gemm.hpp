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
#include "../runtime/call_context.hpp"
#include "../runtime/disk_cache.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "eigen_operand.hpp"
#include "shapes.hpp"
#include "staged_product.hpp"
#include "transfers.hpp"

namespace tilegemm {
namespace detail {

// The dense device copy of a rows x cols operand must be indexable by the kernels' 32-bit ints and fit one buffer
// of the device: checked before anything is allocated.
TILEGEMM_ENTRY void require_dense_copy_fits(const DeviceLimits& device, const char* name, Eigen::Index rows,
                                            Eigen::Index cols, std::size_t scalar_size);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void require_dense_copy_fits(const DeviceLimits& device, const char* name, Eigen::Index rows,
                                            Eigen::Index cols, std::size_t scalar_size) {
  if (rows > index_limit || cols > index_limit || rows * cols > index_limit) {
    throw std::invalid_argument(std::string("tilegemm::gpu_gemm: ") + name + " is " + shape(rows, cols) +
                                ", more elements than the kernels' 32-bit indices reach (at most " +
                                std::to_string(index_limit) + " in one operand).");
  }
  require_allocation(device, static_cast<unsigned long long>(rows * cols) * scalar_size,
                     std::string("the device copy of ") + name + " (" + shape(rows, cols) + ")",
                     "Multiply smaller blocks, or choose a device with more memory.");
}
#endif

// C = alpha * op(A) * op(B) + beta * C where C is column-major storage (c.transposed is false), with `config` (null:
// the default choice): dense copies of the operands on the device, the product, and C read back.
template <class Scalar>
void multiply_on_device(const cl::CommandQueue& queue, const KernelDescription* config, const HostOperand<Scalar>& a,
                        const HostOperand<Scalar>& b, const HostOperand<Scalar, Scalar*>& c, Scalar alpha,
                        Scalar beta) {
  const CallContext call = CallContext::of(queue);
  for (const auto& [name, rows, cols] :
       {std::tuple{"A", a.rows, a.cols}, std::tuple{"B", b.rows, b.cols}, std::tuple{"C", c.rows, c.cols}}) {
    require_dense_copy_fits(call.limits, name, rows, cols, sizeof(Scalar));
  }
  if (staged_path_applies(call, a, b, c)) {  // large products on GPUs: overlapped through pinned memory
    staged_product(call, config, a, b, c, alpha, beta);
    return;
  }
  ScratchBuffer device_a(call, dense_bytes(a)), device_b(call, dense_bytes(b)), device_c(call, dense_bytes(c));
  to_device(queue, a, device_a.buffer());
  to_device(queue, b, device_b.buffer());
  if (beta != Scalar(0)) to_device(queue, c, device_c.buffer());  // C is not read when beta is zero
  const Eigen::Index k = a.transposed ? a.rows : a.cols;
  const GemmProblem p = check_arguments<Scalar>(call.context, a.transposed ? Transpose::yes : Transpose::no,
                                                b.transposed ? Transpose::yes : Transpose::no, c.rows, c.cols, k, alpha,
                                                device_a.buffer(), 0, a.rows, device_b.buffer(), 0, b.rows, beta,
                                                device_c.buffer(), 0, c.rows);
  const cl::Event done = run_gemm(call, config, p, {});
  from_device(queue, device_c.buffer(), c, {done});  // blocking: every command of this call has finished
  DiskCache::instance().store_ran();  // programs this call compiled, now that they have run (disk_cache.hpp)
  for (ScratchBuffer* used : {&device_a, &device_b, &device_c}) used->give_back_after(cl::Event());
}
TILEGEMM_ENTRY_INSTANCE(void multiply_on_device<float>(const cl::CommandQueue&, const KernelDescription*,
                                                       const HostOperand<float>&, const HostOperand<float>&,
                                                       const HostOperand<float, float*>&, float, float))
TILEGEMM_ENTRY_INSTANCE(void multiply_on_device<double>(const cl::CommandQueue&, const KernelDescription*,
                                                        const HostOperand<double>&, const HostOperand<double>&,
                                                        const HostOperand<double, double*>&, double, double))

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
  if (a.cols() == 0 || alpha == Scalar(0)) {  // C = beta * C, without reading C when beta is zero
    if (beta == Scalar(0)) {
      c.setZero();
    } else {
      c *= beta;
    }
    return;
  }
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
  if (detail::storages_overlap(storage_c, storage_a) || detail::storages_overlap(storage_c, storage_b)) {
    // C shares memory with A or B (A = gpu_gemm(A, B) and the like): the product goes to a copy of C first, so that
    // no operand changes while it is read.
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> result(c.rows(), c.cols());
    if (beta != Scalar(0)) result = c;
    gpu_gemm<Config>(queue, a, b, result, alpha, beta);
    c = result;
    return;
  }
  detail::translate_cl_errors([&] {
    if (storage_c.transposed) {  // row-major C: its storage is C^T = B^T * A^T, column-major
      storage_a.transposed = !storage_a.transposed;
      storage_b.transposed = !storage_b.transposed;
      storage_c.transposed = false;
      detail::multiply_on_device(queue, detail::description_of<Config>(), storage_b, storage_a, storage_c, alpha, beta);
    } else {
      detail::multiply_on_device(queue, detail::description_of<Config>(), storage_a, storage_b, storage_c, alpha, beta);
    }
  });
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
