// test_tensor_cores: the tensor_cores family and the math modes. Everywhere: the mode's names and TILEGEMM_MATH,
// ScopedMathMode, and the refusal, before anything is built, on devices without tensor cores. On NVIDIA GPUs of
// compute capability 8.0 and newer: every mode in float and double, odd shapes, all transposes, offsets, alpha and
// beta against a double-precision reference (in bf16 and fp16 the product of the operands rounded to 16 bits on the
// host), and the accuracy of tf32x3, bf16 and fp16 against the IEEE kernels on the same data.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
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
// AutoConfig's large choice in bf16 and fp16: slices of 16-bit pairs, m16n8k16, on the widest warp tiles in lane
// blocks (FloatLarge takes float slices and m16n8k8 in those modes).
using SixteenLarge = tilegemm::TensorCores<128, 128, 16, 64, 64, 2>;
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
using WarpgroupSmall = tilegemm::WarpgroupMma<64, 128, 32, 4>;           // AutoConfig's tf32 for small C
using WarpgroupDeep = tilegemm::WarpgroupMma<128, 128, 32, 3>;           // tf32
using WarpgroupWide = tilegemm::WarpgroupMma<128, 256, 32, 4>;           // tf32 for large C
using WarpgroupSmallSplit = tilegemm::WarpgroupMma<64, 128, 16, 8>;      // tf32x3 for small C with strips
using WarpgroupSmallDeepSplit = tilegemm::WarpgroupMma<64, 128, 32, 8>;  // tf32x3 for small C
using WarpgroupDeepSplit = tilegemm::WarpgroupMma<128, 128, 32, 6>;      // tf32x3

// The bulk_tensor_cores family (double fed by the copy engine, compute capability 9.0): AutoConfig's choice for large
// C (135 KiB of local memory), a small one within 48 KiB, and AutoConfig's for medium C.
using Bulk = tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>;
using BulkSmall = tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>;
using BulkNarrow = tilegemm::BulkTensorCores<64, 128, 32, 32, 32, 3>;  // AutoConfig's for C of 1024 to 1536

// The in_place_tensor_cores family in float (mma.sync on the caller's operands, copied in stages): 64 x 64 tiles of
// 16-deep slices (m16n8k8) in 4 stages, copied in vectors of 4 where the operands allow, and 32 x 32 tiles of 4-deep
// ones (m16n8k4 in TF32) in 2, copied an element at a time.
using InPlaceFloat = tilegemm::InPlaceTensorCores<64, 64, 16, 4, 8, 4, 4>;
using InPlaceFloatShallow = tilegemm::InPlaceTensorCores<32, 32, 4, 2, 4, 1, 2>;

bool device_has_tensor_cores(const cl::CommandQueue& queue) {
  return tilegemm::detail::has_tensor_cores(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()));
}
bool device_has_copy_engine(const cl::CommandQueue& queue) {
  return tilegemm::detail::has_copy_engine(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()));
}
bool device_has_warpgroup_mma(const cl::CommandQueue& queue) {
  return tilegemm::detail::has_warpgroup_mma(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()));
}

// TF32 keeps 10 of FP32's 23 mantissa bits: rounding to it is off by at most 2^-11 relative. tf32x3 keeps an
// operand as two TF32 values, 22 bits, and drops the product of the low parts: a product is off by at most
// 3 * 2^-22 of its size (reference.hpp's operand_rounding counts twice what it is given).
constexpr double tf32_relative_error = 0x1p-11;
constexpr double tf32x3_relative_error = 1.5 * 0x1p-22;
// bfloat16 keeps 8 significant bits, half 11: rounding to nearest is off by at most 2^-8 and 2^-11 relative.
constexpr double bf16_relative_error = 0x1p-8;
constexpr double fp16_relative_error = 0x1p-11;

bool rounds_to_16_bits(MathMode math) { return tilegemm::detail::sixteen_bit_math(math); }

// `m` with every element rounded to nearest even as the tensor cores receive it in `math` (bf16 or fp16), as float.
Matrix<float> rounded_to_16_bits(const Matrix<float>& m, MathMode math) {
  return tilegemm_test::rounded_to_16_bits(m, math == MathMode::fp16);
}
template <class Scalar>
Matrix<Scalar> rounded_to_16_bits(const Matrix<Scalar>& m, MathMode) {
  return m;  // double products are the same in every mode
}

struct Shape {
  int m, n, k;
};

// An operand stored column-major in a buffer at a random offset with a padded leading dimension, NaN around it;
// both multiples of `align` elements.
template <class Scalar>
struct Stored {
  int offset = 0;
  int ld = 1;
  std::vector<Scalar> storage;

  explicit Stored(const Matrix<Scalar>& v, Scalar surround, int align = 1) {
    std::uniform_int_distribution<int> pick(0, 5);
    offset = align * pick(tilegemm_test::generator());
    ld = (static_cast<int>(v.rows()) + pick(tilegemm_test::generator()) % 3 + align - 1) / align * align;
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
// reference (with TF32's rounding of the operands in that mode; in bf16 and fp16 the reference of the operands
// rounded to 16 bits, with FP32's bound alone, (K + 2) 2^-23 of sum |a| |b|, where a named configuration rounds
// every term; AutoConfig may multiply strips past its tiled corner in IEEE FP32, so there the plain reference with
// the 16-bit rounding of the operands) and C's surroundings untouched.
// With `rounded_reference`, AutoConfig too is held to the strict bound (where its plan has no IEEE strips).
// With `align`, A's and B's offsets and leading dimensions are multiples of it.
template <class Config, class Scalar>
void check_product(const cl::CommandQueue& queue, MathMode math, bool trans_a, bool trans_b, Shape s, Scalar alpha,
                   Scalar beta, bool rounded_reference = false, int align = 1) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(s.m, s.k);
  const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(s.k, s.n);
  const Scalar nan = tilegemm_test::poison<Scalar>();
  const Matrix<Scalar> c0 =
      beta == Scalar(0) ? Matrix<Scalar>::Constant(s.m, s.n, nan) : tilegemm_test::random_matrix<Scalar>(s.m, s.n);
  const Scalar sentinel = Scalar(12345);
  Stored<Scalar> a(trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a, nan, align);
  Stored<Scalar> b(trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b, nan, align);
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
  const bool in_float = std::is_same_v<Scalar, float>;
  if (in_float && rounds_to_16_bits(math) && (rounded_reference || !std::is_same_v<Config, tilegemm::AutoConfig>)) {
    CHECK(tilegemm_test::compare_with_reference<Scalar>(got, alpha, rounded_to_16_bits(op_a, math),
                                                        rounded_to_16_bits(op_b, math), beta, c0) == "");
  } else {
    const double rounding = !in_float || math == MathMode::ieee                ? 0
                            : math == MathMode::tf32 || math == MathMode::fp16 ? tf32_relative_error
                            : math == MathMode::bf16                           ? bf16_relative_error
                                                                               : tf32x3_relative_error;
    CHECK(tilegemm_test::compare_with_reference<Scalar>(got, alpha, op_a, op_b, beta, c0, rounding) == "");
  }
  CHECK(std::count(result.begin(), result.end(), sentinel) == static_cast<long>(result.size()));
}

// Shapes across the tiles' edges (single elements, primes, K = 1, long K), whole tiles of both configurations
// (operands read in place where their layout allows), and more rows of tiles than a band of work-groups takes
// (tensor_band_tiles: 700 is one band and part of another in 64 x 64 tiles).
const std::vector<Shape> shapes = {{1, 1, 1},     {7, 7, 7},      {61, 129, 7},   {129, 61, 1},
                                   {3, 130, 61},  {8, 9, 1500},   {65, 63, 17},   {200, 136, 300},
                                   {64, 128, 32}, {128, 256, 48}, {257, 129, 65}, {700, 200, 9}};

// One shape in every transpose, with alpha = 1, beta = 0 and random ones (`rounded_reference` as check_product's).
template <class Config, class Scalar>
void check_every_transpose(const cl::CommandQueue& queue, MathMode math, Shape s, bool rounded_reference = false) {
  for (int t = 0; t < 4; ++t) {
    check_product<Config, Scalar>(queue, math, t & 1, t & 2, s, Scalar(1), Scalar(0), rounded_reference);
    check_product<Config, Scalar>(queue, math, t & 1, t & 2, s, tilegemm_test::random_scalar<Scalar>(),
                                  tilegemm_test::random_scalar<Scalar>(), rounded_reference);
  }
}

// Every shape in every transpose.
template <class Config, class Scalar>
void check_every_shape(MathMode math) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  for (const Shape& s : shapes) check_every_transpose<Config, Scalar>(queue, math, s);
}

// What a small product through `Config` in `math` says: the message of the tilegemm::Error that refused it, or "ran".
template <class Config, class Scalar>
std::string refusal_of(const cl::CommandQueue& queue, MathMode math) {
  try {
    check_product<Config, Scalar>(queue, math, false, false, {8, 8, 8}, Scalar(1), Scalar(0));
  } catch (const tilegemm::Error& e) {
    return e.what();
  }
  return "ran";
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

// Random operands, uniform in [-1, 1], or with magnitudes 2^e for e uniform in [-20, 20] (`wide`).
Matrix<float> accuracy_operand(int rows, int cols, bool wide) {
  Matrix<float> m = tilegemm_test::random_matrix<float>(rows, cols);
  if (wide) {
    std::uniform_int_distribution<int> exponent(-20, 20);
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      m.data()[i] = std::ldexp(m.data()[i] < 0 ? -1.0f : 1.0f, exponent(tilegemm_test::generator())) *
                    (1.0f + std::abs(m.data()[i]));
    }
  }
  return m;
}

// A float product on the default queue in `math` with `Config`, as an Eigen matrix.
template <class Config>
Matrix<float> float_product(const Matrix<float>& a, const Matrix<float>& b, MathMode math) {
  const tilegemm::ScopedMathMode scope(math);
  return tilegemm::gpu_gemm<Config>(a, b);
}

}  // namespace

TEST_CASE("tensor_cores is refused where there are no tensor cores, and runs where there are", "[tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!device_has_tensor_cores(queue)) {
    check_refused<Small>(queue);
    check_refused<Large>(queue);
    return;
  }
  check_product<Small, double>(queue, MathMode::ieee, false, false, {130, 70, 50}, 1.0, 0.0);
  check_product<Small, float>(queue, MathMode::tf32x3, true, false, {70, 130, 50}, 1.0f, 0.0f);
  check_product<Small, float>(queue, MathMode::bf16, false, true, {70, 130, 50}, 1.0f, 0.0f);
  check_product<Small, float>(queue, MathMode::fp16, true, true, {70, 130, 50}, 1.0f, 0.0f);
  // In the ieee mode float stays off the tensor cores: a configuration of the family is refused, saying so.
  try {
    check_product<Small, float>(queue, MathMode::ieee, false, false, {8, 8, 8}, 1.0f, 0.0f);
    FAIL("a tensor_cores configuration ran float in the ieee mode");
  } catch (const tilegemm::Error& e) {
    CHECK(std::string(e.what()).find("math mode ieee") != std::string::npos);
  }
}

// One test case per configuration and mode, so that each reports on its own.
#define TENSOR_CORES_CASE(Config, name, Scalar, math)                                                   \
  TEST_CASE(name, "[tensor_cores][gpu]") {                                                              \
    if (!device_has_tensor_cores(tilegemm::default_queue())) return; /* the refusal is checked above */ \
    check_every_shape<Config, Scalar>(math);                                                            \
  }
TENSOR_CORES_CASE(Small, "tensor_cores 64x64x16 4x8 v4 s2 double, every shape and transpose", double, MathMode::ieee)
TENSOR_CORES_CASE(Small, "tensor_cores 64x64x16 4x8 v4 s2 float tf32x3, every shape and transpose", float,
                  MathMode::tf32x3)
TENSOR_CORES_CASE(Small, "tensor_cores 64x64x16 4x8 v4 s2 float tf32, every shape and transpose", float, MathMode::tf32)
TENSOR_CORES_CASE(Large, "tensor_cores 128x128x8 8x8 v4 s2 double, every shape and transpose", double, MathMode::ieee)
TENSOR_CORES_CASE(Large, "tensor_cores 128x128x8 8x8 v4 s2 float tf32x3, every shape and transpose", float,
                  MathMode::tf32x3)
TENSOR_CORES_CASE(Large, "tensor_cores 128x128x8 8x8 v4 s2 float tf32, every shape and transpose", float,
                  MathMode::tf32)
TENSOR_CORES_CASE(DoubleLarge, "tensor_cores 128x128x4 8x8 v4 s4 double, every shape and transpose", double,
                  MathMode::ieee)
TENSOR_CORES_CASE(FloatLarge, "tensor_cores 128x128x8 8x16 v4 s5 float tf32x3, every shape and transpose", float,
                  MathMode::tf32x3)

TENSOR_CORES_CASE(FloatOdd, "tensor_cores 96x96x16 6x12 v4 s3 float tf32x3, every shape and transpose", float,
                  MathMode::tf32x3)
TENSOR_CORES_CASE(FloatOdd, "tensor_cores 96x96x16 6x12 v4 s3 float tf32, every shape and transpose", float,
                  MathMode::tf32)
TENSOR_CORES_CASE(DoubleOdd, "tensor_cores 96x96x4 6x6 v4 s4 double, every shape and transpose", double, MathMode::ieee)
// Float on operands rounded to 16 bits: m16n8k16 (slices of 16) and m16n8k8 (slices of 8), fragments read an element at
// a time (FloatOdd: 48 x 48 warps) and in lane blocks (the others).
TENSOR_CORES_CASE(Small, "tensor_cores 64x64x16 4x8 v4 s2 float bf16, every shape and transpose", float, MathMode::bf16)
TENSOR_CORES_CASE(Small, "tensor_cores 64x64x16 4x8 v4 s2 float fp16, every shape and transpose", float, MathMode::fp16)
TENSOR_CORES_CASE(Large, "tensor_cores 128x128x8 8x8 v4 s2 float bf16, every shape and transpose", float,
                  MathMode::bf16)
TENSOR_CORES_CASE(FloatLarge, "tensor_cores 128x128x8 8x16 v4 s5 float bf16, every shape and transpose", float,
                  MathMode::bf16)
TENSOR_CORES_CASE(FloatLarge, "tensor_cores 128x128x8 8x16 v4 s5 float fp16, every shape and transpose", float,
                  MathMode::fp16)
TENSOR_CORES_CASE(FloatOdd, "tensor_cores 96x96x16 6x12 v4 s3 float bf16, every shape and transpose", float,
                  MathMode::bf16)
TENSOR_CORES_CASE(SixteenLarge, "tensor_cores 128x128x16 8x16 v4 s2 float bf16, every shape and transpose", float,
                  MathMode::bf16)
TENSOR_CORES_CASE(SixteenLarge, "tensor_cores 128x128x16 8x16 v4 s2 float fp16, every shape and transpose", float,
                  MathMode::fp16)

// The warpgroup_mma family: refused with a sentence saying why where there is no wgmma, in double and in the ieee
// mode (nothing built); every shape and transpose, in tf32 and tf32x3, where there is.
TEST_CASE("warpgroup_mma is refused without wgmma, in double and in ieee, and runs where there is", "[tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::size_t built = tilegemm::programs_built();
  const auto refusal = [&](auto scalar, MathMode math) { return refusal_of<Warpgroup, decltype(scalar)>(queue, math); };
  if (!device_has_warpgroup_mma(queue)) {
    CHECK_THAT(refusal(0.0f, MathMode::tf32),
               MESSAGE_CONTAINS("wgmma, which needs an NVIDIA GPU of compute capability 9.0"));
  } else {
    CHECK_THAT(refusal(0.0, MathMode::tf32), CONTAINS_ALL2("on TF32 tensor cores only", "product is in double"));
    CHECK_THAT(refusal(0.0f, MathMode::ieee), MESSAGE_CONTAINS("the math mode ieee rules them out"));
    CHECK(tilegemm::programs_built() == built);
    check_product<Warpgroup, float>(queue, MathMode::tf32, false, false, {130, 70, 50}, 1.0f, 0.0f);
    return;
  }
  CHECK(tilegemm::programs_built() == built);
}
// tf32 operands with 16-byte aligned offsets and leading dimensions are read in place through tensor maps
// (kernels/tensor_maps.hpp; B where it is K-contiguous, A in either layout, an M-contiguous one's fragments loaded into
// registers): every shape and transpose so, each plan first asserted to map them, in AutoConfig's tf32 tiles; depths
// of one slice to 47 (the kernel takes an M-contiguous A's slices two at a time, and an odd one last).
template <class Config>
void check_mapped_shapes() {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const tilegemm::detail::DeviceLimits device = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  tilegemm::detail::PlanOptions options;
  options.math = MathMode::tf32;
  const std::vector<Shape> mapped_shapes = {{1, 1, 1},     {7, 9, 33},     {61, 129, 100},  {129, 257, 31},
                                            {130, 70, 50}, {256, 256, 64}, {300, 700, 129}, {520, 260, 1500}};
  for (const Shape& s : mapped_shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool trans_a = t & 1, trans_b = t & 2;
      tilegemm::detail::GemmShape shape = tilegemm_test::dense_shape(s.m, s.n, s.k, trans_a, trans_b);
      shape.a.ld = (shape.a.ld + 3) / 4 * 4;
      shape.b.ld = (shape.b.ld + 3) / 4 * 4;
      const tilegemm::detail::Plan plan =
          tilegemm::detail::plan_product(tilegemm::detail::describe<Config>, shape, device, sizeof(float), options);
      CHECK(plan.a.mapped);
      CHECK(plan.variant.outer_a == !trans_a);
      CHECK(plan.b.mapped == !trans_b);
      check_product<Config, float>(queue, MathMode::tf32, trans_a, trans_b, s, 1.0f, 0.0f, false, 4);
      check_product<Config, float>(queue, MathMode::tf32, trans_a, trans_b, s, tilegemm_test::random_scalar<float>(),
                                   tilegemm_test::random_scalar<float>(), false, 4);
    }
  }
}
// Where the product kernel that makes its tensor maps does not build (on a device described as an H200 whose compiler
// is not NVIDIA's), the product is planned again with its operands packed: the error that reaches the caller is the
// packed kernel's own (its preamble maps neither operand), and the device is marked.
TEST_CASE("where the driver cannot make tensor maps, the product is planned again with its operands packed",
          "[tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (device_has_warpgroup_mma(queue)) return;  // its driver makes them: the case below
  tilegemm::detail::DeviceLimits h200 = tilegemm_test::h200();
  h200.compute_capability = 90;
  const tilegemm::detail::ScopedDeviceDescription described(h200);
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  std::vector<float> values(64 * 64, 1.0f);
  cl::Buffer a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * values.size(), values.data());
  cl::Buffer b(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * values.size(), values.data());
  cl::Buffer c(context, CL_MEM_READ_WRITE, sizeof(float) * values.size());
  tilegemm::detail::PlanOptions options;
  options.math = MathMode::tf32;
  const tilegemm::detail::Plan plan =
      tilegemm::detail::plan_product(tilegemm::detail::describe<WarpgroupSmall>,
                                     tilegemm_test::dense_shape(64, 64, 64, true, false), h200, sizeof(float), options);
  REQUIRE(plan.a.mapped);
  REQUIRE(plan.b.mapped);
  try {
    tilegemm::gemm<float, WarpgroupSmall>(queue, Transpose::yes, Transpose::no, 64, 64, 64, 1.0f, a, 0, 64, b, 0, 64,
                                          0.0f, c, 0, 64, {}, MathMode::tf32)
        .wait();
    FAIL("a wgmma kernel ran on a device without wgmma");
  } catch (const tilegemm::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("program for kernel gemm_warpgroup_mma") != std::string::npos);
    CHECK(what.find("#define A_MAPPED 0\n") != std::string::npos);
    CHECK(what.find("#define B_MAPPED 0\n") != std::string::npos);
    CHECK(what.find("#define A_MAPPED 1\n") == std::string::npos);
  }
  CHECK(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()).tensor_maps_refused);
}

TEST_CASE(
    "warpgroup_mma in tf32 reads aligned operands through tensor maps (an M-contiguous A from registers), every "
    "shape and transpose",
    "[tensor_cores][gpu]") {
  if (!device_has_warpgroup_mma(tilegemm::default_queue())) return;  // the refusal is checked above
  check_mapped_shapes<WarpgroupWide>();
  check_mapped_shapes<WarpgroupDeep>();
  check_mapped_shapes<WarpgroupSmall>();
}

#define WARPGROUP_CASE(Config, name, math)                                                               \
  TEST_CASE(name, "[tensor_cores][gpu]") {                                                               \
    if (!device_has_warpgroup_mma(tilegemm::default_queue())) return; /* the refusal is checked above */ \
    check_every_shape<Config, float>(math);                                                              \
  }
WARPGROUP_CASE(Warpgroup, "warpgroup_mma 128x128x8 s6 float tf32, every shape and transpose", MathMode::tf32)
WARPGROUP_CASE(Warpgroup, "warpgroup_mma 128x128x8 s6 float tf32x3, every shape and transpose", MathMode::tf32x3)
WARPGROUP_CASE(WarpgroupSmall, "warpgroup_mma 64x128x32 s4 float tf32, every shape and transpose", MathMode::tf32)
WARPGROUP_CASE(WarpgroupDeep, "warpgroup_mma 128x128x32 s3 float tf32, every shape and transpose", MathMode::tf32)
WARPGROUP_CASE(WarpgroupWide, "warpgroup_mma 128x256x32 s4 float tf32, every shape and transpose", MathMode::tf32)
WARPGROUP_CASE(WarpgroupSmallSplit, "warpgroup_mma 64x128x16 s8 float tf32x3, every shape and transpose",
               MathMode::tf32x3)
WARPGROUP_CASE(WarpgroupDeepSplit, "warpgroup_mma 128x128x32 s6 float tf32x3, every shape and transpose",
               MathMode::tf32x3)
WARPGROUP_CASE(WarpgroupSmallDeepSplit, "warpgroup_mma 64x128x32 s8 float tf32x3, every shape and transpose",
               MathMode::tf32x3)

// The in_place_tensor_cores family in float: refused with a sentence saying why without mma.sync, in the ieee mode,
// with its slices through registers and, in bf16 and fp16, slices not a multiple of 8 deep (nothing built); every
// shape and transpose in each tensor math mode where it runs.
TEST_CASE("in_place_tensor_cores runs float in the tensor math modes, where there is mma.sync", "[tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::size_t built = tilegemm::programs_built();
  const auto refusal = [&](auto config, MathMode math) { return refusal_of<decltype(config), float>(queue, math); };
  if (!device_has_tensor_cores(queue)) {
    CHECK_THAT(refusal(InPlaceFloat{}, MathMode::tf32), MESSAGE_CONTAINS("compute capability 8.0 or newer"));
  } else {
    CHECK_THAT(refusal(InPlaceFloat{}, MathMode::ieee),
               MESSAGE_CONTAINS("which the math mode ieee (IEEE FP32, the default) rules out"));
    CHECK_THAT(
        refusal(InPlaceFloatShallow{}, MathMode::bf16),
        CONTAINS_ALL2("the math mode bf16 multiplies 16-bit operands 8 or 16 deep", "needs TSK a multiple of 8"));
    CHECK_THAT(refusal(tilegemm::InPlaceTensorCores<64, 64, 16, 4, 8, 4>{}, MathMode::tf32),
               MESSAGE_CONTAINS("needs Stages 2 to 8, TSM and TSN multiples of 32 and TSK 4, 8, 16 or 32 for float"));
    CHECK_THAT(refusal(tilegemm::InPlaceTensorCores<48, 32, 12, 2, 4, 1, 3>{}, MathMode::tf32x3),
               MESSAGE_CONTAINS("needs Stages 2 to 8, TSM and TSN multiples of 32 and TSK 4, 8, 16 or 32 for float"));
    CHECK_THAT((refusal_of<InPlaceFloat, double>(queue, MathMode::ieee)),  // double's stages copy single elements
               MESSAGE_CONTAINS("it needs VW 1 for double with Stages 2 to 8"));
  }
  CHECK(tilegemm::programs_built() == built);
}
TENSOR_CORES_CASE(InPlaceFloat, "in_place_tensor_cores 64x64x16 s4 float tf32, every shape and transpose", float,
                  MathMode::tf32)
TENSOR_CORES_CASE(InPlaceFloat, "in_place_tensor_cores 64x64x16 s4 float tf32x3, every shape and transpose", float,
                  MathMode::tf32x3)
TENSOR_CORES_CASE(InPlaceFloat, "in_place_tensor_cores 64x64x16 s4 float bf16, every shape and transpose", float,
                  MathMode::bf16)
TENSOR_CORES_CASE(InPlaceFloat, "in_place_tensor_cores 64x64x16 s4 float fp16, every shape and transpose", float,
                  MathMode::fp16)
TENSOR_CORES_CASE(InPlaceFloatShallow, "in_place_tensor_cores 32x32x4 s2 float tf32, every shape and transpose", float,
                  MathMode::tf32)
TENSOR_CORES_CASE(InPlaceFloatShallow, "in_place_tensor_cores 32x32x4 s2 float tf32x3, every shape and transpose",
                  float, MathMode::tf32x3)

// The bulk_tensor_cores family: refused with a sentence saying why without the copy engine and in float (nothing
// built); every shape and transpose where it runs.
TEST_CASE("bulk_tensor_cores is refused without the copy engine and in float, and runs where there is one",
          "[tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::size_t built = tilegemm::programs_built();
  const auto refusal = [&](auto scalar) { return refusal_of<Bulk, decltype(scalar)>(queue, MathMode::tf32x3); };
  if (!device_has_copy_engine(queue)) {
    CHECK_THAT(refusal(0.0), MESSAGE_CONTAINS("cp.async.bulk), which needs an NVIDIA GPU of compute capability 9.0"));
    CHECK(tilegemm::programs_built() == built);
    return;
  }
  CHECK_THAT(refusal(0.0f), CONTAINS_ALL2("multiplies double only", "the product is in float"));
  CHECK(tilegemm::programs_built() == built);
  check_product<Bulk, double>(queue, MathMode::ieee, false, false, {130, 70, 50}, 1.0, 0.0);
}
#define BULK_CASE(Config, name)                                                                        \
  TEST_CASE(name, "[tensor_cores][gpu]") {                                                             \
    if (!device_has_copy_engine(tilegemm::default_queue())) return; /* the refusal is checked above */ \
    check_every_shape<Config, double>(MathMode::ieee);                                                 \
  }
BULK_CASE(Bulk, "bulk_tensor_cores 128x128x16 8x8 v4 s4 double, every shape and transpose")
BULK_CASE(BulkSmall, "bulk_tensor_cores 64x64x8 4x8 v4 s3 double, every shape and transpose")
BULK_CASE(BulkNarrow, "bulk_tensor_cores 64x128x32 4x8 v4 s3 double, every shape and transpose")

TEST_CASE("the double path of compute capability 8.x (m8n8k4), on a newer GPU described as 8.0",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!device_has_tensor_cores(queue)) return;
  tilegemm::detail::DeviceLimits ampere = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  ampere.compute_capability = 80;
  const tilegemm::detail::ScopedDeviceDescription as_ampere(ampere);
  check_every_shape<Small, double>(MathMode::ieee);
}

TEST_CASE("AutoConfig takes the tensor cores in each mode where they run, with a tiled corner past the tiles",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  for (MathMode math : tilegemm::detail::math_modes) {
    check_product<tilegemm::AutoConfig, float>(queue, math, false, false, {1025, 1025, 100}, 1.0f, 0.0f);
    check_product<tilegemm::AutoConfig, float>(queue, math, true, true, {300, 520, 301}, -1.5f, 0.5f);
    check_product<tilegemm::AutoConfig, double>(queue, math, true, false, {1030, 1029, 77}, 0.75, -2.0);
    // More 96 x 96 tiles than compute units: the large tiles' corner and the remainder kernel's strips (on wgmma, the
    // strips in the tiles' launch), and strips as wide as they come (16 rows, 15 columns).
    check_product<tilegemm::AutoConfig, float>(queue, math, false, true, {2049, 1025, 64}, 1.0f, 0.5f);
    check_product<tilegemm::AutoConfig, float>(queue, math, true, false, {1040, 1039, 300}, -0.5f, 1.5f);
    check_product<tilegemm::AutoConfig, double>(queue, math, false, false, {2049, 1025, 64}, -1.0, 0.0);
  }
  // tf32x3 on wgmma where the corner's tiles take more than one round: the remainder kernel's strips beside them.
  const tilegemm::detail::DeviceLimits device = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  const tilegemm::detail::Plan apart = tilegemm::detail::plan_default(tilegemm_test::dense_shape(2049, 2050, 300),
                                                                      device, sizeof(float), MathMode::tf32x3);
  if (apart.config.family == tilegemm::Family::warpgroup_mma && device.compute_units <= 132) {
    CHECK(apart.strips == tilegemm::detail::StripWork::remainder_kernel);
  }
  for (int t = 0; t < 4; ++t) {
    check_product<tilegemm::AutoConfig, float>(queue, MathMode::tf32x3, t & 1, t & 2, {2049, 2050, 300},
                                               tilegemm_test::random_scalar<float>(), t < 2 ? 0.0f : 1.5f);
  }
}

// Double past 1024 on compute capability 9.0: AutoConfig weighs the 64 x 64 tiles that read A and B in place by their
// rounds (gemm/default_plan.hpp's plan_double_rounds), on all of C or, where that saves a round, on the tiled corner
// with the remainder kernel's strips beside the tiles (1 wide: 1025^3; 8 and 3 wide: 1032 x 1027 x 1500; 16 and 12, two
// passes of the remainder kernel: 1040 x 1036 x 1100; not at 2049 x 2049 x 40, where the rounds are shorter than the
// strips take). Every transpose, alpha and beta, offsets and odd leading dimensions, C's surroundings untouched.
TEST_CASE("AutoConfig's double past 1024 in place: all of C, or its corner and strips, every transpose",
          "[tensor_cores][gpu]") {
  using namespace tilegemm::detail;
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!device_has_copy_engine(queue)) return;  // the rounds' model is compute capability 9.0's
  const DeviceLimits device = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  struct Case {
    Shape s;
    bool corner;  // on 132 compute units (H100, H200)
  };
  for (const auto& [s, corner] :
       {Case{{1025, 1025, 1025}, true}, Case{{1032, 1027, 1500}, true}, Case{{1040, 1036, 1100}, true},
        Case{{1100, 1090, 77}, false}, Case{{2049, 2049, 40}, false}}) {
    const Plan plan = plan_default(tilegemm_test::dense_shape(s.m, s.n, s.k), device, sizeof(double));
    INFO(s.m << "x" << s.n << "x" << s.k << ": " << plan.config.name() << ", corner " << plan.corner_m << "x"
             << plan.corner_n);
    CHECK(plan.config.family == tilegemm::Family::in_place_tensor_cores);
    if (device.compute_units == 132) CHECK((plan.strips == StripWork::remainder_kernel) == corner);
    check_every_transpose<tilegemm::AutoConfig, double>(queue, MathMode::ieee, s);
  }
}

// A product with long K and small C on a device with tensor cores: AutoConfig splits K over the tiles that read A and
// B in place, the slices as a batch, then sums them (gemm/default_plan.hpp's plan_in_place_split); every transpose,
// alpha and beta, offsets and odd leading dimensions, C's surroundings untouched; in bf16 and fp16 held to the rounded
// operands' strict bound (no strip runs in IEEE FP32).
template <class Scalar>
void check_long_k_in_place(const cl::CommandQueue& queue, MathMode math, Shape s) {
  using namespace tilegemm::detail;
  const DeviceLimits device = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  const Plan plan = plan_default(tilegemm_test::dense_shape(s.m, s.n, s.k), device, sizeof(Scalar), math);
  INFO(s.m << "x" << s.n << "x" << s.k << " " << math_mode_name(math) << ": " << plan.config.name() << ", "
           << plan.slices << " slices of " << plan.k_per_slice);
  CHECK(plan.config.family == tilegemm::Family::in_place_tensor_cores);
  CHECK(plan.slices > 1);
  check_every_transpose<tilegemm::AutoConfig, Scalar>(queue, math, s, true);
}

// Double on FP64 tensor cores: slices that are whole slices of the tiles (16384 in 64, 4096 in 16) and that are not
// (6006 in 22 slices of 273).
TEST_CASE("AutoConfig's double with long K: K in slices over the tiles in place, every transpose",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!device_has_tensor_cores(queue)) return;
  for (const Shape s : {Shape{130, 70, 16384}, Shape{257, 129, 4096}, Shape{70, 90, 6006}, Shape{64, 64, 65536}}) {
    check_long_k_in_place<double>(queue, MathMode::ieee, s);
  }
}

// Float in tf32, bf16 and fp16 on the 64 x 64 float tiles (in_place_float_64x64): the same shapes but 257 x 129 x 4096
// (wgmma's in bf16 and fp16), and 50000 in 125 slices of 400.
TEST_CASE("AutoConfig's float with long K in tf32, bf16 and fp16: K in slices over the tiles in place",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!device_has_tensor_cores(queue)) return;
  for (const MathMode math : {MathMode::tf32, MathMode::bf16, MathMode::fp16}) {
    for (const Shape s : {Shape{130, 70, 16384}, Shape{70, 90, 6006}, Shape{64, 64, 65536}, Shape{100, 100, 50000}}) {
      check_long_k_in_place<float>(queue, math, s);
    }
  }
}

// bf16 and fp16 on wgmma (compute capability 9.0): A and B rounded to 16 bits as they are packed into core tiles
// (gemm/sixteen_bit_warpgroup_plan.hpp). The result must be the FP32-accumulated product of the operands rounded to
// nearest even, every transpose, alpha and beta, K not a multiple of a slice (17 to 4097), tiles 128 and 256 wide, edge
// tiles, and a last round split along k (700 x 700 x 4097: 36 tiles in 3 pieces each; long K, 260 x 300 x 20000: 9
// tiles in 14 pieces each).
TEST_CASE("bf16 and fp16 on wgmma multiply float operands rounded to 16 bits, as the host rounds them",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const tilegemm::detail::DeviceLimits device = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  if (!tilegemm::detail::has_warpgroup_mma(device)) return;
  for (const MathMode math : {MathMode::bf16, MathMode::fp16}) {
    for (const Shape& s : {Shape{700, 700, 700}, Shape{641, 700, 65}, Shape{1025, 1025, 100}, Shape{1000, 999, 17},
                           Shape{2049, 1025, 64}, Shape{700, 700, 4097}, Shape{260, 300, 20000}}) {
      const tilegemm::detail::Plan plan =
          tilegemm::detail::plan_default(tilegemm_test::dense_shape(s.m, s.n, s.k), device, sizeof(float), math);
      INFO(s.m << "x" << s.n << "x" << s.k << " " << tilegemm::detail::math_mode_name(math));
      REQUIRE(plan.work == tilegemm::detail::Work::sixteen_bit_wgmma);
      for (int t = 0; t < (s.k > 1000 ? 1 : 4); ++t) {
        check_product<tilegemm::AutoConfig, float>(queue, math, t & 1, t & 2, s, 1.0f, 0.0f, true);
        check_product<tilegemm::AutoConfig, float>(queue, math, t & 1, t & 2, s, tilegemm_test::random_scalar<float>(),
                                                   tilegemm_test::random_scalar<float>(), true);
      }
    }
  }
}

TEST_CASE(
    "tf32x3 is as accurate as the IEEE kernels, bf16 and fp16 within their rounding, K from 16 to 65536, "
    "uniform and wide-range data",
    "[tensor_cores][gpu][accuracy]") {
  if (!device_has_tensor_cores(tilegemm::default_queue())) return;
  // Where there is wgmma (compute capability 9.0), the warpgroup_mma family's tf32x3 too (AutoConfig's
  // configurations: slices 16 deep, summed on the tensor cores two at a time, and 32 deep, one at a time).
  const bool wgmma = device_has_warpgroup_mma(tilegemm::default_queue());
  std::printf("%-8s %-8s %12s %12s %12s %12s %12s %12s %12s %12s %12s\n", "data", "K", "ieee", "tf32x3", "tf32",
              "tf32x3/ieee", "wgmma tf32x3", "wgmma/ieee", "deep/ieee", "bf16", "fp16");
  for (bool wide : {false, true}) {
    for (int k : {16, 128, 256, 4096, 65536}) {
      const int m = 64, n = 64;
      const Matrix<float> a = accuracy_operand(m, k, wide), b = accuracy_operand(k, n, wide);
      const Eigen::MatrixXd ad = a.cast<double>(), bd = b.cast<double>();
      using Simt = tilegemm::Prefetch<64, 64, 16, 4, 4, 4>;
      const double ieee = scaled_error(float_product<Simt>(a, b, MathMode::ieee), ad, bd);
      const double tf32x3 = scaled_error(float_product<Small>(a, b, MathMode::tf32x3), ad, bd);
      const double tf32 = scaled_error(float_product<Small>(a, b, MathMode::tf32), ad, bd);
      const double warpgroup =
          wgmma ? scaled_error(float_product<WarpgroupSmallSplit>(a, b, MathMode::tf32x3), ad, bd) : 0;
      const double deep = wgmma ? scaled_error(float_product<WarpgroupDeepSplit>(a, b, MathMode::tf32x3), ad, bd) : 0;
      // bf16 has float's range; half's ends at 65504, which the wide data passes (infinities there).
      const double bf16 = scaled_error(float_product<Small>(a, b, MathMode::bf16), ad, bd);
      const double fp16 = wide ? 0 : scaled_error(float_product<Small>(a, b, MathMode::fp16), ad, bd);
      std::printf("%-8s %-8d %12.3g %12.3g %12.3g %12.2f %12.3g %12.2f %12.2f %12.3g %12.3g\n",
                  wide ? "2^+-20" : "uniform", k, ieee, tf32x3, tf32, tf32x3 / ieee, warpgroup, warpgroup / ieee,
                  deep / ieee, bf16, fp16);
      INFO((wide ? "wide-range" : "uniform")
           << " data, K = " << k << ": scaled errors ieee " << ieee << ", tf32x3 " << tf32x3 << ", tf32 " << tf32
           << ", wgmma tf32x3 " << warpgroup << ", deep " << deep);
      // Twice the IEEE kernel's error, or 16 units of float's rounding where both are as small as that: at K = 16 the
      // IEEE error is a unit or two and the ratio of two such errors is noise (wgmma's once came out 2.2 times it),
      // while tf32 alone is off by thousands of units.
      const double ieee_bound = std::max(2 * ieee, 16 * 0x1p-24);
      CHECK(tf32x3 <= ieee_bound);
      CHECK(warpgroup <= ieee_bound);
      CHECK(deep <= ieee_bound);
      CHECK(tf32 <= (k + 2) * 0x1p-24 + 2 * tf32_relative_error);  // TF32's rounding of both operands, then FP32 sums
      CHECK(tf32 > tf32x3);                                        // the mode did take effect
      // Each product of operands rounded to 16 bits off by at most 2u + u^2 of its size, then FP32 sums.
      CHECK(bf16 <= (k + 2) * 0x1p-23 + 2.01 * bf16_relative_error);
      CHECK(fp16 <= (k + 2) * 0x1p-23 + 2.01 * fp16_relative_error);
      CHECK(bf16 > tf32);  // 8 significant bits against 11: the mode did take effect
      if (!wide) CHECK(fp16 < bf16);
    }
  }
}
