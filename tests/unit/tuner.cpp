// unit/tuner: the cases of test_tuner that need no OpenCL device (the unit tier, built by unit_tests).
// table, configurations described at run time against describe<Config>, TILEGEMM_VERBOSE, and a tiny real tuning run.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "../benchmarks/parts/rows.hpp"
#include "../tools/tune/builtin_table.hpp"
#include "../tools/tune/candidates.hpp"
#include "catch.hpp"
#include "dense_shape.hpp"
#include "described_devices.hpp"
#include "reference.hpp"
#include "tuned_entry.hpp"

namespace {

using tilegemm_test::dense_shape;
using tilegemm_test::tuned_entry;

using namespace tilegemm::detail;
namespace fs = std::filesystem;

// An H200 with the platform and driver the tuned entries name.
DeviceLimits gpu() {
  DeviceLimits device = tilegemm_test::h200();
  device.platform = "NVIDIA CUDA";
  device.driver = "580.159.04";
  return device;
}

// A line with its checksum made right again after `edit`, so that only the edit's content is judged.
std::string resigned(std::string line, const std::string& from, const std::string& to) {
  line = line.substr(0, line.size() - 1);  // no line break
  line.replace(line.find(from), from.size(), to);
  const std::string rest = line.substr(16);
  return tuned_file::hex16(fnv1a(rest)) + rest + "\n";
}

}  // namespace

TEST_CASE("tuned file: entries survive a round trip through the text", "[unit]") {
  const std::vector<TunedEntry> entries = {
      tuned_entry(ShapeClass::square_large, tilegemm::Family::prefetch, {128, 64, 8, 8, 8, 4, 1}),
      tuned_entry(ShapeClass::large_k, tilegemm::Family::split_k, {64, 64, 16, 4, 4, 4, 1}, "double"),
      tuned_entry(ShapeClass::tall_skinny, tilegemm::Family::tensor_cores, {128, 128, 16, 8, 16, 4, 2}, "float-tf32x3"),
      [] {
        TunedEntry model = tuned_entry(ShapeClass::square_small, tilegemm::Family::prefetch, {});
        model.model = true;
        return model;
      }()};
  const std::vector<TunedEntry> back = tuned_file::parse(tuned_file::text_of(entries));
  REQUIRE(back.size() == entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    CHECK(back[i].device == entries[i].device);
    CHECK(back[i].driver == entries[i].driver);
    CHECK(back[i].precision == entries[i].precision);
    CHECK(back[i].shape_class == entries[i].shape_class);
    CHECK(back[i].model == entries[i].model);
    if (!entries[i].model) {
      CHECK(back[i].family == entries[i].family);
      CHECK(config_name("", back[i].tile) == config_name("", entries[i].tile));
    }
    CHECK(std::abs(back[i].tflops - entries[i].tflops) < 1e-9);
    CHECK(std::abs(back[i].builtin_tflops - entries[i].builtin_tflops) < 1e-9);
  }
  // A name with the separator in it still makes one line of eight fields.
  TunedEntry odd = entries[0];
  odd.device = "Some | Platform / A\ndevice";
  const std::vector<TunedEntry> odd_back = tuned_file::parse(tuned_file::line_of(odd));
  REQUIRE(odd_back.size() == 1);
  CHECK(odd_back[0].device == tuned_file::field_text(odd.device));
}

TEST_CASE("tuned file: damaged, truncated, foreign and stale lines are ignored", "[unit]") {
  const TunedEntry good = tuned_entry(ShapeClass::square_large, tilegemm::Family::prefetch, {128, 64, 8, 8, 8, 4, 1});
  const std::string line = tuned_file::line_of(good);
  REQUIRE(tuned_file::parse(line).size() == 1);
  // A flipped character anywhere, or a line cut short: the checksum does not match.
  for (std::size_t at = 0; at + 1 < line.size(); at += 7) {
    std::string flipped = line;
    flipped[at] = flipped[at] == 'x' ? 'y' : 'x';
    CHECK(tuned_file::parse(flipped).empty());
  }
  for (std::size_t length : {0, 10, 16, 40, 90}) CHECK(tuned_file::parse(line.substr(0, length)).empty());
  // Another tilegemm version's line (stale), one of another format, and text that is not ours.
  CHECK(tuned_file::parse(resigned(line, "| 1.0.0 |", "| 0.9.0 |")).empty());
  CHECK(tuned_file::parse(resigned(line, "| square_large |", "| square_huge |")).empty());
  CHECK(tuned_file::parse(resigned(line, "| 41.5 |", "| fast |")).empty());
  CHECK(tuned_file::parse(resigned(line, "8 8 4 1", "8 8 4")).empty());
  CHECK(tuned_file::parse(resigned(line, "prefetch", "prefetcher")).empty());
  CHECK(tuned_file::parse("\x7f"
                          "ELF\x02\x01 binary\n\n# only a comment\nrandom words | here\n")
            .empty());
  // A configuration that breaks a TileConfig rule, correctly signed: rejected, never described or run.
  CHECK(tuned_file::parse(resigned(line, "prefetch 128 64 8 8 8 4 1", "prefetch 128 64 8 8 8 8 1")).empty());
  CHECK(tuned_file::parse(resigned(line, "prefetch 128 64 8 8 8 4 1", "prefetch 128 64 8 3 8 4 1")).empty());
  CHECK(tuned_file::parse(resigned(line, "prefetch 128 64 8 8 8 4 1", "prefetch 1024 1024 8 1 1 4 1")).empty());
  CHECK(tuned_file::parse(resigned(line, "prefetch 128 64 8 8 8 4 1", "tensor_cores 128 128 16 8 16 4 9")).empty());
  // The good line among bad ones is still read; a file too large is not read at all.
  CHECK(tuned_file::parse("garbage\n" + line + "more garbage").size() == 1);
  CHECK(tuned_file::parse(std::string(tuned_file::largest_file, '#') + "\n" + line).empty());
}

TEST_CASE("tuned file: winners are taken for their own device, driver and precision only", "[unit]") {
  std::vector<TunedEntry> entries = {
      tuned_entry(ShapeClass::square_large, tilegemm::Family::prefetch, {128, 64, 8, 8, 8, 4, 1}),
      tuned_entry(ShapeClass::square_large, tilegemm::Family::prefetch, {64, 64, 16, 4, 4, 4, 1}),  // later: wins
      tuned_entry(ShapeClass::square_small, tilegemm::Family::prefetch, {32, 32, 16, 2, 2, 2, 1}, "double")};
  const TunedChoices mine = choices_from(entries, "NVIDIA CUDA / NVIDIA H200", "580.159.04", "float");
  CHECK(mine[static_cast<std::size_t>(ShapeClass::square_large)].present);
  CHECK(mine[static_cast<std::size_t>(ShapeClass::square_large)].config.name() == "prefetch 64x64x16 4x4 v4");
  CHECK(!mine[static_cast<std::size_t>(ShapeClass::square_small)].present);  // the double one
  for (const TunedChoice& c : choices_from(entries, "NVIDIA CUDA / NVIDIA H200", "590.01", "float")) CHECK(!c.present);
  for (const TunedChoice& c : choices_from(entries, "NVIDIA CUDA / NVIDIA H100", "580.159.04", "float")) {
    CHECK(!c.present);
  }
  CHECK(precision_name(4, tilegemm::MathMode::ieee) == "float");
  CHECK(precision_name(4, tilegemm::MathMode::tf32x3) == "float-tf32x3");
  CHECK(precision_name(8, tilegemm::MathMode::tf32) == "double");
  CHECK(tuned_switched_off("off"));
  CHECK(tuned_switched_off("OFF"));
  CHECK(tuned_switched_off("0"));
  CHECK(!tuned_switched_off(nullptr));
  CHECK(!tuned_switched_off("on"));
}

TEST_CASE("shape classes", "[unit]") {
  CHECK(shape_class(256, 256, 256) == ShapeClass::square_small);
  CHECK(shape_class(512, 512, 512) == ShapeClass::square_small);
  CHECK(shape_class(1000, 1000, 64) == ShapeClass::square_small);
  CHECK(shape_class(1000, 1000, 1000) == ShapeClass::square_medium);
  CHECK(shape_class(2048, 2048, 2048) == ShapeClass::square_medium);
  CHECK(shape_class(3000, 3000, 3000) == ShapeClass::square_large);
  CHECK(shape_class(8192, 8192, 8192) == ShapeClass::square_large);
  CHECK(shape_class(8192, 1024, 1024) == ShapeClass::tall_skinny);
  CHECK(shape_class(1024, 8192, 1024) == ShapeClass::short_wide);
  CHECK(shape_class(128, 128, 131072) == ShapeClass::large_k);
  CHECK(shape_class(1, 1, 1) == ShapeClass::square_small);
  CHECK(shape_class(64, 64, 8192) == ShapeClass::square_small);  // small products of any shape
  CHECK(shape_class(2000, 100, 100) == ShapeClass::square_small);
  CHECK(shape_class(300, 300, 10000) == ShapeClass::large_k);
  CHECK(shape_class(4000, 700, 1000) == ShapeClass::tall_skinny);
  CHECK(shape_class(700, 4000, 1000) == ShapeClass::short_wide);
  for (std::size_t c = 0; c < shape_class_count; ++c) {
    CHECK(shape_class_named(shape_class_names[c]) == static_cast<ShapeClass>(c));
  }
  CHECK(!shape_class_named("square"));
}

TEST_CASE("plan_default takes the tuned winner of the shape's class where it runs, else the model", "[unit]") {
  const std::optional<KernelDescription> winner =
      describe_at_run_time(tilegemm::Family::prefetch, {64, 32, 16, 4, 2, 2, 1});
  REQUIRE(winner);
  TunedChoices tuned;
  tuned[static_cast<std::size_t>(ShapeClass::square_medium)] = {true, false, *winner};
  tuned[static_cast<std::size_t>(ShapeClass::square_large)] = {true, true, {}};
  const Plan model = plan_default(dense_shape(2048, 2048, 2048), gpu(), 4);
  CHECK(model.chosen == Chosen::model);

  const Plan used = plan_default(dense_shape(2048, 2048, 2048), gpu(), 4, tilegemm::MathMode::ieee, &tuned);
  CHECK(used.chosen == Chosen::tuned);
  CHECK(used.config.name() == "prefetch 64x32x16 4x2 v2");
  CHECK(used.config.config_preamble.hash == winner->config_preamble.hash);
  // Just past whole tiles: the tiled corner and strips, as the model's candidates get.
  const Plan past = plan_default(dense_shape(2050, 2049, 1000), gpu(), 4, tilegemm::MathMode::ieee, &tuned);
  CHECK(past.chosen == Chosen::tuned);
  CHECK(past.corner_m == 2048);
  CHECK(past.corner_n == 2048);

  // Another class: its own entry (the model, confirmed), or none.
  CHECK(plan_default(dense_shape(4096, 4096, 4096), gpu(), 4, tilegemm::MathMode::ieee, &tuned).chosen ==
        Chosen::model_tuned);
  CHECK(plan_default(dense_shape(256, 256, 256), gpu(), 4, tilegemm::MathMode::ieee, &tuned).chosen == Chosen::model);
  // A batch takes the model's plan.
  GemmShape batch = dense_shape(2048, 2048, 2048);
  batch.batch = 3;
  batch.a.stride = 2048 * 2048;
  batch.b.stride = 2048 * 2048;
  batch.c.stride = 2048 * 2048;
  CHECK(plan_default(batch, gpu(), 4, tilegemm::MathMode::ieee, &tuned).chosen == Chosen::model);

  // A winner this device cannot run: too many work-items, too much local memory, no tensor cores, float in ieee.
  DeviceLimits small = gpu();
  small.max_work_group_size = 128;
  small.max_work_item_sizes = {128, 128, 64};
  const Plan refused = plan_default(dense_shape(2048, 2048, 2048), small, 4, tilegemm::MathMode::ieee, &tuned);
  CHECK(refused.chosen == Chosen::model);
  CHECK(refused.config.threads() <= 128);
  DeviceLimits little_local = gpu();
  little_local.local_memory_bytes = 4 * 1024;
  CHECK(plan_default(dense_shape(2048, 2048, 2048), little_local, 4, tilegemm::MathMode::ieee, &tuned).chosen ==
        Chosen::model);
  const std::optional<KernelDescription> tensor =
      describe_at_run_time(tilegemm::Family::tensor_cores, {128, 64, 8, 8, 8, 4, 3});
  REQUIRE(tensor);
  tuned[static_cast<std::size_t>(ShapeClass::square_medium)] = {true, false, *tensor};
  CHECK(plan_default(dense_shape(2048, 2048, 2048), gpu(), 8, tilegemm::MathMode::ieee, &tuned).chosen ==
        Chosen::model);
  DeviceLimits hopper = gpu();
  hopper.compute_capability = 90;
  const Plan on_tensor_cores = plan_default(dense_shape(2048, 2048, 2048), hopper, 8, tilegemm::MathMode::ieee, &tuned);
  CHECK(on_tensor_cores.chosen == Chosen::tuned);
  CHECK(on_tensor_cores.config.uses_tensor_cores);
  CHECK(plan_default(dense_shape(2048, 2048, 2048), hopper, 4, tilegemm::MathMode::ieee, &tuned).chosen ==
        Chosen::model);
  CHECK(plan_default(dense_shape(2048, 2048, 2048), hopper, 4, tilegemm::MathMode::tf32x3, &tuned).chosen ==
        Chosen::tuned);
  // No tuned winners for hand-written descriptions (no driver): plan_gemm leaves the table out.
  CHECK(plan_gemm(nullptr, dense_shape(2048, 2048, 2048), false, gpu(), 4).chosen != Chosen::tuned);
}

namespace {
// Checks that the run-time description of Config is describe<Config>: the same values, preamble and program keys.
template <class Config>
void same_as_compile_time() {
  const KernelDescription& expected = describe<Config>;
  INFO(expected.name());
  const std::optional<KernelDescription> got = describe_at_run_time(Config::family, Config::shape);
  REQUIRE(got);
  CHECK(got->name() == expected.name());
  CHECK(std::string(got->family_name) == expected.family_name);
  CHECK(got->access == expected.access);
  CHECK(got->splits_k == expected.splits_k);
  CHECK(got->takes_batches == expected.takes_batches);
  CHECK(got->uses_tensor_cores == expected.uses_tensor_cores);
  CHECK(got->fuses_strips == expected.fuses_strips);
  CHECK(got->threads_m == expected.threads_m);
  CHECK(got->threads_n == expected.threads_n);
  CHECK(got->local_memory_elements == expected.local_memory_elements);
  CHECK(got->config_preamble.text == expected.config_preamble.text);
  CHECK(got->config_preamble.hash == expected.config_preamble.hash);
  CHECK(got->config_preamble.text.find("#define TSM " + std::to_string(Config::TSM) + "\n") != std::string::npos);
  for (bool is_double : {false, true}) {
    for (bool strips : {false, true}) {
      Variant v;
      v.flag_a = true;
      v.strips = strips && expected.fuses_strips;
      CHECK(gemm_program(*got, is_double, v).key == gemm_program(expected, is_double, v).key);
    }
  }
}
}  // namespace

TEST_CASE("a configuration described at run time equals describe<Config>", "[unit]") {
  same_as_compile_time<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>>();
  same_as_compile_time<tilegemm::Prefetch<64, 32, 16, 4, 2, 2>>();
  same_as_compile_time<tilegemm::Prefetch<16, 16, 16, 2, 2, 2>>();
  same_as_compile_time<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>();
  same_as_compile_time<tilegemm::WideTypes<32, 8>>();
  same_as_compile_time<tilegemm::MoreWorkPerThread<16, 4>>();
  same_as_compile_time<tilegemm::LocalTiles<8>>();
  same_as_compile_time<tilegemm::Naive<16, 8>>();
  same_as_compile_time<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>();
  same_as_compile_time<tilegemm::VectorLoads<128, 64, 16, 8, 4, 4>>();
  same_as_compile_time<tilegemm::TensorCores<128, 64, 8, 64, 32, 3>>();
  same_as_compile_time<tilegemm::TensorCores<64, 64, 16, 32, 32, 2>>();
  same_as_compile_time<tilegemm::WarpgroupMma<128, 128, 8, 6>>();
  same_as_compile_time<tilegemm::WarpgroupMma<64, 256, 16, 3>>();
  same_as_compile_time<tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 3>>();
  same_as_compile_time<tilegemm::StagedPrefetch<96, 64, 16, 6, 8, 2, 3>>();
  for (const BuiltinConfig& entry : builtin_configs) {
    const KernelDescription& d = entry.config;
    const std::optional<KernelDescription> got = describe_at_run_time(d.family, d.tile);
    REQUIRE(got);
    CHECK(got->config_preamble.hash == d.config_preamble.hash);
  }
  // What the static_asserts refuse is refused here, with the rule.
  std::string why;
  CHECK(!describe_at_run_time(tilegemm::Family::prefetch, {64, 64, 16, 4, 4, 8, 1}, &why));
  CHECK(why.find("multiples of the vector width") != std::string::npos);
  CHECK(!describe_at_run_time(tilegemm::Family::register_blocking, {64, 64, 16, 3, 4, 1, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::register_blocking, {64, 64, 16, 0, 4, 1, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::register_blocking, {256, 256, 16, 1, 1, 1, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::naive, {16, 16, 4, 1, 1, 1, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::wide_types, {32, 32, 16, 8, 1, 8, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::prefetch, {64, 64, 16, 4, 4, 4, 2}));
  CHECK(!describe_at_run_time(tilegemm::Family::tensor_cores, {128, 64, 8, 8, 8, 4, 1}));
  CHECK(!describe_at_run_time(tilegemm::Family::warpgroup_mma, {128, 64, 8, 2, 16, 1, 6}, &why));
  CHECK(why.find("TSN must be 128 or 256") != std::string::npos);  // the static_assert's sentence
  CHECK(!describe_at_run_time(tilegemm::Family::bulk_tensor_cores, {128, 128, 32, 8, 8, 4, 1}));  // 1 buffer
  CHECK(describe_at_run_time(tilegemm::Family::bulk_tensor_cores, {128, 128, 32, 8, 8, 4, 3})->family_name ==
        std::string("bulk_tensor_cores"));
  CHECK(!describe_at_run_time(tilegemm::Family::staged_prefetch, {64, 32, 16, 4, 4, 4, 1}, &why));  // 1 stage
  CHECK(why.find("copies 2 to 8 slices") != std::string::npos);
  CHECK(!describe_at_run_time(tilegemm::Family::staged_prefetch, {64, 64, 16, 8, 8, 8, 2}, &why));
  CHECK(why.find("at most 16 bytes") != std::string::npos);
  CHECK(!describe_at_run_time(static_cast<tilegemm::Family>(42), {64, 64, 16, 4, 4, 4, 1}));
}

TEST_CASE("TILEGEMM_VERBOSE's line says the configuration and why", "[unit]") {
  CHECK(verbose_switched_on("1"));
  CHECK(verbose_switched_on("on"));
  CHECK(!verbose_switched_on("0"));
  CHECK(!verbose_switched_on(nullptr));
  const std::optional<KernelDescription> winner =
      describe_at_run_time(tilegemm::Family::prefetch, {64, 32, 16, 4, 2, 2, 1});
  TunedChoices tuned;
  tuned[static_cast<std::size_t>(ShapeClass::square_medium)] = {true, false, *winner};
  const GemmShape s = dense_shape(1000, 1200, 900);
  CHECK(
      choice_line(plan_default(s, gpu(), 4, tilegemm::MathMode::ieee, &tuned), s, gpu(), 4, tilegemm::MathMode::ieee) ==
      "tilegemm: 1000x1200x900 float on NVIDIA H200: prefetch 64x32x16 4x2 v2 (tuned for square_medium)");
  const std::string model = choice_line(plan_default(s, gpu(), 8), s, gpu(), 8, tilegemm::MathMode::ieee);
  CHECK(model.rfind("tilegemm: 1000x1200x900 double on NVIDIA H200: prefetch ", 0) == 0);
  CHECK(model.find("(built-in model; no tuned winner for square_medium on this device)") != std::string::npos);
  const std::string given =
      choice_line(plan_gemm(&describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, s, false, gpu(), 4), s, gpu(), 4,
                  tilegemm::MathMode::ieee);
  CHECK(given ==
        "tilegemm: 1000x1200x900 float on NVIDIA H200: prefetch 64x64x16 4x4 v4 (forced by the Config "
        "template argument)");
}

TEST_CASE("the tuner's candidates hold every entry of the built-in table", "[unit]") {
  for (const BuiltinConfig& entry : builtin_configs) {
    INFO(entry.name << ": " << entry.config.name());
    CHECK(std::count_if(tune::candidates.begin(), tune::candidates.end(), [&](const tune::Candidate& c) {
            return tune::same_candidate(c, tune::candidate_of(entry));
          }) == 1);
  }
  CHECK(tune::candidate_count == tune::prefetch_count + tune::other_candidates.size() + tune::builtin_count);
}

TEST_CASE("the benchmark's rows hold every entry of the built-in table in every mode it serves", "[unit]") {
  using tilegemm::MathMode;
  for (const bool is_double : {false, true}) {
    const std::vector<bench::RowConfig> rows = bench::benchmark_rows(is_double);
    for (const BuiltinConfig& entry : builtin_configs) {
      for (const MathMode math : tilegemm::detail::math_modes) {
        if (!serves(entry, is_double, math) || (is_double && math != MathMode::ieee)) continue;
        INFO(entry.name << ": " << entry.config.name() << ", " << (is_double ? "double " : "float ")
                        << math_mode_name(math));
        CHECK(std::count_if(rows.begin(), rows.end(), [&](const bench::RowConfig& r) {
                return r.config && same_configuration(*r.config, entry.config) && r.math == math;
              }) == 1);
      }
    }
    // In double, one row per configuration (the modes change nothing there).
    if (is_double) {
      for (const bench::RowConfig& r : rows) CHECK(r.math == MathMode::ieee);
    }
  }
  // The labels are the configurations' names, with the math mode; AutoConfig's are "default (auto)".
  std::vector<std::string> labels;
  for (const bench::RowConfig& r : bench::benchmark_rows(false)) labels.push_back(r.label());
  for (const std::string& label :
       {std::string("default (auto)"), std::string("default (auto) tf32x3"), std::string("default (auto) tf32"),
        std::string("default (auto) bf16"), std::string("default (auto) fp16"),
        describe<tilegemm::TensorCores<128, 128, 16, 64, 64, 2>>.name() + " bf16",
        describe<tilegemm::Naive<16, 16>>.name(), describe<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>>.name(),
        describe<tilegemm::WarpgroupMma<64, 128, 32, 4>>.name() + " tf32"}) {
    INFO(label);
    CHECK(std::count(labels.begin(), labels.end(), label) == 1);
  }
}

TEST_CASE("tilegemm-tune --builtin writes the built-in table in the winners file's configuration format", "[unit]") {
  const std::string text = tune::builtin_table_text();
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  REQUIRE(lines.size() == builtin_configs.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const BuiltinConfig& entry = builtin_configs[i];
    INFO(lines[i]);
    CHECK(lines[i].rfind(std::string(entry.name) + " | ", 0) == 0);
    // The last field reads back, as a line of the file would, as the entry's configuration.
    const std::string field = lines[i].substr(lines[i].rfind(" | ") + 3);
    const auto config = tuned_file::parse_configuration(field);
    REQUIRE(config);
    const std::optional<KernelDescription> described = describe_at_run_time(config->first, config->second);
    REQUIRE(described);
    CHECK(same_configuration(*described, entry.config));
  }
  CHECK(text.find("gpu_64x128 | GPUs | float | prefetch 64 128 16 4 8 4 1\n") != std::string::npos);
  CHECK(text.find("bulk_double | compute capability 9.0+ | double | bulk_tensor_cores 128 128 32 8 8 4 3\n") !=
        std::string::npos);
  // What the file's rules refuse is refused here too.
  CHECK(!tuned_file::parse_configuration("prefetch 64 64 16 4 4 8 1"));
  CHECK(!tuned_file::parse_configuration("prefetch 64 64 16 4 4 4"));
  CHECK(!tuned_file::parse_configuration("no_such_family 64 64 16 4 4 4 1"));
}
