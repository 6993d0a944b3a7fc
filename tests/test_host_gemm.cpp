// test_host_gemm: the host floor, tilegemm::gemm and gemm_async on raw column-major host pointers (core.hpp, no
// Eigen in the library's path), against the double reference; and the last round's findings fixed through it.
#include <tilegemm/core.hpp>
// The Eigen front end only for the findings below and for the reference.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <tuple>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "untouched_memory.hpp"

using Eigen::Index;
using tilegemm::Transpose;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::poisoned;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;
using tilegemm_test::Stored;

namespace {

Transpose transpose_of(bool t) { return t ? Transpose::yes : Transpose::no; }

// Runs C = alpha op(A) op(B) + beta C on fresh data through `call` (gemm or gemm_async) and checks it against the
// reference, with C poisoned where beta is zero and the memory around every operand untouched.
template <class S, class Call>
void check_product(Call&& call, bool ta, bool tb, Index m, Index n, Index k, S alpha, S beta, Index pad = 3) {
  INFO("op(A) " << m << "x" << k << (ta ? " (A^T)" : "") << ", op(B) " << k << "x" << n << (tb ? " (B^T)" : "")
                << ", alpha " << alpha << ", beta " << beta << ", ld padding " << pad);
  Stored<S> a(ta ? k : m, ta ? m : k, (ta ? k : m) + pad), b(tb ? n : k, tb ? k : n, (tb ? n : k) + pad),
      c(m, n, m + pad);
  const Matrix<S> a0 = random_matrix<S>(a.rows, a.cols), b0 = random_matrix<S>(b.rows, b.cols);
  const Matrix<S> c0 = beta == S(0) ? Matrix<S>::Constant(m, n, poison<S>()) : random_matrix<S>(m, n);
  a.set(a0);
  b.set(b0);
  c.set(c0);
  call(transpose_of(ta), transpose_of(tb), m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta, c.data(), c.ld);
  const Matrix<S> opa = ta ? Matrix<S>(a0.transpose()) : a0, opb = tb ? Matrix<S>(b0.transpose()) : b0;
  CHECK(compare_with_reference<S>(c.values(), alpha, opa, opb, beta, c0) == "");
  CHECK(a.values() == a0);
  CHECK(b.values() == b0);
  CHECK(a.gaps_kept() == "");
  CHECK(b.gaps_kept() == "");
  CHECK(c.gaps_kept() == "");
}

template <class S>
auto blocking() {
  return [](auto... args) { tilegemm::gemm<S>(args...); };
}
template <class S>
auto asynchronous() {
  return [](auto... args) { tilegemm::gemm_async<S>(args...).get(); };
}

// Every product from the first byte on the staged path, on any device, with small slots and blocks.
tilegemm::detail::StagedPathSettings forced_staging() {
  tilegemm::detail::StagedPathSettings settings;
  settings.from_bytes = 0;
  settings.slot_bytes = 1024;
  settings.block_side = 32;
  settings.on_cpu_devices = true;
  return settings;
}

// The paths a host call can take: direct; staged, C copied out by its drain thread; staged, C copied out by the
// calling thread between blocks (as where no thread starts).
enum class HostPath { direct, staged, staged_drain_inline };
constexpr HostPath host_paths[] = {HostPath::direct, HostPath::staged, HostPath::staged_drain_inline};
tilegemm::detail::StagedPathSettings settings_of(HostPath path) {
  tilegemm::detail::StagedPathSettings settings =
      path == HostPath::direct ? tilegemm::detail::StagedPathSettings{} : forced_staging();
  settings.drain_thread = path != HostPath::staged_drain_inline;
  return settings;
}

}  // namespace

TEMPLATE_TEST_CASE("host floor: every transpose, ld larger than the rows, sync and async", "[host_gemm]", float,
                   double) {
  using S = TestType;
  for (const auto& [m, n, k] : {std::tuple<Index, Index, Index>{1, 1, 1}, {17, 9, 13}, {64, 33, 70}}) {
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        check_product<S>(blocking<S>(), ta, tb, m, n, k, random_scalar<S>(), random_scalar<S>());
        check_product<S>(asynchronous<S>(), ta, tb, m, n, k, random_scalar<S>(), S(0), 0);
      }
    }
  }
}

TEMPLATE_TEST_CASE("host floor: alpha and beta, beta = 0 ignores NaN, k = 0, alpha = 0, empty shapes", "[host_gemm]",
                   float, double) {
  using S = TestType;
  for (const auto& call : {std::function<void(Transpose, Transpose, long long, long long, long long, S, const S*,
                                              long long, const S*, long long, S, S*, long long)>(blocking<S>()),
                           std::function<void(Transpose, Transpose, long long, long long, long long, S, const S*,
                                              long long, const S*, long long, S, S*, long long)>(asynchronous<S>())}) {
    check_product<S>(call, false, true, 23, 19, 11, S(1), S(0));
    check_product<S>(call, true, false, 23, 19, 11, S(-0.5), S(2));
    check_product<S>(call, false, false, 23, 19, 0, S(1.5), S(0.5));  // k = 0: C = beta C
    check_product<S>(call, false, false, 23, 19, 0, S(1.5), S(0));    // k = 0, beta = 0: zeros over NaN
    check_product<S>(call, false, false, 23, 19, 11, S(0), S(-1));    // alpha = 0: A and B not read
    // Empty C: nothing is read or written, null pointers included.
    Stored<S> c(4, 3, 4);
    const std::vector<S> before = c.storage;
    call(Transpose::no, Transpose::no, 0, 3, 5, S(1), nullptr, 1, nullptr, 5, S(1), c.data(), 1);
    call(Transpose::no, Transpose::no, 4, 0, 5, S(1), nullptr, 4, nullptr, 5, S(1), c.data(), 4);
    CHECK(c.storage == before);
    // alpha = 0 reads neither A nor B: they may be null.
    c.set(random_matrix<S>(4, 3));
    const Matrix<S> c0 = c.values();
    call(Transpose::no, Transpose::no, 4, 3, 5, S(0), nullptr, 4, nullptr, 5, S(3), c.data(), 4);
    CHECK(c.values() == Matrix<S>(S(3) * c0));
  }
}

TEMPLATE_TEST_CASE("host floor: C overlapping A or B is made in a copy, sync and async", "[host_gemm]", float, double) {
  using S = TestType;
  const Index m = 21, k = 21, n = 21;
  for (const bool async : {false, true}) {
    // C is A (A = A * B), then C is B with an ld shared with its column offset.
    std::vector<S> storage(static_cast<std::size_t>(m * k));
    Eigen::Map<Matrix<S>> a(storage.data(), m, k);
    a = random_matrix<S>(m, k);
    const Matrix<S> a0 = a, b0 = random_matrix<S>(k, n);
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    if (async) {
      tilegemm::gemm_async<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b0.data(), k, beta, a.data(),
                              m)
          .get();
    } else {
      tilegemm::gemm<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b0.data(), k, beta, a.data(), m);
    }
    CHECK(compare_with_reference<S>(a, alpha, a0, b0, beta, a0) == "");
    // C the second half of B's columns, B read transposed: they overlap partly.
    Matrix<S> b = random_matrix<S>(n, 2 * k);
    const Matrix<S> b1 = b;
    const Matrix<S> a1 = random_matrix<S>(n, k);
    if (async) {
      tilegemm::gemm_async<S>(Transpose::no, Transpose::yes, n, n, k, S(1), a1.data(), n, b.data() + n * 8, n, S(0),
                              b.data() + n * k, n)
          .get();
    } else {
      tilegemm::gemm<S>(Transpose::no, Transpose::yes, n, n, k, S(1), a1.data(), n, b.data() + n * 8, n, S(0),
                        b.data() + n * k, n);
    }
    const Matrix<S> bt = Eigen::Map<const Matrix<S>>(b1.data() + n * 8, n, k).transpose();
    CHECK(compare_with_reference<S>(b.rightCols(k), 1, a1, bt, 0, b1.rightCols(k)) == "");
    CHECK(b.leftCols(k) == b1.leftCols(k));
  }
}

TEMPLATE_TEST_CASE("host floor: sizes on the staged path (forced), sync and async, with C overlapping A",
                   "[host_gemm][staged]", float, double) {
  using S = TestType;
  const tilegemm::detail::ScopedStagedPath staged(forced_staging());
  for (const auto& [m, n, k] : {std::tuple<Index, Index, Index>{67, 131, 45}, {5, 70, 90}}) {
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        tilegemm::detail::last_host_call_profile() = {};
        check_product<S>(blocking<S>(), ta, tb, m, n, k, random_scalar<S>(), random_scalar<S>());
        CHECK(tilegemm::detail::last_host_call_profile().blocks >= 1);
        tilegemm::detail::last_host_call_profile() = {};
        check_product<S>(asynchronous<S>(), ta, tb, m, n, k, random_scalar<S>(), S(0));
        CHECK(tilegemm::detail::last_host_call_profile().blocks >= 1);
      }
    }
  }
  // A = A * B on the staged path: the product goes to a copy of C, or the blocks of A it still reads would change.
  const Index m = 70;
  Matrix<S> a = random_matrix<S>(m, m);
  const Matrix<S> a0 = a, b = random_matrix<S>(m, m);
  tilegemm::detail::last_host_call_profile() = {};
  tilegemm::gemm<S>(Transpose::no, Transpose::no, m, m, m, S(1), a.data(), m, b.data(), m, S(0), a.data(), m);
  CHECK(tilegemm::detail::last_host_call_profile().blocks >= 1);
  CHECK(compare_with_reference<S>(a, 1, a0, b, 0, a0) == "");
}

TEMPLATE_TEST_CASE("host floor: beta folded into the copy out or C uploaded, staged and direct, every transpose",
                   "[host_gemm][staged]", float, double) {
  using S = TestType;
  for (const bool fold : {true, false}) {
    const tilegemm::detail::ScopedBetaFold folding(fold);
    for (const HostPath path_kind : host_paths) {
      const bool staged = path_kind != HostPath::direct;
      const tilegemm::detail::ScopedStagedPath path(settings_of(path_kind));
      const auto [m, n, k] =
          staged ? std::tuple<Index, Index, Index>{67, 45, 37} : std::tuple<Index, Index, Index>{17, 9, 13};
      for (const S beta : {S(0), S(1), S(-0.5)}) {  // beta = 0 with NaN in C
        for (const bool ta : {false, true}) {
          for (const bool tb : {false, true}) {
            INFO((fold ? "folded" : "uploaded")
                 << (staged ? ", staged" : ", direct")
                 << (path_kind == HostPath::staged_drain_inline ? " (drain on the calling thread)" : ""));
            tilegemm::detail::last_host_call_profile() = {};
            check_product<S>(blocking<S>(), ta, tb, m, n, k, random_scalar<S>(), beta);
            CHECK((tilegemm::detail::last_host_call_profile().blocks > 0) == staged);
            check_product<S>(asynchronous<S>(), ta, tb, m, n, k, random_scalar<S>(), beta, 1);
          }
        }
      }
    }
  }
}

namespace {

// What a call threw: "" (nothing), "PartialWrite", "Error" (tilegemm::Error, not a PartialWrite) or another's what().
template <class Call>
std::string thrown_by(Call&& call) {
  try {
    call();
  } catch (const tilegemm::PartialWrite& e) {
    CHECK_THAT(e.what(), MESSAGE_CONTAINS("C was partly written") && MESSAGE_CONTAINS("injected failure"));
    CHECK(e.code() == CL_OUT_OF_RESOURCES);
    return "PartialWrite";
  } catch (const tilegemm::Error& e) {
    CHECK_THAT(e.what(), MESSAGE_CONTAINS("injected failure") && !MESSAGE_CONTAINS("partly written"));
    return "Error";
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEMPLATE_TEST_CASE("host floor: a failure before C is written leaves it bit-identical, one after is a PartialWrite",
                   "[host_gemm][staged][errors]", float, double) {
  using S = TestType;
  using tilegemm::detail::InjectedFailure;
  using tilegemm::detail::ScopedInjectedFailure;
  for (const bool fold : {true, false}) {
    const tilegemm::detail::ScopedBetaFold folding(fold);
    for (const HostPath path_kind : host_paths) {
      const bool staged = path_kind != HostPath::direct;
      const tilegemm::detail::ScopedStagedPath path(settings_of(path_kind));
      // Staged: blocks of 32 in slots of 1 KiB, so that C is written in many parts.
      const Index m = 45, n = 40, k = 19;
      for (const S beta : {S(0), S(0.5)}) {
        for (const bool async : {false, true}) {
          INFO((fold ? "folded" : "uploaded")
               << (staged ? ", staged" : ", direct")
               << (path_kind == HostPath::staged_drain_inline ? " (drain on the calling thread)" : "") << ", beta "
               << beta << (async ? ", gemm_async" : ", gemm"));
          const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
          Stored<S> c(m, n, m + 2);
          c.set(beta == S(0) ? Matrix<S>::Constant(m, n, poison<S>()) : random_matrix<S>(m, n));
          const std::vector<S> before = c.storage;
          const auto call = [&] {
            if (async) {
              tilegemm::gemm_async<S>(Transpose::no, Transpose::no, m, n, k, S(1), a.data(), m, b.data(), k, beta,
                                      c.data(), c.ld)
                  .get();
            } else {
              tilegemm::gemm<S>(Transpose::no, Transpose::no, m, n, k, S(1), a.data(), m, b.data(), k, beta, c.data(),
                                c.ld);
            }
          };
          if (async && !staged) continue;  // the hook fails blocking copies out; the direct async form has none
          {
            const ScopedInjectedFailure failure(InjectedFailure{0});  // just before the first part of C
            CHECK(thrown_by(call) == "Error");
            CHECK(std::memcmp(c.storage.data(), before.data(), before.size() * sizeof(S)) == 0);
          }
          {
            const ScopedInjectedFailure failure(InjectedFailure{staged ? 3 : 1});  // after some of C
            CHECK(thrown_by(call) == "PartialWrite");
            CHECK(c.gaps_kept() == "");
            if (staged) {  // parts written and parts not
              const Matrix<S> now = c.values();
              const Matrix<S> old = Eigen::Map<const Matrix<S>, 0, Eigen::OuterStride<>>(before.data() + c.margin, m, n,
                                                                                         Eigen::OuterStride<>(c.ld));
              Index kept = 0;
              for (Index j = 0; j < n; ++j) {
                for (Index i = 0; i < m; ++i) kept += tilegemm_test::same_value(now(i, j), old(i, j)) ? 1 : 0;
              }
              CHECK(kept > 0);
              CHECK(kept < m * n);
            }
          }
          c.set(beta == S(0) ? Matrix<S>::Constant(m, n, poison<S>()) : random_matrix<S>(m, n));
          const Matrix<S> c0 = c.values();
          CHECK(thrown_by(call) == "");  // no failure injected once the scope has ended
          CHECK(compare_with_reference<S>(c.values(), S(1), a, b, beta, c0) == "");
        }
      }
    }
  }
  // A C overlapping A is made in a copy: a failure after parts of the copy were written leaves C as it was.
  const tilegemm::detail::ScopedStagedPath path(forced_staging());
  const Index m = 50;
  Matrix<S> a = random_matrix<S>(m, m);
  const Matrix<S> a0 = a, b = random_matrix<S>(m, m);
  const ScopedInjectedFailure failure(InjectedFailure{2});
  CHECK(thrown_by([&] {
          tilegemm::gemm<S>(Transpose::no, Transpose::no, m, m, m, S(1), a.data(), m, b.data(), m, S(1), a.data(), m);
        }) == "Error");
  CHECK(std::memcmp(a.data(), a0.data(), static_cast<std::size_t>(m * m) * sizeof(S)) == 0);
}

TEMPLATE_TEST_CASE("host floor: gemm_async on the staged path returns at once, C written when the handle completes",
                   "[host_gemm][staged]", float, double) {
  using S = TestType;
  const tilegemm::detail::ScopedStagedPath staged(forced_staging());
  const Index m = 61, n = 70, k = 43;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  const S alpha = random_scalar<S>();
  // Three calls in flight at once, beta 0 over NaN, 1 and -0.5; each handle's event is the host thread's.
  std::vector<Matrix<S>> c = {poisoned<S>(m, n), random_matrix<S>(m, n), random_matrix<S>(m, n)};
  const std::vector<Matrix<S>> c0 = c;
  const std::vector<S> betas = {S(0), S(1), S(-0.5)};
  std::vector<tilegemm::Pending<void>> calls;
  for (std::size_t i = 0; i < c.size(); ++i) {
    calls.push_back(tilegemm::gemm_async<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b.data(), k,
                                            betas[i], c[i].data(), m));
    CHECK(calls.back().event().template getInfo<CL_EVENT_COMMAND_TYPE>() == CL_COMMAND_USER);
  }
  for (std::size_t i = 0; i < c.size(); ++i) {
    tilegemm::detail::last_host_call_profile() = {};
    calls[i].get();
    CHECK(tilegemm::detail::last_host_call_profile().blocks >= 4);  // the thread's profile, handed to the waiter
    CHECK(compare_with_reference<S>(c[i], alpha, a, b, betas[i], c0[i]) == "");
  }
  // A handle dropped unwaited finishes the call first.
  Matrix<S> dropped = poisoned<S>(m, m);
  {
    tilegemm::Pending<void> unwaited = tilegemm::gemm_async<S>(Transpose::no, Transpose::yes, m, m, k, S(1), a.data(),
                                                               m, a.data(), m, S(0), dropped.data(), m);
  }
  CHECK(compare_with_reference<S>(dropped, 1, a, Matrix<S>(a.transpose()), 0, dropped) == "");
}

TEST_CASE("host floor: gemm_async reads A and B before it returns, C is written when the handle completes",
          "[host_gemm]") {
  const Index m = 40, n = 30, k = 20;
  Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n), c(m, n);
  const Matrix<float> a0 = a, b0 = b;
  c.setConstant(poison<float>());
  tilegemm::Pending<void> pending = tilegemm::gemm_async<float>(Transpose::no, Transpose::no, m, n, k, 1.0f, a.data(),
                                                                m, b.data(), k, 0.0f, c.data(), m);
  a.setZero();
  b.setZero();
  CHECK(pending.event()() != nullptr);
  pending.get();
  CHECK(compare_with_reference<float>(c, 1, a0, b0, 0, c) == "");
}

TEST_CASE("host floor: bad arguments give the buffer core's errors, gemm_async's surface from its handle",
          "[host_gemm][errors]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  std::vector<float> values(64, 1.0f);
  const cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, values.size() * sizeof(float));
  float* p = values.data();
  // The buffer core's message for the same arguments (offsets 0, the buffer large enough), or "" if it took them.
  const auto core_error = [&](Transpose ta, Transpose tb, long long m, long long n, long long k, long long lda,
                              long long ldb, long long ldc) -> std::string {
    try {
      tilegemm::gemm<float>(queue, ta, tb, m, n, k, 1.0f, buffer, 0, lda, buffer, 0, ldb, 1.0f, buffer, 0, ldc);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  const auto host_error = [&](Transpose ta, Transpose tb, long long m, long long n, long long k, long long lda,
                              long long ldb, long long ldc) -> std::string {
    try {
      tilegemm::gemm<float>(queue, ta, tb, m, n, k, 1.0f, p, lda, p, ldb, 1.0f, p + 32, ldc);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  const auto bad = Transpose(7);
  for (const auto& [ta, tb, m, n, k, lda, ldb, ldc] :
       {std::tuple<Transpose, Transpose, long long, long long, long long, long long, long long, long long>{
            Transpose::no, Transpose::no, -1, 2, 2, 2, 2, 2},
        {Transpose::no, Transpose::no, 2, 2, 1LL << 32, 2, 2, 2},
        {bad, Transpose::no, 2, 2, 2, 2, 2, 2},
        {Transpose::no, bad, 2, 2, 2, 2, 2, 2},
        {Transpose::no, Transpose::no, 4, 2, 2, 3, 2, 4},
        {Transpose::yes, Transpose::no, 4, 2, 3, 2, 3, 4},
        {Transpose::no, Transpose::yes, 2, 4, 2, 2, 3, 2},
        {Transpose::no, Transpose::no, 4, 2, 2, 4, 2, 3},
        {Transpose::no, Transpose::no, 4, 2, 2, 4, 0, 4}}) {
    const std::string expected = core_error(ta, tb, m, n, k, lda, ldb, ldc);
    INFO(expected);
    REQUIRE(expected.rfind("tilegemm::gemm: ", 0) == 0);
    CHECK(host_error(ta, tb, m, n, k, lda, ldb, ldc) == expected);
    tilegemm::Pending<void> pending =
        tilegemm::gemm_async<float>(queue, ta, tb, m, n, k, 1.0f, p, lda, p, ldb, 1.0f, p + 32, ldc);
    CHECK_THROWS_AS(pending.get(), std::invalid_argument);
    CHECK_THROWS_WITH(
        tilegemm::gemm_async<float>(queue, ta, tb, m, n, k, 1.0f, p, lda, p, ldb, 1.0f, p + 32, ldc).get(),
        "tilegemm::gemm_async: " + expected.substr(std::string("tilegemm::gemm: ").size()));
  }
  // Null pointers where the product reads or writes them.
  CHECK_THROWS_WITH(tilegemm::gemm<float>(Transpose::no, Transpose::no, 2, 2, 2, 1.0f, nullptr, 2, p, 2, 0.0f, p, 2),
                    "tilegemm::gemm: A is a null pointer.");
  CHECK_THROWS_WITH(tilegemm::gemm<float>(Transpose::no, Transpose::no, 2, 2, 2, 1.0f, p, 2, nullptr, 2, 0.0f, p, 2),
                    "tilegemm::gemm: B is a null pointer.");
  CHECK_THROWS_WITH(tilegemm::gemm<float>(Transpose::no, Transpose::no, 2, 2, 2, 1.0f, p, 2, p, 2, 0.0f, nullptr, 2),
                    "tilegemm::gemm: C is a null pointer.");
  // A leading dimension whose span no pointer reaches.
  CHECK_THROWS_WITH(tilegemm::gemm<float>(Transpose::no, Transpose::no, 2, 4, 2, 1.0f, p, 2, p, 1LL << 62, 0.0f, p, 2),
                    MESSAGE_CONTAINS("more than a pointer reaches"));
  CHECK(values == std::vector<float>(64, 1.0f));
}

TEST_CASE("host floor: an out-of-order queue is taken by gemm and gemm_async alike", "[host_gemm]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  cl_int status = CL_SUCCESS;
  const cl::CommandQueue out_of_order(queue.getInfo<CL_QUEUE_CONTEXT>(), queue.getInfo<CL_QUEUE_DEVICE>(),
                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
  if (status != CL_SUCCESS) {
    WARN("this device has no out-of-order queues: nothing to test");
    return;
  }
  const Index m = 33, n = 20, k = 17;
  for (const bool async : {false, true}) {
    Stored<float> c(m, n, m + 4);
    const Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n), c0 = random_matrix<float>(m, n);
    c.set(c0);
    if (async) {
      tilegemm::gemm_async<float>(out_of_order, Transpose::no, Transpose::no, m, n, k, 2.0f, a.data(), m, b.data(), k,
                                  0.5f, c.data(), c.ld)
          .get();
    } else {
      tilegemm::gemm<float>(out_of_order, Transpose::no, Transpose::no, m, n, k, 2.0f, a.data(), m, b.data(), k, 0.5f,
                            c.data(), c.ld);
    }
    CHECK(compare_with_reference<float>(c.values(), 2, a, b, 0.5, c0) == "");
    CHECK(c.gaps_kept() == "");
    // The Eigen front end's host forms go through the same floor: both take the queue.
    Matrix<float> d = tilegemm::gpu_gemm_async(out_of_order, a, b).get();
    CHECK(compare_with_reference<float>(d, 1, a, b, 0, d) == "");
    Matrix<float> e = Matrix<float>::Constant(m, n, poison<float>());
    tilegemm::gpu_gemm_async(out_of_order, a, b, e, 1.0f, 0.0f).get();
    CHECK(compare_with_reference<float>(e, 1, a, b, 0, e) == "");
  }
}

// Findings of the adversarial round (issue 26, item 11).

TEST_CASE("gpu_gemm_batched refuses host C's that share memory, as the device form does", "[host_gemm][errors]") {
  std::vector<float> shared(8, 1.0f);
  const Matrix<float> ones = Matrix<float>::Ones(2, 2);
  const std::vector<Matrix<float>> a(3, ones), b(3, ones);
  // Three 2x2 Maps one float apart, and the same Map three times.
  std::vector<Eigen::Map<Matrix<float>>> apart, same;
  for (int p = 0; p < 3; ++p) apart.emplace_back(shared.data() + p, 2, 2);
  for (int p = 0; p < 3; ++p) same.emplace_back(shared.data(), 2, 2);
  const auto refused = MESSAGE_CONTAINS("tilegemm::gpu_gemm_batched: two matrices C of the batch share memory");
  CHECK_THROWS_AS(tilegemm::gpu_gemm_batched(a, b, apart, 1.0f, 0.0f), std::invalid_argument);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, apart, 1.0f, 0.0f), refused);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, same, 0.0f, 2.0f), refused);
  CHECK(shared == std::vector<float>(8, 1.0f));
  // Maps side by side that do not overlap are a batch like any other.
  std::vector<Eigen::Map<Matrix<float>>> disjoint;
  std::vector<float> storage(12, poison<float>());
  for (int p = 0; p < 3; ++p) disjoint.emplace_back(storage.data() + 4 * p, 2, 2);
  tilegemm::gpu_gemm_batched(a, b, disjoint, 1.0f, 0.0f);
  for (const auto& c : disjoint) CHECK(compare_with_reference<float>(c, 1, ones, ones, 0, c) == "");
}

TEST_CASE("Pending: get() and wait() on a moved-from handle throw, as a second get() does", "[host_gemm][errors]") {
  const Matrix<float> a = random_matrix<float>(5, 4), b = random_matrix<float>(4, 3);
  auto first = tilegemm::gpu_gemm_async(a, b);
  auto second = std::move(first);
  const auto moved = MESSAGE_CONTAINS("moved from");
  CHECK_THROWS_AS(first.get(), std::logic_error);
  CHECK_THROWS_WITH(first.get(), moved);
  CHECK_THROWS_WITH(first.wait(), moved);
  CHECK(compare_with_reference<float>(second.get(), 1, a, b, 0, Matrix<float>::Zero(5, 3)) == "");
  CHECK_THROWS_AS(second.get(), std::logic_error);  // a second get()

  Matrix<float> c(5, 3);
  tilegemm::Pending<void> product = tilegemm::gpu_gemm_async(a, b, c, 1.0f, 0.0f);
  tilegemm::Pending<void> assigned;
  assigned = std::move(product);
  CHECK_THROWS_WITH(product.get(), moved);
  assigned.get();
  CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
}

TEMPLATE_TEST_CASE("DeviceMatrix construction errors name DeviceMatrix, not gemm", "[host_gemm][errors]", float,
                   double) {
  using S = TestType;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Buffer small(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, 4 * sizeof(S));
  const auto named = Catch::Matchers::StartsWith("tilegemm::DeviceMatrix: ");
  CHECK_THROWS_WITH(tilegemm::DeviceMatrix<S>(small, 3, 3, 3, 0, queue), named);   // too small a buffer
  CHECK_THROWS_WITH(tilegemm::DeviceMatrix<S>(small, 2, 2, 1, 0, queue), named);   // ld below the rows
  CHECK_THROWS_WITH(tilegemm::DeviceMatrix<S>(small, 2, 2, 2, -1, queue), named);  // a negative offset
  CHECK_THROWS_WITH(tilegemm::DeviceMatrix<S>(cl::Buffer(), 2, 2, 2, 0, queue), named);
}

TEST_CASE("call options: the front end's defaults are read once, at the call's entry, into its context",
          "[host_gemm]") {
  using tilegemm::MathMode;
  using tilegemm::detail::CallContext;
  const cl::CommandQueue queue = tilegemm::default_queue();
  tilegemm::detail::DeviceLimits described = CallContext::of(queue).limits;
  described.name = "a described device";
  const CallContext call = [&] {
    const tilegemm::ScopedMathMode tf32(MathMode::tf32);
    const tilegemm::detail::ScopedDeviceDescription as(described);
    const tilegemm::detail::ScopedStagedPath staged(forced_staging());
    return CallContext::of(queue);
  }();
  // The scopes have ended; the context keeps what they said when it was made.
  CHECK(call.options.math == MathMode::tf32);
  CHECK(call.limits.name == "a described device");
  CHECK(call.options.staged.from_bytes == 0);
  CHECK(CallContext::of(queue).limits.name != "a described device");
  // Options passed explicitly win over the defaults.
  tilegemm::detail::CallOptions options;
  options.math = MathMode::tf32x3;
  const tilegemm::ScopedMathMode ieee(MathMode::ieee);
  CHECK(CallContext::of(queue, options).options.math == MathMode::tf32x3);
  CHECK(tilegemm::math_mode() == MathMode::ieee);
}
