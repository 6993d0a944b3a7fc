// test_sixteen_bit_storage: DeviceMatrix<Eigen::half> and DeviceMatrix<Eigen::bfloat16> up and down bit for bit (NaN
// payloads, infinities, subnormals, -0), through every kind of Eigen operand, views, clones and device batches.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"
#include "sixteen_bit_reference.hpp"

using Eigen::Dynamic;
using Eigen::Index;
using tilegemm::DeviceMatrix;
using tilegemm_test::Matrix;
using tilegemm_test::poisoned_of;
using tilegemm_test::random_bit_patterns;
using tilegemm_test::same_bits;

namespace {

template <class S>
using RowMajor16 = Eigen::Matrix<S, Dynamic, Dynamic, Eigen::RowMajor>;

}  // namespace

TEMPLATE_TEST_CASE("a 16-bit DeviceMatrix goes up and comes down bit for bit: NaN payloads, infinities, subnormals, -0",
                   "[sixteen_bit]", Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> host = random_bit_patterns<S>(37, 23);
  const DeviceMatrix<S> device(host);
  CHECK(device.rows() == 37);
  CHECK(device.cols() == 23);
  CHECK(same_bits(device.to_host(), host) == "");

  Matrix<S> into = poisoned_of<S>(37, 23);
  device.to_host(into);
  CHECK(same_bits(into, host) == "");

  // Into a row-major matrix, a block of a bigger one and a Map with an inner stride.
  RowMajor16<S> row_major(37, 23);
  device.to_host(row_major);
  CHECK(same_bits(row_major, host) == "");
  Matrix<S> bigger = random_bit_patterns<S>(40, 30);
  const Matrix<S> before = bigger;
  device.to_host(bigger.block(2, 5, 37, 23));
  CHECK(same_bits(bigger.block(2, 5, 37, 23), host) == "");
  CHECK(same_bits(bigger.leftCols(5), before.leftCols(5)) == "");
  CHECK(same_bits(bigger.rightCols(2), before.rightCols(2)) == "");
  CHECK(same_bits(bigger.block(0, 5, 2, 23), before.block(0, 5, 2, 23)) == "");
  CHECK(same_bits(bigger.block(39, 5, 1, 23), before.block(39, 5, 1, 23)) == "");
  std::vector<S> spaced(static_cast<std::size_t>(3 * 37 * 23));
  Eigen::Map<Matrix<S>, 0, Eigen::Stride<Dynamic, Dynamic>> inner(spaced.data(), 37, 23,
                                                                  Eigen::Stride<Dynamic, Dynamic>(3 * 37, 3));
  device.to_host(inner);
  CHECK(same_bits(inner, host) == "");
}

TEMPLATE_TEST_CASE("a 16-bit DeviceMatrix made from each kind of Eigen operand holds its bits", "[sixteen_bit]",
                   Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> host = random_bit_patterns<S>(29, 31);
  SECTION("row-major") {
    const RowMajor16<S> row_major = host;
    CHECK(same_bits(DeviceMatrix<S>(row_major).to_host(), host) == "");
  }
  SECTION("a transpose") { CHECK(same_bits(DeviceMatrix<S>(host.transpose()).to_host(), host.transpose()) == ""); }
  SECTION("a block") {
    CHECK(same_bits(DeviceMatrix<S>(host.block(3, 4, 11, 17)).to_host(), host.block(3, 4, 11, 17)) == "");
  }
  SECTION("a Map with an outer stride") {
    Eigen::Map<const Matrix<S>, 0, Eigen::OuterStride<>> map(host.data() + 2, 20, 31, Eigen::OuterStride<>(29));
    CHECK(same_bits(DeviceMatrix<S>(map).to_host(), map) == "");
  }
  SECTION("a Map with an inner stride") {
    Eigen::Map<const Matrix<S>, 0, Eigen::InnerStride<2>> map(host.data(), 14, 31);
    CHECK(same_bits(DeviceMatrix<S>(map).to_host(), map) == "");
  }
}

TEMPLATE_TEST_CASE("16-bit device views, clones, user buffers and device batches keep every bit", "[sixteen_bit]",
                   Eigen::half, Eigen::bfloat16) {
  using S = TestType;
  const Matrix<S> host = random_bit_patterns<S>(19, 26);
  const DeviceMatrix<S> device(host);
  CHECK(same_bits(device.block(2, 3, 10, 7).to_host(), host.block(2, 3, 10, 7)) == "");
  CHECK(same_bits(device.transpose().to_host(), host.transpose()) == "");
  CHECK(same_bits(device.transpose().block(1, 4, 5, 9).to_host(), host.transpose().block(1, 4, 5, 9)) == "");
  CHECK(same_bits(device.col(5).to_host(), host.col(5)) == "");
  CHECK(same_bits(device.row(7).to_host(), host.row(7)) == "");
  const DeviceMatrix<S> copy = device.clone();
  CHECK(same_bits(copy.to_host(), host) == "");

  // Around a user's buffer: 19 x 26 from element 5 with leading dimension 23.
  const cl::CommandQueue queue = tilegemm::default_queue();
  Matrix<S> padded = random_bit_patterns<S>(23, 27);
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, sizeof(S) * padded.size());
  REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, sizeof(S) * padded.size(), padded.data()) == CL_SUCCESS);
  const DeviceMatrix<S> around(buffer, 18, 26, 23, 5, queue);
  CHECK(same_bits(around.to_host(), Eigen::Map<Matrix<S>, 0, Eigen::OuterStride<>>(padded.data() + 5, 18, 26,
                                                                                   Eigen::OuterStride<>(23))) == "");

  std::vector<Matrix<S>> many;
  for (int p = 0; p < 3; ++p) many.push_back(random_bit_patterns<S>(6, 5));
  const std::vector<DeviceMatrix<S>> batch = tilegemm::device_batch(many);
  REQUIRE(batch.size() == 3);
  for (std::size_t p = 0; p < 3; ++p) CHECK(same_bits(batch[p].to_host(), many[p]) == "");
}

TEST_CASE("the 16-bit types are laid out as their bits", "[sixteen_bit]") {
  static_assert(sizeof(Eigen::half) == 2 && sizeof(Eigen::bfloat16) == 2);
  CHECK(tilegemm_test::bits_of(Eigen::half(1.0f)) == 0x3C00);
  CHECK(tilegemm_test::bits_of(Eigen::bfloat16(1.0f)) == 0x3F80);
  CHECK(tilegemm_test::bits_of(Eigen::half(-2.0f)) == 0xC000);
  CHECK(tilegemm_test::bits_of(Eigen::bfloat16(-2.0f)) == 0xC000);
}
