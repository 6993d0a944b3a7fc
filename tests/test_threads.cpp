// test_threads: gpu_gemm called from 8 threads at once gives right results and builds each new program exactly once.
#include <Eigen/Dense>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "programs_made.hpp"
#include "reference.hpp"

using Eigen::Index;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;

namespace {

constexpr int thread_count = 8;

// A one-shot start line (C++17 has no std::latch): every thread waits until all have arrived, then all go at once.
class StartLine {
 public:
  explicit StartLine(int count) : remaining_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--remaining_ == 0) {
      go_.notify_all();
      return;
    }
    go_.wait(lock, [this] { return remaining_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable go_;
  int remaining_;
};

// Runs `work(t)` on thread_count threads that start together; returns each thread's failures ("" when none).
// Catch2's assertions are not thread-safe, so the threads only collect text, and exceptions become text too.
template <class Work>
std::vector<std::string> run_together(Work&& work) {
  StartLine start(thread_count);
  std::vector<std::string> failures(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        failures[t] = work(t);
      } catch (const std::exception& e) {
        failures[t] += std::string("exception: ") + e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return failures;
}

// One product op(A) * op(B), m x n with depth k, with Config and scalar S; "" when it matches the reference.
template <class Config, class S>
std::string one_product(Index m, Index n, Index k, bool trans_a, bool trans_b) {
  const Matrix<S> a_storage = trans_a ? random_matrix<S>(k, m) : random_matrix<S>(m, k);
  const Matrix<S> b_storage = trans_b ? random_matrix<S>(n, k) : random_matrix<S>(k, n);
  const Matrix<S> a = trans_a ? Matrix<S>(a_storage.transpose()) : a_storage;
  const Matrix<S> b = trans_b ? Matrix<S>(b_storage.transpose()) : b_storage;
  const Matrix<S> c0 = random_matrix<S>(m, n);
  Matrix<S> c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  if (trans_a && trans_b) {
    tilegemm::gpu_gemm<Config>(a_storage.transpose(), b_storage.transpose(), c, alpha, beta);
  } else if (trans_a) {
    tilegemm::gpu_gemm<Config>(a_storage.transpose(), b, c, alpha, beta);
  } else if (trans_b) {
    tilegemm::gpu_gemm<Config>(a, b_storage.transpose(), c, alpha, beta);
  } else {
    tilegemm::gpu_gemm<Config>(a, b, c, alpha, beta);
  }
  std::string failure = compare_with_reference<S>(c, alpha, a, b, beta, c0);
  if (failure.empty()) {
    c = tilegemm::gpu_gemm<Config>(a, b);
    failure = compare_with_reference<S>(c, 1, a, b, 0, c0);
  }
  if (failure.empty()) return "";
  return Config::name() + (sizeof(S) == 4 ? " float " : " double ") + std::to_string(m) + "x" + std::to_string(n) +
         "x" + std::to_string(k) + (trans_a ? " A^T" : "") + (trans_b ? " B^T" : "") + ": " + failure + "\n";
}

// Auto-configured products are reported as such.
template <class S>
std::string auto_product(Index m, Index n, Index k) {
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  Matrix<S> c = Matrix<S>::Constant(m, n, poison<S>());
  const S alpha = random_scalar<S>();
  tilegemm::gpu_gemm(a, b, c, alpha, S(0));
  const std::string failure = compare_with_reference<S>(c, alpha, a, b, 0, c);
  if (failure.empty()) return "";
  return std::string("AutoConfig ") + (sizeof(S) == 4 ? "float " : "double ") + std::to_string(m) + "x" +
         std::to_string(n) + "x" + std::to_string(k) + ": " + failure + "\n";
}

}  // namespace

TEST_CASE("8 threads calling gpu_gemm at once with different shapes, configurations and scalars", "[threads]") {
  const std::vector<std::string> failures = run_together([](int t) {
    std::string failed;
    for (int i = 0; i < 6; ++i) {
      const Index m = 3 + 7 * t + 5 * i, n = 40 - 3 * t + 2 * i, k = 1 + 11 * i + t;
      const bool ta = (t + i) % 2 == 1, tb = (t / 2 + i) % 2 == 1;
      switch ((t + i) % 6) {
        case 0:
          failed += auto_product<float>(m, n, k);
          break;
        case 1:
          failed += auto_product<double>(m + 60, n + 30, k);
          break;
        case 2:
          failed += one_product<tilegemm::LocalTiles<8>, float>(m, n, k, ta, tb);
          break;
        case 3:
          failed += one_product<tilegemm::Naive<4, 4>, double>(m, n, k, ta, tb);
          break;
        case 4:
          failed += one_product<tilegemm::RegisterBlocking<16, 16, 8, 2, 2>, float>(m, n, k, ta, tb);
          break;
        default:
          failed += one_product<tilegemm::WideTypes<8, 2>, double>(m, n, k, ta, tb);
          break;
      }
    }
    return failed;
  });
  for (int t = 0; t < thread_count; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}

TEST_CASE("8 threads first-calling the same configuration at once build its program exactly once", "[threads]") {
  SECTION("a direct family, Naive<5, 3> float, no transposes: one program") {
    const std::size_t before = tilegemm_test::programs_made();
    const std::vector<std::string> failures = run_together(
        [](int t) { return one_product<tilegemm::Naive<5, 3>, float>(9 + t, 14 - t, 6 + 2 * t, false, false); });
    CHECK(tilegemm_test::programs_made() - before == 1);
    for (int t = 0; t < thread_count; ++t) {
      INFO("thread " << t);
      CHECK(failures[t] == "");
    }
  }
  SECTION("a direct family, Naive<3, 7> double, two threads per transpose combination: four programs") {
    const std::size_t before = tilegemm_test::programs_made();
    const std::vector<std::string> failures = run_together(
        [](int t) { return one_product<tilegemm::Naive<3, 7>, double>(10 + t, 12, 7 + t, t % 2 == 1, t % 4 >= 2); });
    CHECK(tilegemm_test::programs_made() - before == 4);
    for (int t = 0; t < thread_count; ++t) {
      INFO("thread " << t);
      CHECK(failures[t] == "");
    }
  }
  SECTION("a packed family, VectorLoads<32, 16, 8, 4, 2, 2> double: one program") {
    // Make sure the support program (packing) for double exists, so that only the new GEMM program is counted.
    REQUIRE(one_product<tilegemm::RegisterBlocking<16, 16, 8, 2, 2>, double>(9, 10, 11, false, false) == "");
    const std::size_t before = tilegemm_test::programs_made();
    const std::vector<std::string> failures = run_together([](int t) {
      return one_product<tilegemm::VectorLoads<32, 16, 8, 4, 2, 2>, double>(20 + 3 * t, 17 + t, 5 + t, t % 2 == 0,
                                                                            t % 3 == 0);
    });
    CHECK(tilegemm_test::programs_made() - before == 1);
    for (int t = 0; t < thread_count; ++t) {
      INFO("thread " << t);
      CHECK(failures[t] == "");
    }
  }
}
