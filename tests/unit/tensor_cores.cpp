// unit/tensor_cores: the cases of test_tensor_cores that need no OpenCL device (the unit tier, built by unit_tests).
// ScopedMathMode, and the refusal, before anything is built, on devices without tensor cores. On NVIDIA GPUs of
// compute capability 8.0 and newer: every mode in float and double, odd shapes, all transposes, offsets, alpha and
// beta against a double-precision reference, and the accuracy of tf32x3 against the IEEE kernels on the same data.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"

namespace {

using tilegemm::MathMode;
using tilegemm::Transpose;
using tilegemm_test::Matrix;

// The configurations the GPU tests run: few, since each mode is a program of its own (the second is AutoConfig's
// small tensor candidate, which the first product on a GPU builds anyway).
using Small = tilegemm::TensorCores<64, 64, 16, 32, 32, 2>;
using Large = tilegemm::TensorCores<128, 128, 8, 64, 32, 2>;
// AutoConfig's large choices on an H200 (gemm/default_plan.hpp): double 4 slices 4 deep (m16n8k4, rows of doubles
// padded), tf32x3 5 slices 8 deep (rows of floats swizzled).
using DoubleLarge = tilegemm::TensorCores<128, 128, 4, 64, 32, 4>;
using FloatLarge = tilegemm::TensorCores<128, 128, 8, 64, 64, 5>;
// Its choices for sizes just past a multiple of the tiles, whole C in 96 x 96 tiles (gemm/default_plan.hpp).
using FloatOdd = tilegemm::TensorCores<96, 96, 16, 48, 48, 3>;
using DoubleOdd = tilegemm::TensorCores<96, 96, 4, 48, 24, 4>;

// The warpgroup_mma family (wgmma, TF32, compute capability 9.0): two warpgroups with slices 8 deep within 48 KiB,
// and AutoConfig's choices there, whose slices take up to 192 KiB of local memory (runtime/sm90a_local_memory.hpp).
using Warpgroup = tilegemm::WarpgroupMma<128, 128, 8, 6>;
using WarpgroupSmall = tilegemm::WarpgroupMma<64, 128, 32, 4>;       // AutoConfig's tf32 for small C
using WarpgroupDeep = tilegemm::WarpgroupMma<128, 128, 32, 3>;       // tf32
using WarpgroupWide = tilegemm::WarpgroupMma<128, 256, 32, 3>;       // tf32 for large C
using WarpgroupSmallSplit = tilegemm::WarpgroupMma<64, 128, 16, 8>;  // tf32x3 for small C
using WarpgroupDeepSplit = tilegemm::WarpgroupMma<128, 128, 32, 6>;  // tf32x3

// The bulk_tensor_cores family (double fed by the copy engine, compute capability 9.0): AutoConfig's choice for large
// C (135 KiB of local memory), and a small one within 48 KiB.
using Bulk = tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>;
using BulkSmall = tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>;

// TF32 keeps 10 of FP32's 23 mantissa bits: rounding to it is off by at most 2^-11 relative. tf32x3 keeps an
// operand as two TF32 values, 22 bits, and drops the product of the low parts: a product is off by at most
// 3 * 2^-22 of its size (reference.hpp's operand_rounding counts twice what it is given).
constexpr double tf32_rounding = 0x1p-11;
constexpr double tf32x3_rounding = 1.5 * 0x1p-22;

struct Shape {
  int m, n, k;
};

// An operand stored column-major in a buffer at a random offset with a padded leading dimension, NaN around it.
template <class Scalar>
struct Stored {
  int offset = 0;
  int ld = 1;
  std::vector<Scalar> storage;

  explicit Stored(const Matrix<Scalar>& v, Scalar surround) {
    std::uniform_int_distribution<int> pick(0, 5);
    offset = pick(tilegemm_test::generator());
    ld = static_cast<int>(v.rows()) + pick(tilegemm_test::generator()) % 3;
    storage.assign(offset + static_cast<std::size_t>(ld) * v.cols() + 1, surround);
    for (Eigen::Index j = 0; j < v.cols(); ++j)
      for (Eigen::Index i = 0; i < v.rows(); ++i) storage[offset + i + j * ld] = v(i, j);
  }
  cl::Buffer upload(const cl::Context& context) {
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(Scalar) * storage.size(),
                      storage.data(), &status);
    REQUIRE(status == CL_SUCCESS);
    return buffer;
  }
};

// C = alpha * op(A) * op(B) + beta * C through tilegemm::gemm<Scalar, Config> in `math`, checked against the
// reference (with TF32's rounding of the operands in that mode) and C's surroundings untouched.
template <class Config, class Scalar>
void check_product(const cl::CommandQueue& queue, MathMode math, bool trans_a, bool trans_b, Shape s, Scalar alpha,
                   Scalar beta) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(s.m, s.k);
  const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(s.k, s.n);
  const Scalar nan = tilegemm_test::poison<Scalar>();
  const Matrix<Scalar> c0 =
      beta == Scalar(0) ? Matrix<Scalar>::Constant(s.m, s.n, nan) : tilegemm_test::random_matrix<Scalar>(s.m, s.n);
  const Scalar sentinel = Scalar(12345);
  Stored<Scalar> a(trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a, nan);
  Stored<Scalar> b(trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b, nan);
  Stored<Scalar> c(c0, sentinel);
  INFO(Config::name() << (std::is_same_v<Scalar, float> ? " float " : " double ")
                      << tilegemm::detail::math_mode_name(math) << ", m=" << s.m << " n=" << s.n << " k=" << s.k
                      << ", transA=" << trans_a << " transB=" << trans_b << ", alpha=" << alpha << " beta=" << beta
                      << ", offsets " << a.offset << "/" << b.offset << "/" << c.offset << ", ld " << a.ld << "/"
                      << b.ld << "/" << c.ld << ", seed " << tilegemm_test::run_seed());
  const cl::Buffer buffer_a = a.upload(context), buffer_b = b.upload(context), buffer_c = c.upload(context);
  tilegemm::gemm<Scalar, Config>(queue, trans_a ? Transpose::yes : Transpose::no,
                                 trans_b ? Transpose::yes : Transpose::no, s.m, s.n, s.k, alpha, buffer_a, a.offset,
                                 a.ld, buffer_b, b.offset, b.ld, beta, buffer_c, c.offset, c.ld, {}, math)
      .wait();
  std::vector<Scalar> result(c.storage.size());
  REQUIRE(queue.enqueueReadBuffer(buffer_c, CL_TRUE, 0, sizeof(Scalar) * result.size(), result.data()) == CL_SUCCESS);
  Matrix<Scalar> got(s.m, s.n);
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.m; ++i) {
      got(i, j) = result[c.offset + i + static_cast<std::size_t>(j) * c.ld];
      result[c.offset + i + static_cast<std::size_t>(j) * c.ld] = sentinel;
    }
  const double rounding = std::is_same_v<Scalar, double> || math == MathMode::ieee ? 0
                          : math == MathMode::tf32                                 ? tf32_rounding
                                                                                   : tf32x3_rounding;
  CHECK(tilegemm_test::compare_with_reference<Scalar>(got, alpha, op_a, op_b, beta, c0, rounding) == "");
  CHECK(std::count(result.begin(), result.end(), sentinel) == static_cast<long>(result.size()));
}

// Shapes across the tiles' edges (single elements, primes, K = 1, long K), whole tiles of both configurations
// (operands read in place where their layout allows), and more rows of tiles than a band of work-groups takes
// (tensor_band_tiles: 700 is one band and part of another in 64 x 64 tiles).
const std::vector<Shape> shapes = {{1, 1, 1},     {7, 7, 7},      {61, 129, 7},   {129, 61, 1},
                                   {3, 130, 61},  {8, 9, 1500},   {65, 63, 17},   {200, 136, 300},
                                   {64, 128, 32}, {128, 256, 48}, {257, 129, 65}, {700, 200, 9}};

// Every shape in every transpose, with alpha = 1, beta = 0 and random ones.
template <class Config, class Scalar>
void check_every_shape(MathMode math) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  for (const Shape& s : shapes) {
    for (int t = 0; t < 4; ++t) {
      check_product<Config, Scalar>(queue, math, t & 1, t & 2, s, Scalar(1), Scalar(0));
      check_product<Config, Scalar>(queue, math, t & 1, t & 2, s, tilegemm_test::random_scalar<Scalar>(),
                                    tilegemm_test::random_scalar<Scalar>());
    }
  }
}

// Where the device has no tensor cores: the family is refused with tilegemm::Error saying why, before anything is
// built, in float and double.
template <class Config>
void check_refused(const cl::CommandQueue& queue) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64 * sizeof(double));
  const std::size_t built = tilegemm::programs_built();
  const auto run = [&](auto scalar) {
    using Scalar = decltype(scalar);
    tilegemm::gemm<Scalar, Config>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1, buffer, 0, 4, buffer, 16, 4, 0,
                                   buffer, 32, 4, {}, MathMode::tf32x3);
  };
  for (int scalar = 0; scalar < 2; ++scalar) {
    try {
      scalar == 0 ? run(0.0f) : run(0.0);
      FAIL("tilegemm::gemm with " << Config::name() << " ran on a device without tensor cores");
    } catch (const tilegemm::Error& e) {
      CHECK(e.code() == CL_INVALID_DEVICE);
      CHECK(std::string(e.what()).find("compute capability 8.0 or newer") != std::string::npos);
    }
  }
  CHECK(tilegemm::programs_built() == built);
}

// The largest error of `got` against the double-precision product, each element's relative to its own scale
// sum_k |A(i, k)| |B(k, j)|: the measure the rounding bounds are stated in.
template <class Scalar>
double scaled_error(const Matrix<Scalar>& got, const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  const Eigen::MatrixXd exact = a * b;
  const Eigen::MatrixXd scale = a.cwiseAbs() * b.cwiseAbs();
  double worst = 0;
  for (Eigen::Index i = 0; i < got.size(); ++i) {
    const double error = std::abs(static_cast<double>(got.data()[i]) - exact.data()[i]) / scale.data()[i];
    worst = std::max(worst, std::isnan(error) ? INFINITY : error);
  }
  return worst;
}

// A float product on the default queue in `math` with `Config`, as an Eigen matrix.
template <class Config>
Matrix<float> float_product(const Matrix<float>& a, const Matrix<float>& b, MathMode math) {
  const tilegemm::ScopedMathMode scope(math);
  return tilegemm::gpu_gemm<Config>(a, b);
}

}  // namespace

TEST_CASE("math modes have names, which TILEGEMM_MATH takes", "[unit][tensor_cores]") {
  using tilegemm::detail::math_mode_from_environment;
  using tilegemm::detail::parse_math_mode;
  CHECK(parse_math_mode("ieee") == MathMode::ieee);
  CHECK(parse_math_mode("tf32x3") == MathMode::tf32x3);
  CHECK(parse_math_mode("tf32") == MathMode::tf32);
  CHECK(!parse_math_mode("TF32").has_value());
  CHECK(!parse_math_mode("fp32").has_value());
  CHECK(!parse_math_mode("").has_value());
  CHECK(math_mode_from_environment(nullptr) == MathMode::ieee);
  CHECK(math_mode_from_environment("") == MathMode::ieee);
  CHECK(math_mode_from_environment("tf32x3") == MathMode::tf32x3);
  CHECK(math_mode_from_environment("tf32") == MathMode::tf32);
  try {
    math_mode_from_environment("tf32x2");
    FAIL("TILEGEMM_MATH=tf32x2 was taken");
  } catch (const tilegemm::Error& e) {
    CHECK(e.code() == CL_INVALID_VALUE);
    CHECK(std::string(e.what()).find("TILEGEMM_MATH is \"tf32x2\"") != std::string::npos);
    CHECK(std::string(e.what()).find("expected ieee") != std::string::npos);
  }
}

TEST_CASE("a ScopedMathMode sets the mode of this thread's calls while it lives, nested ones stack",
          "[unit][tensor_cores]") {
  const MathMode process = tilegemm::math_mode();  // TILEGEMM_MATH's, ieee when unset
  {
    const tilegemm::ScopedMathMode outer(MathMode::tf32);
    CHECK(tilegemm::math_mode() == MathMode::tf32);
    {
      const tilegemm::ScopedMathMode inner(MathMode::tf32x3);
      CHECK(tilegemm::math_mode() == MathMode::tf32x3);
    }
    CHECK(tilegemm::math_mode() == MathMode::tf32);
  }
  CHECK(tilegemm::math_mode() == process);
}
