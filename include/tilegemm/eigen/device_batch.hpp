// eigen/device_batch: a contiguous batch of device matrices: DeviceMatrix objects of one shape that lie one after
// the other in one buffer, which gpu_gemm_batched reads and writes in place.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../config/scalar.hpp"
#include "../host/transfers.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "batch_staging.hpp"
#include "device_matrix.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {

// `count` uninitialised rows x cols matrices on the queue's device (the default queue's without one), in one new
// buffer: matrix p at offset p * rows * cols, leading dimension rows. Each is a DeviceMatrix around that buffer, so
// the buffer lives as long as any of them. gpu_gemm_batched reads and writes such a batch in place.
template <class Scalar>
std::vector<DeviceMatrix<Scalar>> device_batch(Eigen::Index count, Eigen::Index rows, Eigen::Index cols,
                                               const cl::CommandQueue& queue = default_queue()) {
  static_assert(detail::is_front_end_scalar_v<Scalar>,
                "tilegemm::device_batch holds float, double, Eigen::half or Eigen::bfloat16 values only: "
                "device_batch<float>, device_batch<Eigen::half>, ...");
  const long long elements = detail::batch_elements(count, rows, cols);
  if (elements < 0) {
    throw std::invalid_argument("tilegemm::device_batch: " + std::to_string(count) + " matrices of " +
                                detail::shape(rows, cols) +
                                " are not possible: sizes must not be negative, and tilegemm indexes a batch's buffer "
                                "with 32-bit integers (at most " +
                                std::to_string(detail::index_limit) + " elements).");
  }
  const detail::CallContext call = detail::in_order_context(queue, "tilegemm::device_batch");
  cl::Buffer buffer;
  if (elements > 0) buffer = detail::allocate_device_buffer(call, sizeof(Scalar) * static_cast<std::size_t>(elements));
  std::vector<DeviceMatrix<Scalar>> batch;
  batch.reserve(static_cast<std::size_t>(count));
  for (Eigen::Index p = 0; p < count; ++p) {
    batch.emplace_back(buffer, rows, cols, std::max<Eigen::Index>(rows, 1), p * rows * cols, queue);
  }
  return batch;
}

// The host matrices (all of one shape) uploaded into a new contiguous batch, in one write.
template <class Matrix, std::enable_if_t<std::is_base_of_v<Eigen::MatrixBase<Matrix>, Matrix>, int> = 0>
std::vector<DeviceMatrix<typename Matrix::Scalar>> device_batch(const std::vector<Matrix>& host,
                                                                const cl::CommandQueue& queue = default_queue()) {
  using Scalar = typename Matrix::Scalar;
  detail::check_one_shape(host, "tilegemm::device_batch", "host");
  const Eigen::Index rows = host.empty() ? 0 : host[0].rows(), cols = host.empty() ? 0 : host[0].cols();
  std::vector<DeviceMatrix<Scalar>> batch =
      device_batch<Scalar>(static_cast<Eigen::Index>(host.size()), rows, cols, queue);
  if (!batch.empty() && rows * cols > 0) {
    const detail::HostMatrix<Scalar> all = detail::side_by_side<Scalar>(host, rows, cols);
    detail::check(queue.enqueueWriteBuffer(batch[0].buffer(), CL_TRUE, 0, sizeof(Scalar) * all.size(), all.data()),
                  "clEnqueueWriteBuffer");
  }
  return batch;
}

}  // namespace tilegemm
