// test_staged_host_path: gpu_gemm's overlapped path through pinned slots, forced on with tiny slots so that CI's CPU
// device runs it on shapes that cross its panel and slot boundaries.
#include <Eigen/Dense>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

using Eigen::Index;
using tilegemm::detail::last_host_call_profile;
using tilegemm::detail::ScopedStagedPath;
using tilegemm::detail::StagedPathSettings;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;

namespace {

template <class S>
using RowMajorMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Every product from the first byte, on any device, with slots of `slot_bytes` and blocks of C of about
// `block_side` squared.
StagedPathSettings forced(std::size_t slot_bytes, std::size_t block_side = 32) {
  StagedPathSettings settings;
  settings.from_bytes = 0;
  settings.slot_bytes = slot_bytes;
  settings.block_side = block_side;
  settings.on_cpu_devices = true;
  return settings;
}

// Runs `product` and returns how many blocks of C the staged path made (0: it did not run).
template <class Product>
int blocks_of(Product&& product) {
  last_host_call_profile() = {};
  product();
  return last_host_call_profile().blocks;
}

// In place with random alpha and beta, and with beta = 0 into a poisoned C; each call must have been staged.
template <class S, class A, class B, class C>
void check_staged(const std::string& what, const A& a, const B& b, C& c) {
  INFO(what << ": A " << a.rows() << "x" << a.cols() << ", B " << b.rows() << "x" << b.cols());
  const Matrix<S> c0 = random_matrix<S>(c.rows(), c.cols());
  c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  CHECK(blocks_of([&] { tilegemm::gpu_gemm(a, b, c, alpha, beta); }) >= 1);
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");

  c.setConstant(poison<S>());
  CHECK(blocks_of([&] { tilegemm::gpu_gemm(a, b, c, alpha, S(0)); }) >= 1);
  CHECK(compare_with_reference<S>(c, alpha, a, b, 0, c0) == "");
}

}  // namespace

TEMPLATE_TEST_CASE("the staged host path: blocks and slots of every size, all four transposes", "[staged]", float,
                   double) {
  using S = TestType;
  // Blocks of about 32 x 32 (the last ones thinner), slots of 1 KiB that hold a few columns of a block: blocks of
  // rows and columns of both operands split over several slots, and columns longer than a slot (then a slot holds
  // one column). C's blocks are copied out by the drain on its own thread, and by the calling thread between blocks
  // (as where no thread can start).
  for (const bool drain_thread : {true, false}) {
    StagedPathSettings settings = forced(1024);
    settings.drain_thread = drain_thread;
    const ScopedStagedPath staged(settings);
    for (const auto& [m, n, k] :
         {std::tuple<Index, Index, Index>{1, 1, 1}, {67, 131, 45}, {300, 29, 7}, {5, 200, 301}}) {
      INFO((drain_thread ? "drain on its thread" : "drain on the calling thread"));
      Matrix<S> c(m, n);
      check_staged<S>("A B", random_matrix<S>(m, k), random_matrix<S>(k, n), c);
      const Matrix<S> at = random_matrix<S>(k, m), bt = random_matrix<S>(n, k);
      check_staged<S>("A^T B", at.transpose(), random_matrix<S>(k, n), c);
      check_staged<S>("A B^T", random_matrix<S>(m, k), bt.transpose(), c);
      check_staged<S>("A^T B^T", at.transpose(), bt.transpose(), c);
    }
  }
}

TEMPLATE_TEST_CASE("the staged host path: many blocks at once, the eager form and row-major C", "[staged]", float,
                   double) {
  using S = TestType;
  const Index m = 97, n = 389, k = 53;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  // Blocks of about 16: rows start at 0, 16, ..., 96 (7 blocks), columns at 0, 16, ..., 384 (25 blocks).
  const ScopedStagedPath staged(forced(4 * 97 * sizeof(S), 16));
  Matrix<S> eager;
  CHECK(blocks_of([&] { eager = tilegemm::gpu_gemm(a, b); }) == 7 * 25);
  CHECK(compare_with_reference<S>(eager, 1, a, b, 0, eager) == "");

  RowMajorMatrix<S> row_major(m, n);
  check_staged<S>("row-major C", a, b, row_major);
}

TEMPLATE_TEST_CASE("the staged host path: the first block in slices of K, all four transposes, C a block", "[staged]",
                   float, double) {
  using S = TestType;
  // Blocks of about 32, the first one in slices of K at least 16 deep: 45 / 16 = 2 slices of 22 and 23, 301 / 16 =
  // 18 slices; K = 31 is one slice (shallower than two). Slots of 1 KiB split the slices' uploads too.
  StagedPathSettings settings = forced(1024);
  settings.first_block_depth = 16;
  const ScopedStagedPath staged(settings);
  for (const auto& [m, n, k, slices] :
       {std::tuple<Index, Index, Index, int>{67, 131, 45, 2}, {5, 200, 301, 18}, {40, 33, 31, 1}}) {
    const S sentinel = S(-9876.5);
    Matrix<S> big_c = Matrix<S>::Constant(m + 3, n + 2, sentinel);
    auto c = big_c.block(2, 1, m, n);
    const Matrix<S> at = random_matrix<S>(k, m), bt = random_matrix<S>(n, k);
    check_staged<S>("A B", random_matrix<S>(m, k), random_matrix<S>(k, n), c);
    CHECK(last_host_call_profile().first_block_slices == slices);
    check_staged<S>("A^T B", at.transpose(), random_matrix<S>(k, n), c);
    check_staged<S>("A B^T", random_matrix<S>(m, k), bt.transpose(), c);
    check_staged<S>("A^T B^T", at.transpose(), bt.transpose(), c);
    CHECK(last_host_call_profile().first_block_slices == slices);
    Matrix<S> outside = big_c;
    outside.block(2, 1, m, n).setConstant(sentinel);
    CHECK((outside.array() == sentinel).all());
  }
}

TEST_CASE("the staged host path with C sharing memory with A or B reads the old values", "[staged]") {
  using S = float;
  const Index n = 90;
  // Blocks of about 16, so that C's first blocks are written back long before A's and B's last panels are read: the
  // operands transposed, since a block of C then overwrites stored columns that other blocks read later.
  const ScopedStagedPath staged(forced(4 * n * sizeof(S), 16));
  Matrix<S> a = random_matrix<S>(n, n), b = random_matrix<S>(n, n);
  const Matrix<S> a0 = a, b0 = b;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  CHECK(blocks_of([&] { tilegemm::gpu_gemm(a.transpose(), b, a, alpha, beta); }) >= 2);
  CHECK(compare_with_reference<S>(a, alpha, a0.transpose(), b0, beta, a0) == "");
  CHECK(blocks_of([&] { b = tilegemm::gpu_gemm(a0, b.transpose()); }) >= 2);
  CHECK(compare_with_reference<S>(b, 1, a0, b0.transpose(), 0, b0) == "");
}

TEST_CASE("the staged host path leaves the rest of a block C and of strided operands untouched", "[staged]") {
  using S = float;
  const Index m = 45, n = 70, k = 33;
  const S sentinel = -9876.5f;
  Matrix<S> big_c = Matrix<S>::Constant(m + 9, n + 5, sentinel);
  const Matrix<S> big_a = random_matrix<S>(m + 3, k + 4), b = random_matrix<S>(k, n);
  const ScopedStagedPath staged(forced(512));
  auto c = big_c.block(4, 2, m, n);
  const auto a = big_a.block(1, 3, m, k);
  check_staged<S>("blocks", a, b, c);
  Matrix<S> outside = big_c;
  outside.block(4, 2, m, n).setConstant(sentinel);
  CHECK((outside.array() == sentinel).all());
}

TEST_CASE("the staged host path runs only where it is asked to: large products on GPUs", "[staged]") {
  const Matrix<float> a = random_matrix<float>(40, 30), b = random_matrix<float>(30, 20);
  Matrix<float> c(40, 20);
  const bool on_cpu =
      tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU;
  StagedPathSettings gpu_only = forced(1024);
  gpu_only.on_cpu_devices = false;
  {
    const ScopedStagedPath staged(gpu_only);
    CHECK((blocks_of([&] { tilegemm::gpu_gemm(a, b, c, 1.0f, 0.0f); }) > 0) == !on_cpu);
  }
  StagedPathSettings large_only = forced(1024);
  large_only.from_bytes = (40 * 30 + 30 * 20 + 40 * 20) * sizeof(float) + 1;
  {
    const ScopedStagedPath staged(large_only);
    CHECK(blocks_of([&] { tilegemm::gpu_gemm(a, b, c, 1.0f, 0.0f); }) == 0);
  }
  CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
}

TEST_CASE("the staged host path from several threads at once, and release_resources() gives its pinned memory back",
          "[staged]") {
  std::vector<std::string> failures(6);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&failures, t] {
      const ScopedStagedPath staged(forced(2048));  // settings are per thread
      for (int round = 0; round < 3; ++round) {
        const Index m = 50 + 13 * static_cast<Index>(t), n = 77, k = 31 + round;
        const Matrix<double> a = random_matrix<double>(m, k), b = random_matrix<double>(k, n);
        Matrix<double> c = Matrix<double>::Constant(m, n, poison<double>());
        if (blocks_of([&] { tilegemm::gpu_gemm(a, b, c, 1.0, 0.0); }) < 2) failures[t] = "not staged in blocks";
        const std::string error = compare_with_reference<double>(c, 1, a, b, 0, c);
        if (!error.empty()) failures[t] = error;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) CHECK(failure == "");

  CHECK(tilegemm::detail::held_resources().pinned_bytes > 0);
  tilegemm::release_resources();
  CHECK(tilegemm::detail::held_resources().pinned_bytes == 0);
}
