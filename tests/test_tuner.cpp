// test_tuner: the tuner's winners file (format, damaged and stale lines), shape classes, AutoConfig's plan with a tuned
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

#include "../tools/tune/candidates.hpp"
#include "catch.hpp"
#include "dense_shape.hpp"
#include "reference.hpp"
#include "temporary_folder.hpp"
#include "tuned_entry.hpp"

// Its case needs the tuner (tools built); without it the executable holds no test.
#ifdef TILEGEMM_TUNE
namespace {

using tilegemm_test::dense_shape;
using tilegemm_test::tuned_entry;

using namespace tilegemm::detail;
namespace fs = std::filesystem;
using tilegemm_test::TemporaryFolder;

// Runs a shell command; its exit status, and stdout and stderr together in `output`.
int run(const std::string& command, const fs::path& folder, std::string& output) {
  const fs::path log = folder / "command.log";
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  output = tilegemm_test::text_of(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a tiny tuning run writes its winner, continues where it stopped, and AutoConfig uses the file", "[slow]") {
  const TemporaryFolder folder("tuner-test");
  const fs::path file = folder.path() / "tuned.txt";
  const std::string tune = std::string("'") + TILEGEMM_TUNE + "' --file '" + file.string() +
                           "' --precision float --shapes 48x48x48,64x64x64 --candidates 'wide_types 16x16x16 16x1 "
                           "v16,local_tiles 16x16x16 1x4'";
  std::string output;
  // Stopped after three measurements, as a time budget would: nothing won yet, partial results kept.
  REQUIRE(run(tune + " --max-steps 3", folder.path(), output) == 3);
  INFO(output);
  CHECK(output.find("stopped by the time budget") != std::string::npos);
  CHECK(!fs::exists(file));
  REQUIRE(fs::exists(folder.path() / "tune-progress"));
  // The next run continues with those three and finishes.
  REQUIRE(run(tune, folder.path(), output) == 0);
  INFO(output);
  CHECK(output.find("continuing with 3 results") != std::string::npos);
  CHECK(output.find("best ") != std::string::npos);  // the progress bar
  CHECK(output.find("left") != std::string::npos);
  CHECK(fs::is_empty(folder.path() / "tune-progress"));
  const std::vector<TunedEntry> winners = tuned_file::parse(tilegemm_test::text_of(file));
  REQUIRE(winners.size() == 1);
  CHECK(winners[0].shape_class == ShapeClass::square_small);
  CHECK(winners[0].precision == "float");
  const std::string chosen = tuned_file::configuration_text(winners[0]);
  CHECK((chosen == "model" || chosen == "wide_types 16 16 16 16 1 16 1" || chosen == "local_tiles 16 16 16 1 4 1 1"));

  // The library reads a winners file that names a configuration outside AutoConfig's candidates, for this device.
  const tilegemm::detail::CallContext call = tilegemm::detail::CallContext::of(tilegemm::default_queue());
  TunedEntry e = tuned_entry(ShapeClass::square_small, tilegemm::Family::wide_types, {32, 32, 32, 8, 1, 8, 1});
  e.device = device_label(call.limits);
  e.driver = call.limits.driver;
  const fs::path cache = folder.path() / "cache";
  fs::create_directories(cache);
  {
    std::ofstream out(cache / "tuned.txt");
    out << tuned_file::text_of({e});
  }
  TunedConfigs::shared().use_file(cache / "tuned.txt");
  const Plan plan = plan_gemm(nullptr, dense_shape(100, 90, 80), false, call.limits, 4);
  TunedConfigs::shared().use_file(std::nullopt);
  CHECK(plan.chosen == Chosen::tuned);
  CHECK(plan.config.name() == "wide_types 32x32x32 8x1 v8");

  // Another process finds it through TILEGEMM_CACHE_DIR (with the cache on, which the tests' environment turns off),
  // says so with TILEGEMM_VERBOSE=1, and its product is right; with TILEGEMM_TUNED=off it takes the model's choice.
  const std::string worker = std::string("TILEGEMM_VERBOSE=1 TILEGEMM_CACHE=on TILEGEMM_CACHE_DIR='") + cache.string() +
                             "' '" + TILEGEMM_TUNED_WORKER + "' 100 90 80";
  REQUIRE(run(worker, folder.path(), output) == 0);
  CHECK(output.find("tilegemm: 100x90x80 float on ") != std::string::npos);
  CHECK(output.find(": wide_types 32x32x32 8x1 v8 (tuned for square_small)") != std::string::npos);
  CHECK(output.find("ok\n") != std::string::npos);
  REQUIRE(run("TILEGEMM_TUNED=off " + worker, folder.path(), output) == 0);
  CHECK(output.find("(built-in model; no tuned winner for square_small on this device)") != std::string::npos);
  CHECK(output.find("ok\n") != std::string::npos);
  // A damaged file is ignored: the model again, and a right product.
  {
    std::string text = tilegemm_test::text_of(cache / "tuned.txt");
    text[text.size() - 3] = text[text.size() - 3] == '9' ? '8' : '9';
    std::ofstream out(cache / "tuned.txt");
    out << text;
  }
  REQUIRE(run(worker, folder.path(), output) == 0);
  CHECK(output.find("(built-in model; no tuned winner") != std::string::npos);
  CHECK(output.find("ok\n") != std::string::npos);
}
#endif
