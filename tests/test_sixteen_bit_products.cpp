// test_sixteen_bit_products: gpu_gemm on Eigen::half and Eigen::bfloat16 matrices through the 16-bit core: a result of
// the input type or float, every kind of operand, device matrices, chains, asynchronous calls and batches, against a
// double reference from the rounded inputs.
#include <Eigen/Dense>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "sixteen_bit_reference.hpp"

using Eigen::Dynamic;
using Eigen::Index;
using tilegemm::DeviceMatrix;
using tilegemm::gpu_gemm;
using tilegemm_test::compare_sixteen_bit;
using tilegemm_test::from_bits;
using tilegemm_test::Matrix;
using tilegemm_test::poisoned_of;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;
using tilegemm_test::random_sixteen_bit;
using tilegemm_test::same_bits;

namespace {

template <class S>
using RowMajorOf = Eigen::Matrix<S, Dynamic, Dynamic, Eigen::RowMajor>;

// A C of type Out with random values (16-bit ones rounded from [-1, 1]).
template <class Out>
Matrix<Out> random_c(Index rows, Index cols) {
  return random_matrix<float>(rows, cols).template cast<Out>();
}

template <class S>
bool is_nan(S x) {
  return std::isnan(static_cast<float>(x));
}

}  // namespace

TEMPLATE_TEST_CASE("gpu_gemm(A, B) of 16-bit matrices is a matrix of their type, rounded once from a float sum",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> a = random_sixteen_bit<S>(13, 61), b = random_sixteen_bit<S>(61, 17);
  static_assert(std::is_same_v<typename decltype(gpu_gemm(a, b))::PlainObject, Matrix<S>>);
  Matrix<S> c = poisoned_of<S>(13, 17);
  c = gpu_gemm(a, b);
  CHECK(compare_sixteen_bit<S>(c, 1, a, b, 0, c) == "");
  const Matrix<S> made = gpu_gemm(a, b);  // a new matrix, and one of another shape resized
  CHECK(compare_sixteen_bit<S>(made, 1, a, b, 0, made) == "");
  Matrix<S> resized = poisoned_of<S>(2, 3);
  resized = gpu_gemm(a, b);
  CHECK(compare_sixteen_bit<S>(resized, 1, a, b, 0, resized) == "");
  const Matrix<S> c0 = random_c<S>(13, 17);
  Matrix<S> added = c0;
  added += gpu_gemm(a, b);
  CHECK(compare_sixteen_bit<S>(added, 1, a, b, 1, c0) == "");
  Matrix<S> subtracted = c0;
  subtracted -= gpu_gemm(tilegemm::default_queue(), a, b);
  CHECK(compare_sixteen_bit<S>(subtracted, -1, a, b, 1, c0) == "");
}

TEMPLATE_TEST_CASE("gpu_gemm(A, B, C, alpha, beta) of 16-bit A and B into a float C and into a 16-bit C",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> a = random_sixteen_bit<S>(19, 45), b = random_sixteen_bit<S>(45, 11);
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  SECTION("float C") {
    const Matrix<float> c0 = random_c<float>(19, 11);
    Matrix<float> c = c0;
    gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_sixteen_bit<float>(c, alpha, a, b, beta, c0) == "");
    Matrix<float> fresh = poisoned_of<float>(19, 11);  // beta = 0 does not read C
    gpu_gemm(tilegemm::default_queue(), a, b, fresh, alpha, 0.0f);
    CHECK(compare_sixteen_bit<float>(fresh, alpha, a, b, 0, fresh) == "");
  }
  SECTION("16-bit C") {
    const Matrix<S> c0 = random_c<S>(19, 11);
    Matrix<S> c = c0;
    gpu_gemm(a, b, c, alpha, beta);
    CHECK(compare_sixteen_bit<S>(c, alpha, a, b, beta, c0) == "");
    Matrix<S> fresh = poisoned_of<S>(19, 11);
    gpu_gemm(a, b, fresh, alpha, 0.0f);
    CHECK(compare_sixteen_bit<S>(fresh, alpha, a, b, 0, fresh) == "");
  }
}

TEMPLATE_TEST_CASE("16-bit operands as views: transposes, blocks, strided Maps, row-major, expressions, C a block",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> at = random_sixteen_bit<S>(23, 9);  // A = at^T, 9 x 23
  const Matrix<S> big_b = random_sixteen_bit<S>(30, 20);
  const auto b = big_b.block(3, 2, 23, 14);  // 23 x 14
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  SECTION("a transpose and a block, into a block of a bigger float C") {
    Matrix<float> big_c = random_c<float>(12, 18);
    const Matrix<float> before = big_c;
    gpu_gemm(at.transpose(), b, big_c.block(1, 2, 9, 14), alpha, beta);
    CHECK(compare_sixteen_bit<float>(big_c.block(1, 2, 9, 14), alpha, at.transpose(), b, beta,
                                     before.block(1, 2, 9, 14)) == "");
    CHECK(big_c.topRows(1) == before.topRows(1));
    CHECK(big_c.leftCols(2) == before.leftCols(2));
    CHECK(big_c.rightCols(2) == before.rightCols(2));
    CHECK(big_c.bottomRows(2) == before.bottomRows(2));
  }
  SECTION("a Map with an outer stride, a row-major B, into a row-major 16-bit C") {
    Eigen::Map<const Matrix<S>, 0, Eigen::OuterStride<>> a(at.data() + 1, 9, 2, Eigen::OuterStride<>(23));
    const RowMajorOf<S> b2 = b.topRows(2);
    const RowMajorOf<S> c0 = random_c<S>(9, 14);
    RowMajorOf<S> c = c0;
    gpu_gemm(a, b2, c, alpha, beta);
    CHECK(compare_sixteen_bit<S>(c, alpha, a, b2, beta, c0) == "");
  }
  SECTION("an expression and a C with an inner stride (through a copy)") {
    const Matrix<S> a = random_sixteen_bit<S>(9, 23);
    std::vector<S> spaced(static_cast<std::size_t>(2 * 9 * 14), from_bits<S>(0x1234));
    Eigen::Map<Matrix<S>, 0, Eigen::InnerStride<2>> c(spaced.data(), 9, 14);
    const Matrix<S> c0 = random_c<S>(9, 14);
    c = c0;
    gpu_gemm(a, (b + b).eval(), c, alpha, beta);
    CHECK(compare_sixteen_bit<S>(c, alpha, a, (b + b).eval(), beta, c0) == "");
    for (std::size_t i = 1; i < spaced.size(); i += 2) REQUIRE(tilegemm_test::bits_of(spaced[i]) == 0x1234);
  }
  SECTION("C = gpu_gemm(C, B): C is A as well") {
    Matrix<S> c = random_sixteen_bit<S>(23, 23);
    const Matrix<S> c0 = c;
    const Matrix<S> square = random_sixteen_bit<S>(23, 23);
    c = gpu_gemm(c, square);
    CHECK(compare_sixteen_bit<S>(c, 1, c0, square, 0, c) == "");
  }
}

TEMPLATE_TEST_CASE("16-bit products: K = 0 and alpha = 0 scale C by beta", "[sixteen_bit]", Eigen::half,
                   Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> c0 = random_c<S>(5, 4);
  Matrix<S> c = c0;
  gpu_gemm(Matrix<S>(5, 0), Matrix<S>(0, 4), c, 1.5f, 2.0f);
  CHECK(same_bits(c, (c0.template cast<float>() * 2.0f).template cast<S>()) == "");
  Matrix<float> cf = c0.template cast<float>();
  gpu_gemm(random_sixteen_bit<S>(5, 3), random_sixteen_bit<S>(3, 4), cf, 0.0f, 0.5f);
  CHECK(cf == (c0.template cast<float>() * 0.5f));
}

TEMPLATE_TEST_CASE("16-bit products keep infinities and NaN, overflow as their type does, and read subnormals",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  constexpr bool half = std::is_same_v<S, Eigen::half>;
  Matrix<S> a = Matrix<S>::Zero(4, 4), b = Matrix<S>::Constant(4, 2, S(1.0f));
  a(0, 0) = from_bits<S>(half ? 0x7C00 : 0x7F80);  // +inf
  a(1, 2) = from_bits<S>(half ? 0x7E00 : 0x7FC0);  // NaN
  const float large = half ? 65504.0f : 3.0e38f;   // the sum of four overflows half, and float too for bfloat16
  for (Index k = 0; k < 4; ++k) a(2, k) = S(large);
  if (half) a(3, 1) = from_bits<S>(0x0001);  // 2^-24, half's smallest subnormal (a normal float)
  const Matrix<S> c = gpu_gemm(a, b);
  Matrix<float> cf(4, 2);
  gpu_gemm(a, b, cf, 1.0f, 0.0f);
  for (Index j = 0; j < 2; ++j) {
    CHECK(std::isinf(static_cast<float>(c(0, j))));
    CHECK(static_cast<float>(c(0, j)) > 0);
    CHECK(std::isinf(cf(0, j)));
    CHECK(is_nan(c(1, j)));
    CHECK(std::isnan(cf(1, j)));
    CHECK(std::isinf(static_cast<float>(c(2, j))));
    if (half) {
      CHECK(cf(2, j) == 4 * 65504.0f);
      CHECK(tilegemm_test::bits_of(c(3, j)) == 0x0001);
      CHECK(cf(3, j) == std::ldexp(1.0f, -24));
    } else {
      CHECK(std::isinf(cf(2, j)));
    }
  }
}

TEMPLATE_TEST_CASE("16-bit device matrices: products, views, a float C on the device, mixed operands, chains",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> a = random_sixteen_bit<S>(21, 37), b = random_sixteen_bit<S>(37, 15),
                  d = random_sixteen_bit<S>(15, 6);
  const DeviceMatrix<S> da(a), db(b), dd(d);
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  SECTION("A * B stays on the device, in the input type") {
    const DeviceMatrix<S> dc = gpu_gemm(da, db);
    CHECK(compare_sixteen_bit<S>(dc.to_host(), 1, a, b, 0, a) == "");
    const DeviceMatrix<S> dv = gpu_gemm(da.transpose().block(3, 2, 30, 19).transpose(), db.block(3, 0, 30, 15));
    CHECK(compare_sixteen_bit<S>(dv.to_host(), 1, a.block(2, 3, 19, 30), b.block(3, 0, 30, 15), 0, a) == "");
  }
  SECTION("a float device C and a 16-bit device block as C, in place") {
    const Matrix<float> c0 = random_c<float>(21, 15);
    DeviceMatrix<float> dc(c0);
    gpu_gemm(da, db, dc, alpha, beta);
    CHECK(compare_sixteen_bit<float>(dc.to_host(), alpha, a, b, beta, c0) == "");
    const Matrix<S> big0 = random_c<S>(25, 20);
    DeviceMatrix<S> big(big0);
    gpu_gemm(da, db, big.block(2, 3, 21, 15), alpha, beta);
    const Matrix<S> after = big.to_host();
    CHECK(compare_sixteen_bit<S>(after.block(2, 3, 21, 15), alpha, a, b, beta, big0.block(2, 3, 21, 15)) == "");
    CHECK(same_bits(after.leftCols(3), big0.leftCols(3)) == "");
    CHECK(same_bits(after.rightCols(2), big0.rightCols(2)) == "");
    CHECK(same_bits(after.topRows(2), big0.topRows(2)) == "");
    CHECK(same_bits(after.bottomRows(2), big0.bottomRows(2)) == "");
  }
  SECTION("a transposed device C: the product's transpose written in place") {
    const Matrix<S> ct0 = random_c<S>(15, 21);
    DeviceMatrix<S> ct(ct0);
    gpu_gemm(da, db, ct.transpose(), alpha, beta);
    CHECK(compare_sixteen_bit<S>(ct.to_host().transpose(), alpha, a, b, beta, ct0.transpose()) == "");
  }
  SECTION("host and device operands mixed; a host float C") {
    const DeviceMatrix<S> dc = gpu_gemm(a, db);
    CHECK(compare_sixteen_bit<S>(dc.to_host(), 1, a, b, 0, a) == "");
    const Matrix<float> c0 = random_c<float>(21, 15);
    Matrix<float> c = c0;
    gpu_gemm(da, b, c, alpha, beta);
    CHECK(compare_sixteen_bit<float>(c, alpha, a, b, beta, c0) == "");
    RowMajorOf<S> rows = random_c<S>(21, 15);
    const Matrix<S> rows0 = rows;
    gpu_gemm(a, db, rows, alpha, beta);
    CHECK(compare_sixteen_bit<S>(rows, alpha, a, b, beta, rows0) == "");
  }
  SECTION("chains: each product rounded to the input type on the device") {
    const DeviceMatrix<S> ab = gpu_gemm(da, db);
    const Matrix<S> ab_host = ab.to_host();
    const DeviceMatrix<S> abd = gpu_gemm(gpu_gemm(da, db), dd);
    CHECK(compare_sixteen_bit<S>(abd.to_host(), 1, ab_host, d, 0, d) == "");
    const Matrix<S> on_host = gpu_gemm(ab, d).to_host();
    CHECK(compare_sixteen_bit<S>(on_host, 1, ab_host, d, 0, d) == "");
  }
}

TEMPLATE_TEST_CASE("gpu_gemm_async of 16-bit operands: host, device and in place", "[sixteen_bit]", Eigen::half,
                   Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> a = random_sixteen_bit<S>(17, 33), b = random_sixteen_bit<S>(33, 9);
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  tilegemm::Pending<Matrix<S>> host = tilegemm::gpu_gemm_async(a, b);
  const DeviceMatrix<S> da(a), db(b);
  tilegemm::Pending<DeviceMatrix<S>> device = tilegemm::gpu_gemm_async(da, db);
  const Matrix<float> c0 = random_c<float>(17, 9);
  Matrix<float> c = c0;
  tilegemm::Pending<void> in_place = tilegemm::gpu_gemm_async(a, b, c, alpha, beta);
  const Matrix<S> h0 = random_c<S>(17, 9);
  Matrix<S> h = h0;
  tilegemm::Pending<void> device_into_host = tilegemm::gpu_gemm_async(da, b, h, alpha, beta);
  const Matrix<float> f0 = random_c<float>(17, 9);
  DeviceMatrix<float> df(f0);
  tilegemm::Pending<void> on_device = tilegemm::gpu_gemm_async(da, db, df, alpha, beta);
  CHECK(compare_sixteen_bit<S>(host.get(), 1, a, b, 0, a) == "");
  CHECK(compare_sixteen_bit<S>(device.get().to_host(), 1, a, b, 0, a) == "");
  on_device.wait();
  CHECK(compare_sixteen_bit<float>(df.to_host(), alpha, a, b, beta, f0) == "");
  in_place.wait();
  CHECK(compare_sixteen_bit<float>(c, alpha, a, b, beta, c0) == "");
  device_into_host.wait();
  CHECK(compare_sixteen_bit<S>(h, alpha, a, b, beta, h0) == "");
}

TEMPLATE_TEST_CASE("gpu_gemm_batched on 16-bit host matrices and device batches, into 16-bit and float C",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  std::vector<Matrix<S>> a, b;
  for (int p = 0; p < 3; ++p) {
    a.push_back(random_sixteen_bit<S>(7, 29));
    b.push_back(random_sixteen_bit<S>(29, 5));
  }
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  SECTION("host matrices") {
    const std::vector<Matrix<S>> c = tilegemm::gpu_gemm_batched(a, b);
    REQUIRE(c.size() == 3);
    for (std::size_t p = 0; p < 3; ++p) CHECK(compare_sixteen_bit<S>(c[p], 1, a[p], b[p], 0, c[p]) == "");
    std::vector<Matrix<float>> cf, cf0;
    for (int p = 0; p < 3; ++p) cf0.push_back(random_c<float>(7, 5));
    cf = cf0;
    tilegemm::gpu_gemm_batched(a, b, cf, alpha, beta);
    for (std::size_t p = 0; p < 3; ++p) CHECK(compare_sixteen_bit<float>(cf[p], alpha, a[p], b[p], beta, cf0[p]) == "");
  }
  SECTION("K = 0 scales each 16-bit C by beta, alpha = 0 each float C") {
    std::vector<Matrix<S>> c0, c;
    std::vector<Matrix<float>> cf0, cf;
    for (int p = 0; p < 3; ++p) {
      c0.push_back(random_c<S>(7, 5));
      cf0.push_back(random_c<float>(7, 5));
    }
    c = c0;
    cf = cf0;
    tilegemm::gpu_gemm_batched(std::vector<Matrix<S>>(3, Matrix<S>(7, 0)), std::vector<Matrix<S>>(3, Matrix<S>(0, 5)),
                               c, alpha, 2.0f);
    tilegemm::gpu_gemm_batched(a, b, cf, 0.0f, 0.5f);
    for (std::size_t p = 0; p < 3; ++p) {
      CHECK(same_bits(c[p], (c0[p].template cast<float>() * 2.0f).template cast<S>()) == "");
      CHECK(cf[p] == cf0[p] * 0.5f);
    }
  }
  SECTION("device batches, contiguous and gathered") {
    const std::vector<DeviceMatrix<S>> da = tilegemm::device_batch(a), db = tilegemm::device_batch(b);
    const std::vector<DeviceMatrix<S>> dc = tilegemm::gpu_gemm_batched(da, db);
    REQUIRE(dc.size() == 3);
    for (std::size_t p = 0; p < 3; ++p) CHECK(compare_sixteen_bit<S>(dc[p].to_host(), 1, a[p], b[p], 0, a[p]) == "");
    std::vector<Matrix<float>> cf0;
    std::vector<DeviceMatrix<S>> gathered_a;
    std::vector<DeviceMatrix<float>> gathered_c;
    for (std::size_t p = 0; p < 3; ++p) {
      cf0.push_back(random_c<float>(7, 5));
      gathered_a.emplace_back(a[p]);
      gathered_c.emplace_back(cf0[p]);
    }
    std::vector<DeviceMatrix<float>> dcf = tilegemm::device_batch(cf0);
    tilegemm::gpu_gemm_batched(da, db, dcf, alpha, beta);
    for (std::size_t p = 0; p < 3; ++p) {
      CHECK(compare_sixteen_bit<float>(dcf[p].to_host(), alpha, a[p], b[p], beta, cf0[p]) == "");
    }
    tilegemm::gpu_gemm_batched(gathered_a, db, gathered_c, alpha, beta);
    for (std::size_t p = 0; p < 3; ++p) {
      CHECK(compare_sixteen_bit<float>(gathered_c[p].to_host(), alpha, a[p], b[p], beta, cf0[p]) == "");
    }
  }
}

TEMPLATE_TEST_CASE("16-bit host products through the staged path: transposes, row-major and float C", "[sixteen_bit]",
                   Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  // Forced on this device from the first byte, with slots of 1 KiB and blocks of C of about 16 x 16.
  tilegemm::detail::StagedPathSettings forced;
  forced.from_bytes = 0;
  forced.slot_bytes = 1024;
  forced.block_side = 16;
  forced.on_cpu_devices = true;
  const tilegemm::detail::ScopedStagedPath staged(forced);
  const auto blocks_of = [](auto&& product) {
    tilegemm::detail::last_host_call_profile() = {};
    product();
    return tilegemm::detail::last_host_call_profile().blocks;
  };
  const Matrix<S> at = random_sixteen_bit<S>(45, 37), b = random_sixteen_bit<S>(45, 29);
  const float alpha = random_scalar<float>(), beta = random_scalar<float>();
  const Matrix<float> c0 = random_c<float>(37, 29);
  Matrix<float> c = c0;
  CHECK(blocks_of([&] { gpu_gemm(at.transpose(), b, c, alpha, beta); }) >= 1);
  CHECK(compare_sixteen_bit<float>(c, alpha, at.transpose(), b, beta, c0) == "");
  RowMajorOf<S> rows = poisoned_of<S>(37, 29);
  CHECK(blocks_of([&] { gpu_gemm(at.transpose(), b, rows, alpha, 0.0f); }) >= 1);
  CHECK(compare_sixteen_bit<S>(rows, alpha, at.transpose(), b, 0, rows) == "");
}

TEST_CASE("16-bit products from 4 threads at once, on the host and on the device", "[sixteen_bit]") {
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      try {
        for (int round = 0; round < 3; ++round) {
          const Index m = static_cast<Index>(5 + t), k = static_cast<Index>(20 + 3 * t + round);
          const Matrix<Eigen::bfloat16> a = random_sixteen_bit<Eigen::bfloat16>(m, k);
          const Matrix<Eigen::bfloat16> b = random_sixteen_bit<Eigen::bfloat16>(k, 7);
          const Matrix<Eigen::half> ah = a.cast<float>().cast<Eigen::half>(), bh = b.cast<float>().cast<Eigen::half>();
          Matrix<float> c(m, 7);
          gpu_gemm(a, b, c, 1.0f, 0.0f);
          std::string failure = compare_sixteen_bit<float>(c, 1, a, b, 0, c);
          const DeviceMatrix<Eigen::half> dh = gpu_gemm(DeviceMatrix<Eigen::half>(ah), bh);
          if (failure.empty()) failure = compare_sixteen_bit<Eigen::half>(dh.to_host(), 1, ah, bh, 0, ah);
          if (!failure.empty()) {
            failures[t] = failure;
            return;
          }
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) CHECK(failure == "");
}

TEST_CASE("16-bit products refuse operands of the wrong shape with both shapes in the message", "[sixteen_bit]") {
  const Matrix<Eigen::half> a(4, 5), b(6, 3);
  Matrix<float> c(4, 3);
  CHECK_THROWS_WITH(gpu_gemm(a, b, c, 1.0f, 0.0f), MESSAGE_CONTAINS("cannot multiply A (4x5) by B (6x3)"));
  const DeviceMatrix<Eigen::half> da(Matrix<Eigen::half>::Zero(4, 5)), db(Matrix<Eigen::half>::Zero(6, 3));
  CHECK_THROWS_AS(gpu_gemm(da, db), std::invalid_argument);
}

// The sizes and depths of issue 29 with each layout and output type, against the bound.
TEMPLATE_TEST_CASE("16-bit products over sizes 1 to 257 and depths 1 to 4097, transposed or not, 16-bit or float C",
                   "[sixteen_bit][slow]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  for (const Index size : {1, 7, 61, 129, 257}) {
    for (const Index k : {1, 1000, 4097}) {
      for (const bool transposed : {false, true}) {
        CAPTURE(size, k, transposed);
        const Matrix<S> a = random_sixteen_bit<S>(transposed ? k : size, transposed ? size : k);
        const Matrix<S> b = random_sixteen_bit<S>(transposed ? size + 2 : k, transposed ? k : size + 2);
        const float alpha = random_scalar<float>(), beta = random_scalar<float>();
        const Matrix<float> cf0 = random_c<float>(size, size + 2);
        Matrix<float> cf = cf0;
        Matrix<S> c = poisoned_of<S>(size, size + 2);
        if (transposed) {
          gpu_gemm(a.transpose(), b.transpose(), cf, alpha, beta);
          gpu_gemm(a.transpose(), b.transpose(), c, alpha, 0.0f);
          CHECK(compare_sixteen_bit<float>(cf, alpha, a.transpose(), b.transpose(), beta, cf0) == "");
          CHECK(compare_sixteen_bit<S>(c, alpha, a.transpose(), b.transpose(), 0, c) == "");
        } else {
          gpu_gemm(a, b, cf, alpha, beta);
          gpu_gemm(a, b, c, alpha, 0.0f);
          CHECK(compare_sixteen_bit<float>(cf, alpha, a, b, beta, cf0) == "");
          CHECK(compare_sixteen_bit<S>(c, alpha, a, b, 0, c) == "");
        }
      }
    }
  }
}
