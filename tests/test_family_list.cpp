// test_family_list: a family defined in this file alone (its traits, rules, where it runs and kernel) and appended to
// the list of families is found by name, described at run time, refused where it says, planned and run.
#include <algorithm>
#include <optional>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
#include "described_devices.hpp"
#include "reference.hpp"

namespace tilegemm_test {

// A family value past the built-in ones: the test's family needs no enumerator in config/family.hpp.
inline constexpr tilegemm::Family column_walk = static_cast<tilegemm::Family>(100);

// WPTM elements of one column of C per work-item, THREADS_M apart, from the caller's A and B in global memory.
inline constexpr char column_walk_source[] = R"CLC(
__kernel __attribute__((reqd_work_group_size(THREADS_M, THREADS_N, 1)))
void gemm_column_walk(GEMM_PARAMETERS(real), BATCH_PARAMETERS) {
  const int n = get_global_id(1);
  const int first_m = get_group_id(0) * TSM + get_local_id(0);
  A += IN_BATCH(a_offset, a_stride);
  B += IN_BATCH(b_offset, b_stride);
  C += IN_BATCH(c_offset, c_stride);
  real acc[WPTM];
  for (int i = 0; i < WPTM; ++i) acc[i] = 0;
  for (int k = 0; k < K; ++k) {
    const real b_kn = n < N ? B_AT(k, n) : (real)0;
    for (int i = 0; i < WPTM; ++i) {
      const int m = first_m + i * THREADS_M;
      if (m < M) acc[i] += A_AT(m, k) * b_kn;
    }
  }
  for (int i = 0; i < WPTM; ++i) STORE_C(first_m + i * THREADS_M, n, acc[i]);
}
)CLC";

}  // namespace tilegemm_test

namespace tilegemm::detail {

template <>
struct FamilyTraits<tilegemm_test::column_walk> : FamilyDefaults {
  static constexpr char name[] = "column_walk";
  static constexpr OperandAccess access = OperandAccess::caller_layout;

#define COLUMN_WALK_RULES(RULE)                                                                                 \
  RULE(column_walk_shape, t.tsk == 1 && t.wptn == 1 && t.vw == 1,                                               \
       "the column_walk family walks one column per work-item without tiles in K: TSK, WPTN and VW must be 1.") \
  TILEGEMM_ONE_STAGE_RULE(RULE)
  TILEGEMM_RULES_FROM(COLUMN_WALK_RULES)
  // Float only, to show that the planner asks the family.
  static Implementation can_implement(const TileShape&, const RunTarget& target) {
    if (target.scalar_size != sizeof(float)) {
      return Implementation::refused(RefusalKind::operation, " multiplies float only (a test's family).");
    }
    return {};
  }
  static constexpr std::size_t local_memory_elements(const TileShape&) { return 0; }

  static constexpr TextPiece helpers = caller_operands;
  static constexpr EntryPoint product = {"gemm_column_walk", piece(tilegemm_test::column_walk_source)};
};

}  // namespace tilegemm::detail

namespace {

using tilegemm_test::dense_shape;

using namespace tilegemm::detail;
using tilegemm_test::column_walk;
using TestFamilies = families_with<BuiltInFamilies, column_walk>;
using ColumnWalk = tilegemm::TileConfig<16, 8, 1, 4, 1, 1, column_walk>;  // 4 x 8 work-items, 4 rows each
const TileShape column_walk_tiles = {16, 8, 1, 4, 1, 1, 1};

static_assert(families_distinct(TestFamilies{}));
static_assert(!families_distinct(families_with<BuiltInFamilies, tilegemm::Family::prefetch>{}));

// A smaller GPU than an H200.
DeviceLimits some_gpu() {
  DeviceLimits device = tilegemm_test::h200();
  device.name = "a GPU";
  device.compute_units = 16;
  return device;
}

}  // namespace

TEST_CASE("a family appended to the list is found by name, after the last built-in one", "[unit][family_list]") {
  CHECK(family_named<TestFamilies>("column_walk") == column_walk);
  CHECK(family_named<TestFamilies>("bulk_tensor_cores") == tilegemm::Family::bulk_tensor_cores);
  CHECK(family_named<TestFamilies>("naive") == tilegemm::Family::naive);
  CHECK(!family_named("column_walk"));  // the built-in list does not have it
  CHECK(!family_named<TestFamilies>("no_such_family"));
  // Every built-in family is found by its name, the last one too.
  int found = 0;
  for_each_family(BuiltInFamilies{}, [&](auto f) {
    constexpr tilegemm::Family F = decltype(f)::value;
    CHECK(family_named(FamilyTraits<F>::name) == F);
    CHECK(with_family(F, [](auto) {}));
    ++found;
  });
  CHECK(found == 11);
  CHECK(!with_family(column_walk, [](auto) {}));
  CHECK(with_family<TestFamilies>(column_walk, [](auto) {}));
}

TEST_CASE("the tuner's file reads back a configuration of each family, the last one too", "[unit][family_list]") {
  // (The first case finds every family of the list by name, the names the file holds.)
  const std::vector<std::pair<tilegemm::Family, TileShape>> examples = {
      {tilegemm::Family::naive, {16, 8, 1, 1, 1, 1, 1}},
      {tilegemm::Family::local_tiles, {16, 16, 16, 1, 4, 1, 1}},
      {tilegemm::Family::wide_types, {32, 32, 32, 8, 1, 8, 1}},
      {tilegemm::Family::register_blocking, {64, 64, 16, 4, 4, 4, 1}},
      {tilegemm::Family::prefetch, {64, 32, 16, 4, 2, 2, 1}},
      {tilegemm::Family::split_k, {64, 64, 16, 4, 4, 4, 1}},
      {tilegemm::Family::tensor_cores, {128, 64, 8, 8, 8, 4, 3}},
      {tilegemm::Family::warpgroup_mma, {128, 128, 8, 2, 32, 1, 6}},
      {tilegemm::Family::bulk_tensor_cores, {128, 128, 32, 8, 8, 4, 3}},
      {tilegemm::Family::in_place_tensor_cores, {64, 64, 8, 4, 8, 1, 4}},
      {tilegemm::Family::staged_prefetch, {64, 32, 16, 4, 4, 4, 2}},
  };
  for (const auto& [family, tile] : examples) {
    TunedEntry entry;
    entry.device = "a platform / a GPU";
    entry.driver = "1.0";
    entry.precision = "float";
    entry.family = family;
    entry.tile = tile;
    entry.tflops = 2;
    entry.builtin_tflops = 1;
    const std::string line = tuned_file::line_of(entry);
    INFO(line);
    const std::vector<TunedEntry> read = tuned_file::parse(line);
    REQUIRE(read.size() == 1);
    CHECK(read[0].family == family);
    CHECK(read[0].tile.tsm == tile.tsm);
    CHECK(read[0].tile.stages == tile.stages);
  }
}

TEST_CASE("a family appended to the list is described at run time as describe<Config> describes it",
          "[unit][family_list]") {
  const std::optional<KernelDescription> got = describe_at_run_time<TestFamilies>(column_walk, column_walk_tiles);
  REQUIRE(got);
  const KernelDescription& expected = describe<ColumnWalk>;
  CHECK(got->name() == "column_walk 16x8x1 4x1");
  CHECK(expected.name() == got->name());
  CHECK(got->family == column_walk);
  CHECK(got->access == OperandAccess::caller_layout);
  CHECK(got->threads_m == 4);
  CHECK(got->threads_n == 8);
  CHECK(got->config_preamble.hash == expected.config_preamble.hash);
  for (bool is_double : {false, true}) {
    const ProgramText program = gemm_program(*got, is_double, {true, false});
    CHECK(program.key == gemm_program(expected, is_double, {true, false}).key);
    CHECK(program.kernel_name == std::string("gemm_column_walk"));
  }
  // The built-in list does not know it.
  std::string why;
  CHECK(!describe_at_run_time(column_walk, column_walk_tiles, &why));
  CHECK(why.find("not one tilegemm has") != std::string::npos);
}

TEST_CASE("a family's rules are its static_asserts' sentences at run time", "[unit][family_list]") {
  CHECK(rule_broken<TestFamilies>(column_walk, column_walk_tiles) == nullptr);
  const char* broken = rule_broken<TestFamilies>(column_walk, {16, 8, 2, 4, 1, 1, 1});
  REQUIRE(broken != nullptr);
  CHECK(std::string(broken).find("walks one column per work-item") != std::string::npos);
  broken = rule_broken<TestFamilies>(column_walk, {16, 8, 1, 4, 1, 1, 2});
  REQUIRE(broken != nullptr);
  CHECK(std::string(broken).find("leave Stages at 1") != std::string::npos);
  // The shared rules come first, in the words of TileConfig's static_asserts.
  broken = rule_broken<TestFamilies>(column_walk, {16, 8, 1, 3, 1, 1, 1});
  REQUIRE(broken != nullptr);
  CHECK(std::string(broken).find("TSM must be a multiple of WPTM") != std::string::npos);
  std::string why;
  CHECK(!describe_at_run_time<TestFamilies>(column_walk, {16, 8, 2, 4, 1, 1, 1}, &why));
  CHECK(why == std::string("TileConfig rule broken: ") +
                   "the column_walk family walks one column per work-item without tiles in K: TSK, WPTN and VW must "
                   "be 1.");
  // The built-in families' sentences are theirs too.
  CHECK(std::string(rule_broken(tilegemm::Family::warpgroup_mma, {128, 128, 8, 2, 32, 1, 2}))
            .find("keeps 3 to 8 slices of A and B") != std::string::npos);
}

TEST_CASE("the planner asks a family where it runs", "[unit][family_list]") {
  const KernelDescription config = *describe_at_run_time<TestFamilies>(column_walk, column_walk_tiles);
  const Plan plan = plan_product(config, dense_shape(61, 29, 7, true, false), some_gpu(), sizeof(float));
  CHECK(plan.config.family == column_walk);
  CHECK(plan.variant.flag_a);
  CHECK(!plan.variant.flag_b);
  CHECK(plan.variant.mma == MmaKind::none);
  CHECK(plan.local[0] == 4);
  CHECK(plan.local[1] == 8);
  CHECK(plan.global[0] == 64 / 4);
  CHECK(plan.global[1] == 32);
  try {
    plan_product(config, dense_shape(61, 29, 7, false, false), some_gpu(), sizeof(double));
    FAIL("a double product was planned for a family that multiplies float only");
  } catch (const tilegemm::Error& e) {
    CHECK(e.code() == CL_INVALID_OPERATION);
    CHECK(std::string(e.what()).find("column_walk 16x8x1 4x1 multiplies float only") != std::string::npos);
  }
  // A built-in family's refusal, in its own words: wgmma needs compute capability 9.0.
  try {
    plan_product(describe<tilegemm::WarpgroupMma<128, 128, 8, 6>>, dense_shape(256, 256, 64, false, false), some_gpu(),
                 sizeof(float), [] {
                   PlanOptions options;
                   options.math = tilegemm::MathMode::tf32;
                   return options;
                 }());
    FAIL("wgmma was planned on a device without it");
  } catch (const tilegemm::Error& e) {
    CHECK(e.code() == CL_INVALID_DEVICE);
    CHECK(std::string(e.what()).find("a GPU is not one (it has no cl_nv_device_attribute_query)") != std::string::npos);
  }
}

namespace {
// One product of `config` through the planner and the executor, against the double reference; C's surroundings
// (poisoned with a sentinel) must stay untouched.
void check_run(const KernelDescription& config, int m, int n, int k, bool trans_a, bool trans_b, float alpha,
               float beta) {
  INFO(config.name() << " m=" << m << " n=" << n << " k=" << k << " transA=" << trans_a << " transB=" << trans_b
                     << " alpha=" << alpha << " beta=" << beta << " seed " << tilegemm_test::run_seed());
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  using Matrix = tilegemm_test::Matrix<float>;
  const Matrix op_a = tilegemm_test::random_matrix<float>(m, k);
  const Matrix op_b = tilegemm_test::random_matrix<float>(k, n);
  const Matrix c0 =
      beta == 0.0f ? Matrix::Constant(m, n, tilegemm_test::poison<float>()) : tilegemm_test::random_matrix<float>(m, n);
  const Matrix stored_a = trans_a ? Matrix(op_a.transpose()) : op_a;
  const Matrix stored_b = trans_b ? Matrix(op_b.transpose()) : op_b;
  const int ldc = m + 3, c_offset = 5;
  const float sentinel = 12345.0f;
  std::vector<float> c_storage(c_offset + static_cast<std::size_t>(ldc) * n + 7, sentinel);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) c_storage[c_offset + i + static_cast<std::size_t>(j) * ldc] = c0(i, j);
  const auto upload = [&](const float* data, std::size_t count) {
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * count,
                      const_cast<float*>(data));
  };
  const cl::Buffer a = upload(stored_a.data(), stored_a.size());
  const cl::Buffer b = upload(stored_b.data(), stored_b.size());
  const cl::Buffer c = upload(c_storage.data(), c_storage.size());
  const auto no = tilegemm::Transpose::no, yes = tilegemm::Transpose::yes;
  const GemmProblem problem = check_arguments(context, {trans_a ? yes : no,
                                                        trans_b ? yes : no,
                                                        m,
                                                        n,
                                                        k,
                                                        scalar_value(alpha),
                                                        {a, 0, stored_a.rows()},
                                                        {b, 0, stored_b.rows()},
                                                        scalar_value(beta),
                                                        {c, c_offset, ldc}});
  const CallContext call = CallContext::of(queue);
  const Plan plan = plan_gemm(&config, problem.shape, alpha == 0.0f, call.limits, sizeof(float), {});
  REQUIRE(plan.config.family == config.family);
  execute(call, plan, problem, {}).wait();
  std::vector<float> result(c_storage.size());
  REQUIRE(queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(float) * result.size(), result.data()) == CL_SUCCESS);
  Matrix got(m, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      got(i, j) = result[c_offset + i + static_cast<std::size_t>(j) * ldc];
      result[c_offset + i + static_cast<std::size_t>(j) * ldc] = sentinel;
    }
  CHECK(tilegemm_test::compare_with_reference<float>(got, alpha, op_a, op_b, beta, c0) == "");
  CHECK(std::count(result.begin(), result.end(), sentinel) == static_cast<long>(result.size()));
}
}  // namespace

TEST_CASE("a family defined in a test file runs on the device", "[family_list]") {
  const std::optional<tilegemm::Family> family = family_named<TestFamilies>("column_walk");
  REQUIRE(family);
  const std::optional<KernelDescription> config = describe_at_run_time<TestFamilies>(*family, column_walk_tiles);
  REQUIRE(config);
  check_run(*config, 61, 29, 7, false, false, 1.0f, 0.0f);  // beta = 0 with NaN in C
  check_run(*config, 61, 29, 7, true, true, tilegemm_test::random_scalar<float>(),
            tilegemm_test::random_scalar<float>());
  check_run(*config, 1, 1, 1, true, false, 1.0f, 0.0f);
  check_run(*config, 33, 17, 130, false, true, tilegemm_test::random_scalar<float>(),
            tilegemm_test::random_scalar<float>());
  // The same family named at compile time, TileConfig<..., column_walk> (the same program).
  check_run(describe<ColumnWalk>, 40, 9, 12, false, false, tilegemm_test::random_scalar<float>(), 0.0f);
}
