// opencl_operands: A, B and C in OpenCL buffers for one shape, shared by tilegemm and CLBlast on the same queue.
#pragma once

#include <limits>
#include <stdexcept>
#include <string>
#include <tilegemm/tilegemm.hpp>

#include "problem.hpp"

namespace bench {

template <class Scalar>
struct OpenclOperands {
  cl::CommandQueue queue;
  cl::Buffer a;
  cl::Buffer b;
  cl::Buffer c;
  long long lda = 0;  // leading dimensions: the stored rows of each (column-major)
  long long ldb = 0;
  long long ldc = 0;
};

namespace detail {

inline void require_cl(cl_int status, const std::string& what) {
  if (status != CL_SUCCESS) throw std::runtime_error(what + " failed with OpenCL status " + std::to_string(status));
}

template <class Scalar>
cl::Buffer device_buffer(const cl::CommandQueue& queue, long long elements) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                    static_cast<std::size_t>(elements) * sizeof(Scalar), nullptr, &status);
  require_cl(status, "allocating " + std::to_string(elements) + " elements on the OpenCL device");
  return buffer;
}

}  // namespace detail

// Copies A and B to new buffers on the queue's device and allocates C (m x n); blocks until the copies are done.
template <class Scalar>
OpenclOperands<Scalar> upload_operands(const cl::CommandQueue& queue, const HostOperands<Scalar>& host) {
  OpenclOperands<Scalar> device;
  device.queue = queue;
  device.a = detail::device_buffer<Scalar>(queue, host.a.size());
  device.b = detail::device_buffer<Scalar>(queue, host.b.size());
  device.c = detail::device_buffer<Scalar>(queue, host.shape.m * host.shape.n);
  device.lda = host.a.rows();
  device.ldb = host.b.rows();
  device.ldc = host.shape.m;
  detail::require_cl(queue.enqueueWriteBuffer(device.a, CL_TRUE, 0, host.a.size() * sizeof(Scalar), host.a.data()),
                     "uploading A");
  detail::require_cl(queue.enqueueWriteBuffer(device.b, CL_TRUE, 0, host.b.size() * sizeof(Scalar), host.b.data()),
                     "uploading B");
  return device;
}

// Fills C with NaN, so that entries a product leaves unwritten fail the check.
template <class Scalar>
void poison_result(const OpenclOperands<Scalar>& device, const Shape& shape) {
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
  detail::require_cl(device.queue.enqueueFillBuffer(device.c, nan, 0, shape.m * shape.n * sizeof(Scalar)),
                     "filling C with NaN");
  detail::require_cl(device.queue.finish(), "clFinish");
}

template <class Scalar>
void download_result(const OpenclOperands<Scalar>& device, HostMatrix<Scalar>& c) {
  detail::require_cl(device.queue.enqueueReadBuffer(device.c, CL_TRUE, 0, c.size() * sizeof(Scalar), c.data()),
                     "reading C back");
}

}  // namespace bench
