// test_batched: batches of products of one shape in one launch: gemm_strided_batched on cl::Buffers for the families
// (odd sizes, transposes, alpha and beta, strides with NaN padding between problems), gpu_gemm_batched on Eigen and
// device matrices, the plan of a batch, the overlap checks, and the errors bad batches get.
#include <Eigen/Dense>
#include <algorithm>
#include <climits>
#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
#include "fuzz_devices.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "run_plan.hpp"

namespace {

using tilegemm::DeviceMatrix;
using tilegemm::Transpose;
using tilegemm::detail::EdgePolicy;
using tilegemm_test::Matrix;

struct Shape {
  int m, n, k;
};

// Sizes of 1, 7, 20, 30, 40, 61 and 129 that cross tile edges, in each role; and whole tiles of 64 and 32, which the
// packed families (and, for batches of small products on GPUs, AutoConfig's whole-problem tiles) read in place.
const std::vector<Shape> odd_shapes = {{1, 1, 1},    {7, 7, 7},    {61, 129, 7}, {129, 61, 1}, {1, 129, 61},
                                       {7, 61, 129}, {64, 64, 16}, {32, 32, 32}, {20, 30, 40}};
// Sizes that are whole vectors of 4 (not whole tiles), for the prefetch kernel's vector reads in place.
const std::vector<Shape> vector_shapes = {{4, 4, 4}, {60, 68, 36}, {132, 4, 100}, {8, 12, 20}};
// Problems per batch, taken in turn.
const std::vector<int> counts = {3, 1, 5, 2};

long long round_up(long long value, long long unit) { return (value + unit - 1) / unit * unit; }

// One operand of every problem of a batch in one buffer, as gemm_strided_batched reads it: problem p's rows x cols
// matrix at offset + p * stride with leading dimension ld. Everything else (between columns, between problems, around
// them) is `surround`: NaN around A and B, so that a kernel reading outside an operand poisons the result, a sentinel
// around C, so that a write outside shows. With `aligned`, offset, ld and stride are multiples of 4.
template <class Scalar>
struct StoredBatch {
  std::vector<Matrix<Scalar>> values;  // as stored
  long long rows, cols, offset, ld, stride;
  std::vector<Scalar> storage;

  StoredBatch(std::vector<Matrix<Scalar>> v, long long rows_, long long cols_, Scalar surround, bool aligned)
      : values(std::move(v)), rows(rows_), cols(cols_) {
    std::uniform_int_distribution<int> pick(0, 3);
    auto& random = tilegemm_test::generator();
    const long long unit = aligned ? 4 : 1;
    offset = unit * pick(random);
    ld = round_up(std::max(rows, 1LL), unit) + unit * pick(random);
    const long long span = rows > 0 && cols > 0 ? ld * (cols - 1) + rows : 0;
    stride = round_up(span, unit) + unit * (1 + pick(random));  // padding between the problems
    const long long count = static_cast<long long>(values.size());
    storage.assign(offset + std::max(count - 1, 0LL) * stride + span + pick(random) + 1, surround);
    for (long long p = 0; p < count; ++p)
      for (long long j = 0; j < cols; ++j)
        for (long long i = 0; i < rows; ++i) storage[offset + p * stride + i + j * ld] = values[p](i, j);
  }
  cl::Buffer upload(const cl::Context& context) {
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(Scalar) * storage.size(),
                      storage.data(), &status);
    REQUIRE(status == CL_SUCCESS);
    return buffer;
  }
  // Problem p's matrix in `from`, a copy of the storage read back.
  Matrix<Scalar> problem(const std::vector<Scalar>& from, long long p) const {
    Matrix<Scalar> m(rows, cols);
    for (long long j = 0; j < cols; ++j)
      for (long long i = 0; i < rows; ++i) m(i, j) = from[offset + p * stride + i + j * ld];
    return m;
  }
  // `from` with every element of every problem set to `value`: what must be left is the surround alone.
  std::vector<Scalar> outside(std::vector<Scalar> from, Scalar value) const {
    for (std::size_t p = 0; p < values.size(); ++p)
      for (long long j = 0; j < cols; ++j)
        for (long long i = 0; i < rows; ++i) from[offset + p * stride + i + j * ld] = value;
    return from;
  }
};

template <class Scalar>
std::vector<Matrix<Scalar>> random_matrices(int count, long long rows, long long cols) {
  std::vector<Matrix<Scalar>> x;
  for (int p = 0; p < count; ++p) x.push_back(tilegemm_test::random_matrix<Scalar>(rows, cols));
  return x;
}

template <class Scalar>
std::vector<Matrix<Scalar>> stored_as(const std::vector<Matrix<Scalar>>& x, bool transposed) {
  std::vector<Matrix<Scalar>> stored;
  for (const Matrix<Scalar>& m : x) stored.push_back(transposed ? Matrix<Scalar>(m.transpose()) : m);
  return stored;
}

template <class Scalar>
std::vector<Scalar> read_back(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::size_t size) {
  std::vector<Scalar> result(size);
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(Scalar) * size, result.data()) == CL_SUCCESS);
  return result;
}

// One batch of `count` problems through gemm_strided_batched<Scalar, Config> (or, where `policy` says how operands
// that do not fill whole tiles are read, through the planner with that policy), each problem checked against the
// reference (with `rounded_16`, of the operands rounded to bfloat16 or half as the math mode says, within FP32's
// bound); nothing outside the problems' C may change.
template <class Config, class Scalar>
void check_batch(const cl::CommandQueue& queue, bool trans_a, bool trans_b, Shape s, int count, Scalar alpha,
                 Scalar beta, EdgePolicy policy = EdgePolicy::by_size, bool rounded_16 = false) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const std::vector<Matrix<Scalar>> op_a = random_matrices<Scalar>(count, s.m, s.k);
  const std::vector<Matrix<Scalar>> op_b = random_matrices<Scalar>(count, s.k, s.n);
  std::vector<Matrix<Scalar>> c0 = random_matrices<Scalar>(count, s.m, s.n);
  if (beta == Scalar(0)) {
    for (Matrix<Scalar>& c : c0) c.setConstant(tilegemm_test::poison<Scalar>());  // not read
  }
  const Scalar nan = tilegemm_test::poison<Scalar>(), sentinel = Scalar(12345);
  const bool aligned = policy == EdgePolicy::vectors;
  StoredBatch<Scalar> a(stored_as(op_a, trans_a), trans_a ? s.k : s.m, trans_a ? s.m : s.k, nan, aligned);
  StoredBatch<Scalar> b(stored_as(op_b, trans_b), trans_b ? s.n : s.k, trans_b ? s.k : s.n, nan, aligned);
  StoredBatch<Scalar> c(c0, s.m, s.n, sentinel, false);
  INFO((std::is_same_v<Config, tilegemm::AutoConfig> ? std::string("auto") : Config::name())
       << (std::is_same_v<Scalar, float> ? " float" : " double") << ", " << count << " problems of m=" << s.m
       << " n=" << s.n << " k=" << s.k << ", transA=" << trans_a << " transB=" << trans_b << ", alpha=" << alpha
       << " beta=" << beta << ", offsets " << a.offset << "/" << b.offset << "/" << c.offset << ", ld " << a.ld << "/"
       << b.ld << "/" << c.ld << ", strides " << a.stride << "/" << b.stride << "/" << c.stride << ", edge policy "
       << static_cast<int>(policy) << ", seed " << tilegemm_test::run_seed());
  const cl::Buffer buffer_a = a.upload(context), buffer_b = b.upload(context), buffer_c = c.upload(context);
  const Transpose ta = trans_a ? Transpose::yes : Transpose::no, tb = trans_b ? Transpose::yes : Transpose::no;
  if (std::is_same_v<Config, tilegemm::AutoConfig> || policy == EdgePolicy::by_size) {
    tilegemm::gemm_strided_batched<Scalar, Config>(queue, ta, tb, s.m, s.n, s.k, alpha, buffer_a, a.offset, a.ld,
                                                   a.stride, buffer_b, b.offset, b.ld, b.stride, beta, buffer_c,
                                                   c.offset, c.ld, c.stride, count)
        .wait();
  } else if constexpr (!std::is_same_v<Config, tilegemm::AutoConfig>) {
    const auto problem = tilegemm::detail::check_batched_arguments(context, {ta,
                                                                             tb,
                                                                             s.m,
                                                                             s.n,
                                                                             s.k,
                                                                             tilegemm::detail::scalar_value(alpha),
                                                                             {buffer_a, a.offset, a.ld, a.stride},
                                                                             {buffer_b, b.offset, b.ld, b.stride},
                                                                             tilegemm::detail::scalar_value(beta),
                                                                             {buffer_c, c.offset, c.ld, c.stride},
                                                                             count});
    tilegemm::detail::PlanOptions options;
    options.policy = policy;
    options.math = tilegemm::math_mode();  // a ScopedMathMode's, as the public call above takes it
    const auto [plan, done] = tilegemm_test::run_planned<Config>(queue, problem, options);
    cl::Event(done).wait();
    if (plan.work == tilegemm::detail::Work::product) CHECK(plan.global[2] == static_cast<std::size_t>(count));
  }
  const std::vector<Scalar> result = read_back<Scalar>(queue, buffer_c, c.storage.size());
  for (int p = 0; p < count; ++p) {
    INFO("problem " << p);
    if constexpr (std::is_same_v<Scalar, float>) {
      if (rounded_16) {
        const bool half = tilegemm::math_mode() == tilegemm::MathMode::fp16;
        CHECK(tilegemm_test::compare_with_reference<Scalar>(
                  c.problem(result, p), alpha, tilegemm_test::rounded_to_16_bits(op_a[p], half),
                  tilegemm_test::rounded_to_16_bits(op_b[p], half), beta, c0[p]) == "");
        continue;
      }
    }
    CHECK(tilegemm_test::compare_with_reference<Scalar>(c.problem(result, p), alpha, op_a[p], op_b[p], beta, c0[p]) ==
          "");
  }
  const std::vector<Scalar> outside = c.outside(result, sentinel);
  CHECK(std::count(outside.begin(), outside.end(), sentinel) == static_cast<long>(outside.size()));
}

// One batch in transposes `t` (bit 0: A, bit 1: B), with alpha = 1, beta = 0 and with random ones.
template <class Config, class Scalar>
void check_batch_scaled(const cl::CommandQueue& queue, int t, Shape s, int count,
                        EdgePolicy policy = EdgePolicy::by_size) {
  check_batch<Config, Scalar>(queue, t & 1, t & 2, s, count, Scalar(1), Scalar(0), policy);
  check_batch<Config, Scalar>(queue, t & 1, t & 2, s, count, tilegemm_test::random_scalar<Scalar>(),
                              tilegemm_test::random_scalar<Scalar>(), policy);
}

// Every shape in each of the given transposes, batches of 1 to 5.
template <class Config, class Scalar>
void check_batches_in(EdgePolicy policy, std::initializer_list<int> transposes = {0, 1, 2, 3}) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::vector<Shape>& shapes = policy == EdgePolicy::vectors ? vector_shapes : odd_shapes;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (const int t : transposes) {
      check_batch_scaled<Config, Scalar>(queue, t, shapes[i], counts[(i + static_cast<std::size_t>(t)) % counts.size()],
                                         policy);
    }
  }
}

template <class Config>
void check_batches(EdgePolicy policy = EdgePolicy::by_size) {
  check_batches_in<Config, float>(policy);
  check_batches_in<Config, double>(policy);
}

// An H200 as OpenCL describes it (as in test_plan.cpp).
tilegemm::detail::DeviceLimits h200() { return tilegemm_fuzz::gpu_description(132); }

}  // namespace

// ---- gemm_strided_batched on the device, per family ----

TEST_CASE("naive 8x8x1_1x1 batched", "[batched][naive]") { check_batches<tilegemm::Naive<8, 8>>(); }
TEST_CASE("local_tiles 16x16x16_1x4 batched (more work per thread)", "[batched][local_tiles]") {
  check_batches<tilegemm::MoreWorkPerThread<16, 4>>();
}
TEST_CASE("wide_types 16x16x16_4x1 v4 batched", "[batched][wide_types]") {
  check_batches<tilegemm::WideTypes<16, 4>>();
}
TEST_CASE("register_blocking 64x64x16_4x4 v4 batched (vector loads)", "[batched][register_blocking]") {
  check_batches<tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>>();
}
// Every layout in float; double, a program variant of each, only once (PoCL builds each in one to five seconds), in
// the slow tier with test_families' double programs of this configuration.
TEST_CASE("prefetch 64x64x16_4x4 v4 batched, every way of reading operands", "[batched][prefetch]") {
  for (EdgePolicy policy : {EdgePolicy::pack, EdgePolicy::vectors, EdgePolicy::elements}) {
    check_batches_in<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, float>(policy);
  }
}
TEST_CASE("prefetch 64x64x16_4x4 v4 batched in double, every way of reading operands", "[batched][prefetch][slow]") {
  for (EdgePolicy policy : {EdgePolicy::pack, EdgePolicy::vectors, EdgePolicy::elements}) {
    check_batches_in<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, double>(policy, {3});
  }
}
// The slow tier's, as test_families' of this configuration.
TEST_CASE("prefetch 32x32x8_2x2 v1 batched", "[batched][prefetch][slow]") {
  check_batches_in<tilegemm::Prefetch<32, 32, 8, 2, 2, 1>, float>(EdgePolicy::by_size, {0, 3});
  check_batches_in<tilegemm::Prefetch<32, 32, 8, 2, 2, 1>, double>(EdgePolicy::by_size, {1, 2});
}
TEST_CASE("default configuration batched (AutoConfig on this device)", "[batched][auto]") {
  check_batches<tilegemm::AutoConfig>();
}
TEST_CASE("default configuration batched as planned for GPUs (prefetch, whole small problems, small work-groups)",
          "[batched][auto]") {
  {
    const tilegemm::detail::ScopedDeviceDescription described(tilegemm_fuzz::gpu_description(132));
    check_batches_in<tilegemm::AutoConfig, float>(EdgePolicy::by_size, {0, 3});
    check_batches_in<tilegemm::AutoConfig, double>(EdgePolicy::by_size, {1});
  }
  const tilegemm::detail::ScopedDeviceDescription described(tilegemm_fuzz::narrow_gpu_description(64));
  check_batches_in<tilegemm::AutoConfig, float>(EdgePolicy::by_size, {2});
}

// The tiles AutoConfig gives batches on a GPU (gemm/default_plan.hpp's small_batch_choice and medium_batch_choice),
// each run here as planned for an H200: whole problems in 16, 20, 24 and 32 tiles (float in vectors of 2, double in
// elements), K past one slice and short of it (the 32 x 32 x 32 tiles' last slice stops at K), and enough problems of
// up to 128 for the 64 x 64 tiles and the 32 x 32 ones that cover 65 x 70 with less.
TEST_CASE("AutoConfig's tiles for batches of small and medium products, as planned for an H200", "[batched][auto]") {
  const tilegemm::detail::ScopedDeviceDescription described(tilegemm_fuzz::gpu_description(132));
  const cl::CommandQueue queue = tilegemm::default_queue();
  using tilegemm::AutoConfig;
  for (const Shape s : {Shape{12, 9, 5}, Shape{17, 19, 23}, Shape{24, 22, 22}, Shape{29, 32, 37}, Shape{30, 28, 26}}) {
    for (const int t : {0, 3}) check_batch_scaled<AutoConfig, float>(queue, t, s, 3);
    for (const int t : {1, 2}) check_batch_scaled<AutoConfig, double>(queue, t, s, 2);
  }
  check_batch_scaled<AutoConfig, float>(queue, 1, {65, 70, 33}, 140);
  check_batch_scaled<AutoConfig, float>(queue, 3, {64, 100, 50}, 140);
  check_batch_scaled<AutoConfig, double>(queue, 2, {64, 100, 50}, 140);
  check_batch_scaled<AutoConfig, double>(queue, 0, {65, 70, 33}, 140);
}

// The warpgroup_mma family on batches (wgmma, compute capability 9.0; elsewhere there is nothing to run): AutoConfig's
// tf32x3 configurations on every shape and transpose, and AutoConfig on batches large enough for wgmma, in tf32x3
// (within the reference's IEEE tolerance).
TEST_CASE("warpgroup_mma batched in tf32x3, and AutoConfig's large batches on it", "[batched][tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!tilegemm::detail::has_warpgroup_mma(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) return;
  const tilegemm::ScopedMathMode math(tilegemm::MathMode::tf32x3);
  check_batches_in<tilegemm::WarpgroupMma<64, 128, 32, 8>, float>(EdgePolicy::by_size);
  check_batches_in<tilegemm::WarpgroupMma<128, 128, 32, 6>, float>(EdgePolicy::by_size, {0, 3});
  check_batch<tilegemm::AutoConfig, float>(queue, false, true, {1000, 700, 300}, 3, 0.5f, -1.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, true, false, {513, 1024, 129}, 4, 1.0f, 0.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, false, false, {256, 256, 256}, 16, -1.5f, 0.25f);
}

// bf16 and fp16 batches on wgmma (compute capability 9.0): float operands rounded to 16 bits as they are packed,
// tiles 128 and 256 wide, every transpose; each problem the FP32-accumulated product of the rounded operands.
TEST_CASE("bf16 and fp16 batches on wgmma multiply float operands rounded to 16 bits", "[batched][tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const auto device = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  if (!tilegemm::detail::has_warpgroup_mma(device)) return;
  for (const tilegemm::MathMode mode : {tilegemm::MathMode::bf16, tilegemm::MathMode::fp16}) {
    const tilegemm::ScopedMathMode math(mode);
    for (const auto& [s, count] : {std::pair{Shape{256, 256, 256}, 20}, std::pair{Shape{700, 650, 70}, 3},
                                   std::pair{Shape{300, 1000, 129}, 5}}) {
      tilegemm::detail::GemmShape shape = tilegemm_test::dense_shape(s.m, s.n, s.k);
      shape.batch = count;
      shape.c.stride = s.m * s.n;
      REQUIRE(tilegemm::detail::plan_default(shape, device, sizeof(float), mode).work ==
              tilegemm::detail::Work::sixteen_bit_wgmma);
      for (int t = 0; t < 4; ++t) {
        check_batch<tilegemm::AutoConfig, float>(queue, t & 1, t & 2, s, count, 1.0f, 0.0f, EdgePolicy::by_size, true);
        check_batch<tilegemm::AutoConfig, float>(queue, t & 1, t & 2, s, count, tilegemm_test::random_scalar<float>(),
                                                 tilegemm_test::random_scalar<float>(), EdgePolicy::by_size, true);
      }
    }
  }
}

// The bulk_tensor_cores family on batches (double fed by the copy engine, compute capability 9.0; elsewhere there is
// nothing to run): a configuration within 48 KiB on every shape and transpose, and AutoConfig on batches large enough
// for AutoConfig's (203 KiB).
TEST_CASE("bulk_tensor_cores batched, and AutoConfig's large double batches on it", "[batched][tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!tilegemm::detail::has_copy_engine(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) return;
  check_batches_in<tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>, double>(EdgePolicy::by_size);
  check_batch<tilegemm::AutoConfig, double>(queue, false, true, {1000, 700, 300}, 3, 0.5, -1.0);
  check_batch<tilegemm::AutoConfig, double>(queue, true, false, {513, 1024, 129}, 4, 1.0, 0.0);
}

// The in_place_tensor_cores family (double on FP64 mma.sync, compute capability 8.0+, the operands read in place) on
// every shape, transpose and way of reading operands, and AutoConfig's choices of it (batches of 25 to 256 on a side,
// single products up to 1024); elsewhere it is refused with a sentence that says what it needs.
TEST_CASE("in_place_tensor_cores batched in double, and AutoConfig's double batches and small products on it",
          "[batched][tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  using Small = tilegemm::InPlaceTensorCores<32, 32, 8, 2, 4, 2>;
  using Staged = tilegemm::InPlaceTensorCores<64, 64, 8, 4, 8, 1, 4>;
  if (!tilegemm::detail::has_tensor_cores(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) {
    CHECK_THROWS_WITH((check_batch<Small, double>(queue, false, false, Shape{33, 17, 9}, 2, 1.0, 0.0)),
                      MESSAGE_CONTAINS("needs an NVIDIA GPU of compute capability 8.0 or newer"));
    return;
  }
  for (const EdgePolicy policy : {EdgePolicy::by_size, EdgePolicy::pack, EdgePolicy::vectors, EdgePolicy::elements}) {
    check_batches_in<Small, double>(policy);
  }
  // Slices through registers, and copied by cp.async in 4 or 3 stages (whole tiles, and past M, N and K zeros).
  for (const EdgePolicy policy : {EdgePolicy::by_size, EdgePolicy::elements}) check_batches_in<Staged, double>(policy);
  check_batches_in<tilegemm::InPlaceTensorCores<32, 32, 8, 2, 4, 1, 3>, double>(EdgePolicy::by_size);
  check_batches_in<tilegemm::InPlaceTensorCores<64, 64, 16, 4, 4, 2>, double>(EdgePolicy::by_size, {0, 3});
  check_batches_in<tilegemm::InPlaceTensorCores<32, 32, 16, 2, 4, 1>, double>(EdgePolicy::by_size, {1, 2});
  check_batch<Staged, double>(queue, true, true, {128, 192, 64}, 3, -1.0, 0.5);  // whole tiles, K whole slices
  check_batch<tilegemm::AutoConfig, double>(queue, false, true, {65, 70, 33}, 140, 0.5, -1.0);
  check_batch<tilegemm::AutoConfig, double>(queue, true, false, {200, 160, 250}, 4, 1.0, 0.0);
  check_batch<tilegemm::AutoConfig, double>(queue, true, true, {96, 100, 129}, 20, -0.75, 0.5);
  check_batch<tilegemm::AutoConfig, double>(queue, false, false, {500, 300, 257}, 1, 1.5, 0.25);
  check_batch<tilegemm::AutoConfig, double>(queue, true, false, {640, 577, 640}, 1, 1.0, 0.0);
  check_batch<tilegemm::AutoConfig, double>(queue, false, true, {1000, 700, 1001}, 1, -0.5, 2.0);
}

// The in_place_tensor_cores family in float (tf32x3: within the reference's IEEE tolerance) on every shape, transpose
// and way of reading operands: slices copied in vectors of 4 (whole tiles, whole vectors) or an element at a time.
TEST_CASE("in_place_tensor_cores batched in float, every way of reading operands", "[batched][tensor_cores]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  if (!tilegemm::detail::has_tensor_cores(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) return;
  const tilegemm::ScopedMathMode math(tilegemm::MathMode::tf32x3);
  using Vectors = tilegemm::InPlaceTensorCores<64, 32, 16, 4, 4, 4, 4>;
  for (const EdgePolicy policy : {EdgePolicy::by_size, EdgePolicy::vectors, EdgePolicy::elements}) {
    check_batches_in<Vectors, float>(policy);
  }
  check_batches_in<tilegemm::InPlaceTensorCores<32, 32, 32, 2, 4, 4, 3>, float>(EdgePolicy::vectors, {1, 2});
  check_batch<Vectors, float>(queue, true, false, {128, 192, 64}, 3, -1.0f, 0.5f);  // whole tiles, K whole slices
  check_batch<Vectors, float>(queue, false, true, {64, 96, 48}, 2, 1.0f, 0.0f);
}

// The staged_prefetch family (the prefetch kernel's arithmetic, its slices copied by cp.async: NVIDIA 8.0+) on every
// shape, transpose and way of reading operands, in float and double, and AutoConfig's medium float products on it;
// elsewhere it is refused with a sentence that says what it needs.
TEST_CASE("staged_prefetch batched, and AutoConfig's medium float products on it", "[batched][staged_prefetch]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  using Staged = tilegemm::StagedPrefetch<64, 32, 16, 4, 4, 4, 2>;
  if (!tilegemm::detail::has_tensor_cores(tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) {
    CHECK_THROWS_WITH((check_batch<Staged, float>(queue, false, false, Shape{33, 17, 9}, 2, 1.0f, 0.0f)),
                      MESSAGE_CONTAINS("copies its slices with cp.async"));
    return;
  }
  // Vectors of 4 floats (16-byte copies), of 2 and of 1; single elements; 2 to 5 stages; double in 16 and 8 bytes.
  for (const EdgePolicy policy : {EdgePolicy::by_size, EdgePolicy::pack, EdgePolicy::vectors, EdgePolicy::elements}) {
    check_batches_in<Staged, float>(policy);
  }
  check_batches_in<tilegemm::StagedPrefetch<64, 64, 8, 4, 8, 4, 4>, float>(EdgePolicy::by_size);
  check_batches_in<tilegemm::StagedPrefetch<96, 64, 16, 6, 8, 2, 3>, float>(EdgePolicy::vectors, {0, 3});
  check_batches_in<tilegemm::StagedPrefetch<32, 32, 8, 2, 2, 1, 5>, float>(EdgePolicy::by_size, {1, 2});
  check_batches_in<tilegemm::StagedPrefetch<32, 32, 8, 2, 4, 2, 3>, double>(EdgePolicy::by_size);
  check_batches_in<tilegemm::StagedPrefetch<32, 32, 8, 2, 2, 1, 3>, double>(EdgePolicy::elements, {1, 2});
  // Four doubles are 32 bytes, more than cp.async moves.
  CHECK_THROWS_WITH((check_batch<tilegemm::StagedPrefetch<32, 32, 16, 4, 4, 4, 3>, double>(
                        queue, false, false, Shape{64, 64, 16}, 1, 1.0, 0.0)),
                    MESSAGE_CONTAINS("in double VW must be 1 or 2"));
  // AutoConfig's medium float products (staged_64x32), every transpose, alpha and beta.
  check_batch<tilegemm::AutoConfig, float>(queue, false, false, {512, 512, 512}, 1, 1.5f, 0.25f);
  check_batch<tilegemm::AutoConfig, float>(queue, true, false, {1024, 512, 700}, 1, -1.0f, 0.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, false, true, {896, 896, 896}, 1, 0.5f, -1.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, true, true, {1100, 1100, 612}, 1, 1.0f, 1.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, true, false, {2048, 2100, 256}, 1, 0.75f, -0.5f);  // shallow
  // And its batches of 64 x 64 tiles with slices copied ahead (batch_64x64_staged), K whole slices of 16.
  check_batch<tilegemm::StagedPrefetch<64, 64, 16, 4, 8, 2, 2>, float>(queue, false, true, {70, 33, 48}, 3, 0.5f, 2.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, false, false, {64, 64, 64}, 200, 1.0f, 0.0f);
  check_batch<tilegemm::AutoConfig, float>(queue, true, true, {128, 120, 128}, 140, -1.5f, 0.5f);
}

TEST_CASE("a batch of one gives gemm's result, bit for bit", "[batched]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  for (const Shape s : {Shape{61, 129, 7}, Shape{64, 64, 64}, Shape{130, 3, 61}}) {
    const Matrix<float> a = tilegemm_test::random_matrix<float>(s.k, s.m);  // stored transposed
    const Matrix<float> b = tilegemm_test::random_matrix<float>(s.k, s.n);
    const Matrix<float> c0 = tilegemm_test::random_matrix<float>(s.m, s.n);
    StoredBatch<float> sa({a}, s.k, s.m, 0.0f, false), sb({b}, s.k, s.n, 0.0f, false), sc({c0}, s.m, s.n, 0.0f, false);
    const cl::Buffer ba = sa.upload(context), bb = sb.upload(context);
    const cl::Buffer single = sc.upload(context), batched = sc.upload(context);
    tilegemm::gemm<float>(queue, Transpose::yes, Transpose::no, s.m, s.n, s.k, -0.75f, ba, sa.offset, sa.ld, bb,
                          sb.offset, sb.ld, 1.5f, single, sc.offset, sc.ld)
        .wait();
    // Strides that are no whole vectors change nothing in a batch of one.
    tilegemm::gemm_strided_batched<float>(queue, Transpose::yes, Transpose::no, s.m, s.n, s.k, -0.75f, ba, sa.offset,
                                          sa.ld, 7, bb, sb.offset, sb.ld, 3, 1.5f, batched, sc.offset, sc.ld, 1, 1)
        .wait();
    CHECK(read_back<float>(queue, single, sc.storage.size()) == read_back<float>(queue, batched, sc.storage.size()));
  }
}

TEST_CASE("empty batches, empty problems, k = 0 and alpha = 0", "[batched]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  for (const Shape s : {Shape{0, 5, 5}, Shape{5, 0, 5}, Shape{5, 5, 0}, Shape{7, 61, 129}}) {
    check_batch<tilegemm::AutoConfig, float>(queue, false, false, s, 0, 1.0f, 0.0f);  // batch_count = 0: nothing
    check_batch<tilegemm::AutoConfig, float>(queue, false, true, s, 3, 1.0f, 0.0f);
    check_batch<tilegemm::AutoConfig, double>(queue, true, false, s, 4, -2.0, 0.5);
  }
  // alpha = 0: C = beta * C for each problem, A and B unread.
  check_batch<tilegemm::AutoConfig, float>(queue, false, false, {9, 10, 11}, 3, 0.0f, 0.5f);
  check_batch<tilegemm::AutoConfig, double>(queue, false, false, {9, 10, 11}, 3, 0.0, 0.0);
}

TEST_CASE("strides of 0 for A and B, interleaved C problems, and an explicit split-K batch of one", "[batched]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  // One A and one B for every problem; the problems' C interleaved by column: ldc = 2 m, c_stride = m.
  const int m = 13, n = 9, k = 21, count = 2;
  const Matrix<float> a = tilegemm_test::random_matrix<float>(m, k), b = tilegemm_test::random_matrix<float>(k, n);
  StoredBatch<float> sa({a}, m, k, tilegemm_test::poison<float>(), false);
  StoredBatch<float> sb({b}, k, n, tilegemm_test::poison<float>(), false);
  std::vector<float> c(static_cast<std::size_t>(2 * m * n), tilegemm_test::poison<float>());
  const cl::Buffer ba = sa.upload(context), bb = sb.upload(context);
  const cl::Buffer bc(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * c.size(), c.data());
  tilegemm::gemm_strided_batched<float>(queue, Transpose::no, Transpose::no, m, n, k, 1.0f, ba, sa.offset, sa.ld, 0, bb,
                                        sb.offset, sb.ld, 0, 0.0f, bc, 0, 2 * m, m, count)
      .wait();
  const std::vector<float> result = read_back<float>(queue, bc, c.size());
  for (int p = 0; p < count; ++p) {
    const Eigen::Map<const Matrix<float>, 0, Eigen::OuterStride<>> problem(result.data() + p * m, m, n,
                                                                           Eigen::OuterStride<>(2 * m));
    CHECK(tilegemm_test::compare_with_reference<float>(problem, 1.0, a, b, 0.0, Matrix<float>::Zero(m, n)) == "");
  }
  check_batch<tilegemm::SplitK<32, 32, 16, 2, 2, 2>, float>(queue, false, true, {61, 129, 700}, 1, 1.0f, 0.0f);
}

// ---- Bad batches ----

TEST_CASE("bad strided batches are refused with a message that names the argument", "[batched][errors]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const auto buffer = [&](std::size_t elements) {
    return cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(float) * elements);
  };
  const cl::Buffer a = buffer(4 * 16 * 6), b = buffer(16 * 4 * 6), c = buffer(4 * 4 * 5);
  const auto run = [&](long long a_stride, long long b_stride, long long c_stride, long long count,
                       const cl::Buffer& c_buffer, long long c_offset = 0, long long lda = 4) {
    tilegemm::gemm_strided_batched<float>(queue, Transpose::no, Transpose::no, 4, 4, 16, 1.0f, a, 0, lda, a_stride, b,
                                          0, 16, b_stride, 0.0f, c_buffer, c_offset, 4, c_stride, count)
        .wait();
  };
  CHECK_NOTHROW(run(64, 64, 16, 5, c));
  // C's problems on each other: a stride below one C's 16 elements, or 0.
  CHECK_THROWS_WITH(run(64, 64, 15, 5, c), CONTAINS_ALL2("gemm_strided_batched: the problems of C overlap each other",
                                                         "problem 1 share memory"));
  CHECK_THROWS_WITH(run(64, 64, 0, 2, c), MESSAGE_CONTAINS("the problems of C overlap each other"));
  // C on A: the C of the last problems in the memory of A's.
  CHECK_THROWS_WITH(run(64, 64, 16, 5, a, 200), CONTAINS_ALL2("C overlaps A", "Give C memory of its own"));
  // Strides: negative, past 32-bit indices, or a batch that spans more than the kernels index or the buffer holds.
  CHECK_THROWS_WITH(run(-64, 64, 16, 5, c), MESSAGE_CONTAINS("the stride of A must not be negative"));
  CHECK_THROWS_WITH(run(64, 1LL << 31, 16, 5, c), CONTAINS_ALL2("the stride of B is 2147483648", "at most 2147483647"));
  CHECK_THROWS_WITH(run(1LL << 30, 64, 16, 3, c),
                    CONTAINS_ALL2("the 3 problems of A, 1073741824 elements apart, span", "at most 2147483647"));
  CHECK_THROWS_WITH(
      run(64, 64, 16, 6, c),
      CONTAINS_ALL2("buffer C holds 80 elements but the 6 problems' 4 x 4 operands", "16 elements apart, need 96"));
  CHECK_THROWS_WITH(run(64, 64, 16, -1, c), MESSAGE_CONTAINS("batch_count must be between 0 and 2147483647"));
  // The checks a batch shares with gemm name the function that was called.
  CHECK_THROWS_WITH(run(64, 64, 16, 5, c, 0, 3),
                    CONTAINS_ALL2("tilegemm::gemm_strided_batched: the leading dimension of A is 3", "at least the 4"));
  // A configuration that cannot take batches.
  CHECK_THROWS_WITH(
      (tilegemm::gemm_strided_batched<float, tilegemm::SplitK<32, 32, 16, 2, 2, 2>>(
          queue, Transpose::no, Transpose::no, 4, 4, 16, 1.0f, a, 0, 4, 64, b, 0, 16, 64, 0.0f, c, 0, 4, 16, 5)),
      MESSAGE_CONTAINS("split_k 32x32x16 2x2 v2 cannot multiply a batch"));
}

// ---- The Eigen front end ----

TEMPLATE_TEST_CASE("gpu_gemm_batched on Eigen matrices: one shape, each product checked", "[batched][eigen]", float,
                   double) {
  using Scalar = TestType;
  const int count = 7;
  const std::vector<Matrix<Scalar>> a = random_matrices<Scalar>(count, 61, 7);
  const std::vector<Matrix<Scalar>> b = random_matrices<Scalar>(count, 7, 129);
  const std::vector<Matrix<Scalar>> c = tilegemm::gpu_gemm_batched(a, b);
  REQUIRE(c.size() == static_cast<std::size_t>(count));
  for (int p = 0; p < count; ++p) {
    CHECK(tilegemm_test::compare_with_reference<Scalar>(c[p], 1.0, a[p], b[p], 0.0, Matrix<Scalar>::Zero(61, 129)) ==
          "");
  }
  // In place, row-major operands (evaluated as they are packed), alpha and beta; with beta = 0, NaN in C is not read.
  using RowMajor = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<RowMajor> ra, rb;
  for (int p = 0; p < count; ++p) {
    ra.push_back(a[p]);
    rb.push_back(b[p]);
  }
  for (const Scalar beta : {Scalar(0), tilegemm_test::random_scalar<Scalar>()}) {
    const Scalar alpha = tilegemm_test::random_scalar<Scalar>();
    std::vector<Matrix<Scalar>> c0 = random_matrices<Scalar>(count, 61, 129);
    if (beta == Scalar(0)) {
      for (Matrix<Scalar>& x : c0) x.setConstant(tilegemm_test::poison<Scalar>());
    }
    std::vector<Matrix<Scalar>> result = c0;
    tilegemm::gpu_gemm_batched(tilegemm::default_queue(), ra, rb, result, alpha, beta);
    for (int p = 0; p < count; ++p) {
      INFO("problem " << p << ", beta " << beta);
      CHECK(tilegemm_test::compare_with_reference<Scalar>(result[p], alpha, a[p], b[p], beta, c0[p]) == "");
    }
  }
}

TEST_CASE("gpu_gemm_batched on Eigen matrices: empty batches and degenerate shapes", "[batched][eigen]") {
  // An empty batch is no error: nothing to multiply, an empty vector back.
  CHECK(tilegemm::gpu_gemm_batched(std::vector<Eigen::MatrixXf>{}, std::vector<Eigen::MatrixXf>{}).empty());
  std::vector<Eigen::MatrixXf> none;
  CHECK_NOTHROW(tilegemm::gpu_gemm_batched(none, none, none, 1.0f, 0.0f));
  // K = 0: C = beta * C; empty C: nothing.
  std::vector<Eigen::MatrixXf> c = {Eigen::MatrixXf::Constant(3, 2, 4.0f), Eigen::MatrixXf::Constant(3, 2, 1.0f)};
  tilegemm::gpu_gemm_batched(std::vector<Eigen::MatrixXf>(2, Eigen::MatrixXf(3, 0)),
                             std::vector<Eigen::MatrixXf>(2, Eigen::MatrixXf(0, 2)), c, 1.0f, 0.5f);
  CHECK(c[0] == Eigen::MatrixXf::Constant(3, 2, 2.0f));
  CHECK(c[1] == Eigen::MatrixXf::Constant(3, 2, 0.5f));
  const auto empty = tilegemm::gpu_gemm_batched(std::vector<Eigen::MatrixXf>(3, Eigen::MatrixXf(0, 4)),
                                                std::vector<Eigen::MatrixXf>(3, Eigen::MatrixXf::Ones(4, 5)));
  REQUIRE(empty.size() == 3);
  CHECK(empty[2].rows() == 0);
  CHECK(empty[2].cols() == 5);
}

TEST_CASE("gpu_gemm_batched refuses unequal shapes and lengths with both shapes in the message",
          "[batched][eigen][errors]") {
  std::vector<Eigen::MatrixXf> a(3, Eigen::MatrixXf::Ones(3, 4)), b(3, Eigen::MatrixXf::Ones(4, 5));
  a[2] = Eigen::MatrixXf::Ones(3, 5);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b),
                    CONTAINS_ALL2("tilegemm::gpu_gemm_batched: every problem of a batch has the same shape",
                                  "A[2] is 3x5 while A[0] is 3x4"));
  a[2] = Eigen::MatrixXf::Ones(3, 4);
  std::vector<Eigen::MatrixXf> two(2, Eigen::MatrixXf::Ones(4, 5));
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, two), MESSAGE_CONTAINS("the batch has 3 A, 2 B matrices"));
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(std::vector<Eigen::MatrixXf>{}, two),
                    MESSAGE_CONTAINS("the batch has 0 A, 2 B matrices"));
  std::vector<Eigen::MatrixXf> c(2, Eigen::MatrixXf(3, 5));
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, c, 1.0f, 0.0f),
                    MESSAGE_CONTAINS("the batch has 3 A, 3 B and 2 C matrices"));
  c.resize(3, Eigen::MatrixXf(3, 6));
  c[0] = c[1] = Eigen::MatrixXf(3, 6);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, c, 1.0f, 0.0f), CONTAINS_ALL2("C is 3x6", "is 3x5"));
  std::vector<Eigen::MatrixXf> wrong_inner(3, Eigen::MatrixXf::Ones(6, 5));
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, wrong_inner), CONTAINS_ALL2("A (3x4)", "B (6x5)"));
}

// ---- Device matrices ----

TEST_CASE("gpu_gemm_batched on device matrices: a contiguous batch in place, others gathered and scattered",
          "[batched][device_matrix]") {
  using tilegemm::detail::strided_in_place;
  using tilegemm::detail::StridedOperand;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const int count = 5, m = 61, k = 7, n = 29;
  const std::vector<Matrix<float>> a = random_matrices<float>(count, m, k), b = random_matrices<float>(count, k, n);
  // A contiguous batch (device_batch): in place, and the result is one as well.
  const std::vector<DeviceMatrix<float>> da = tilegemm::device_batch(a, queue), db = tilegemm::device_batch(b, queue);
  StridedOperand strided;
  REQUIRE(strided_in_place(da, strided));
  CHECK(strided.stride == m * k);
  const std::vector<DeviceMatrix<float>> dc = tilegemm::gpu_gemm_batched(da, db);
  REQUIRE(dc.size() == static_cast<std::size_t>(count));
  CHECK(strided_in_place(dc, strided));
  for (int p = 0; p < count; ++p) {
    CHECK(tilegemm_test::compare_with_reference<float>(dc[p].to_host(), 1.0, a[p], b[p], 0.0,
                                                       Matrix<float>::Zero(m, n)) == "");
  }
  // Matrices each in a buffer of its own: gathered. C around one buffer of the user's, in the reverse order (no
  // constant stride): gathered, and the results scattered back, touching nothing around them.
  std::vector<DeviceMatrix<float>> sa, sb;
  for (int p = 0; p < count; ++p) {
    sa.emplace_back(a[p], queue);
    sb.emplace_back(b[p], queue);
  }
  CHECK(!strided_in_place(sa, strided));
  const long long ldc = m + 3, pitch = ldc * n + 5;
  std::vector<float> storage(static_cast<std::size_t>(pitch * count + 7), 12345.0f);
  const std::vector<Matrix<float>> c0 = random_matrices<float>(count, m, n);
  for (int p = 0; p < count; ++p)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) storage[(count - 1 - p) * pitch + 2 + i + j * ldc] = c0[p](i, j);
  const cl::Buffer c_buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            sizeof(float) * storage.size(), storage.data());
  std::vector<DeviceMatrix<float>> sc;
  for (int p = 0; p < count; ++p) sc.emplace_back(c_buffer, m, n, ldc, (count - 1 - p) * pitch + 2, queue);
  CHECK(!strided_in_place(sc, strided));
  tilegemm::gpu_gemm_batched(sa, sb, sc, 2.0f, -1.0f);
  std::vector<float> result = read_back<float>(queue, c_buffer, storage.size());
  for (int p = 0; p < count; ++p) {
    CHECK(tilegemm_test::compare_with_reference<float>(sc[p].to_host(), 2.0, a[p], b[p], -1.0, c0[p]) == "");
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) result[(count - 1 - p) * pitch + 2 + i + j * ldc] = 12345.0f;
  }
  CHECK(std::count(result.begin(), result.end(), 12345.0f) == static_cast<long>(result.size()));
  // The same C in place (a constant stride, in the buffer's order): beta = 0, so the old values are not read.
  std::vector<DeviceMatrix<float>> in_order;
  for (int p = 0; p < count; ++p) in_order.emplace_back(c_buffer, m, n, ldc, p * pitch + 2, queue);
  REQUIRE(strided_in_place(in_order, strided));
  tilegemm::gpu_gemm_batched(queue, sa, db, in_order, 1.0f, 0.0f);
  for (int p = 0; p < count; ++p) {
    CHECK(tilegemm_test::compare_with_reference<float>(in_order[p].to_host(), 1.0, a[p], b[p], 0.0,
                                                       Matrix<float>::Zero(m, n)) == "");
  }
}

TEST_CASE("gpu_gemm_batched on device matrices refuses C that share memory", "[batched][device_matrix][errors]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::vector<DeviceMatrix<float>> a = tilegemm::device_batch<float>(3, 4, 4, queue);
  const std::vector<DeviceMatrix<float>> b = tilegemm::device_batch<float>(3, 4, 4, queue);
  const cl::Buffer shared(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, sizeof(float) * 64);
  // Gathered (no constant stride) and overlapping: 0, 20 and 10, 16 elements each.
  std::vector<DeviceMatrix<float>> gathered;
  for (const int offset : {0, 20, 10}) gathered.emplace_back(shared, 4, 4, 4, offset, queue);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, gathered, 1.0f, 0.0f),
                    MESSAGE_CONTAINS("tilegemm::gpu_gemm_batched: two matrices C of the batch share memory"));
  // In place, 10 elements apart.
  std::vector<DeviceMatrix<float>> strided;
  for (const int offset : {0, 10, 20}) strided.emplace_back(shared, 4, 4, 4, offset, queue);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm_batched(a, b, strided, 1.0f, 0.0f),
                    MESSAGE_CONTAINS("tilegemm::gpu_gemm_batched: the problems of C overlap each other"));
}

// ---- Many small products ----

TEST_CASE("10,000 products of 32 x 32 x 32 in one call", "[batched][slow]") {
  const int count = 10000, size = 32;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::vector<Matrix<float>> a = random_matrices<float>(count, size, size);
  const std::vector<Matrix<float>> b = random_matrices<float>(count, size, size);
  std::vector<Matrix<float>> c0 = random_matrices<float>(count, size, size);
  // Through the Eigen front end: one upload per operand, one launch, one download.
  std::vector<Matrix<float>> c = c0;
  tilegemm::gpu_gemm_batched(queue, a, b, c, 0.5f, -1.0f);
  int wrong = 0;
  for (int p = 0; p < count; ++p) {
    if (tilegemm_test::compare_with_reference<float>(c[p], 0.5, a[p], b[p], -1.0, c0[p]) != "") ++wrong;
  }
  CHECK(wrong == 0);
  // Through gemm_strided_batched, as planned for a GPU (the prefetch kernels).
  const tilegemm::detail::ScopedDeviceDescription described(h200());
  check_batch<tilegemm::AutoConfig, float>(queue, true, false, {size, size, size}, count, 1.0f, 0.0f);
}
