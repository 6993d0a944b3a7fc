// test_wgmma_assembly: what ptxas makes of the wgmma kernels AutoConfig takes (compute capability 9.0). Where ptxas
// cannot keep a warpgroup's wgmma instructions in flight together it fences or serializes them and says so only in an
// advisory (C7519, C7514), a silent loss of speed: the kernels' PTX, as NVIDIA's OpenCL compiler made it and the
// program cache retargeted it to sm_90a, is assembled again with `ptxas -v` (TILEGEMM_PTXAS, or ptxas on the PATH or
// in /usr/local/cuda/bin; where there is none the case says so and checks nothing).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
#include "temporary_folder.hpp"

namespace {

using namespace tilegemm::detail;
using tilegemm::MathMode;

// The ptxas to run: TILEGEMM_PTXAS, else the first on the PATH, else CUDA's usual place; empty where none is there.
std::string ptxas_path() {
  if (const char* chosen = std::getenv("TILEGEMM_PTXAS")) return chosen;
  std::vector<std::string> places;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) places.push_back(folder);
  }
  places.push_back("/usr/local/cuda/bin");
  for (const std::string& place : places) {
    const std::filesystem::path candidate = std::filesystem::path(place) / "ptxas";
    std::error_code ignored;
    if (!place.empty() && std::filesystem::is_regular_file(candidate, ignored)) return candidate.string();
  }
  return {};
}

// The PTX of `text` built for the queue's device: the program's binary, which NVIDIA's driver gives as PTX.
std::string ptx_of(const cl::CommandQueue& queue, const ProgramText& text) {
  const cl::Program program = tilegemm::ProgramCache::instance().program(queue.getInfo<CL_QUEUE_CONTEXT>(),
                                                                         queue.getInfo<CL_QUEUE_DEVICE>(), text);
  const std::vector<std::vector<unsigned char>> binaries = program.getInfo<CL_PROGRAM_BINARIES>();
  REQUIRE(binaries.size() == 1);
  const std::string binary(binaries[0].begin(), binaries[0].end());
  const std::size_t start = binary.find(".version");
  REQUIRE(start != std::string::npos);
  const std::size_t end = binary.find('\0', start);
  return binary.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// What `ptxas -arch=sm_90a -v` prints for `ptx` (written into `folder` as `name`.ptx), and its exit status.
std::string ptxas_says(const std::string& ptxas, const std::string& ptx, const tilegemm_test::TemporaryFolder& folder,
                       const std::string& name) {
  const std::filesystem::path source = folder.path() / (name + ".ptx");
  std::ofstream(source) << ptx;
  const std::string command = "'" + ptxas + "' -arch=sm_90a -v '" + source.string() + "' -o '" +
                              (folder.path() / (name + ".cubin")).string() + "' 2>&1";
  std::string said;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr) said += chunk.data();
  return said + "exit status " + std::to_string(pclose(pipe));
}

// `text` with `from` replaced by `to`, which must be there.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

bool says(const std::string& said, const char* what) { return said.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("ptxas neither fences nor serializes the wgmma instructions of the kernels AutoConfig takes",
          "[tensor_cores][gpu]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const DeviceLimits device = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  if (!has_warpgroup_mma(device)) {
    SUCCEED("no wgmma on " << device.name);
    return;
  }
  const std::string ptxas = ptxas_path();
  if (ptxas.empty()) {
    WARN("no ptxas (TILEGEMM_PTXAS, the PATH, /usr/local/cuda/bin): the wgmma kernels' assembly is not checked");
    return;
  }
  const tilegemm_test::TemporaryFolder folder("wgmma-assembly");
  struct Case {
    GemmShape shape;
    MathMode math;
  };
  // tf32: 128 x 256 tiles with B through a tensor map, both mapped (TN), 64 x 128 tiles; tf32x3: 128 x 128 tiles, their
  // short-K form (low products), 64 x 128 tiles, strips in the tiles' launch (1025) and apart (2049).
  const std::vector<Case> cases = {{tilegemm_test::dense_shape(4096, 4096, 4096), MathMode::tf32},
                                   {tilegemm_test::dense_shape(4096, 4096, 4096, true, false), MathMode::tf32},
                                   {tilegemm_test::dense_shape(1024, 1024, 1024), MathMode::tf32},
                                   {tilegemm_test::dense_shape(4096, 4096, 4096), MathMode::tf32x3},
                                   {tilegemm_test::dense_shape(4096, 4096, 128), MathMode::tf32x3},
                                   {tilegemm_test::dense_shape(1024, 1024, 1024), MathMode::tf32x3},
                                   {tilegemm_test::dense_shape(1025, 1025, 1025), MathMode::tf32x3},
                                   {tilegemm_test::dense_shape(2049, 2049, 300), MathMode::tf32x3}};
  int checked = 0;
  std::string tf32x3_text;
  for (const Case& c : cases) {
    const Plan plan = plan_default(c.shape, device, sizeof(float), c.math);
    if (plan.config.family != tilegemm::Family::warpgroup_mma) continue;
    const ProgramText text = gemm_program(plan.config, false, plan.variant);
    const std::string said = ptxas_says(ptxas, ptx_of(queue, text), folder, "case" + std::to_string(checked));
    INFO(plan.config.name() << " in " << math_mode_name(c.math) << " for " << c.shape.m << " x " << c.shape.n << " x "
                            << c.shape.k << ":\n"
                            << said);
    CHECK(says(said, "exit status 0"));
    CHECK(says(said, "Used "));
    CHECK(says(said, " 0 bytes spill stores"));
    CHECK_FALSE(says(said, "C7519"));  // warpgroup.arrive injected: each wgmma fenced
    CHECK_FALSE(says(said, "C7514"));  // wgmma serialized: accumulators read while others run
    CHECK_FALSE(says(said, "serialized"));
    if (c.math == MathMode::tf32x3 && c.shape.k > 128 && !plan.variant.strips) tf32x3_text = whole_text(text);
    ++checked;
  }
  CHECK(checked >= 6);  // a planner that stopped taking wgmma here would leave these kernels unchecked
  // The check's own check: the tf32x3 loop as it was before 2026-11-29, its low products and sums chosen at run time,
  // a branch among each slice's wgmma instructions, must draw the advisory (else this ptxas no longer says so, and the
  // checks above prove nothing).
  REQUIRE(!tf32x3_text.empty());
  std::string branched = replaced(tf32x3_text, "if (K <= LOW_PRODUCTS_UP_TO) {", "if (0) {");
  branched = replaced(branched, "tid, false, SUMMED_SLICES);",
                      "tid, K <= LOW_PRODUCTS_UP_TO, K <= LOW_PRODUCTS_UP_TO ? 1 : SUMMED_SLICES);");
  ProgramText control = program_text("gemm_warpgroup_mma", {piece(branched)});
  control.needs_sm90a = true;
  const std::string said = ptxas_says(ptxas, ptx_of(queue, control), folder, "control");
  INFO(said);
  CHECK(says(said, "C7519"));
}
