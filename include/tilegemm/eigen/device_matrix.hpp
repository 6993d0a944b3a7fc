// eigen/device_matrix: DeviceMatrix, a column-major matrix that lives in a buffer on an OpenCL device, and DeviceView,
// a block or transposed view of one: operands of gpu_gemm that stay on the device between products.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/scalar.hpp"
#include "../gemm/arguments.hpp"
#include "../host/transfers.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "eigen_operand.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {
namespace detail {

// The context of a queue that device matrices may use. They keep no events: the queue orders the commands that
// write and read them, so it must run them in the order they were enqueued.
TILEGEMM_ENTRY CallContext in_order_context(const cl::CommandQueue& queue, const char* who);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY CallContext in_order_context(const cl::CommandQueue& queue, const char* who) {
  CallContext call = CallContext::of(queue);
  if (!call.in_order) {
    throw std::invalid_argument(std::string(who) +
                                ": the command queue is out-of-order (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), but "
                                "device matrices and asynchronous calls rely on their queue to run commands in the "
                                "order they were enqueued; pass an in-order queue.");
  }
  return call;
}
#endif

}  // namespace detail

// A rows x cols part of a device buffer as a matrix, column-major from `offset` with leading dimension `ld`, or the
// transpose of one: what a block or a transpose of a DeviceMatrix is. A view holds a reference to the buffer, so it
// stays valid when the matrix it came from is destroyed or moved; writing through it writes the matrix.
template <class Scalar>
class DeviceView {
 public:
  DeviceView(cl::Buffer buffer, cl::CommandQueue queue, Eigen::Index offset, Eigen::Index stored_rows,
             Eigen::Index stored_cols, Eigen::Index ld, bool transposed)
      : buffer_(std::move(buffer)),
        queue_(std::move(queue)),
        offset_(offset),
        stored_rows_(stored_rows),
        stored_cols_(stored_cols),
        ld_(ld),
        transposed_(transposed) {}

  Eigen::Index rows() const { return transposed_ ? stored_cols_ : stored_rows_; }
  Eigen::Index cols() const { return transposed_ ? stored_rows_ : stored_cols_; }
  Eigen::Index size() const { return stored_rows_ * stored_cols_; }
  const cl::Buffer& buffer() const { return buffer_; }
  const cl::CommandQueue& queue() const { return queue_; }
  // As stored: the first element, the leading dimension, and whether the view is the transpose of the storage.
  Eigen::Index offset() const { return offset_; }
  Eigen::Index ld() const { return ld_; }
  Eigen::Index stored_rows() const { return stored_rows_; }
  Eigen::Index stored_cols() const { return stored_cols_; }
  bool transposed() const { return transposed_; }

  DeviceView transpose() const { return {buffer_, queue_, offset_, stored_rows_, stored_cols_, ld_, !transposed_}; }
  // The rows x cols block whose first element is (row, col) of this view.
  DeviceView block(Eigen::Index row, Eigen::Index col, Eigen::Index rows, Eigen::Index cols) const {
    // Compared without forming row + rows, which may overflow for sizes near the largest Index.
    if (row < 0 || col < 0 || rows < 0 || cols < 0 || rows > this->rows() || row > this->rows() - rows ||
        cols > this->cols() || col > this->cols() - cols) {
      throw std::invalid_argument("tilegemm::DeviceView::block: the " + std::to_string(rows) + "x" +
                                  std::to_string(cols) + " block at (" + std::to_string(row) + ", " +
                                  std::to_string(col) + ") does not lie inside the " + std::to_string(this->rows()) +
                                  "x" + std::to_string(this->cols()) + " matrix.");
    }
    const Eigen::Index stored_row = transposed_ ? col : row, stored_col = transposed_ ? row : col;
    return {buffer_,
            queue_,
            offset_ + stored_row + stored_col * ld_,
            transposed_ ? cols : rows,
            transposed_ ? rows : cols,
            ld_,
            transposed_};
  }
  DeviceView col(Eigen::Index j) const { return block(0, j, rows(), 1); }
  DeviceView row(Eigen::Index i) const { return block(i, 0, 1, cols()); }

  // The values as a new Eigen matrix, or into any writable Eigen expression of the same shape (a matrix, a block,
  // a Map; row-major too). Waits for the commands before it on the queue.
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> to_host() const {
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> host(rows(), cols());
    to_host(host);
    return host;
  }
  template <class Derived>
  void to_host(Eigen::MatrixBase<Derived>& out) const {
    static_assert(std::is_same_v<typename Derived::Scalar, Scalar>,
                  "tilegemm::DeviceView::to_host: the destination must have the matrix's scalar type.");
    if (out.rows() != rows() || out.cols() != cols()) {
      throw std::invalid_argument("tilegemm::DeviceView::to_host: the destination is " + std::to_string(out.rows()) +
                                  "x" + std::to_string(out.cols()) + " but the matrix is " + std::to_string(rows()) +
                                  "x" + std::to_string(cols()) + ".");
    }
    if (size() == 0) return;
    detail::HostOperand<Scalar, Scalar*> storage;
    if (!detail::direct_storage(out.derived(), storage) || storage.transposed != transposed_) {
      Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> stored(stored_rows_, stored_cols_);
      detail::HostOperand<Scalar, Scalar*> dense{stored.data(), stored_rows_, stored_cols_,
                                                 std::max<Eigen::Index>(stored_rows_, 1), false};
      detail::from_device(queue_, buffer_, dense, {}, offset_, ld_);
      if (transposed_) {
        out = stored.transpose();
      } else {
        out = stored;
      }
      return;
    }
    detail::from_device(queue_, buffer_, storage, {}, offset_, ld_);
  }
  template <class Derived>
  void to_host(Eigen::MatrixBase<Derived>&& out) const {
    to_host(out);
  }

 private:
  cl::Buffer buffer_;
  cl::CommandQueue queue_;
  Eigen::Index offset_ = 0;
  Eigen::Index stored_rows_ = 0;
  Eigen::Index stored_cols_ = 0;
  Eigen::Index ld_ = 1;
  bool transposed_ = false;
};

// A matrix in a buffer of one OpenCL device, column-major: made from any dense Eigen expression (one upload), with
// a shape and no values, or around a cl::Buffer of the user's. It owns its buffer (a reference to it, for one the
// user made); moving it is cheap, copying is explicit (clone()). Its queue orders the products and transfers that
// use it. Eigen::half and Eigen::bfloat16 values go up and down as their bits, unchanged (NaN payloads included).
template <class Scalar>
class DeviceMatrix {
  static_assert(detail::is_front_end_scalar_v<Scalar>,
                "tilegemm::DeviceMatrix holds float, double, Eigen::half or Eigen::bfloat16 values only: "
                "DeviceMatrix<float>, DeviceMatrix<Eigen::half>, ...");

 public:
  DeviceMatrix() = default;
  // rows x cols, uninitialised, on the queue's device (the default queue's without one).
  DeviceMatrix(Eigen::Index rows, Eigen::Index cols, const cl::CommandQueue& queue = default_queue())
      : queue_(queue), rows_(rows), cols_(cols), ld_(std::max<Eigen::Index>(rows, 1)) {
    check_shape(rows, cols);
    const detail::CallContext call = detail::in_order_context(queue_, "tilegemm::DeviceMatrix");
    if (rows * cols > 0) buffer_ = detail::allocate_device_buffer(call, sizeof(Scalar) * rows * cols);
  }
  // The values of a dense Eigen expression, uploaded (expressions without storage are evaluated first).
  template <class Derived>
  explicit DeviceMatrix(const Eigen::MatrixBase<Derived>& host, const cl::CommandQueue& queue = default_queue())
      : DeviceMatrix(host.rows(), host.cols(), queue) {
    static_assert(std::is_same_v<typename Derived::Scalar, Scalar>,
                  "tilegemm::DeviceMatrix: the Eigen matrix must have the DeviceMatrix's scalar type; cast it with "
                  ".cast<T>() first.");
    if (size() == 0) return;
    detail::InputOperand<Scalar> storage;
    detail::describe_input(host, storage);
    if (storage.transposed) {  // row-major storage: write the column-major matrix, evaluated
      const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> dense = host;
      detail::InputOperand<Scalar> dense_storage;
      detail::describe_input(dense, dense_storage);
      detail::to_device(queue_, dense_storage, buffer_);
    } else {
      detail::to_device(queue_, storage, buffer_);
    }
  }
  // Around a buffer the user made: rows x cols from `offset` (in elements) with leading dimension `ld`. The buffer
  // must hold them and belong to the queue's context.
  DeviceMatrix(cl::Buffer buffer, Eigen::Index rows, Eigen::Index cols, Eigen::Index ld, Eigen::Index offset,
               const cl::CommandQueue& queue)
      : buffer_(std::move(buffer)), queue_(queue), offset_(offset), rows_(rows), cols_(cols), ld_(ld) {
    check_shape(rows, cols);
    const detail::CallContext call = detail::in_order_context(queue_, "tilegemm::DeviceMatrix");
    detail::naming("tilegemm::DeviceMatrix", [&] {  // the buffer core's checks, in the caller's name
      long long needed = 0;
      const detail::Storage storage = detail::check_storage("the DeviceMatrix", offset, ld, rows, cols, needed);
      if (rows * cols > 0) {
        detail::check_buffer("of the DeviceMatrix", buffer_, rows, cols, storage, needed, sizeof(Scalar), call.context);
      }
    });
  }

  DeviceMatrix(DeviceMatrix&&) noexcept = default;
  DeviceMatrix& operator=(DeviceMatrix&&) noexcept = default;
  DeviceMatrix(const DeviceMatrix&) = delete;  // copying is explicit: clone()
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;

  // A new matrix with the same values on the same queue (a copy on the device).
  DeviceMatrix clone() const {
    DeviceMatrix copy(rows_, cols_, queue_);
    if (size() > 0) detail::copy_on_device(queue_, buffer_, offset_, ld_, copy.buffer_, rows_, cols_, sizeof(Scalar));
    return copy;
  }

  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  Eigen::Index size() const { return rows_ * cols_; }
  Eigen::Index ld() const { return ld_; }
  Eigen::Index offset() const { return offset_; }
  const cl::Buffer& buffer() const { return buffer_; }
  const cl::CommandQueue& queue() const { return queue_; }

  DeviceView<Scalar> view() const { return {buffer_, queue_, offset_, rows_, cols_, ld_, false}; }
  DeviceView<Scalar> transpose() const { return view().transpose(); }
  DeviceView<Scalar> block(Eigen::Index row, Eigen::Index col, Eigen::Index rows, Eigen::Index cols) const {
    return view().block(row, col, rows, cols);
  }
  DeviceView<Scalar> col(Eigen::Index j) const { return view().col(j); }
  DeviceView<Scalar> row(Eigen::Index i) const { return view().row(i); }

  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> to_host() const { return view().to_host(); }
  template <class Derived>
  void to_host(Eigen::MatrixBase<Derived>& out) const {
    view().to_host(out);
  }
  template <class Derived>
  void to_host(Eigen::MatrixBase<Derived>&& out) const {
    view().to_host(out);
  }

 private:
  static void check_shape(Eigen::Index rows, Eigen::Index cols) {
    if (rows < 0 || cols < 0 || rows > detail::index_limit || cols > detail::index_limit ||
        rows * cols > detail::index_limit) {
      throw std::invalid_argument("tilegemm::DeviceMatrix: a " + std::to_string(rows) + "x" + std::to_string(cols) +
                                  " matrix is not possible: sizes must not be negative, and tilegemm indexes buffers "
                                  "with 32-bit integers (at most " +
                                  std::to_string(detail::index_limit) + " elements).");
    }
  }

  cl::Buffer buffer_;
  cl::CommandQueue queue_;
  Eigen::Index offset_ = 0;
  Eigen::Index rows_ = 0;
  Eigen::Index cols_ = 0;
  Eigen::Index ld_ = 1;
};

namespace detail {
template <class T>
struct is_device_operand : std::false_type {};
template <class S>
struct is_device_operand<DeviceMatrix<S>> : std::true_type {};
template <class S>
struct is_device_operand<DeviceView<S>> : std::true_type {};
template <class T>
inline constexpr bool is_device_operand_v = is_device_operand<std::decay_t<T>>::value;
}  // namespace detail

}  // namespace tilegemm
