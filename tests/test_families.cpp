// test_families: every kernel family and configuration, float and double, through the BLAS-style core on
// cl::Buffers: shapes that are not multiples of the tiles, all four transposes, offsets and padded leading
// dimensions, alpha and beta (beta = 0 with NaN in C), compared with a double-precision reference.
#include <initializer_list>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"
#include "run_plan.hpp"

namespace {

using tilegemm::Transpose;
using tilegemm_test::Matrix;

struct Shape {
  int m, n, k;
};

// Shapes that cross tile edges: single elements, primes, K = 1, tall-skinny, wide, K much larger than M and N.
const std::vector<Shape> small_shapes = {{1, 1, 1},    {7, 7, 7},    {61, 129, 7}, {129, 61, 1}, {1, 129, 61},
                                         {130, 3, 61}, {3, 130, 61}, {8, 9, 1500}, {64, 64, 64}, {65, 63, 17}};

// Shapes whose sizes are whole vectors of 4 (but not whole tiles), for the kernels that read such operands in
// place a vector at a time.
const std::vector<Shape> vector_shapes = {{4, 4, 4},     {60, 68, 36}, {132, 4, 100}, {4, 200, 12},
                                          {8, 12, 1500}, {68, 60, 4},  {100, 100, 20}};

// A column-major operand stored inside a larger buffer, at an offset and with a padded leading dimension (both
// multiples of 4 when `aligned`). Everything around it is NaN, so that a kernel reading outside the operand poisons
// the result.
template <class Scalar>
struct StoredOperand {
  Matrix<Scalar> values;  // as stored (rows x cols)
  int offset;
  int ld;
  std::vector<Scalar> storage;

  StoredOperand(const Matrix<Scalar>& v, Scalar surround, bool aligned = false) : values(v) {
    std::uniform_int_distribution<int> pick(0, 3);
    const int unit = aligned ? 4 : 1;
    offset = unit * pick(tilegemm_test::generator());
    ld = (static_cast<int>(v.rows()) + unit - 1) / unit * unit + unit * pick(tilegemm_test::generator());
    storage.assign(offset + static_cast<std::size_t>(ld) * v.cols() + pick(tilegemm_test::generator()) + 1, surround);
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
  Matrix<Scalar> window(const std::vector<Scalar>& from) const {
    Matrix<Scalar> w(values.rows(), values.cols());
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      for (Eigen::Index i = 0; i < w.rows(); ++i) w(i, j) = from[offset + i + j * ld];
    return w;
  }
};

using tilegemm::detail::EdgePolicy;

// One product through tilegemm::gemm<Config>, checked against the reference; C's surroundings must be untouched.
// Families that read either layout take operands that do not fill whole tiles in place or packed, by size, unless
// `policy` says which.
template <class Config, class Scalar>
void check_product(const cl::CommandQueue& queue, bool trans_a, bool trans_b, Shape s, Scalar alpha, Scalar beta,
                   EdgePolicy policy = EdgePolicy::by_size) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(s.m, s.k);
  const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(s.k, s.n);
  const Matrix<Scalar> c0 = beta == Scalar(0) ? Matrix<Scalar>::Constant(s.m, s.n, tilegemm_test::poison<Scalar>())
                                              : tilegemm_test::random_matrix<Scalar>(s.m, s.n);
  const Scalar nan = tilegemm_test::poison<Scalar>();
  const Scalar sentinel = Scalar(12345);
  const bool aligned = policy == EdgePolicy::vectors;
  StoredOperand<Scalar> a(trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a, nan, aligned);
  StoredOperand<Scalar> b(trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b, nan, aligned);
  StoredOperand<Scalar> c(c0, sentinel);
  INFO(Config::name() << (std::is_same_v<Scalar, float> ? " float" : " double") << ", m=" << s.m << " n=" << s.n
                      << " k=" << s.k << ", transA=" << trans_a << " transB=" << trans_b << ", alpha=" << alpha
                      << " beta=" << beta << ", offsets " << a.offset << "/" << b.offset << "/" << c.offset << ", ld "
                      << a.ld << "/" << b.ld << "/" << c.ld << ", edge policy " << static_cast<int>(policy) << ", seed "
                      << tilegemm_test::run_seed());
  const cl::Buffer buffer_a = a.upload(context), buffer_b = b.upload(context), buffer_c = c.upload(context);
  if constexpr (!std::is_same_v<Config, tilegemm::AutoConfig>) {
    // A configuration too large for the device (e.g. 128x128x16 tiles in double on 48 KiB of local memory)
    // must be refused with tilegemm::Error before anything runs, and is otherwise not this test's business.
    const auto limits = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
    if (!tilegemm::detail::config_fits(tilegemm::detail::describe<Config>, limits, sizeof(Scalar))) {
      const auto run = [&] {
        tilegemm::gemm<Scalar, Config>(queue, trans_a ? Transpose::yes : Transpose::no,
                                       trans_b ? Transpose::yes : Transpose::no, s.m, s.n, s.k, alpha, buffer_a,
                                       a.offset, a.ld, buffer_b, b.offset, b.ld, beta, buffer_c, c.offset, c.ld);
      };
      CHECK_THROWS_AS(run(), tilegemm::Error);
      return;
    }
  }
  if (std::is_same_v<Config, tilegemm::AutoConfig> || policy == EdgePolicy::by_size) {
    tilegemm::gemm<Scalar, Config>(queue, trans_a ? Transpose::yes : Transpose::no,
                                   trans_b ? Transpose::yes : Transpose::no, s.m, s.n, s.k, alpha, buffer_a, a.offset,
                                   a.ld, buffer_b, b.offset, b.ld, beta, buffer_c, c.offset, c.ld)
        .wait();
  } else if constexpr (!std::is_same_v<Config, tilegemm::AutoConfig>) {
    const auto problem = tilegemm::detail::check_arguments(context, {trans_a ? Transpose::yes : Transpose::no,
                                                                     trans_b ? Transpose::yes : Transpose::no,
                                                                     s.m,
                                                                     s.n,
                                                                     s.k,
                                                                     tilegemm::detail::scalar_value(alpha),
                                                                     {buffer_a, a.offset, a.ld},
                                                                     {buffer_b, b.offset, b.ld},
                                                                     tilegemm::detail::scalar_value(beta),
                                                                     {buffer_c, c.offset, c.ld}});
    tilegemm::detail::PlanOptions options;
    options.policy = policy;
    tilegemm_test::run_planned<Config>(queue, problem, options).second.wait();
  }
  std::vector<Scalar> result(c.storage.size());
  REQUIRE(queue.enqueueReadBuffer(buffer_c, CL_TRUE, 0, sizeof(Scalar) * result.size(), result.data()) == CL_SUCCESS);
  CHECK(tilegemm_test::compare_with_reference<Scalar>(c.window(result), alpha, op_a, op_b, beta, c0) == "");
  std::vector<Scalar> outside = result;
  for (Eigen::Index j = 0; j < s.n; ++j)
    for (Eigen::Index i = 0; i < s.m; ++i) outside[c.offset + i + j * c.ld] = sentinel;
  CHECK(std::count(outside.begin(), outside.end(), sentinel) == static_cast<long>(outside.size()));
}

// Every shape, in each of the given transposes (bit 0: A, bit 1: B), with alpha = 1, beta = 0 and random ones.
template <class Config, class Scalar>
void check_family_in(EdgePolicy policy, std::initializer_list<int> transposes = {0, 1, 2, 3}) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  for (const Shape& s : policy == EdgePolicy::vectors ? vector_shapes : small_shapes) {
    for (int t : transposes) {
      check_product<Config, Scalar>(queue, t & 1, t & 2, s, Scalar(1), Scalar(0), policy);
      check_product<Config, Scalar>(queue, t & 1, t & 2, s, tilegemm_test::random_scalar<Scalar>(),
                                    tilegemm_test::random_scalar<Scalar>(), policy);
    }
  }
}

// Every transpose in float; in double, whose kernels differ from float's only in their type, A * B and A^T * B^T (A
// outer-contiguous with B K-contiguous, and the reverse): each transpose is a program of its own (PoCL builds one in
// 1 to 5 s), and test_eigen_operands and test_fuzz multiply double in the other transposes too.
template <class Config>
void check_family(EdgePolicy policy = EdgePolicy::by_size) {
  check_family_in<Config, float>(policy);
  check_family_in<Config, double>(policy, {0, 3});
}

// The families that read either layout, every way they take operands that do not fill whole tiles: packed, in
// place a vector at a time (sizes, offsets and leading dimensions whole vectors), in place an element at a time.
// Each way is its own program per layout of A and B: all four in float; in double, whose kernels differ only in
// their type, A^T * B^T and A * B (A K-contiguous with B outer-contiguous, and the reverse), to keep the number of
// programs CI compiles down. Large tiles, whose kernel text is that of the small ones with other sizes (and whose
// programs take PoCL the longest to build), take A * B and A^T * B^T in float and A * B in double.
// The device tier's configurations run the float part there and the double part in the slow tier (`in_float`,
// `in_double`).
template <class Config>
void check_family_every_way(bool every_layout = true, bool in_float = true, bool in_double = true) {
  for (EdgePolicy policy : {EdgePolicy::pack, EdgePolicy::vectors, EdgePolicy::elements}) {
    INFO("edge policy " << static_cast<int>(policy));
    if (every_layout) {
      if (in_float) check_family_in<Config, float>(policy);
      if (in_double) check_family_in<Config, double>(policy, {0, 3});
    } else {
      if (in_float) check_family_in<Config, float>(policy, {0, 3});
      if (in_double) check_family_in<Config, double>(policy, {0});
    }
  }
}

// One product of about 1152 x 1152 with the sizes just off the tile multiples, in both precisions, K as deep
// (`depth`): full depth for the kernels that read K in stretches of their own, less for those whose K loop is plain.
// A^T * B^T in float and A * B in double (one operand K-contiguous and the other not, and the reverse), which the
// cases above run with the same configurations: their programs are built once.
template <class Config>
void check_large(int depth, EdgePolicy policy = EdgePolicy::by_size) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  check_product<Config, float>(queue, true, true, {1153, 1151, depth}, 1.0f, 0.0f, policy);
  check_product<Config, double>(queue, false, false, {1151, 1153, depth - 2}, -0.5, 2.0, policy);
}

}  // namespace

// The device tier runs one configuration of each family and kernel variant (PoCL compiles each program in one to five
// seconds from a cold cache); the others, of the same kernel text with other sizes, are in the slow tier ([slow]),
// which CI runs.
TEST_CASE("naive 8x8x1_1x1", "[families][naive]") { check_family<tilegemm::Naive<8, 8>>(); }
TEST_CASE("naive 16x4x1_1x1", "[families][naive][slow]") { check_family<tilegemm::Naive<16, 4>>(); }
TEST_CASE("local_tiles 8x8x8_1x1", "[families][local_tiles][slow]") { check_family<tilegemm::LocalTiles<8>>(); }
TEST_CASE("local_tiles 16x16x16_1x1", "[families][local_tiles]") { check_family<tilegemm::LocalTiles<16>>(); }
TEST_CASE("local_tiles 16x16x16_1x4 (more work per thread)", "[families][local_tiles]") {
  check_family<tilegemm::MoreWorkPerThread<16, 4>>();
}
TEST_CASE("local_tiles 32x32x32_1x8 (more work per thread)", "[families][local_tiles][slow]") {
  check_family<tilegemm::MoreWorkPerThread<32, 8>>();
}
TEST_CASE("wide_types 16x16x16_4x1 v4", "[families][wide_types]") { check_family<tilegemm::WideTypes<16, 4>>(); }
TEST_CASE("wide_types 32x32x32_8x1 v8", "[families][wide_types][slow]") { check_family<tilegemm::WideTypes<32, 8>>(); }
TEST_CASE("register_blocking 32x64x16_1x8 (transposed B)", "[families][register_blocking]") {
  check_family<tilegemm::TransposedB<32, 64, 16, 8>>();
}
TEST_CASE("register_blocking 64x64x16_4x4", "[families][register_blocking]") {
  check_family<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>();
}
TEST_CASE("register_blocking 32x64x8_2x8", "[families][register_blocking][slow]") {
  check_family<tilegemm::RegisterBlocking<32, 64, 8, 2, 8>>();
}
TEST_CASE("register_blocking 48x32x8_3x4", "[families][register_blocking][slow]") {
  check_family<tilegemm::RegisterBlocking<48, 32, 8, 3, 4>>();
}
TEST_CASE("register_blocking 32x32x16_2x2 v2 (vector loads)", "[families][vector_loads][slow]") {
  check_family<tilegemm::VectorLoads<32, 32, 16, 2, 2, 2>>();
}
TEST_CASE("register_blocking 64x64x16_4x4 v4 (vector loads)", "[families][vector_loads]") {
  check_family<tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>>();
}
TEST_CASE("register_blocking 128x128x16_8x8 v4 (vector loads)", "[families][vector_loads][slow]") {
  check_family<tilegemm::VectorLoads<128, 128, 16, 8, 8, 4>>();
}
TEST_CASE("register_blocking 160x160x16_10x10 v2 (kernel 10's incomplete tiles)", "[families][vector_loads]") {
  check_family<tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>>();
}
TEST_CASE("prefetch 64x64x16_4x4 v4", "[families][prefetch]") {
  check_family_every_way<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>(true, true, false);
}
TEST_CASE("prefetch 64x64x16_4x4 v4 in double", "[families][prefetch][slow]") {
  check_family_every_way<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>(true, false, true);
}
TEST_CASE("prefetch 128x128x8_8x8 v4", "[families][prefetch][slow]") {
  check_family_every_way<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>>(false);
}
TEST_CASE("prefetch 128x64x8_8x4 v2", "[families][prefetch][slow]") {
  check_family_every_way<tilegemm::Prefetch<128, 64, 8, 8, 4, 2>>(false);
}
TEST_CASE("prefetch 32x32x8_2x2 v1", "[families][prefetch][slow]") {
  check_family_every_way<tilegemm::Prefetch<32, 32, 8, 2, 2, 1>>();
}
TEST_CASE("split_k 32x32x16_2x2 v2", "[families][split_k]") {
  check_family_every_way<tilegemm::SplitK<32, 32, 16, 2, 2, 2>>(true, true, false);
}
TEST_CASE("split_k 32x32x16_2x2 v2 in double", "[families][split_k][slow]") {
  check_family_every_way<tilegemm::SplitK<32, 32, 16, 2, 2, 2>>(true, false, true);
}
TEST_CASE("split_k 64x64x16_4x4 v4", "[families][split_k][slow]") {
  check_family_every_way<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(false);  // every layout in split_k 32x32x16_2x2 v2
}
TEST_CASE("default configuration (AutoConfig)", "[families][auto]") { check_family<tilegemm::AutoConfig>(); }

TEST_CASE("default configuration just past multiples of its tiles (a tiled corner and the remainder on GPUs)",
          "[families][auto][slow]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  check_product<tilegemm::AutoConfig, float>(queue, false, false, {1025, 1025, 100}, 1.0f, 0.0f);
  check_product<tilegemm::AutoConfig, float>(queue, true, false, {1040, 1032, 33}, -1.5f, 0.5f);
  check_product<tilegemm::AutoConfig, double>(queue, true, true, {1030, 1029, 77}, 0.75, -2.0);
  check_product<tilegemm::AutoConfig, double>(queue, false, true, {2049, 130, 64}, 1.0, 0.0);
}

TEST_CASE("about 1152 x 1152, every family", "[families][slow]") {
  check_large<tilegemm::Naive<16, 4>>(301);
  check_large<tilegemm::MoreWorkPerThread<16, 4>>(301);
  check_large<tilegemm::WideTypes<16, 4>>(301);
  check_large<tilegemm::TransposedB<32, 64, 16, 8>>(301);
  check_large<tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>>(301);
  check_large<tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>>(301);
  check_large<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>>(1152, EdgePolicy::pack);
  check_large<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>>(1152, EdgePolicy::elements);
  check_product<tilegemm::Prefetch<128, 64, 8, 8, 8, 4>, float>(tilegemm::default_queue(), true, false,
                                                                {1156, 1148, 1000}, 1.0f, 0.0f, EdgePolicy::vectors);
  check_large<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(1152, EdgePolicy::pack);
  check_large<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(1152, EdgePolicy::elements);
  check_large<tilegemm::AutoConfig>(1152);
}
