// test_fuzz: a randomized differential test: random products through tilegemm::gemm on cl::Buffers and
// tilegemm::gpu_gemm on Eigen operands, with every shipped configuration, a few others and AutoConfig, in float
// and double, planned for this device or for a described GPU, each compared with a double-precision reference,
// until a time budget is spent.
//
// Environment: TILEGEMM_FUZZ_SECONDS, the budget (default 10: the README command's; CI runs 240);
// TILEGEMM_FUZZ_MIN_PRODUCTS, fewer products than this fail; TILEGEMM_TEST_SEED replays a run, and with
// TILEGEMM_FUZZ_REPLAY=<product> only that product of it; TILEGEMM_FUZZ_SKIP_KNOWN=1 draws nothing that meets the
// library's two known problems (Maps with an outer stride below their rows, AutoConfig on GPUs with work-groups under
// 256 work-items).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <tuple>
#include <utility>

#include "catch.hpp"
#include "fuzz_buffers.hpp"
#include "fuzz_compile_budget.hpp"
#include "fuzz_crash_report.hpp"
#include "fuzz_devices.hpp"
#include "fuzz_eigen.hpp"
#include "fuzz_product.hpp"
#include "fuzz_tally.hpp"
#include "reference.hpp"

namespace {

using namespace tilegemm_fuzz;
using tilegemm::detail::DeviceLimits;
using tilegemm::detail::Plan;

// AutoConfig first (draws refer to it as index 0), then the eight configurations AutoConfig chooses from
// (default_plan.hpp), then one of each other family.
using Configurations =
    std::tuple<tilegemm::AutoConfig, tilegemm::Prefetch<128, 128, 8, 8, 8, 4>, tilegemm::Prefetch<128, 64, 8, 8, 8, 4>,
               tilegemm::Prefetch<64, 128, 16, 4, 8, 4>, tilegemm::Prefetch<64, 64, 16, 4, 4, 4>,
               tilegemm::Prefetch<32, 32, 16, 2, 2, 2>, tilegemm::SplitK<64, 64, 16, 4, 4, 4>,
               tilegemm::WideTypes<16, 16>, tilegemm::MoreWorkPerThread<16, 4>, tilegemm::Naive<16, 4>,
               tilegemm::LocalTiles<16>, tilegemm::RegisterBlocking<64, 64, 16, 4, 4>,
               tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>>;
constexpr std::size_t configuration_count = std::tuple_size_v<Configurations>;

template <class T>
struct TypeTag {
  using type = T;
};

// f(TypeTag<Config>) for the configuration at `index`.
template <class F, std::size_t... I>
void with_configuration(std::size_t index, F&& f, std::index_sequence<I...>) {
  ((index == I ? f(TypeTag<std::tuple_element_t<I, Configurations>>{}) : void()), ...);
}
template <class F>
void with_configuration(std::size_t index, F&& f) {
  with_configuration(index, f, std::make_index_sequence<configuration_count>{});
}

std::string configuration_name(std::size_t index) {
  std::string name;
  with_configuration(index, [&](auto tag) { name = decltype(tag)::type::name(); });
  return name;
}

const tilegemm::detail::KernelDescription* configuration_description(std::size_t index) {
  const tilegemm::detail::KernelDescription* description = nullptr;
  with_configuration(index,
                     [&](auto tag) { description = tilegemm::detail::description_of<typename decltype(tag)::type>(); });
  return description;
}

struct Settings {
  double seconds = 10;
  long long min_products = 0;
  bool skip_known = false;
  long long replay = -1;  // the one product to run, or -1
};

Settings settings_from_environment() {
  Settings s;
  if (const char* text = std::getenv("TILEGEMM_FUZZ_SECONDS")) s.seconds = std::stod(text);
  if (const char* text = std::getenv("TILEGEMM_FUZZ_MIN_PRODUCTS")) s.min_products = std::stoll(text);
  if (const char* text = std::getenv("TILEGEMM_FUZZ_SKIP_KNOWN")) s.skip_known = std::string(text) == "1";
  if (const char* text = std::getenv("TILEGEMM_FUZZ_REPLAY")) s.replay = std::stoll(text);
  return s;
}

// Every product's draws come from a generator seeded by the run's seed and the product's index alone, so that one
// product replays without those before it.
void seed_generator_for(std::uint32_t seed, long long draw) {
  std::seed_seq sequence{seed, static_cast<std::uint32_t>(draw), static_cast<std::uint32_t>(draw >> 32)};
  tilegemm_test::generator().seed(sequence);
}

DeviceLimits planned_device(const Product& p, const DeviceLimits& own) {
  switch (p.planned_for) {
    case PlannedFor::gpu:
      return gpu_description(p.gpu_units);
    case PlannedFor::narrow_gpu:
      return narrow_gpu_description(p.narrow_group);
    default:
      return own;
  }
}

// The plan tilegemm makes for p (as gemm/gemm.hpp's run_gemm does), or, where the device cannot run the
// configuration (e.g. 64x128x16 tiles in double on 48 KiB of local memory), the tilegemm::Error it refuses with.
struct Planned {
  std::optional<Plan> plan;
  std::string refusal;
};
Planned plan_of(const Product& p, const DeviceLimits& device) {
  try {
    return {tilegemm::detail::plan_gemm(configuration_description(p.configuration), gemm_shape(p), p.alpha == 0, device,
                                        p.is_double ? sizeof(double) : sizeof(float)),
            ""};
  } catch (const tilegemm::Error& e) {
    return {std::nullopt, e.what()};
  }
}

std::string describe_plan(const Planned& planned) {
  using tilegemm::detail::StripWork;
  using tilegemm::detail::Work;
  const std::optional<Plan>& plan = planned.plan;
  if (!plan) return "refused: " + planned.refusal;
  if (plan->work == Work::nothing) return "nothing to do (C is empty)";
  if (plan->work == Work::scale_c) return "C = beta * C only";
  std::ostringstream out;
  out << plan->config.name() << ", corner " << plan->corner_m << "x" << plan->corner_n << ", strips "
      << (plan->strips == StripWork::none    ? "none"
          : plan->strips == StripWork::fused ? "fused"
                                             : "remainder kernel")
      << ", edges " << static_cast<int>(plan->variant.edges) << ", A " << (plan->a.packed ? "packed" : "in place")
      << ", B " << (plan->b.packed ? "packed" : "in place") << ", " << plan->slices << " slice(s) of K";
  return out.str();
}

constexpr char refused[] = "threw tilegemm::Error: ";

// Runs p, planned for the device it was drawn for; returns "" or what went wrong.
std::string run_product(const cl::CommandQueue& queue, const Product& p, const DeviceLimits& planned) {
  std::optional<tilegemm::detail::ScopedDeviceDescription> described;
  if (p.planned_for != PlannedFor::this_device) described.emplace(planned);
  std::string failure;
  try {
    with_configuration(p.configuration, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      if (p.path == Path::buffers) {
        failure = p.is_double ? run_on_buffers<double>(queue, p, &call_gemm<double, Config>)
                              : run_on_buffers<float>(queue, p, &call_gemm<float, Config>);
      } else {
        failure = p.is_double ? run_through_eigen<double>(p, &call_gpu_gemm<double, Config>)
                              : run_through_eigen<float>(p, &call_gpu_gemm<float, Config>);
      }
    });
  } catch (const tilegemm::Error& e) {
    failure = std::string(refused) + e.what();
  } catch (const std::exception& e) {
    failure = std::string("threw: ") + e.what();
  }
  return failure;
}

std::string replay_command(const Settings& settings, std::uint32_t seed, long long draw) {
  return "TILEGEMM_TEST_SEED=" + std::to_string(seed) + " TILEGEMM_FUZZ_REPLAY=" + std::to_string(draw) +
         (settings.skip_known ? " TILEGEMM_FUZZ_SKIP_KNOWN=1" : "") + " tests/test_fuzz (in the build directory)";
}

}  // namespace

TEST_CASE("fuzz: random products agree with a double-precision reference", "[fuzz]") {
  using clock = std::chrono::steady_clock;
  const Settings settings = settings_from_environment();
  const std::uint32_t seed = tilegemm_test::run_seed();
  const bool replaying = settings.replay >= 0;
  std::cout << "test_fuzz: seed " << seed << " (TILEGEMM_TEST_SEED=" << seed << " replays this run), ";
  if (replaying) {
    std::cout << "replaying product " << settings.replay;
  } else {
    std::cout << "budget " << settings.seconds << " s";
  }
  std::cout << (settings.skip_known ? ", skipping the known problems" : "") << std::endl;

  const cl::CommandQueue queue = tilegemm::default_queue();
  const DeviceLimits own = tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  std::array<std::string, configuration_count> names;
  for (std::size_t i = 0; i < configuration_count; ++i) names[i] = configuration_name(i);
  // A device with smaller work-groups than the described H200 cannot run its plans (e.g. PoCL with
  // POCL_MAX_WORK_GROUP_SIZE=128): then every product is planned for the device itself.
  const DrawRules rules{configuration_count, settings.skip_known, own.max_work_group_size >= 1024};
  // Half of a short run, and at most a minute of a long one: on a cold cache CI's 240 s run built 40 programs in
  // 201 s with half of it (draws that reach something new are run whatever the budget) and made too few products.
  CompileBudget compiling(std::min(settings.seconds / 2, 60.0));
  CrashReport crash_report;
  Tally tally;
  const std::size_t programs_before = tilegemm::programs_built();
  const auto start = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };

  for (long long draw = replaying ? settings.replay : 0;
       replaying ? draw == settings.replay : elapsed() < settings.seconds; ++draw) {
    seed_generator_for(seed, draw);
    Product p = draw_product(draw, rules);
    p.configuration_name = names[p.configuration];
    const DeviceLimits planned = planned_device(p, own);
    const Planned planning = plan_of(p, planned);
    const std::optional<Plan>& plan = planning.plan;
    const std::vector<std::string> programs = plan ? programs_of(p, *plan) : std::vector<std::string>{};
    if (!replaying && !compiling.allows(programs, plan && tally.reaches_something_new(p, *plan))) {
      ++tally.skipped;
      continue;
    }
    const std::string what =
        describe(p, seed) + "; plan: " + describe_plan(planning) + ". Replay: " + replay_command(settings, seed, draw);
    if (replaying) std::cout << what << std::endl;
    crash_report.set(what + "\n");
    const std::size_t built = tilegemm::programs_built();
    const auto product_start = clock::now();
    std::string failure = run_product(queue, p, planned);
    if (!planning.refusal.empty()) {  // the product must be refused the same way, before anything runs
      failure =
          failure == std::string(refused) + planning.refusal
              ? ""
              : "expected tilegemm::Error \"" + planning.refusal + "\", got " + (failure.empty() ? "none" : failure);
    }
    compiling.record(programs, tilegemm::programs_built() > built,
                     std::chrono::duration<double>(clock::now() - product_start).count());
    tally.add(p, plan ? &*plan : nullptr);
    if (!failure.empty()) {
      crash_report.clear();
      std::cout << "test_fuzz: FAILED " << what << "\n  " << failure << "\n"
                << tally.summary(seed, elapsed(), tilegemm::programs_built() - programs_before, compiling.spent())
                << std::endl;
      FAIL(what << "\n" << failure);
    }
  }
  crash_report.clear();
  const double seconds = elapsed();
  std::cout << tally.summary(seed, seconds, tilegemm::programs_built() - programs_before, compiling.spent())
            << std::endl;
  if (!replaying && settings.min_products > 0) {
    INFO("TILEGEMM_FUZZ_MIN_PRODUCTS=" << settings.min_products << ", seed " << seed);
    CHECK(tally.total() >= settings.min_products);
  }
  if (!replaying && settings.seconds >= 60) {
    INFO("plan shapes a sweep of a minute or more must reach but this one did not:" << tally.missing_shapes()
                                                                                    << "; seed " << seed);
    CHECK(tally.missing_shapes().empty());
  }
}
