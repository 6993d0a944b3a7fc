// eigen/transfers: copies between Eigen storage on the host and column-major matrices in device buffers, each
// column at its leading dimension on both sides, touching nothing between the columns.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "../gemm/plan.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "eigen_operand.hpp"

namespace tilegemm::detail {

// A buffer of `bytes` on the call's device, refused with the sizes when the device allows no buffer that large.
inline cl::Buffer allocate_device_buffer(const CallContext& call, std::size_t bytes) {
  require_allocation(call.limits, bytes, "a DeviceMatrix of " + std::to_string(bytes) + " bytes",
                     "Use smaller matrices, or a device with more memory.");
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(call.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  return buffer;
}

// The rect-copy form of a column-major rows x cols matrix at element `offset` with leading dimension `ld`: its first
// byte as (x, y) with x below one row pitch, its region and its row pitch, all in bytes.
struct RectOf {
  std::array<std::size_t, 3> origin;
  std::array<std::size_t, 3> region;
  std::size_t pitch;
  std::size_t host_x = 0;  // where the part starts within each host column, in bytes
};
// The rect commands for a rows x cols matrix at `offset` with leading dimension `ld`: one, or two where the columns
// cross a row pitch (offset % ld + rows > ld), which some drivers (NVIDIA's) refuse as one rect: the rows up to the
// pitch, then the rest from the start of the next row.
inline std::vector<RectOf> rect_parts(Eigen::Index offset, Eigen::Index ld, Eigen::Index rows, Eigen::Index cols,
                                      std::size_t scalar_size) {
  const std::size_t x = static_cast<std::size_t>(offset % ld), y = static_cast<std::size_t>(offset / ld);
  const std::size_t height = static_cast<std::size_t>(rows), pitch = static_cast<std::size_t>(ld) * scalar_size;
  const std::size_t width = static_cast<std::size_t>(cols), first = std::min(height, static_cast<std::size_t>(ld) - x);
  std::vector<RectOf> parts{{{x * scalar_size, y, 0}, {first * scalar_size, width, 1}, pitch, 0}};
  if (first < height)
    parts.push_back({{0, y + 1, 0}, {(height - first) * scalar_size, width, 1}, pitch, first * scalar_size});
  return parts;
}

// Writes the (possibly strided) storage of a host operand into `device` as a rows x cols matrix at `offset` with
// leading dimension `ld` (a dense one at 0 by default); blocking, so that the host memory may change afterwards.
template <class Scalar, class Pointer>
void to_device(const cl::CommandQueue& queue, const HostOperand<Scalar, Pointer>& host, const cl::Buffer& device,
               Eigen::Index offset = 0, Eigen::Index ld = 0) {
  if (ld == 0) ld = std::max<Eigen::Index>(host.rows, 1);
  if (host.ld == host.rows && ld == host.rows) {
    check(queue.enqueueWriteBuffer(device, CL_TRUE, sizeof(Scalar) * offset, sizeof(Scalar) * host.rows * host.cols,
                                   host.data),
          "clEnqueueWriteBuffer");
    return;
  }
  for (const RectOf& d : rect_parts(offset, ld, host.rows, host.cols, sizeof(Scalar))) {
    check(queue.enqueueWriteBufferRect(device, CL_TRUE, d.origin, {d.host_x, 0, 0}, d.region, d.pitch, 0,
                                       sizeof(Scalar) * host.ld, 0, host.data),
          "clEnqueueWriteBufferRect");
  }
}

// Reads a rows x cols device matrix at `offset` with leading dimension `ld` (a dense one at 0 by default) into the
// (possibly strided) storage of `host` after `wait`; blocking.
template <class Scalar>
void from_device(const cl::CommandQueue& queue, const cl::Buffer& buffer, const HostOperand<Scalar, Scalar*>& host,
                 const std::vector<cl::Event>& wait, Eigen::Index offset = 0, Eigen::Index ld = 0) {
  if (ld == 0) ld = std::max<Eigen::Index>(host.rows, 1);
  const std::vector<cl::Event>* events = wait.empty() ? nullptr : &wait;
  if (host.ld == host.rows && ld == host.rows) {
    check(queue.enqueueReadBuffer(buffer, CL_TRUE, sizeof(Scalar) * offset, sizeof(Scalar) * host.rows * host.cols,
                                  host.data, events),
          "clEnqueueReadBuffer");
    return;
  }
  for (const RectOf& d : rect_parts(offset, ld, host.rows, host.cols, sizeof(Scalar))) {
    check(queue.enqueueReadBufferRect(buffer, CL_TRUE, d.origin, {d.host_x, 0, 0}, d.region, d.pitch, 0,
                                      sizeof(Scalar) * host.ld, 0, host.data, events),
          "clEnqueueReadBufferRect");
  }
}

// Starts reading a rows x cols device matrix at `offset` with leading dimension `ld` into the (possibly strided)
// storage of `host` after `wait`, and returns at once; the host memory must stay alive until the event completes.
template <class Scalar>
cl::Event start_reading(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                        const HostOperand<Scalar, Scalar*>& host, const std::vector<cl::Event>& wait,
                        Eigen::Index offset, Eigen::Index ld) {
  const std::vector<cl::Event>* events = wait.empty() ? nullptr : &wait;
  cl::Event done;
  for (const RectOf& d :
       rect_parts(offset, ld, host.rows, host.cols, sizeof(Scalar))) {  // in order: the last ends last
    check(queue.enqueueReadBufferRect(buffer, CL_FALSE, d.origin, {d.host_x, 0, 0}, d.region, d.pitch, 0,
                                      sizeof(Scalar) * host.ld, 0, host.data, events, &done),
          "clEnqueueReadBufferRect");
  }
  return done;
}

// The bytes of a dense copy of a host operand.
template <class Scalar, class Pointer>
std::size_t dense_bytes(const HostOperand<Scalar, Pointer>& host) {
  return sizeof(Scalar) * host.rows * host.cols;
}

// Copies a rows x cols matrix at `offset` with leading dimension `ld` into a dense one at the start of `dst`, on
// the device.
inline void copy_on_device(const cl::CommandQueue& queue, const cl::Buffer& src, Eigen::Index offset, Eigen::Index ld,
                           const cl::Buffer& dst, Eigen::Index rows, Eigen::Index cols, std::size_t scalar_size) {
  for (const RectOf& s : rect_parts(offset, ld, rows, cols, scalar_size)) {
    check(
        queue.enqueueCopyBufferRect(src, dst, s.origin, {s.host_x, 0, 0}, s.region, s.pitch, 0, scalar_size * rows, 0),
        "clEnqueueCopyBufferRect");
  }
}

}  // namespace tilegemm::detail
