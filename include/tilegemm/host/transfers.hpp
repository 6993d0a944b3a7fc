// host/transfers: copies between host storage and column-major matrices in device buffers, each
// column at its leading dimension on both sides, touching nothing between the columns.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "../config/linkage.hpp"
#include "../gemm/plan.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "host_operand.hpp"

namespace tilegemm::detail {

// A buffer of `bytes` on the call's device, refused with the sizes when the device allows no buffer that large.
TILEGEMM_ENTRY cl::Buffer allocate_device_buffer(const CallContext& call, std::size_t bytes);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY cl::Buffer allocate_device_buffer(const CallContext& call, std::size_t bytes) {
  require_allocation(call.limits, bytes, "a DeviceMatrix of " + std::to_string(bytes) + " bytes",
                     "Use smaller matrices, or a device with more memory.");
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(call.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  return buffer;
}
#endif

// One command of a transfer of a column-major matrix: a rect of `region` at `origin` (bytes within a pitch, pitch rows)
// in rows `pitch` bytes apart, or, where `contiguous`, one run of region[0] bytes from byte `origin[0]`. On the host
// (or the dense destination of a copy) it starts at byte `host_x` of column `host_column`.
struct TransferPart {
  bool contiguous = false;
  std::array<std::size_t, 3> origin;
  std::array<std::size_t, 3> region;
  std::size_t pitch = 0;
  std::size_t host_x = 0;
  std::size_t host_column = 0;
};
// The commands that move a rows x cols matrix at element `offset` with leading dimension `ld` (none for an empty one).
// Drivers differ in what rect they take, so every rect here has region[0] within a pitch, does not cross a pitch
// (offset % ld + rows > ld: the rows up to the pitch, then the rest from the start of the next pitch row), and ends,
// counted in whole pitch rows, within the matrix's last element: NVIDIA's driver refuses a rect whose last pitch row
// reaches past the buffer's end, which a buffer ending at the matrix's last element does not hold. A column that would
// need that row goes as a contiguous run.
TILEGEMM_ENTRY std::vector<TransferPart> transfer_parts(std::ptrdiff_t offset, std::ptrdiff_t ld, std::ptrdiff_t rows,
                                                        std::ptrdiff_t cols, std::size_t scalar_size);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::vector<TransferPart> transfer_parts(std::ptrdiff_t offset, std::ptrdiff_t ld, std::ptrdiff_t rows,
                                                        std::ptrdiff_t cols, std::size_t scalar_size) {
  std::vector<TransferPart> parts;
  if (rows <= 0 || cols <= 0) return parts;
  // Sizes of a matrix that fits its buffer: nothing here overflows std::size_t.
  const std::size_t pitch = static_cast<std::size_t>(ld), height = static_cast<std::size_t>(rows),
                    width = static_cast<std::size_t>(cols), start = static_cast<std::size_t>(offset);
  const std::size_t span_end = start + (width - 1) * pitch + height;  // one past the last element
  // `part_rows` rows of every column from (x, y) in pitch terms, at row `host_row` of the host's columns.
  const auto add = [&](std::size_t x, std::size_t y, std::size_t part_rows, std::size_t host_row) {
    const std::size_t rect_columns = (y + width) * pitch <= span_end ? width : width - 1;
    if (rect_columns > 0) {
      parts.push_back({false,
                       {x * scalar_size, y, 0},
                       {part_rows * scalar_size, rect_columns, 1},
                       pitch * scalar_size,
                       host_row * scalar_size,
                       0});
    }
    if (rect_columns < width) {
      parts.push_back({true,
                       {((y + width - 1) * pitch + x) * scalar_size, 0, 0},
                       {part_rows * scalar_size, 1, 1},
                       pitch * scalar_size,
                       host_row * scalar_size,
                       width - 1});
    }
  };
  const std::size_t x = start % pitch, y = start / pitch, first = std::min(height, pitch - x);
  add(x, y, first, 0);
  if (first < height) add(0, y + 1, height - first, first);
  return parts;
}
#endif

// Writes the (possibly strided) storage of a host operand into `device` as a rows x cols matrix at `offset` with
// leading dimension `ld` (a dense one at 0 by default); blocking, so that the host memory may change afterwards.
TILEGEMM_ENTRY void write_matrix(const cl::CommandQueue& queue, const RawInput& host, const cl::Buffer& device,
                                 std::ptrdiff_t offset, std::ptrdiff_t ld);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void write_matrix(const cl::CommandQueue& queue, const RawInput& host, const cl::Buffer& device,
                                 std::ptrdiff_t offset, std::ptrdiff_t ld) {
  const std::size_t size = host.size;
  if (ld == 0) ld = std::max<std::ptrdiff_t>(host.rows, 1);
  if (host.ld == host.rows && ld == host.rows) {
    check(queue.enqueueWriteBuffer(device, CL_TRUE, size * offset, size * host.rows * host.cols, host.data),
          "clEnqueueWriteBuffer");
    return;
  }
  const std::size_t host_pitch = size * host.ld;
  for (const TransferPart& d : transfer_parts(offset, ld, host.rows, host.cols, size)) {
    if (d.contiguous) {
      check(queue.enqueueWriteBuffer(device, CL_TRUE, d.origin[0], d.region[0],
                                     host.data + d.host_column * host_pitch + d.host_x),
            "clEnqueueWriteBuffer");
    } else {
      check(queue.enqueueWriteBufferRect(device, CL_TRUE, d.origin, {d.host_x, d.host_column, 0}, d.region, d.pitch, 0,
                                         host_pitch, 0, host.data),
            "clEnqueueWriteBufferRect");
    }
  }
}
#endif
template <class Scalar, class Pointer>
void to_device(const cl::CommandQueue& queue, const HostOperand<Scalar, Pointer>& host, const cl::Buffer& device,
               std::ptrdiff_t offset = 0, std::ptrdiff_t ld = 0) {
  write_matrix(queue, raw_input(host), device, offset, ld);
}

// Reads a rows x cols device matrix at `offset` with leading dimension `ld` (a dense one at 0 by default) into the
// (possibly strided) storage of `host` after `wait`; blocking.
TILEGEMM_ENTRY void read_matrix(const cl::CommandQueue& queue, const cl::Buffer& buffer, const RawOutput& host,
                                const std::vector<cl::Event>& wait, std::ptrdiff_t offset, std::ptrdiff_t ld);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void read_matrix(const cl::CommandQueue& queue, const cl::Buffer& buffer, const RawOutput& host,
                                const std::vector<cl::Event>& wait, std::ptrdiff_t offset, std::ptrdiff_t ld) {
  const std::size_t size = host.size;
  if (ld == 0) ld = std::max<std::ptrdiff_t>(host.rows, 1);
  const std::vector<cl::Event>* events = wait.empty() ? nullptr : &wait;
  if (host.ld == host.rows && ld == host.rows) {
    check(queue.enqueueReadBuffer(buffer, CL_TRUE, size * offset, size * host.rows * host.cols, host.data, events),
          "clEnqueueReadBuffer");
    return;
  }
  const std::size_t host_pitch = size * host.ld;
  for (const TransferPart& d : transfer_parts(offset, ld, host.rows, host.cols, size)) {
    if (d.contiguous) {
      check(queue.enqueueReadBuffer(buffer, CL_TRUE, d.origin[0], d.region[0],
                                    host.data + d.host_column * host_pitch + d.host_x, events),
            "clEnqueueReadBuffer");
    } else {
      check(queue.enqueueReadBufferRect(buffer, CL_TRUE, d.origin, {d.host_x, d.host_column, 0}, d.region, d.pitch, 0,
                                        host_pitch, 0, host.data, events),
            "clEnqueueReadBufferRect");
    }
  }
}
#endif
template <class Scalar>
void from_device(const cl::CommandQueue& queue, const cl::Buffer& buffer, const HostOperand<Scalar, Scalar*>& host,
                 const std::vector<cl::Event>& wait, std::ptrdiff_t offset = 0, std::ptrdiff_t ld = 0) {
  read_matrix(queue, buffer, raw_output(host), wait, offset, ld);
}

// Starts reading a rows x cols device matrix at `offset` with leading dimension `ld` into the (possibly strided)
// storage of `host` after `wait`, and returns at once; the host memory must stay alive until the event completes,
// which on an out-of-order queue (`in_order` false) is a marker after every read.
TILEGEMM_ENTRY cl::Event start_reading_matrix(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                              const RawOutput& host, const std::vector<cl::Event>& wait,
                                              std::ptrdiff_t offset, std::ptrdiff_t ld, bool in_order);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY cl::Event start_reading_matrix(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                                              const RawOutput& host, const std::vector<cl::Event>& wait,
                                              std::ptrdiff_t offset, std::ptrdiff_t ld, bool in_order) {
  const std::vector<cl::Event>* events = wait.empty() ? nullptr : &wait;
  cl::Event done;
  std::vector<cl::Event> reads;
  const std::size_t host_pitch = host.size * host.ld;
  for (const TransferPart& d : transfer_parts(offset, ld, host.rows, host.cols, host.size)) {
    if (d.contiguous) {
      check(queue.enqueueReadBuffer(buffer, CL_FALSE, d.origin[0], d.region[0],
                                    host.data + d.host_column * host_pitch + d.host_x, events, &done),
            "clEnqueueReadBuffer");
    } else {
      check(queue.enqueueReadBufferRect(buffer, CL_FALSE, d.origin, {d.host_x, d.host_column, 0}, d.region, d.pitch, 0,
                                        host_pitch, 0, host.data, events, &done),
            "clEnqueueReadBufferRect");
    }
    reads.push_back(done);
  }
  if (!in_order && reads.size() > 1)
    check(queue.enqueueMarkerWithWaitList(&reads, &done), "clEnqueueMarkerWithWaitList");
  return done;
}
#endif
template <class Scalar>
cl::Event start_reading(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                        const HostOperand<Scalar, Scalar*>& host, const std::vector<cl::Event>& wait,
                        std::ptrdiff_t offset, std::ptrdiff_t ld, bool in_order) {
  return start_reading_matrix(queue, buffer, raw_output(host), wait, offset, ld, in_order);
}

// Enqueues copies on the device, after `wait`, of a rows x cols matrix at `src_offset` with leading dimension
// `src_ld` in `src` to `dst_offset` with leading dimension `dst_ld` in `dst`, and appends their events to `events`.
// The rows are cut where the columns of either side cross a row pitch, so that no rect crosses one (see
// transfer_parts); a rect whose last pitch row would reach past either matrix's last element leaves its last column
// to a contiguous copy.
TILEGEMM_ENTRY void copy_matrix_on_device(const cl::CommandQueue& queue, const cl::Buffer& src,
                                          std::ptrdiff_t src_offset, std::ptrdiff_t src_ld, const cl::Buffer& dst,
                                          std::ptrdiff_t dst_offset, std::ptrdiff_t dst_ld, std::ptrdiff_t rows,
                                          std::ptrdiff_t cols, std::size_t scalar_size,
                                          const std::vector<cl::Event>& wait, std::vector<cl::Event>& events);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void copy_matrix_on_device(const cl::CommandQueue& queue, const cl::Buffer& src,
                                          std::ptrdiff_t src_offset, std::ptrdiff_t src_ld, const cl::Buffer& dst,
                                          std::ptrdiff_t dst_offset, std::ptrdiff_t dst_ld, std::ptrdiff_t rows,
                                          std::ptrdiff_t cols, std::size_t scalar_size,
                                          const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  if (rows <= 0 || cols <= 0) return;
  const std::vector<cl::Event>* after = wait.empty() ? nullptr : &wait;
  // Sizes of matrices that fit their buffers: nothing here overflows std::size_t.
  const std::size_t width = static_cast<std::size_t>(cols);
  struct Side {
    std::size_t offset, pitch, span_end;
  };
  const auto side = [&](std::ptrdiff_t offset, std::ptrdiff_t ld) {
    const std::size_t o = static_cast<std::size_t>(offset), p = static_cast<std::size_t>(ld);
    return Side{o, p, o + (width - 1) * p + static_cast<std::size_t>(rows)};
  };
  const Side from = side(src_offset, src_ld), to = side(dst_offset, dst_ld);
  std::array<std::size_t, 4> cuts = {0, from.pitch - from.offset % from.pitch, to.pitch - to.offset % to.pitch,
                                     static_cast<std::size_t>(rows)};
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::size_t first = cuts[i], last = std::min(cuts[i + 1], static_cast<std::size_t>(rows));
    if (first >= last) continue;
    const std::size_t s = from.offset + first, d = to.offset + first;
    const std::array<std::size_t, 3> s_origin = {s % from.pitch * scalar_size, s / from.pitch, 0},
                                     d_origin = {d % to.pitch * scalar_size, d / to.pitch, 0};
    const bool whole =
        (s / from.pitch + width) * from.pitch <= from.span_end && (d / to.pitch + width) * to.pitch <= to.span_end;
    const std::size_t rect_columns = whole ? width : width - 1;
    cl::Event done;
    if (rect_columns > 0) {
      check(queue.enqueueCopyBufferRect(src, dst, s_origin, d_origin, {(last - first) * scalar_size, rect_columns, 1},
                                        from.pitch * scalar_size, 0, to.pitch * scalar_size, 0, after, &done),
            "clEnqueueCopyBufferRect");
      events.push_back(done);
    }
    if (rect_columns < width) {
      check(queue.enqueueCopyBuffer(src, dst, (s + (width - 1) * from.pitch) * scalar_size,
                                    (d + (width - 1) * to.pitch) * scalar_size, (last - first) * scalar_size, after,
                                    &done),
            "clEnqueueCopyBuffer");
      events.push_back(done);
    }
  }
}
#endif

// Copies a rows x cols matrix at `offset` with leading dimension `ld` into a dense one at the start of `dst`, on
// the device.
TILEGEMM_ENTRY void copy_on_device(const cl::CommandQueue& queue, const cl::Buffer& src, std::ptrdiff_t offset,
                                   std::ptrdiff_t ld, const cl::Buffer& dst, std::ptrdiff_t rows, std::ptrdiff_t cols,
                                   std::size_t scalar_size);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void copy_on_device(const cl::CommandQueue& queue, const cl::Buffer& src, std::ptrdiff_t offset,
                                   std::ptrdiff_t ld, const cl::Buffer& dst, std::ptrdiff_t rows, std::ptrdiff_t cols,
                                   std::size_t scalar_size) {
  const std::size_t dense_pitch = scalar_size * static_cast<std::size_t>(rows);
  for (const TransferPart& s : transfer_parts(offset, ld, rows, cols, scalar_size)) {
    if (s.contiguous) {
      check(queue.enqueueCopyBuffer(src, dst, s.origin[0], s.host_column * dense_pitch + s.host_x, s.region[0]),
            "clEnqueueCopyBuffer");
    } else {
      check(queue.enqueueCopyBufferRect(src, dst, s.origin, {s.host_x, s.host_column, 0}, s.region, s.pitch, 0,
                                        dense_pitch, 0),
            "clEnqueueCopyBufferRect");
    }
  }
}
#endif

}  // namespace tilegemm::detail
