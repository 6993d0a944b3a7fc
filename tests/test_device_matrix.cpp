// test_device_matrix: DeviceMatrix and DeviceView (made, read back, viewed), gpu_gemm on device and mixed operands,
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
#include "scalar_builds.hpp"
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

cl::Context default_context() { return tilegemm::default_queue().getInfo<CL_QUEUE_CONTEXT>(); }

// Another in-order queue on the default queue's context and device: device matrices of either meet in one call.
cl::CommandQueue another_queue() {
  const cl::CommandQueue queue = tilegemm::default_queue();
  cl_int status = CL_SUCCESS;
  cl::CommandQueue another(queue.getInfo<CL_QUEUE_CONTEXT>(), queue.getInfo<CL_QUEUE_DEVICE>(), 0, &status);
  REQUIRE(status == CL_SUCCESS);
  return another;
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

cl_uint reference_count(const cl::Buffer& buffer) { return buffer.getInfo<CL_MEM_REFERENCE_COUNT>(); }
[[maybe_unused]] cl_uint reference_count(const cl::Context& context) {
  return context.getInfo<CL_CONTEXT_REFERENCE_COUNT>();
}

// A reference count once the driver has let go of finished commands: PoCL releases a command's hold on its buffers
// and context on a thread of its own, a moment after the command's event completes, so the count is read again
// (for up to 5 s) until it is `expected`; it is returned as it last was.
template <class Object>
[[maybe_unused]] cl_uint settled_reference_count(const Object& object, cl_uint expected) {
  cl_uint count = reference_count(object);
  for (int tries = 0; count != expected && tries < 500; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    count = reference_count(object);
  }
  return count;
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

bool completed(const cl::Event& event) {
  return event() != nullptr && event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
}

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

TEMPLATE_TEST_CASE("a DeviceMatrix made from each kind of Eigen operand holds its values",
                   "[device_matrix]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 17, n = 11;
  const Matrix<S> values = random_matrix<S>(m, n);

  Matrix<S> changing = values;
  const DeviceMatrix<S> plain(changing);
  changing.setConstant(poison<S>());  // uploaded when made: later changes on the host do not reach it
  CHECK(plain.rows() == m);
  CHECK(plain.cols() == n);
  CHECK(plain.size() == m * n);
  CHECK(plain.ld() == m);
  CHECK(plain.offset() == 0);
  CHECK(plain.queue()() == tilegemm::default_queue()());
  CHECK(equal_exactly(plain.to_host(), values) == "");

  const RowMajorMatrix<S> row_major = values;
  CHECK(equal_exactly(DeviceMatrix<S>(row_major).to_host(), values) == "");

  Matrix<S> parent = random_matrix<S>(m + 5, n + 4);
  parent.block(2, 3, m, n) = values;
  CHECK(equal_exactly(DeviceMatrix<S>(parent.block(2, 3, m, n)).to_host(), values) == "");

  const Matrix<S> stored_transposed = values.transpose();
  CHECK(equal_exactly(DeviceMatrix<S>(stored_transposed.transpose()).to_host(), values) == "");

  RowMajorMatrix<S> row_major_parent = random_matrix<S>(n + 3, m + 2);
  row_major_parent.block(1, 2, n, m) = values.transpose();
  CHECK(equal_exactly(DeviceMatrix<S>(row_major_parent.block(1, 2, n, m).transpose()).to_host(), values) == "");

  std::vector<S> storage(static_cast<std::size_t>((m + 4) * n), sentinel<S>());
  StridedMap<S> strided(storage.data(), m, n, Eigen::OuterStride<>(m + 4));
  strided = values;
  CHECK(equal_exactly(DeviceMatrix<S>(strided).to_host(), values) == "");
  const Eigen::Map<const Matrix<S>, 0, Eigen::OuterStride<>> const_strided(storage.data(), m, n,
                                                                           Eigen::OuterStride<>(m + 4));
  CHECK(equal_exactly(DeviceMatrix<S>(const_strided).to_host(), values) == "");

  std::vector<S> inner_storage(static_cast<std::size_t>(3 * m * n), sentinel<S>());
  InnerStridedMap<S> inner(inner_storage.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(3 * m, 3));
  inner = values;
  CHECK(equal_exactly(DeviceMatrix<S>(inner).to_host(), values) == "");

  const Matrix<S> other = random_matrix<S>(m, n);
  const Matrix<S> sum = values + S(2) * other;
  CHECK(equal_exactly(DeviceMatrix<S>(values + S(2) * other).to_host(), sum) == "");

  const cl::CommandQueue queue = another_queue();
  const DeviceMatrix<S> on_queue(values, queue);
  CHECK(on_queue.queue()() == queue());
  CHECK(equal_exactly(on_queue.to_host(), values) == "");

  SECTION("with a shape and no values: a C that a product fills") {
    const Index k = 9;
    const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
    DeviceMatrix<S> c(m, n);
    CHECK(c.rows() == m);
    CHECK(c.cols() == n);
    CHECK(c.ld() == m);
    CHECK(c.buffer()() != nullptr);
    const S alpha = random_scalar<S>();
    tilegemm::gpu_gemm(DeviceMatrix<S>(a), DeviceMatrix<S>(b), c, alpha, S(0));
    CHECK(compare_with_reference<S>(c.to_host(), alpha, a, b, 0, a) == "");
  }
  SECTION("empty ones") {
    const DeviceMatrix<S> shape_only(0, 5), from_host(Matrix<S>(4, 0)), made_empty;
    CHECK(shape_only.to_host().rows() == 0);
    CHECK(shape_only.to_host().cols() == 5);
    CHECK(from_host.to_host().rows() == 4);
    CHECK(from_host.to_host().cols() == 0);
    CHECK(made_empty.size() == 0);
    CHECK(made_empty.to_host().size() == 0);
  }
}

TEMPLATE_TEST_CASE(
    "to_host reads a device matrix and its views back into each kind of destination, touching nothing "
    "around it",
    "[device_matrix]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 13, n = 9;
  const Matrix<S> values = random_matrix<S>(m + 6, m + 4);
  const DeviceMatrix<S> device(values);
  {
    INFO("the whole matrix");
    check_read_back<S>(device, values);
  }
  {
    INFO("its transpose");
    check_read_back<S>(device.transpose(), Matrix<S>(values.transpose()));
  }
  {
    INFO("a block");
    check_read_back<S>(device.block(4, 3, m, n), Matrix<S>(values.block(4, 3, m, n)));
  }
  {
    INFO("a transposed block");
    check_read_back<S>(device.block(2, 1, n, m).transpose(), Matrix<S>(values.block(2, 1, n, m).transpose()));
  }
  {
    INFO("a column and a row");
    check_read_back<S>(device.col(5), Matrix<S>(values.col(5)));
    check_read_back<S>(device.row(7), Matrix<S>(values.row(7)));
  }
  Matrix<S> wrong_shape(m, n);
  CHECK_THROWS_AS(device.to_host(wrong_shape), std::invalid_argument);
  CHECK_THROWS_WITH(device.to_host(wrong_shape), CONTAINS_ALL2(std::to_string(m) + "x" + std::to_string(n),
                                                               std::to_string(m + 6) + "x" + std::to_string(m + 4)));
}

TEMPLATE_TEST_CASE("a DeviceMatrix around a user's cl::Buffer with an offset and a padded leading dimension",
                   "[device_matrix]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  // The offset is not a whole number of columns, and its rest (11) plus the rows (14) passes the leading dimension.
  const Index m = 14, n = 9, ld = 19, offset = 30, k = 11;
  UserBufferMatrix<S> user(m, n, ld, offset, default_context());
  DeviceMatrix<S> device(user.buffer, m, n, ld, offset, tilegemm::default_queue());
  CHECK(device.buffer()() == user.buffer());
  CHECK(device.rows() == m);
  CHECK(device.cols() == n);
  CHECK(device.ld() == ld);
  CHECK(device.offset() == offset);
  check_read_back<S>(device, user.values);

  SECTION("its views") {
    check_read_back<S>(device.block(3, 2, 6, 5), Matrix<S>(user.values.block(3, 2, 6, 5)));
    check_read_back<S>(device.transpose(), Matrix<S>(user.values.transpose()));
    check_read_back<S>(device.col(8), Matrix<S>(user.values.col(8)));
    check_read_back<S>(device.row(13), Matrix<S>(user.values.row(13)));
    check_read_back<S>(device.transpose().block(1, 4, 7, 9), Matrix<S>(user.values.transpose().block(1, 4, 7, 9)));
  }
  SECTION("as A and B") {
    const Matrix<S> b = random_matrix<S>(n, k), a = random_matrix<S>(k, m);
    CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(device, b).to_host(), 1, user.values, b, 0, b) == "");
    CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(a, device).to_host(), 1, a, user.values, 0, a) == "");
    CHECK(compare_with_reference<S>(
              tilegemm::gpu_gemm(device.block(2, 1, 5, 8).transpose(), DeviceMatrix<S>(a).block(0, 3, 5, 6)).to_host(),
              1, Matrix<S>(user.values.block(2, 1, 5, 8).transpose()), Matrix<S>(a.block(0, 3, 5, 6)), 0, a) == "");
  }
  SECTION("as C, whole and a block of it: nothing outside the matrix or the block is written") {
    const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    tilegemm::gpu_gemm(a, b, device, alpha, beta);
    std::vector<S> after = read_all<S>(tilegemm::default_queue(), user.buffer, user.storage.size());
    const Matrix<S> got = StridedMap<S>(after.data() + offset, m, n, Eigen::OuterStride<>(ld));
    CHECK(compare_with_reference<S>(got, alpha, a, b, beta, user.values) == "");
    CHECK(gaps_unchanged(after, [&](std::size_t i) { return user.is_element(i); }) == "");

    const Matrix<S> a2 = random_matrix<S>(6, k), b2 = random_matrix<S>(k, 4);
    tilegemm::gpu_gemm(DeviceMatrix<S>(a2), b2, device.block(5, 3, 6, 4), alpha, beta);
    std::vector<S> after_block = read_all<S>(tilegemm::default_queue(), user.buffer, user.storage.size());
    const Matrix<S> got_parent = StridedMap<S>(after_block.data() + offset, m, n, Eigen::OuterStride<>(ld));
    CHECK(compare_with_reference<S>(got_parent.block(5, 3, 6, 4), alpha, a2, b2, beta, got.block(5, 3, 6, 4)) == "");
    CHECK(outside_unchanged(got, got_parent, 5, 3, 6, 4) == "");
    CHECK(gaps_unchanged(after_block, [&](std::size_t i) { return user.is_element(i); }) == "");
  }
  SECTION("cloned: a dense copy") {
    const DeviceMatrix<S> copy = device.clone();
    CHECK(copy.buffer()() != user.buffer());
    CHECK(copy.ld() == m);
    CHECK(copy.offset() == 0);
    CHECK(equal_exactly(copy.to_host(), user.values) == "");
  }
}

TEMPLATE_TEST_CASE("views address the elements of their matrix: block, col, row, transpose and views of views",
                   "[device_matrix][views]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 16, n = 12;
  const Matrix<S> values = random_matrix<S>(m, n);
  const DeviceMatrix<S> device(values);

  const DeviceView<S> whole = device.view();
  CHECK(whole.rows() == m);
  CHECK(whole.cols() == n);
  CHECK_FALSE(whole.transposed());
  CHECK(equal_exactly(whole.to_host(), values) == "");

  const DeviceView<S> block = device.block(3, 2, 7, 5);
  CHECK(block.rows() == 7);
  CHECK(block.cols() == 5);
  CHECK(block.buffer()() == device.buffer()());  // the matrix's own buffer: no copy
  CHECK(block.offset() == 3 + 2 * m);
  CHECK(block.ld() == m);
  CHECK(equal_exactly(block.to_host(), values.block(3, 2, 7, 5)) == "");

  const DeviceView<S> transposed = device.transpose();
  CHECK(transposed.rows() == n);
  CHECK(transposed.cols() == m);
  CHECK(transposed.transposed());
  CHECK(transposed.buffer()() == device.buffer()());
  CHECK(transposed.block(1, 2, 3, 4).buffer()() == device.buffer()());
  CHECK(equal_exactly(transposed.to_host(), values.transpose()) == "");
  CHECK(equal_exactly(transposed.transpose().to_host(), values) == "");

  CHECK(equal_exactly(device.col(4).to_host(), values.col(4)) == "");
  CHECK(equal_exactly(device.row(6).to_host(), values.row(6)) == "");
  CHECK(equal_exactly(device.col(0).to_host(), values.col(0)) == "");
  CHECK(equal_exactly(device.row(m - 1).to_host(), values.row(m - 1)) == "");

  // views of views
  CHECK(equal_exactly(device.block(2, 1, 10, 8).block(3, 2, 4, 5).to_host(),
                      values.block(2, 1, 10, 8).block(3, 2, 4, 5)) == "");
  CHECK(equal_exactly(transposed.block(1, 2, 6, 9).to_host(), values.transpose().block(1, 2, 6, 9)) == "");
  CHECK(equal_exactly(device.block(4, 3, 9, 6).transpose().col(2).to_host(),
                      values.block(4, 3, 9, 6).transpose().col(2)) == "");
  CHECK(equal_exactly(transposed.row(3).to_host(), values.transpose().row(3)) == "");
  CHECK(equal_exactly(block.transpose().block(1, 2, 3, 4).transpose().to_host(),
                      values.block(3, 2, 7, 5).transpose().block(1, 2, 3, 4).transpose()) == "");
  CHECK(equal_exactly(block.col(4).block(2, 0, 3, 1).to_host(), values.block(3, 2, 7, 5).col(4).segment(2, 3)) == "");
  CHECK(device.block(0, 0, 0, 5).to_host().size() == 0);

  SECTION("a view outlives its matrix: it holds the buffer") {
    const Matrix<S> b = random_matrix<S>(5, 3);
    DeviceView<S> survivor = [&] {
      const DeviceMatrix<S> temporary(values);
      return temporary.block(1, 2, 8, 5);
    }();
    CHECK(equal_exactly(survivor.to_host(), values.block(1, 2, 8, 5)) == "");
    CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(survivor, b).to_host(), 1, Matrix<S>(values.block(1, 2, 8, 5)),
                                    b, 0, b) == "");
  }
}

TEMPLATE_TEST_CASE("views as A and B, and as C in place writing only their block",
                   "[device_matrix][views]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 21, n = 13, k = 17;
  const Matrix<S> parent_a = random_matrix<S>(40, 35), parent_b = random_matrix<S>(38, 30);
  const DeviceMatrix<S> device_a(parent_a), device_b(parent_b);

  SECTION("as A and B") {
    const auto check = [](const std::string& what, const DeviceMatrix<S>& got, const Matrix<S>& a, const Matrix<S>& b) {
      INFO(what);
      CHECK(compare_with_reference<S>(got.to_host(), 1, a, b, 0, a) == "");
    };
    check("blocks", tilegemm::gpu_gemm(device_a.block(3, 4, m, k), device_b.block(5, 2, k, n)),
          parent_a.block(3, 4, m, k), parent_b.block(5, 2, k, n));
    check("transposed blocks",
          tilegemm::gpu_gemm(device_a.block(1, 2, k, m).transpose(), device_b.block(6, 3, n, k).transpose()),
          parent_a.block(1, 2, k, m).transpose(), parent_b.block(6, 3, n, k).transpose());
    check("a transposed matrix", tilegemm::gpu_gemm(device_b.transpose(), device_b.block(0, 0, 38, n)),
          parent_b.transpose(), parent_b.block(0, 0, 38, n));
    check("a column of a block as B", tilegemm::gpu_gemm(device_a.block(3, 4, m, k), device_b.col(3).block(5, 0, k, 1)),
          parent_a.block(3, 4, m, k), parent_b.col(3).segment(5, k));
    check("a row of a block as A", tilegemm::gpu_gemm(device_a.row(7).block(0, 4, 1, k), device_b.block(5, 2, k, n)),
          parent_a.row(7).segment(4, k), parent_b.block(5, 2, k, n));
    check("views of views",
          tilegemm::gpu_gemm(device_a.block(1, 1, 30, 30).block(2, 3, m, k),
                             device_b.transpose().block(4, 1, 25, 20).transpose().block(0, 2, k, n)),
          parent_a.block(1, 1, 30, 30).block(2, 3, m, k),
          parent_b.transpose().block(4, 1, 25, 20).transpose().block(0, 2, k, n));
  }
  SECTION("as C") {
    const Matrix<S> a = parent_a.block(3, 4, m, k), b = parent_b.block(5, 2, k, n);
    const auto av = device_a.block(3, 4, m, k);
    const auto bv = device_b.block(5, 2, k, n);
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    for (const S beta_now : {beta, S(0)}) {
      INFO("beta = " << beta_now);
      Matrix<S> parent_c = random_matrix<S>(45, 40);
      if (beta_now == S(0)) parent_c.block(4, 6, m, n).setConstant(poison<S>());
      {
        INFO("a block");
        DeviceMatrix<S> device_c(parent_c);
        tilegemm::gpu_gemm(av, bv, device_c.block(4, 6, m, n), alpha, beta_now);
        const Matrix<S> after = device_c.to_host();
        CHECK(compare_with_reference<S>(after.block(4, 6, m, n), alpha, a, b, beta_now, parent_c.block(4, 6, m, n)) ==
              "");
        CHECK(outside_unchanged(parent_c, after, 4, 6, m, n) == "");
      }
      Matrix<S> parent_t = random_matrix<S>(45, 40);
      if (beta_now == S(0)) parent_t.block(2, 3, n, m).setConstant(poison<S>());
      {
        INFO("a transposed block");
        DeviceMatrix<S> device_c(parent_t);
        tilegemm::gpu_gemm(av, bv, device_c.block(2, 3, n, m).transpose(), alpha, beta_now);
        const Matrix<S> after = device_c.to_host();
        CHECK(compare_with_reference<S>(after.block(2, 3, n, m).transpose(), alpha, a, b, beta_now,
                                        parent_t.block(2, 3, n, m).transpose()) == "");
        CHECK(outside_unchanged(parent_t, after, 2, 3, n, m) == "");
      }
      {
        INFO("part of a column, and part of a row");
        DeviceMatrix<S> device_c(parent_c);
        tilegemm::gpu_gemm(av, device_b.col(3).block(5, 0, k, 1), device_c.col(6).block(4, 0, m, 1), alpha, beta_now);
        Matrix<S> after = device_c.to_host();
        CHECK(compare_with_reference<S>(after.col(6).segment(4, m), alpha, a, Matrix<S>(parent_b.col(3).segment(5, k)),
                                        beta_now, parent_c.col(6).segment(4, m)) == "");
        CHECK(outside_unchanged(parent_c, after, 4, 6, m, 1) == "");

        DeviceMatrix<S> device_r(parent_c);
        tilegemm::gpu_gemm(device_a.row(7).block(0, 4, 1, k), bv, device_r.row(4).block(0, 6, 1, n), alpha, beta_now);
        after = device_r.to_host();
        CHECK(compare_with_reference<S>(after.row(4).segment(6, n), alpha, Matrix<S>(parent_a.row(7).segment(4, k)), b,
                                        beta_now, parent_c.row(4).segment(6, n)) == "");
        CHECK(outside_unchanged(parent_c, after, 4, 6, 1, n) == "");
      }
    }
    {
      INFO("disjoint blocks of one device matrix as A, B and C");
      Matrix<S> shared = random_matrix<S>(60, 50);
      DeviceMatrix<S> device_shared(shared);
      tilegemm::gpu_gemm(device_shared.block(0, 0, m, k), device_shared.block(m, 0, k, n),
                         device_shared.block(0, 20, m, n), alpha, beta);
      const Matrix<S> after = device_shared.to_host();
      CHECK(compare_with_reference<S>(after.block(0, 20, m, n), alpha, Matrix<S>(shared.block(0, 0, m, k)),
                                      Matrix<S>(shared.block(m, 0, k, n)), beta, shared.block(0, 20, m, n)) == "");
      CHECK(outside_unchanged(shared, after, 0, 20, m, n) == "");
    }
  }
}

TEMPLATE_TEST_CASE("chains of products stay on the device: gpu_gemm(gpu_gemm(A, B), C)",
                   "[device_matrix][chains]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 19, k1 = 23, k2 = 29, n = 15;
  const Matrix<S> a = random_matrix<S>(m, k1), b = random_matrix<S>(k1, k2), c = random_matrix<S>(k2, n);
  const DeviceMatrix<S> da(a), db(b), dc(c);

  auto chained = tilegemm::gpu_gemm(tilegemm::gpu_gemm(da, db), dc);
  static_assert(std::is_same_v<decltype(chained), DeviceMatrix<S>>, "a chain's result stays on the device");
  static_assert(std::is_same_v<decltype(tilegemm::gpu_gemm(da, db)), DeviceMatrix<S>>,
                "so does every step of it: nothing is read back between the products");
  CHECK(chained.queue()() == da.queue()());
  CHECK(compare_chain_with_reference<S>(chained.to_host(), a, b, c) == "");

  // Step by step, each step against the reference of what it was given.
  const DeviceMatrix<S> ab = tilegemm::gpu_gemm(da, db);
  const Matrix<S> ab_host = ab.to_host();
  CHECK(compare_with_reference<S>(ab_host, 1, a, b, 0, a) == "");
  CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(ab, dc).to_host(), 1, ab_host, c, 0, c) == "");

  // (A B C)^T = C^T (B^T A^T), through transposed views of the operands and of an intermediate result.
  const DeviceMatrix<S> transposed_chain = tilegemm::gpu_gemm(dc.transpose(), tilegemm::gpu_gemm(da, db).transpose());
  CHECK(compare_chain_with_reference<S>(transposed_chain.to_host().transpose(), a, b, c) == "");

  // Three products, the last in place into a block of a device matrix.
  const Matrix<S> d = random_matrix<S>(n, 7);
  Matrix<S> parent = random_matrix<S>(m + 3, 12);
  DeviceMatrix<S> device_parent(parent);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  const DeviceMatrix<S> abc = tilegemm::gpu_gemm(tilegemm::gpu_gemm(da, db), dc);
  const Matrix<S> abc_host = abc.to_host();
  tilegemm::gpu_gemm(abc, DeviceMatrix<S>(d), device_parent.block(3, 5, m, 7), alpha, beta);
  const Matrix<S> after = device_parent.to_host();
  CHECK(compare_with_reference<S>(after.block(3, 5, m, 7), alpha, abc_host, d, beta, parent.block(3, 5, m, 7)) == "");
  CHECK(outside_unchanged(parent, after, 3, 5, m, 7) == "");

  // On a queue of the caller's: every product of the chain runs there, and its result lives there.
  const cl::CommandQueue queue = another_queue();
  const DeviceMatrix<S> on_queue = tilegemm::gpu_gemm(queue, tilegemm::gpu_gemm(queue, da, db), dc);
  CHECK(on_queue.queue()() == queue());
  CHECK(compare_chain_with_reference<S>(on_queue.to_host(), a, b, c) == "");
}

TEMPLATE_TEST_CASE("host and device operands mixed in each position, with and without a queue, eager and in place",
                   "[device_matrix][mixed]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 23, n = 19, k = 31;
  const Matrix<S> ha = random_matrix<S>(m, k), hb = random_matrix<S>(k, n);
  // A and B on different queues of one context: a call without a queue runs on its first device operand's.
  const cl::CommandQueue first = tilegemm::default_queue(), second = another_queue(), explicit_queue = another_queue();
  const DeviceMatrix<S> da(ha, first), db(hb, second);
  for (const cl::CommandQueue* queue : {static_cast<const cl::CommandQueue*>(nullptr), &explicit_queue}) {
    INFO((queue != nullptr ? "on an explicit queue" : "without a queue"));
    {
      INFO("eager");
      check_eager<S>(queue, da, db, ha, hb, queue != nullptr ? *queue : first);
      check_eager<S>(queue, ha, db, ha, hb, queue != nullptr ? *queue : second);
      check_eager<S>(queue, da, hb, ha, hb, queue != nullptr ? *queue : first);
      const Matrix<S> hb_doubled = S(2) * hb;
      check_eager<S>(queue, da, S(2) * hb, ha, hb_doubled, queue != nullptr ? *queue : first);  // an expression
      const RowMajorMatrix<S> row_major_a = ha;
      check_eager<S>(queue, row_major_a, db, ha, hb, queue != nullptr ? *queue : second);
      const Matrix<S> hat = random_matrix<S>(k, m);
      check_eager<S>(queue, hat.transpose(), db, Matrix<S>(hat.transpose()), hb, queue != nullptr ? *queue : second);
    }
    {
      INFO("in place, C on the host: device A, host B");
      check_into_host_c<S>(queue, da, hb, ha, hb);
    }
    {
      INFO("in place, C on the host: host A, device B");
      check_into_host_c<S>(queue, ha, db, ha, hb);
    }
    {
      INFO("in place, C on the host: device A, device B");
      check_into_host_c<S>(queue, da, db, ha, hb);
    }
    {
      INFO("in place, C on the device: host A, host B");
      check_into_device_c<S>(queue, ha, hb, ha, hb);
    }
    {
      INFO("in place, C on the device: device A, host B");
      check_into_device_c<S>(queue, da, hb, ha, hb);
    }
    {
      INFO("in place, C on the device: host A, device B");
      check_into_device_c<S>(queue, ha, db, ha, hb);
    }
    {
      INFO("in place, C on the device: device A, device B");
      check_into_device_c<S>(queue, da, db, ha, hb);
    }
  }
}

TEMPLATE_TEST_CASE("degenerate shapes on the device follow BLAS: K = 0 gives beta * C, empty C is left alone",
                   "[device_matrix]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 9, n = 7;
  const DeviceMatrix<S> a(m, 0), b(0, n);
  const Matrix<S> product = tilegemm::gpu_gemm(a, b).to_host();
  CHECK(equal_exactly(product, Matrix<S>::Zero(m, n)) == "");

  const Matrix<S> c0 = random_matrix<S>(m, n);
  const S beta = random_scalar<S>();
  DeviceMatrix<S> c(c0);
  tilegemm::gpu_gemm(a, b, c, random_scalar<S>(), beta);
  CHECK(compare_with_reference<S>(c.to_host(), 1, Matrix<S>(m, 0), Matrix<S>(0, n), beta, c0) == "");

  DeviceMatrix<S> nan_c(poisoned<S>(m, n));
  tilegemm::gpu_gemm(a, b, nan_c, S(1), S(0));
  CHECK(equal_exactly(nan_c.to_host(), Matrix<S>::Zero(m, n)) == "");

  Matrix<S> host_nan = poisoned<S>(m, n);
  tilegemm::gpu_gemm(a, b, host_nan, S(1), S(0));
  CHECK(equal_exactly(host_nan, Matrix<S>::Zero(m, n)) == "");

  const DeviceMatrix<S> empty_rows(0, 5), five(5, n);
  CHECK(tilegemm::gpu_gemm(empty_rows, five).rows() == 0);
  CHECK(tilegemm::gpu_gemm(empty_rows, five).cols() == n);
  CHECK(tilegemm::gpu_gemm_async(empty_rows, five).get().cols() == n);
  CHECK(tilegemm::gpu_gemm_async(Matrix<S>(0, 5), Matrix<S>(random_matrix<S>(5, n))).get().cols() == n);
  Matrix<S> empty_c(0, n);
  tilegemm::gpu_gemm_async(empty_rows, five, empty_c, S(1), S(1)).get();

  // alpha = 0: A and B are not read (NaN there does not matter), C = beta * C.
  const DeviceMatrix<S> nan_a(poisoned<S>(m, 5));
  DeviceMatrix<S> scaled(c0);
  tilegemm::gpu_gemm(nan_a, five, scaled, S(0), beta);
  CHECK(compare_with_reference<S>(scaled.to_host(), 0, Matrix<S>::Zero(m, 5), Matrix<S>::Zero(5, n), beta, c0) == "");
}

TEMPLATE_TEST_CASE("moving a DeviceMatrix moves its buffer handle, clone() copies",
                   "[device_matrix]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  static_assert(
      std::is_nothrow_move_constructible_v<DeviceMatrix<S>> && std::is_nothrow_move_assignable_v<DeviceMatrix<S>>,
      "moving is cheap");
  static_assert(!std::is_copy_constructible_v<DeviceMatrix<S>> && !std::is_copy_assignable_v<DeviceMatrix<S>>,
                "copying is explicit: clone()");
  const Index m = 15, n = 12, k = 8;
  const Matrix<S> values = random_matrix<S>(m, n);
  DeviceMatrix<S> original(values);
  const cl_mem handle = original.buffer()();
  CHECK(reference_count(original.buffer()) == 1);

  DeviceMatrix<S> moved(std::move(original));
  CHECK(moved.buffer()() == handle);
  CHECK(reference_count(moved.buffer()) == 1);  // the handle moved: no second reference, no copy of the values
  DeviceMatrix<S> assigned;
  assigned = std::move(moved);
  CHECK(assigned.buffer()() == handle);
  CHECK(reference_count(assigned.buffer()) == 1);
  CHECK(equal_exactly(assigned.to_host(), values) == "");

  DeviceMatrix<S> copy = assigned.clone();
  CHECK(copy.buffer()() != handle);
  CHECK(copy.queue()() == assigned.queue()());
  CHECK(equal_exactly(copy.to_host(), values) == "");
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, copy, alpha, beta);  // changing the clone leaves the original as it was
  CHECK(compare_with_reference<S>(copy.to_host(), alpha, a, b, beta, values) == "");
  CHECK(equal_exactly(assigned.to_host(), values) == "");

  CHECK(equal_exactly(assigned.block(2, 3, 6, 4).to_host(), values.block(2, 3, 6, 4)) == "");
  CHECK(DeviceMatrix<S>(0, 4).clone().cols() == 4);
}

TEMPLATE_TEST_CASE("gpu_gemm_async of each form: get(), wait() and event()",
                   "[device_matrix][async]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 22, n = 18, k = 25;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const DeviceMatrix<S> da(a), db(b);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();

  SECTION("a device result") {
    Pending<DeviceMatrix<S>> pending = tilegemm::gpu_gemm_async(da, db);
    CHECK(pending.event()() != nullptr);
    const DeviceMatrix<S> c = pending.get();
    CHECK(completed(pending.event()));
    CHECK(compare_with_reference<S>(c.to_host(), 1, a, b, 0, c0) == "");
    CHECK_THROWS_AS(pending.get(), std::logic_error);  // the result was handed over already

    const cl::CommandQueue queue = another_queue();
    Pending<DeviceMatrix<S>> on_queue = tilegemm::gpu_gemm_async(queue, a, db);
    const DeviceMatrix<S> c2 = on_queue.get();
    CHECK(c2.queue()() == queue());
    CHECK(compare_with_reference<S>(c2.to_host(), 1, a, b, 0, c0) == "");
  }
  SECTION("a host result: the operands are uploaded before the call returns") {
    Matrix<S> changing_a = a, changing_b = b;
    Pending<Matrix<S>> pending = tilegemm::gpu_gemm_async(changing_a, changing_b);
    changing_a.setConstant(poison<S>());
    changing_b.setConstant(poison<S>());
    CHECK(pending.event()() != nullptr);
    const Matrix<S> c = pending.get();
    CHECK(completed(pending.event()));
    CHECK(compare_with_reference<S>(c, 1, a, b, 0, c0) == "");

    Pending<Matrix<S>> on_queue = tilegemm::gpu_gemm_async(another_queue(), a.transpose().transpose(), b);
    CHECK(compare_with_reference<S>(on_queue.get(), 1, a, b, 0, c0) == "");
  }
  SECTION("in place into a host C") {
    Matrix<S> c = c0;
    Pending<void> pending = tilegemm::gpu_gemm_async(a, b, c, alpha, beta);
    pending.wait();
    CHECK(completed(pending.event()));
    CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");
    pending.wait();  // a second wait returns at once
    pending.get();

    Matrix<S> parent = random_matrix<S>(m + 4, n + 3);
    const Matrix<S> before = parent;
    tilegemm::gpu_gemm_async(da, b, parent.block(1, 2, m, n), alpha, beta).wait();
    CHECK(compare_with_reference<S>(parent.block(1, 2, m, n), alpha, a, b, beta, before.block(1, 2, m, n)) == "");
    CHECK(outside_unchanged(before, parent, 1, 2, m, n) == "");

    RowMajorMatrix<S> row_major = poisoned<S>(m, n);
    tilegemm::gpu_gemm_async(another_queue(), da, db, row_major, alpha, S(0)).get();
    CHECK(compare_with_reference<S>(row_major, alpha, a, b, 0, c0) == "");

    const Index outer = 2 * m + 1;
    std::vector<S> storage(static_cast<std::size_t>(outer * n), sentinel<S>());
    InnerStridedMap<S> inner(storage.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(outer, 2));
    inner = c0;
    Pending<void> through_copy = tilegemm::gpu_gemm_async(da, db, inner, alpha, beta);
    through_copy.wait();
    CHECK(compare_with_reference<S>(inner, alpha, a, b, beta, c0) == "");
  }
  SECTION("in place into a device C") {
    DeviceMatrix<S> c(c0);
    Pending<void> pending = tilegemm::gpu_gemm_async(da, db, c, alpha, beta);
    REQUIRE(pending.event()() != nullptr);
    REQUIRE(pending.event().wait() == CL_SUCCESS);  // the event alone says when C is written
    CHECK(compare_with_reference<S>(c.to_host(), alpha, a, b, beta, c0) == "");
    pending.wait();

    DeviceMatrix<S> c2(c0);
    tilegemm::gpu_gemm_async(another_queue(), a, b, c2.view(), alpha, beta).get();
    CHECK(compare_with_reference<S>(c2.to_host(), alpha, a, b, beta, c0) == "");
  }
}

TEMPLATE_TEST_CASE("a failing gpu_gemm_async throws at get() and wait() what the blocking call throws",
                   "[device_matrix][async]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 70, n = 65, k = 9;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const DeviceMatrix<S> da(a), db(b);

  const Thrown blocking_host = error_of([&] { (void)tilegemm::gpu_gemm<TooMuchLocal>(a, b).eval(); });
  REQUIRE(blocking_host.code != no_error);
  INFO("the blocking call threw: " << blocking_host.message);

  SECTION("a device result") {
    const Thrown blocking = error_of([&] { tilegemm::gpu_gemm<TooMuchLocal>(da, db); });
    Pending<DeviceMatrix<S>> pending;
    CHECK_NOTHROW(pending = tilegemm::gpu_gemm_async<TooMuchLocal>(da, db));
    const Thrown at_get = error_of([&] { pending.get(); });
    CHECK(blocking.code == blocking_host.code);
    CHECK(at_get.code == blocking.code);
    CHECK(at_get.message == blocking.message);
  }
  SECTION("a host result") {
    Pending<Matrix<S>> pending;
    CHECK_NOTHROW(pending = tilegemm::gpu_gemm_async<TooMuchLocal>(a, b));
    const Thrown at_wait = error_of([&] { pending.wait(); });
    const Thrown at_get = error_of([&] { pending.get(); });
    CHECK(at_wait.code == blocking_host.code);
    CHECK(at_wait.message == blocking_host.message);
    CHECK(at_get.code == blocking_host.code);
  }
  SECTION("in place into a host C, which stays as it was") {
    Matrix<S> c = c0;
    const Thrown blocking = error_of([&] { tilegemm::gpu_gemm<TooMuchLocal>(da, b, c, S(1), S(1)); });
    CHECK(blocking.code == blocking_host.code);
    Pending<void> pending;
    CHECK_NOTHROW(pending = tilegemm::gpu_gemm_async<TooMuchLocal>(da, b, c, S(1), S(1)));
    const Thrown at_wait = error_of([&] { pending.wait(); });
    CHECK(at_wait.code == blocking.code);
    CHECK(at_wait.message == blocking.message);
    CHECK(equal_exactly(c, c0) == "");

    Pending<void> front_end;
    CHECK_NOTHROW(front_end = tilegemm::gpu_gemm_async<TooMuchLocal>(a, b, c, S(1), S(1)));
    CHECK(error_of([&] { front_end.get(); }).code == blocking_host.code);
    CHECK(equal_exactly(c, c0) == "");
  }
  SECTION("in place into a device C, which stays as it was") {
    DeviceMatrix<S> c(c0);
    const Thrown blocking = error_of([&] { tilegemm::gpu_gemm<TooMuchLocal>(da, db, c, S(1), S(1)); });
    CHECK(blocking.code == blocking_host.code);
    Pending<void> pending;
    CHECK_NOTHROW(pending = tilegemm::gpu_gemm_async<TooMuchLocal>(da, db, c, S(1), S(1)));
    CHECK(pending.event()() == nullptr);  // nothing was enqueued
    const Thrown at_get = error_of([&] { pending.get(); });
    CHECK(at_get.code == blocking.code);
    CHECK(at_get.message == blocking.message);
    CHECK(error_of([&] { pending.wait(); }).code == blocking.code);  // and again at every later wait
    CHECK(equal_exactly(c.to_host(), c0) == "");
  }
  SECTION("bad arguments arrive at get() too, as std::invalid_argument with both shapes") {
    const DeviceMatrix<S> wrong(k + 1, n);
    Pending<DeviceMatrix<S>> pending;
    CHECK_NOTHROW(pending = tilegemm::gpu_gemm_async(da, wrong));
    CHECK_THROWS_AS(pending.get(), std::invalid_argument);
    CHECK_THROWS_WITH(pending.get(), CONTAINS_ALL2(std::to_string(m) + "x" + std::to_string(k),
                                                   std::to_string(k + 1) + "x" + std::to_string(n)));
  }
}

TEMPLATE_TEST_CASE("asynchronous calls on one queue are enqueued before earlier ones end, and run in order",
                   "[device_matrix][async]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 31, k1 = 27, k2 = 20, n = 24;
  const Matrix<S> a = random_matrix<S>(m, k1), b = random_matrix<S>(k1, k2), c = random_matrix<S>(k2, n);
  const Matrix<S> c0 = random_matrix<S>(m, k2);
  const S alpha = random_scalar<S>();
  const DeviceMatrix<S> da(a), db(b), dc(c);
  DeviceMatrix<S> intermediate(m, k2), accumulated(c0);
  Matrix<S> host_c = poisoned<S>(m, n);

  // Until the gate opens, the queue runs nothing: each call below must return without waiting for it.
  QueueGate gate(tilegemm::default_queue(), std::chrono::seconds(60));
  Pending<void> first = tilegemm::gpu_gemm_async(da, db, intermediate, S(1), S(0));
  Pending<DeviceMatrix<S>> second = tilegemm::gpu_gemm_async(intermediate, dc);  // reads what `first` writes
  Pending<void> third = tilegemm::gpu_gemm_async(da, db, accumulated, alpha, S(1));
  Pending<void> fourth = tilegemm::gpu_gemm_async(da, db, accumulated, alpha, S(1));      // the same C once more
  Pending<void> fifth = tilegemm::gpu_gemm_async(intermediate, dc, host_c, alpha, S(0));  // host C, not read
  const bool none_ended = !completed(first.event()) && !completed(second.event()) && !completed(third.event()) &&
                          !completed(fourth.event()) && !completed(fifth.event());
  REQUIRE(gate.open());  // false: a call waited for the held queue
  CHECK(none_ended);

  const DeviceMatrix<S> product = second.get();
  first.wait();
  const Matrix<S> intermediate_host = intermediate.to_host();
  CHECK(compare_with_reference<S>(intermediate_host, 1, a, b, 0, c0) == "");
  CHECK(compare_with_reference<S>(product.to_host(), 1, intermediate_host, c, 0, c) == "");
  fifth.wait();
  CHECK(compare_with_reference<S>(host_c, alpha, intermediate_host, c, 0, c) == "");
  fourth.wait();
  third.wait();
  // C0 + alpha A B + alpha A B is C0 + alpha [A A] [B; B].
  Matrix<S> a_twice(m, 2 * k1), b_twice(2 * k1, k2);
  a_twice << a, a;
  b_twice << b, b;
  CHECK(compare_with_reference<S>(accumulated.to_host(), alpha, a_twice, b_twice, 1, c0) == "");
}

TEMPLATE_TEST_CASE("many asynchronous calls in flight from 4 threads at once",
                   "[device_matrix][async][threads]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  constexpr int threads = 4, calls_per_thread = 10;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&failures, t] {
      try {
        failures[t] = calls_in_flight<S>(t, calls_per_thread);
      } catch (const std::exception& e) {
        failures[t] = std::string("exception: ") + e.what();
      }
    });
  }
  for (std::thread& thread : running) thread.join();
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}

TEMPLATE_TEST_CASE("a Pending dropped without waiting waits for its commands: their writes are complete afterwards",
                   "[device_matrix][async]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 26, n = 21, k = 33;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const DeviceMatrix<S> da(a), db(b);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();

  DeviceMatrix<S> device_c(c0);
  { Pending<void> dropped = tilegemm::gpu_gemm_async(da, db, device_c, alpha, beta); }
  CHECK(compare_with_reference<S>(device_c.to_host(), alpha, a, b, beta, c0) == "");

  Matrix<S> host_c = c0;
  tilegemm::gpu_gemm_async(da, db, host_c, alpha, beta);  // the handle is a temporary, dropped at once
  CHECK(compare_with_reference<S>(host_c, alpha, a, b, beta, c0) == "");

  Matrix<S> front_end_c = c0;
  { Pending<void> dropped = tilegemm::gpu_gemm_async(a, b, front_end_c, alpha, beta); }
  CHECK(compare_with_reference<S>(front_end_c, alpha, a, b, beta, c0) == "");

  RowMajorMatrix<S> parent = random_matrix<S>(m + 2, n + 3);
  const RowMajorMatrix<S> before = parent;
  { Pending<void> dropped = tilegemm::gpu_gemm_async(a, db, parent.block(2, 1, m, n), alpha, beta); }
  CHECK(compare_with_reference<S>(parent.block(2, 1, m, n), alpha, a, b, beta, before.block(2, 1, m, n)) == "");
  CHECK(outside_unchanged(before, parent, 2, 1, m, n) == "");

  // A handle assigned over waits for the one it held.
  Matrix<S> overwritten_c = c0;
  Pending<void> reused = tilegemm::gpu_gemm_async(da, db, overwritten_c, alpha, beta);
  reused = tilegemm::gpu_gemm_async(da, db, device_c, alpha, S(0));
  CHECK(compare_with_reference<S>(overwritten_c, alpha, a, b, beta, c0) == "");
  reused.wait();

  // Results dropped unread: their memory (a host matrix the read-back writes, a device matrix) lives until the
  // commands end; valgrind shows a write after it was freed.
  { Pending<Matrix<S>> dropped = tilegemm::gpu_gemm_async(a, b); }
  { Pending<DeviceMatrix<S>> dropped = tilegemm::gpu_gemm_async(da, db); }
  tilegemm::gpu_gemm_async(a.transpose().transpose(), b);
  CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(da, db).to_host(), 1, a, b, 0, c0) == "");
}

// A C with no plain columns is written through a copy on the waiting thread: a handle dropped or assigned over must
// still write it.
TEMPLATE_TEST_CASE("a Pending dropped or assigned over without waiting completes a host C written through a copy",
                   "[device_matrix][async]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 26, n = 21, k = 33;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n), c0 = random_matrix<S>(m, n);
  const DeviceMatrix<S> da(a);
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  const Index outer = 2 * m + 1;
  std::vector<S> storage(static_cast<std::size_t>(outer * n), sentinel<S>());
  InnerStridedMap<S> inner(storage.data(), m, n, Eigen::Stride<Dynamic, Dynamic>(outer, 2));
  const auto gaps_kept = [&] {
    return gaps_unchanged(storage, [&](std::size_t i) {
      const Index at = static_cast<Index>(i) % outer;
      return at % 2 == 0 && at / 2 < m;
    });
  };
  inner = c0;
  { Pending<void> dropped = tilegemm::gpu_gemm_async(da, b, inner, alpha, beta); }
  CHECK(compare_with_reference<S>(inner, alpha, a, b, beta, c0) == "");

  inner = c0;
  { Pending<void> dropped = tilegemm::gpu_gemm_async(a, b, inner, alpha, beta); }
  CHECK(compare_with_reference<S>(inner, alpha, a, b, beta, c0) == "");

  inner = c0;
  Pending<void> reused = tilegemm::gpu_gemm_async(da, b, inner, alpha, beta);
  DeviceMatrix<S> device_c(m, n);
  reused = tilegemm::gpu_gemm_async(da, b, device_c, S(1), S(0));
  CHECK(compare_with_reference<S>(inner, alpha, a, b, beta, c0) == "");
  reused.wait();
  CHECK(compare_with_reference<S>(device_c.to_host(), 1, a, b, 0, c0) == "");
  CHECK(gaps_kept() == "");
}

// Device matrices keep no events, so their queue must order their commands: an out-of-order queue is refused, by
// DeviceMatrix and by the calls that would make one; the host path, which waits on its own events, takes it in its
// blocking and asynchronous forms.
#ifndef TILEGEMM_TEST_DOUBLE
TEST_CASE("an out-of-order queue is refused for device matrices, with a message saying so, host operands take it",
          "[device_matrix][errors]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  cl_int status = CL_SUCCESS;
  const cl::CommandQueue out_of_order(queue.getInfo<CL_QUEUE_CONTEXT>(), queue.getInfo<CL_QUEUE_DEVICE>(),
                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
  if (status != CL_SUCCESS) {
    WARN("this device has no out-of-order queues: nothing to test");
    return;
  }
  const Index m = 12, n = 10, k = 7;
  const Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n);
  const DeviceMatrix<float> da(a), db(b);
  std::vector<float> values(static_cast<std::size_t>(m * k), 1.0f);
  const cl::Buffer buffer = buffer_holding(default_context(), values);
  const auto refused = MESSAGE_CONTAINS("out-of-order");

  CHECK_THROWS_AS(DeviceMatrix<float>(a, out_of_order), std::invalid_argument);
  CHECK_THROWS_WITH(DeviceMatrix<float>(a, out_of_order), refused);
  CHECK_THROWS_WITH(DeviceMatrix<float>(m, n, out_of_order), refused);
  CHECK_THROWS_WITH(DeviceMatrix<float>(0, n, out_of_order), refused);
  CHECK_THROWS_WITH(DeviceMatrix<float>(buffer, m, k, m, 0, out_of_order), refused);
  CHECK_THROWS_AS(tilegemm::gpu_gemm(out_of_order, da, db), std::invalid_argument);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(out_of_order, da, db), refused);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_async(out_of_order, a, db).get(), refused);
  DeviceMatrix<float> dc(m, n);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(out_of_order, da, db, dc, 1.0f, 0.0f), refused);
  // Host operands only: the host floor waits on its own events, blocking or not (issue 26: the two forms agree).
  Matrix<float> c = poisoned<float>(m, n);
  CHECK(compare_with_reference<float>(tilegemm::gpu_gemm_async(out_of_order, a, b).get(), 1, a, b, 0, c) == "");
  tilegemm::gpu_gemm_async(out_of_order, a, b, c, 1.0f, 0.0f).get();
  CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
  c = poisoned<float>(m, n);
  tilegemm::gpu_gemm(out_of_order, a, b, c, 1.0f, 0.0f);
  CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
}
#endif

TEMPLATE_TEST_CASE("bad input: mismatched shapes, another context, blocks outside, buffers too small, negative sizes",
                   "[device_matrix][errors]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const Index m = 6, n = 5, k = 4;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  const DeviceMatrix<S> da(a), db(b), wrong_b(k + 2, n);
  const auto shape = [](Index rows, Index cols) { return std::to_string(rows) + "x" + std::to_string(cols); };

  SECTION("mismatched shapes: std::invalid_argument naming both") {
    CHECK_THROWS_AS(tilegemm::gpu_gemm(da, wrong_b), std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(da, wrong_b), CONTAINS_ALL2(shape(m, k), shape(k + 2, n)));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, wrong_b), CONTAINS_ALL2(shape(m, k), shape(k + 2, n)));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(da.transpose(), db), CONTAINS_ALL2(shape(k, m), shape(k, n)));
    DeviceMatrix<S> wrong_c(m + 1, n);
    CHECK_THROWS_AS(tilegemm::gpu_gemm(da, db, wrong_c, S(1), S(0)), std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(da, db, wrong_c, S(1), S(0)), CONTAINS_ALL2(shape(m + 1, n), shape(m, n)));
    Matrix<S> wrong_host_c(m, n + 1);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(da, b, wrong_host_c, S(1), S(0)), CONTAINS_ALL2(shape(m, n + 1), shape(m, n)));
  }
  SECTION("a device matrix of another context") {
    OtherContext other;
    const DeviceMatrix<S> foreign(a, other.queue);
    CHECK_THROWS_AS(tilegemm::gpu_gemm(foreign, db), std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(foreign, db), CONTAINS_ALL2("buffer B", "another OpenCL context"));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(db.transpose(), foreign.transpose()),
                      CONTAINS_ALL2("buffer B", "another OpenCL context"));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(other.queue, da, db), CONTAINS_ALL2("buffer A", "another OpenCL context"));
    DeviceMatrix<S> foreign_c(m, n, other.queue);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(da, db, foreign_c, S(1), S(0)),
                      CONTAINS_ALL2("buffer C", "another OpenCL context"));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm_async(foreign, db).get(), MESSAGE_CONTAINS("another OpenCL context"));
    std::vector<S> values(static_cast<std::size_t>(m * n), S(1));
    const cl::Buffer foreign_buffer = buffer_holding(other.context, values);
    CHECK_THROWS_AS(DeviceMatrix<S>(foreign_buffer, m, n, m, 0, tilegemm::default_queue()), std::invalid_argument);
    CHECK_THROWS_WITH(DeviceMatrix<S>(foreign_buffer, m, n, m, 0, tilegemm::default_queue()),
                      MESSAGE_CONTAINS("another OpenCL context"));
    // Host operands are uploaded to the device operands' context: that mix is fine.
    CHECK(compare_with_reference<S>(tilegemm::gpu_gemm(foreign, b).to_host(), 1, a, b, 0, a) == "");
  }
  SECTION("a block outside the matrix") {
    CHECK_THROWS_AS(da.block(-1, 0, 2, 2), std::invalid_argument);
    CHECK_THROWS_AS(da.block(0, -1, 2, 2), std::invalid_argument);
    CHECK_THROWS_AS(da.block(0, 0, -1, 2), std::invalid_argument);
    CHECK_THROWS_AS(da.block(0, 0, m + 1, 1), std::invalid_argument);
    CHECK_THROWS_AS(da.block(2, 1, m - 1, 1), std::invalid_argument);
    CHECK_THROWS_AS(da.block(0, 1, 1, k), std::invalid_argument);
    CHECK_THROWS_AS(da.col(k), std::invalid_argument);
    CHECK_THROWS_AS(da.row(-1), std::invalid_argument);
    CHECK_THROWS_AS(da.transpose().block(0, 0, k, m + 1), std::invalid_argument);
    CHECK_THROWS_AS(da.block(1, 1, 3, 2).block(1, 0, 3, 1), std::invalid_argument);
    CHECK_THROWS_WITH(da.block(4, 1, 3, 2), CONTAINS_ALL2("3x2", shape(m, k)));
    CHECK_NOTHROW(da.block(m, k, 0, 0));
  }
  SECTION("a DeviceMatrix around a buffer too small for it, or with a bad layout") {
    std::vector<S> values(20, S(1));
    const cl::Buffer small = buffer_holding(default_context(), values);
    const cl::CommandQueue queue = tilegemm::default_queue();
    CHECK_NOTHROW(DeviceMatrix<S>(small, 4, 5, 4, 0, queue));
    CHECK_THROWS_AS(DeviceMatrix<S>(small, 5, 5, 5, 0, queue), std::invalid_argument);
    CHECK_THROWS_WITH(DeviceMatrix<S>(small, 5, 5, 5, 0, queue), MESSAGE_CONTAINS("holds 20 elements"));
    CHECK_THROWS_AS(DeviceMatrix<S>(small, 4, 5, 4, 1, queue), std::invalid_argument);  // one past the end
    CHECK_THROWS_AS(DeviceMatrix<S>(small, 4, 4, 5, 2, queue), std::invalid_argument);
    CHECK_THROWS_AS(DeviceMatrix<S>(small, 4, 2, 3, 0, queue), std::invalid_argument);  // ld below the rows
    CHECK_THROWS_AS(DeviceMatrix<S>(small, 2, 2, 2, -1, queue), std::invalid_argument);
    CHECK_THROWS_AS(DeviceMatrix<S>(cl::Buffer(), 2, 2, 2, 0, queue), std::invalid_argument);
  }
  SECTION("negative sizes") {
    CHECK_THROWS_AS(DeviceMatrix<S>(-1, 3), std::invalid_argument);
    CHECK_THROWS_AS(DeviceMatrix<S>(3, -2), std::invalid_argument);
    CHECK_THROWS_WITH(DeviceMatrix<S>(3, -2), MESSAGE_CONTAINS("3x-2"));
    std::vector<S> values(20, S(1));
    const cl::Buffer buffer = buffer_holding(default_context(), values);
    CHECK_THROWS_AS(DeviceMatrix<S>(buffer, -1, 2, 2, 0, tilegemm::default_queue()), std::invalid_argument);
    CHECK_THROWS_AS(DeviceMatrix<S>(buffer, 2, -1, 2, 0, tilegemm::default_queue()), std::invalid_argument);
  }
  SECTION("C overlapping A or B on the device") {
    DeviceMatrix<S> square(random_matrix<S>(m, m));
    CHECK_THROWS_AS(tilegemm::gpu_gemm(square, square.block(0, 0, m, m), square, S(1), S(0)), std::invalid_argument);
    CHECK_THROWS_WITH(
        tilegemm::gpu_gemm(square.block(0, 0, m, 3), square.block(0, 2, 3, 3), square.block(0, 3, m, 3), S(1), S(0)),
        MESSAGE_CONTAINS("overlaps"));
  }
}

// row + rows would overflow here: the check must not form it.
TEMPLATE_TEST_CASE("a block whose end lies past the largest index is refused, not wrapped around",
                   "[device_matrix][errors]" TILEGEMM_TEST_TIER, TILEGEMM_TEST_SCALAR) {
  using S = TestType;
  const DeviceMatrix<S> device(random_matrix<S>(6, 4));
  constexpr Index largest = std::numeric_limits<Index>::max();
  CHECK_THROWS_AS(device.block(1, 0, largest, 1), std::invalid_argument);
  CHECK_THROWS_AS(device.block(0, 2, 1, largest), std::invalid_argument);
  CHECK_THROWS_AS(device.transpose().block(largest, 0, 1, 1), std::invalid_argument);
}

#ifndef TILEGEMM_TEST_DOUBLE
TEST_CASE(
    "a loop of device products, views, clones and asynchronous calls holds no more at its end than after its "
    "first round, and lets its context go",
    "[device_matrix][resources]") {
  OtherContext user;
  const cl_uint context_references_before = reference_count(user.context);
  {
    const Index m = 24, n = 20, k = 16;
    const Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n), c = random_matrix<float>(n, m);
    const DeviceMatrix<float> da(a, user.queue), db(b, user.queue);
    tilegemm::detail::HeldResources after_first_round;
    constexpr int rounds = 40;
    for (int round = 0; round < rounds; ++round) {
      INFO("round " << round);
      const DeviceMatrix<float> chain = tilegemm::gpu_gemm(tilegemm::gpu_gemm(da, db).transpose(), da);
      REQUIRE(compare_chain_with_reference<float>(chain.to_host(), Matrix<float>(b.transpose()),
                                                  Matrix<float>(a.transpose()), a) == "");
      DeviceMatrix<float> copy = chain.clone();
      tilegemm::gpu_gemm(c, da.block(0, 0, m, 3), copy.block(0, 0, n, 3), 1.0f, 1.0f);
      Matrix<float> host_c = random_matrix<float>(m, n);
      tilegemm::gpu_gemm(da, b, host_c, 1.0f, 0.0f);
      { Pending<Matrix<float>> dropped = tilegemm::gpu_gemm_async(user.queue, a, b); }
      { Pending<void> dropped = tilegemm::gpu_gemm_async(da, db, host_c, 1.0f, 1.0f); }
      CHECK_THROWS_AS(tilegemm::gpu_gemm_async(da, da).get(), std::invalid_argument);
      CHECK(error_of([&] { tilegemm::gpu_gemm_async<TooMuchLocal>(da, db).get(); }).code != no_error);
      if (round == 0) after_first_round = tilegemm::detail::held_resources();
    }
    const tilegemm::detail::HeldResources held = tilegemm::detail::held_resources();
    INFO("programs " << held.programs << " (" << after_first_round.programs
                     << " after the first round), pooled buffers " << held.pool.buffers << " of " << held.pool.bytes
                     << " bytes");
    CHECK(held.programs == after_first_round.programs);
    CHECK(held.pool.buffers <= tilegemm::detail::max_slots);
    CHECK(held.pool.idle_bytes <= tilegemm::detail::max_idle_bytes);
    // Nothing of the calls holds the operands' buffers any more.
    CHECK(settled_reference_count(da.buffer(), 1) == 1);
    CHECK(settled_reference_count(db.buffer(), 1) == 1);
  }
  tilegemm::release_resources(user.context);
  CHECK(settled_reference_count(user.context, context_references_before) == context_references_before);
}
#endif
