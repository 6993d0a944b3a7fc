// unit/device_matrix: the cases of test_device_matrix that need no OpenCL device (the unit tier, built by unit_tests).
// chains that stay on the device, gpu_gemm_async and Pending, bad input, and that nothing stays held.
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "untouched_memory.hpp"

using Eigen::Dynamic;
using Eigen::Index;
using tilegemm::DeviceMatrix;
using tilegemm::DeviceView;
using tilegemm::Pending;
using tilegemm_test::compare_with_reference;
using tilegemm_test::gaps_unchanged;
using tilegemm_test::Matrix;
using tilegemm_test::outside_unchanged;
using tilegemm_test::poison;
using tilegemm_test::poisoned;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;
using tilegemm_test::sentinel;

namespace {

template <class S>
using RowMajorMatrix = Eigen::Matrix<S, Dynamic, Dynamic, Eigen::RowMajor>;
template <class S>
using StridedMap = Eigen::Map<Matrix<S>, 0, Eigen::OuterStride<>>;
template <class S>
using InnerStridedMap = Eigen::Map<Matrix<S>, 0, Eigen::Stride<Dynamic, Dynamic>>;

// 8192 * (64 + 64) elements of local memory, more than any device has; 64 work-items, which every device allows.
using TooMuchLocal = tilegemm::TileConfig<64, 64, 8192, 8, 8>;

// "" when `got` equals `expected` element for element: a copy must not change a bit.
template <class DA, class DB>
std::string equal_exactly(const Eigen::MatrixBase<DA>& got, const Eigen::MatrixBase<DB>& expected) {
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) {
    return "the result is " + std::to_string(got.rows()) + "x" + std::to_string(got.cols()) + " but should be " +
           std::to_string(expected.rows()) + "x" + std::to_string(expected.cols());
  }
  for (Index j = 0; j < got.cols(); ++j) {
    for (Index i = 0; i < got.rows(); ++i) {
      if (!(got(i, j) == expected(i, j))) {
        std::ostringstream out;
        out << "element (" << i << ", " << j << ") is " << got(i, j) << " but should be " << expected(i, j);
        return out.str();
      }
    }
  }
  return "";
}

// Checks got == (a * b) * c against a double-precision reference: the first product's rounding, (k1 + 2) eps |A||B|,
// carried through |C|, plus the second's, (k2 + 2) eps |AB||C| (one more k2 eps for |AB| computed being |A||B|
// rounded).
template <class S, class Got>
std::string compare_chain_with_reference(const Eigen::MatrixBase<Got>& got, const Matrix<S>& a, const Matrix<S>& b,
                                         const Matrix<S>& c) {
  const Eigen::MatrixXd ad = a.template cast<double>(), bd = b.template cast<double>(), cd = c.template cast<double>();
  const Eigen::MatrixXd expected = (ad * bd) * cd;
  const Eigen::MatrixXd bound = (ad.cwiseAbs() * bd.cwiseAbs()) * cd.cwiseAbs();
  const double eps = std::numeric_limits<S>::epsilon();
  const double tolerance = (static_cast<double>(a.cols()) + static_cast<double>(b.cols()) + 5) * eps;
  if (got.rows() != expected.rows() || got.cols() != expected.cols()) return "wrong shape";
  for (Index j = 0; j < got.cols(); ++j) {
    for (Index i = 0; i < got.rows(); ++i) {
      const double value = static_cast<double>(got(i, j));
      const double allowed = tolerance * bound(i, j) + std::numeric_limits<S>::min();
      if (!(std::abs(value - expected(i, j)) <= allowed)) {
        std::ostringstream out;
        out << "element (" << i << ", " << j << ") of the chain is " << value << " but should be " << expected(i, j)
            << " (allowed error " << allowed << ")";
        return out.str();
      }
    }
  }
  return "";
}

// A context of the caller's own on the default queue's device, and an in-order queue on it.
struct OtherContext {
  cl::Context context;
  cl::CommandQueue queue;

  OtherContext() {
    const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
    cl_int status = CL_SUCCESS;
    context = cl::Context(device, nullptr, nullptr, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    queue = cl::CommandQueue(context, device, 0, &status);
    REQUIRE(status == CL_SUCCESS);
  }
};

template <class S>
cl::Buffer buffer_holding(const cl::Context& context, std::vector<S>& values) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(S) * values.size(), values.data(),
                    &status);
  REQUIRE(status == CL_SUCCESS);
  return buffer;
}

template <class S>
std::vector<S> read_all(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t count) {
  std::vector<S> values(count);
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(S) * count, values.data()) == CL_SUCCESS);
  return values;
}

// A rows x cols matrix of random values in a buffer of the caller's: `offset` elements in, columns `ld` apart,
// sentinels everywhere else (before, between the columns, after).
template <class S>
struct UserBufferMatrix {
  Index rows, cols, ld, offset;
  Matrix<S> values;
  std::vector<S> storage;
  cl::Buffer buffer;

  UserBufferMatrix(Index rows_, Index cols_, Index ld_, Index offset_, const cl::Context& context)
      : rows(rows_), cols(cols_), ld(ld_), offset(offset_), values(random_matrix<S>(rows_, cols_)) {
    storage.assign(static_cast<std::size_t>(offset + ld * cols + 5), sentinel<S>());
    StridedMap<S>(storage.data() + offset, rows, cols, Eigen::OuterStride<>(ld)) = values;
    buffer = buffer_holding(context, storage);
  }
  bool is_element(std::size_t i) const {
    const Index at = static_cast<Index>(i) - offset;
    return at >= 0 && at / ld < cols && at % ld < rows;
  }
};

// The tilegemm::Error that `body` throws: its code (no_error when it throws none) and message.
constexpr cl_int no_error = 12345;
struct Thrown {
  cl_int code = no_error;
  std::string message;
};
template <class Body>
Thrown error_of(Body&& body) {
  try {
    body();
  } catch (const tilegemm::Error& e) {
    return {e.code(), e.what()};
  }
  return {};
}

// Holds back every command enqueued on an in-order queue after it, until open(): so that a test can enqueue calls
// while earlier ones certainly have not ended. Should a call wait for the held queue, a watchdog opens it after
// `patience`, and open() says so, so that the test fails instead of hanging.
class QueueGate {
 public:
  QueueGate(const cl::CommandQueue& queue, std::chrono::seconds patience) {
    cl_int status = CL_SUCCESS;
    gate_ = cl::UserEvent(queue.getInfo<CL_QUEUE_CONTEXT>(), &status);
    REQUIRE(status == CL_SUCCESS);
    const std::vector<cl::Event> held{gate_};
    REQUIRE(queue.enqueueMarkerWithWaitList(&held) == CL_SUCCESS);
    watchdog_ = std::thread([this, patience] {
      std::unique_lock<std::mutex> lock(mutex_);
      timed_out_ = !open_asked_.wait_for(lock, patience, [this] { return opening_; });
      lock.unlock();
      gate_.setStatus(CL_COMPLETE);
    });
  }
  QueueGate(const QueueGate&) = delete;
  QueueGate& operator=(const QueueGate&) = delete;
  ~QueueGate() { open(); }

  // Lets the held commands run; false when the watchdog had to (a call blocked on the held queue).
  bool open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      opening_ = true;
    }
    open_asked_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    return !timed_out_;
  }

 private:
  cl::UserEvent gate_;
  std::mutex mutex_;
  std::condition_variable open_asked_;
  bool opening_ = false;
  bool timed_out_ = false;
  std::thread watchdog_;
};

// `source` (a DeviceMatrix or a view) read back each way, each compared with `expected` and each destination's
// surroundings checked: to_host() returning a matrix, and to_host(x) into a matrix, a block of a larger one, a
// row-major matrix and a block of one, a Map with an outer stride, a Map with an inner stride, and transposed views.
template <class S, class Source>
void check_read_back(const Source& source, const Matrix<S>& expected) {
  const Index m = expected.rows(), n = expected.cols();
  const Matrix<S> returned = source.to_host();
  CHECK(equal_exactly(returned, expected) == "");

  Matrix<S> plain = poisoned<S>(m, n);
  source.to_host(plain);
  CHECK(equal_exactly(plain, expected) == "");

  Matrix<S> parent = Matrix<S>::Constant(m + 7, n + 5, sentinel<S>());
  const Matrix<S> parent_before = parent;
  source.to_host(parent.block(3, 2, m, n));
  CHECK(equal_exactly(parent.block(3, 2, m, n), expected) == "");
  CHECK(outside_unchanged(parent_before, parent, 3, 2, m, n) == "");

  RowMajorMatrix<S> row_major = poisoned<S>(m, n);
  source.to_host(row_major);
  CHECK(equal_exactly(row_major, expected) == "");

  RowMajorMatrix<S> row_major_parent = Matrix<S>::Constant(m + 4, n + 6, sentinel<S>());
  const RowMajorMatrix<S> row_major_before = row_major_parent;
  source.to_host(row_major_parent.block(1, 5, m, n));
  CHECK(equal_exactly(row_major_parent.block(1, 5, m, n), expected) == "");
  CHECK(outside_unchanged(row_major_before, row_major_parent, 1, 5, m, n) == "");

  const Index ld = m + 3;
  std::vector<S> strided_storage(static_cast<std::size_t>(ld * n + 4), sentinel<S>());
  StridedMap<S> strided(strided_storage.data() + 1, m, n, Eigen::OuterStride<>(ld));
  source.to_host(strided);
  CHECK(equal_exactly(strided, expected) == "");
  CHECK(gaps_unchanged(strided_storage, [&](std::size_t i) {
          const Index at = static_cast<Index>(i) - 1;
          return at >= 0 && at / ld < n && at % ld < m;
        }) == "");

  const Index outer = 2 * m + 1;
  std::vector<S> inner_storage(static_cast<std::size_t>(outer * n), sentinel<S>());
  InnerStridedMap<S> inner(inner_storage.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(outer, 2));
  source.to_host(inner);
  CHECK(equal_exactly(inner, expected) == "");
  CHECK(gaps_unchanged(inner_storage, [&](std::size_t i) {
          const Index at = static_cast<Index>(i) % outer;
          return at % 2 == 0 && at / 2 < m;
        }) == "");

  Matrix<S> transposed = poisoned<S>(n, m);
  source.to_host(transposed.transpose());
  CHECK(equal_exactly(transposed.transpose(), expected) == "");

  Matrix<S> transposed_parent = Matrix<S>::Constant(n + 2, m + 3, sentinel<S>());
  const Matrix<S> transposed_before = transposed_parent;
  source.to_host(transposed_parent.block(2, 1, n, m).transpose());
  CHECK(equal_exactly(transposed_parent.block(2, 1, n, m).transpose(), expected) == "");
  CHECK(outside_unchanged(transposed_before, transposed_parent, 2, 1, n, m) == "");
}

// gpu_gemm(a, b), on `queue` when not null: a DeviceMatrix on `expected_queue` holding the product of the host
// values ha and hb.
template <class S, class A, class B>
void check_eager(const cl::CommandQueue* queue, const A& a, const B& b, const Matrix<S>& ha, const Matrix<S>& hb,
                 const cl::CommandQueue& expected_queue) {
  DeviceMatrix<S> c = queue != nullptr ? tilegemm::gpu_gemm(*queue, a, b) : tilegemm::gpu_gemm(a, b);
  static_assert(std::is_same_v<decltype(tilegemm::gpu_gemm(a, b)), DeviceMatrix<S>>,
                "a product with a device operand is a DeviceMatrix");
  CHECK(c.queue()() == expected_queue());
  CHECK(compare_with_reference<S>(c.to_host(), 1, ha, hb, 0, ha) == "");
}

// c = alpha * a * b + beta * c by the blocking gpu_gemm, on `queue` when not null.
template <class S, class A, class B, class C>
void multiply_in_place(const cl::CommandQueue* queue, const A& a, const B& b, C&& c, S alpha, S beta) {
  if (queue != nullptr) {
    tilegemm::gpu_gemm(*queue, a, b, std::forward<C>(c), alpha, beta);
  } else {
    tilegemm::gpu_gemm(a, b, std::forward<C>(c), alpha, beta);
  }
}

// c = alpha * a * b + beta * c into each kind of host C (a matrix, a block of a larger one, a row-major matrix, a
// transposed matrix, a Map with an inner stride, which is written through a copy), with random alpha and beta and again
// with beta = 0 over NaN; `a` and `b` are host or device operands holding ha and hb.
template <class S, class A, class B>
void check_into_host_c(const cl::CommandQueue* queue, const A& a, const B& b, const Matrix<S>& ha,
                       const Matrix<S>& hb) {
  const Index m = ha.rows(), n = hb.cols();
  const Matrix<S> c0 = random_matrix<S>(m, n);
  const S alpha = random_scalar<S>();
  for (const S beta : {random_scalar<S>(), S(0)}) {
    INFO("beta = " << beta);
    const Matrix<S> start = beta == S(0) ? poisoned<S>(m, n) : c0;

    Matrix<S> plain = start;
    multiply_in_place(queue, a, b, plain, alpha, beta);
    CHECK(compare_with_reference<S>(plain, alpha, ha, hb, beta, c0) == "");

    Matrix<S> parent = random_matrix<S>(m + 6, n + 5);
    parent.block(4, 3, m, n) = start;
    const Matrix<S> parent_before = parent;
    multiply_in_place(queue, a, b, parent.block(4, 3, m, n), alpha, beta);
    CHECK(compare_with_reference<S>(parent.block(4, 3, m, n), alpha, ha, hb, beta, c0) == "");
    CHECK(outside_unchanged(parent_before, parent, 4, 3, m, n) == "");

    RowMajorMatrix<S> row_major = start;
    multiply_in_place(queue, a, b, row_major, alpha, beta);
    CHECK(compare_with_reference<S>(row_major, alpha, ha, hb, beta, c0) == "");

    Matrix<S> stored_transposed = start.transpose();
    multiply_in_place(queue, a, b, stored_transposed.transpose(), alpha, beta);
    CHECK(compare_with_reference<S>(stored_transposed.transpose(), alpha, ha, hb, beta, c0) == "");

    const Index outer = 2 * m + 3;
    std::vector<S> storage(static_cast<std::size_t>(outer * n), sentinel<S>());
    InnerStridedMap<S> inner(storage.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(outer, 2));
    inner = start;
    multiply_in_place(queue, a, b, inner, alpha, beta);
    CHECK(compare_with_reference<S>(inner, alpha, ha, hb, beta, c0) == "");
    CHECK(gaps_unchanged(storage, [&](std::size_t i) {
            const Index at = static_cast<Index>(i) % outer;
            return at % 2 == 0 && at / 2 < m;
          }) == "");
  }
}

// c = alpha * a * b + beta * c into a DeviceMatrix and into a block view of a larger one (whose other elements must
// not change), with random alpha and beta and again with beta = 0 over NaN.
template <class S, class A, class B>
void check_into_device_c(const cl::CommandQueue* queue, const A& a, const B& b, const Matrix<S>& ha,
                         const Matrix<S>& hb) {
  const Index m = ha.rows(), n = hb.cols();
  const Matrix<S> c0 = random_matrix<S>(m, n);
  const S alpha = random_scalar<S>();
  for (const S beta : {random_scalar<S>(), S(0)}) {
    INFO("beta = " << beta);
    const Matrix<S> start = beta == S(0) ? poisoned<S>(m, n) : c0;

    DeviceMatrix<S> whole(start);
    multiply_in_place(queue, a, b, whole, alpha, beta);
    CHECK(compare_with_reference<S>(whole.to_host(), alpha, ha, hb, beta, c0) == "");

    Matrix<S> parent = random_matrix<S>(m + 5, n + 7);
    parent.block(2, 5, m, n) = start;
    DeviceMatrix<S> device_parent(parent);
    multiply_in_place(queue, a, b, device_parent.block(2, 5, m, n), alpha, beta);
    const Matrix<S> after = device_parent.to_host();
    CHECK(compare_with_reference<S>(after.block(2, 5, m, n), alpha, ha, hb, beta, c0) == "");
    CHECK(outside_unchanged(parent, after, 2, 5, m, n) == "");
  }
}

// One thread's part of the test of calls in flight: `calls` asynchronous products of every form started one after
// the other, then all waited on and checked. Returns what went wrong ("" when nothing did); Catch2's assertions are
// not thread-safe.
template <class S>
std::string calls_in_flight(int thread, int calls) {
  const Index m = 19 + thread, n = 13 + 2 * thread, k = 27;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  const DeviceMatrix<S> da(a), db(b);
  std::vector<Pending<DeviceMatrix<S>>> device_results;
  std::vector<Pending<Matrix<S>>> host_results;
  std::vector<Pending<void>> into_device_c, into_host_c;
  std::vector<DeviceMatrix<S>> device_cs;
  std::vector<Matrix<S>> host_cs;
  host_cs.reserve(static_cast<std::size_t>(calls));  // C's memory must stay where it is until waited on
  for (int call = 0; call < calls; ++call) {
    switch (call % 4) {
      case 0:
        device_results.push_back(tilegemm::gpu_gemm_async(da, db));
        break;
      case 1:
        host_results.push_back(tilegemm::gpu_gemm_async(a, b));
        break;
      case 2:
        device_cs.emplace_back(c0);
        into_device_c.push_back(tilegemm::gpu_gemm_async(da, db, device_cs.back(), alpha, beta));
        break;
      default:
        host_cs.push_back(c0);
        into_host_c.push_back(tilegemm::gpu_gemm_async(a, db, host_cs.back(), alpha, beta));
        break;
    }
  }
  std::string failures;
  const auto note = [&](const std::string& what, const std::string& failure) {
    if (!failure.empty()) failures += "thread " + std::to_string(thread) + ", " + what + ": " + failure + "\n";
  };
  for (auto& pending : device_results)
    note("device result", compare_with_reference<S>(pending.get().to_host(), 1, a, b, 0, c0));
  for (auto& pending : host_results) note("host result", compare_with_reference<S>(pending.get(), 1, a, b, 0, c0));
  for (auto& pending : into_device_c) pending.wait();
  for (auto& c : device_cs) note("device C", compare_with_reference<S>(c.to_host(), alpha, a, b, beta, c0));
  for (auto& pending : into_host_c) pending.wait();
  for (auto& c : host_cs) note("host C", compare_with_reference<S>(c, alpha, a, b, beta, c0));
  return failures;
}

}  // namespace

// Drivers other than CI's check rects more strictly than PoCL (NVIDIA's refuses a rect whose last whole pitch row
// reaches past the buffer), so the commands a transfer is cut into are checked here, without a device: each element
// of the matrix moved once, to its place; no rect crossing a pitch or ending, in whole pitch rows, past the matrix's
// last element; one rect where one is enough.
TEST_CASE("transfers are cut into rects and runs that stay within the matrix's last element and move each once",
          "[unit][transfers]") {
  constexpr std::size_t scalar = 4;
  for (Index ld = 1; ld <= 9; ++ld) {
    for (Index rows = 1; rows <= ld; ++rows) {
      for (Index cols = 1; cols <= 4; ++cols) {
        for (Index offset = 0; offset <= 2 * ld + 1; ++offset) {
          INFO("offset " << offset << ", ld " << ld << ", " << rows << "x" << cols);
          const std::size_t span_end = scalar * static_cast<std::size_t>(offset + (cols - 1) * ld + rows);
          std::vector<int> moved(static_cast<std::size_t>(rows * cols), 0);
          bool all_inside = true, placed = true;
          const auto move = [&](std::size_t device_byte, std::size_t host_byte) {
            const std::size_t element = device_byte / scalar, host_element = host_byte / scalar;
            const Index at = static_cast<Index>(element) - offset;
            const Index row = at % ld, col = at / ld;
            if (at < 0 || row >= rows || col >= cols) {
              all_inside = false;
              return;
            }
            if (static_cast<Index>(host_element) != row + col * rows) placed = false;
            ++moved[static_cast<std::size_t>(row + col * rows)];
          };
          const std::vector<tilegemm::detail::TransferPart> parts =
              tilegemm::detail::transfer_parts(offset, ld, rows, cols, scalar);
          for (const tilegemm::detail::TransferPart& part : parts) {
            const std::size_t host_pitch = scalar * static_cast<std::size_t>(rows);  // a dense destination
            if (part.contiguous) {
              CHECK(part.origin[0] + part.region[0] <= span_end);
              for (std::size_t b = 0; b < part.region[0]; b += scalar)
                move(part.origin[0] + b, part.host_column * host_pitch + part.host_x + b);
              continue;
            }
            CHECK(part.pitch == scalar * static_cast<std::size_t>(ld));
            CHECK(part.origin[0] + part.region[0] <= part.pitch);
            CHECK((part.origin[1] + part.region[1]) * part.pitch <= span_end);
            CHECK(part.region[2] == 1);
            for (std::size_t c = 0; c < part.region[1]; ++c) {
              for (std::size_t b = 0; b < part.region[0]; b += scalar) {
                move((part.origin[1] + c) * part.pitch + part.origin[0] + b,
                     (part.host_column + c) * host_pitch + part.host_x + b);
              }
            }
          }
          CHECK(all_inside);
          CHECK(placed);
          CHECK(std::count(moved.begin(), moved.end(), 1) == rows * cols);
          const bool one_rect_enough =
              offset % ld + rows <= ld && (offset / ld + cols) * ld <= offset + (cols - 1) * ld + rows;
          if (one_rect_enough) CHECK(parts.size() == 1);
        }
      }
    }
  }
  CHECK(tilegemm::detail::transfer_parts(0, 5, 0, 3, scalar).empty());
  CHECK(tilegemm::detail::transfer_parts(0, 5, 5, 0, scalar).empty());
}
