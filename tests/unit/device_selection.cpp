// unit/device_selection: the cases of test_device_selection that need no OpenCL device (the unit tier, built by
// unit_tests).
#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

// Two kinds of cases. Those tagged [unit] run detail::choose_device and its message on device lists written out
// below, with null cl::Devices: they need no OpenCL platform, and every expected choice is written by hand, so they
// fail when the rule is wrong. The [devices] cases check what needs a real device: that list_devices agrees with
// OpenCL, that find_device and default_device plug the rule onto it, and queue_for.
//
// Order dependence: default_queue() reads TILEGEMM_DEVICE once per process, on its first call. Only the test case
// "default_device and default_queue honour TILEGEMM_DEVICE" may call it (directly, or through gpu_gemm without a
// queue); every other case here passes queues explicitly, so that case sets the variable before the first read
// whatever order the cases run in.

using tilegemm::DeviceEntry;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

namespace {

// ---- Hand-written device lists ----

// An entry as a driver could report it, with no OpenCL device behind it.
DeviceEntry described(std::string platform_name, std::string device_name, cl_device_type type) {
  return DeviceEntry{cl::Device(), std::move(platform_name), std::move(device_name), type};
}

constexpr int no_match = -1;

// The index choose_device gives for `spec`, or no_match.
int choice(const std::vector<DeviceEntry>& entries, const std::string& spec) {
  const std::optional<std::size_t> index = tilegemm::detail::choose_device(entries, spec);
  return index ? static_cast<int>(*index) : no_match;
}

// A TILEGEMM_DEVICE value and the index of the entry it must choose, written out by hand.
struct Expected {
  const char* spec;
  int index;
};

void check_choices(const std::vector<DeviceEntry>& entries, const std::vector<Expected>& expectations) {
  for (const Expected& expected : expectations) {
    INFO("TILEGEMM_DEVICE=\"" << expected.spec << "\"");
    CHECK(choice(entries, expected.spec) == expected.index);
  }
}

// The tilegemm::Error that `body` throws; fails the case when it throws none.
template <class Body>
tilegemm::Error error_from(Body&& body) {
  try {
    body();
  } catch (const tilegemm::Error& e) {
    return e;
  }
  FAIL("no tilegemm::Error thrown");
  return tilegemm::Error(CL_SUCCESS, "");
}

// A PoCL CPU on platform 0, then an NVIDIA GPU on platform 1.
const std::vector<DeviceEntry> pocl_then_h200 = {
    described("Portable Computing Language", "pthread-haswell-AMD EPYC 9654 96-Core Processor", CL_DEVICE_TYPE_CPU),
    described("NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),
};

// Sets (or, for nullptr, unsets) an environment variable for the lifetime of this object, then restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_value_ = true;
      old_value_ = old;
    }
    set(value);
  }
  ~ScopedEnvironment() { set(had_value_ ? old_value_.c_str() : nullptr); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  void set(const char* value) {
    if (value) {
      setenv(name_.c_str(), value, 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  bool had_value_ = false;
  std::string old_value_;
};

}  // namespace

// ======== The rule, on hand-written lists: no OpenCL device needed ========

TEST_CASE("choose_device with no TILEGEMM_DEVICE takes the first GPU of any platform, else the first device",
          "[unit]") {
  check_choices(pocl_then_h200, {{"", 1}});  // the GPU on platform 1, not the CPU listed first
  const std::vector<DeviceEntry> cpu_then_two_gpus = {
      described("Intel(R) OpenCL", "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", CL_DEVICE_TYPE_CPU),
      described("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),
      described("AMD Accelerated Parallel Processing", "gfx90a:sramecc+:xnack-", CL_DEVICE_TYPE_GPU),
  };
  check_choices(cpu_then_two_gpus, {{"", 1}});
  const std::vector<DeviceEntry> accelerator_then_cpu = {
      described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                CL_DEVICE_TYPE_ACCELERATOR),
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
  };
  check_choices(accelerator_then_cpu, {{"", 0}});  // no GPU: the first device, whatever its type
  const std::vector<DeviceEntry> one_cpu = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
  };
  check_choices(one_cpu, {{"", 0}});
}

TEST_CASE("choose_device with cpu, gpu or accelerator, in any case, takes the first device of that type", "[unit]") {
  check_choices(pocl_then_h200, {{"cpu", 0},
                                 {"CPU", 0},
                                 {"cPu", 0},
                                 {"gpu", 1},
                                 {"GPU", 1},
                                 {"Gpu", 1},
                                 {"accelerator", no_match},
                                 {"ACCELERATOR", no_match}});
  // Types in the order gpu, accelerator, cpu, accelerator, cpu, gpu: the first of each is 0, 1 and 2.
  const std::vector<DeviceEntry> mixed = {
      described("NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),
      described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                CL_DEVICE_TYPE_ACCELERATOR),
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
      described("Xilinx", "xilinx_u250_gen3x16_xdma_shell_4_1", CL_DEVICE_TYPE_ACCELERATOR),
      described("Intel(R) OpenCL", "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", CL_DEVICE_TYPE_CPU),
      described("AMD Accelerated Parallel Processing", "gfx90a:sramecc+:xnack-", CL_DEVICE_TYPE_GPU),
  };
  check_choices(mixed, {{"gpu", 0}, {"accelerator", 1}, {"Accelerator", 1}, {"cpu", 2}, {"CPU", 2}});
  const std::vector<DeviceEntry> no_gpu = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
      described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                CL_DEVICE_TYPE_ACCELERATOR),
      described("Example Platform", "GPU-class accelerator", CL_DEVICE_TYPE_ACCELERATOR),
  };
  // A type word chooses by type only: "gpu" in a device's name does not make it a match.
  check_choices(no_gpu, {{"gpu", no_match}, {"GPU", no_match}, {"cpu", 0}, {"accelerator", 1}});
}

TEST_CASE("choose_device counts a device by its type_name, so one with the GPU bit is a gpu whatever else it has",
          "[unit]") {
  const std::vector<DeviceEntry> combined_types = {
      described("Example CPU Platform", "fused cpu with an accelerator bit",
                CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR),                                                  // 0
      described("Example APU Platform", "integrated graphics", CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR),   // 1
      described("Example DSP Platform", "signal processor", CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT),  // 2
      described("Example Custom Platform", "custom device", CL_DEVICE_TYPE_CUSTOM),                                // 3
      described("Example GPU Platform", "discrete graphics", CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT),         // 4
  };
  CHECK(combined_types[0].type_name() == "cpu");
  CHECK(combined_types[1].type_name() == "gpu");
  CHECK(combined_types[2].type_name() == "accelerator");
  CHECK(combined_types[3].type_name() == "other");
  CHECK(combined_types[4].type_name() == "gpu");
  check_choices(combined_types, {
                                    {"", 1},  // the GPU bit is enough, with the accelerator bit beside it
                                    {"gpu", 1},
                                    {"accelerator", 2},  // not 0 (a cpu) nor 1 (a gpu), though both have the bit
                                    {"cpu", 0},
                                    {"other", no_match},  // a type_name, but not one TILEGEMM_DEVICE takes as a type
                                    {"custom", 3},        // text: matched in the names
                                });
}

TEST_CASE("choose_device with other text takes the first device whose platform and device name contain it", "[unit]") {
  check_choices(pocl_then_h200, {
                                    {"nvidia", 1},
                                    {"NVIDIA H200", 1},
                                    {"h200", 1},
                                    {"portable", 0},
                                    {"epyc", 0},
                                    {"AMD", 0},
                                    {"pu", 0},           // in "Computing": part of a type word is text, not a type
                                    {" gpu", no_match},  // a type word with a space is text too, and not in any name
                                    {"h100", no_match},
                                    {"other", no_match},
                                });
  const std::vector<DeviceEntry> three_gpus = {
      described("NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),                                     // 0
      described("NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),                                     // 1
      described("AMD Accelerated Parallel Processing", "gfx90a:sramecc+:xnack-", CL_DEVICE_TYPE_GPU),  // 2
  };
  check_choices(three_gpus, {
                                {"H200", 0},  // two devices of that name: the first
                                {"NVIDIA CUDA / NVIDIA H200", 0},
                                {"gfx90a", 2},
                                {"accelerated", 2},         // a name, not the type "accelerator"
                                {"accelerator", no_match},  // the type: there is none, though a name nearly says it
                                {"processing / gfx", 2},
                            });
}

TEST_CASE("choose_device ignores case in both the text and the names", "[unit]") {
  const std::vector<DeviceEntry> names_in_several_cases = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),  // 0
      described("nvidia cuda", "NVIDIA H200", CL_DEVICE_TYPE_GPU),                               // 1
      described("Example Platform", "lowercase accelerator card", CL_DEVICE_TYPE_ACCELERATOR),   // 2
  };
  check_choices(names_in_several_cases, {
                                            {"PORTABLE computing LANG", 0},
                                            {"portable computing language", 0},
                                            {"PTHREAD-HASWELL", 0},
                                            {"NVIDIA CUDA", 1},
                                            {"nViDiA h200", 1},
                                            {"LOWERCASE ACCELERATOR", 2},
                                        });
}

TEST_CASE("choose_device matches text across the slash between platform and device name", "[unit]") {
  check_choices(pocl_then_h200,
                {
                    {"language / pthread", 0},
                    {"CUDA / NVIDIA", 1},
                    {"nvidia cuda / nvidia h200", 1},  // the whole label
                    {"Portable Computing Language / pthread-haswell-AMD EPYC 9654 96-Core Processor", 0},
                    {"cuda/nvidia", no_match},  // the separator is space, slash, space
                    {"cuda  / nvidia", no_match},
                    {"nvidia h200 / nvidia cuda", no_match},  // platform first, then device
                });
}

TEST_CASE("detail::trimmed drops the trailing spaces and NULs some drivers leave, and nothing else", "[unit]") {
  using tilegemm::detail::trimmed;
  using namespace std::string_literals;  // "...\0"s keeps the NULs in the string
  CHECK(trimmed("NVIDIA CUDA\0"s) == "NVIDIA CUDA");
  CHECK(trimmed("NVIDIA H200 \0 \0\0"s) == "NVIDIA H200");
  CHECK(trimmed("  leading spaces stay") == "  leading spaces stay");
  CHECK(trimmed("inner\0nul stays\0"s) == "inner\0nul stays"s);
  CHECK(trimmed("\0\0 "s) == "");
  CHECK(trimmed("") == "");

  // Names as a driver returns them, trimmed as list_devices trims them: the label and matching see clean names.
  const std::vector<DeviceEntry> padded_names = {
      described(trimmed("Portable Computing Language\0"s), trimmed("pthread-haswell-AMD EPYC\0"s), CL_DEVICE_TYPE_CPU),
      described(trimmed("NVIDIA CUDA \0"s), trimmed("NVIDIA H200   \0\0"s), CL_DEVICE_TYPE_GPU),
  };
  CHECK(padded_names[0].label() == "Portable Computing Language / pthread-haswell-AMD EPYC");
  CHECK(padded_names[1].label() == "NVIDIA CUDA / NVIDIA H200");
  check_choices(padded_names, {
                                  {"language / pthread", 0},  // no NUL before the slash
                                  {"cuda / nvidia", 1},       // no extra space before the slash
                                  {"h200 ", no_match},        // the padding is gone
                              });
}

TEST_CASE("the message when nothing matches lists every device with its type", "[unit]") {
  CHECK(tilegemm::detail::no_matching_device_message(pocl_then_h200, "h100") ==
        "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"h100\". Use cpu, gpu, accelerator, gpu:N, local-rank or "
        "part of one of these names:\n"
        "  Portable Computing Language / pthread-haswell-AMD EPYC 9654 96-Core Processor (cpu)\n"
        "  NVIDIA CUDA / NVIDIA H200 (gpu, gpu:0)");
  const std::vector<DeviceEntry> every_type = {
      described("NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT),
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
      described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                CL_DEVICE_TYPE_ACCELERATOR),
      described("Example Custom Platform", "custom device", CL_DEVICE_TYPE_CUSTOM),
  };
  CHECK(tilegemm::detail::no_matching_device_message(every_type, "Radeon") ==
        "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"Radeon\". Use cpu, gpu, accelerator, gpu:N, local-rank "
        "or part of one of these names:\n"
        "  NVIDIA CUDA / NVIDIA H200 (gpu, gpu:0)\n"
        "  Portable Computing Language / pthread-haswell-AMD EPYC (cpu)\n"
        "  Intel(R) FPGA Emulation Platform for OpenCL(TM) / Intel(R) FPGA Emulation Device (accelerator)\n"
        "  Example Custom Platform / custom device (other)");
}

TEST_CASE("chosen_entry returns the chosen entry, or throws tilegemm::Error CL_DEVICE_NOT_FOUND with the message",
          "[unit]") {
  CHECK(tilegemm::detail::chosen_entry(pocl_then_h200, "").label() == "NVIDIA CUDA / NVIDIA H200");
  CHECK(tilegemm::detail::chosen_entry(pocl_then_h200, "CPU").label() ==
        "Portable Computing Language / pthread-haswell-AMD EPYC 9654 96-Core Processor");
  const tilegemm::Error error = error_from([] { tilegemm::detail::chosen_entry(pocl_then_h200, "accelerator"); });
  CHECK(error.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(error.what()) ==
        "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"accelerator\". Use cpu, gpu, accelerator, gpu:N, "
        "local-rank or part of one of these names:\n"
        "  Portable Computing Language / pthread-haswell-AMD EPYC 9654 96-Core Processor (cpu)\n"
        "  NVIDIA CUDA / NVIDIA H200 (gpu, gpu:0)");
}

TEST_CASE("with platforms but no devices at all, every choice is an error saying there are none", "[unit]") {
  const std::vector<DeviceEntry> none;
  check_choices(none, {{"", no_match}, {"gpu", no_match}, {"cpu", no_match}, {"nvidia", no_match}});
  const tilegemm::Error unset = error_from([&] { tilegemm::detail::chosen_entry(none, ""); });
  CHECK(unset.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(unset.what()) ==
        "tilegemm: no OpenCL device: the OpenCL platforms here list no devices at all. Check that the driver "
        "supports this machine's GPU, or install the PoCL CPU driver to run on the processor (Debian and Ubuntu: "
        "apt-get install pocl-opencl-icd).");
  const tilegemm::Error gpu = error_from([&] { tilegemm::detail::chosen_entry(none, "gpu"); });
  CHECK(gpu.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(gpu.what())
            .find("tilegemm: no OpenCL device for TILEGEMM_DEVICE=\"gpu\": the OpenCL platforms "
                  "here list no devices at all.") == 0);
}

// ======== gpu:N and local-rank: choosing among identical GPUs, by number and by the process's local rank ========

namespace {

using tilegemm::detail::LocalRankVariables;

// A CPU, then four GPUs of which three share one name, an accelerator between them.
const std::vector<DeviceEntry> cpu_and_four_gpus = {
    described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),        // 0
    described("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),                           // 1: gpu:0
    described("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),                           // 2: gpu:1
    described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",   // 3
              CL_DEVICE_TYPE_ACCELERATOR),                                                           //
    described("NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT),  // 4: gpu:2
    described("AMD Accelerated Parallel Processing", "gfx90a:sramecc+:xnack-", CL_DEVICE_TYPE_GPU),  // 5: gpu:3
};

// The index choose_device gives for `spec` with these local-rank variables, or no_match.
int choice_with(const std::vector<DeviceEntry>& entries, const std::string& spec, const LocalRankVariables& ranks) {
  const std::optional<std::size_t> index = tilegemm::detail::choose_device(entries, spec, ranks);
  return index ? static_cast<int>(*index) : no_match;
}

LocalRankVariables open_mpi_rank(const char* value) {
  LocalRankVariables ranks;
  ranks.open_mpi = value;
  return ranks;
}

}  // namespace

TEST_CASE("choose_device with gpu:N takes the N-th GPU in list order, counting from 0, whatever its name", "[unit]") {
  check_choices(cpu_and_four_gpus, {{"gpu:0", 1},
                                    {"GPU:0", 1},
                                    {"gpu:1", 2},  // the second of three identical names: no substring reaches it
                                    {"gpu:2", 4},  // the accelerator between does not count
                                    {"gpu:3", 5},
                                    {"gpu:03", 5},  // leading zeros are the same number
                                    {"gpu:4", no_match},
                                    {"gpu:999999999", no_match}});
  check_choices(pocl_then_h200, {{"gpu:0", 1}, {"gpu:1", no_match}});
  const std::vector<DeviceEntry> no_gpu = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
  };
  check_choices(no_gpu, {{"gpu:0", no_match}});
  for (std::size_t index = 0; index < cpu_and_four_gpus.size(); ++index) {
    INFO("entry " << index);
    const std::optional<std::size_t> number = tilegemm::detail::gpu_number(cpu_and_four_gpus, index);
    const std::optional<std::size_t> expected[] = {std::nullopt, 0, 1, std::nullopt, 2, 3};
    CHECK(number == expected[index]);
    if (number) CHECK(choice(cpu_and_four_gpus, "gpu:" + std::to_string(*number)) == static_cast<int>(index));
  }
}

TEST_CASE("gpu:N with N not a number throws tilegemm::Error naming TILEGEMM_DEVICE, the value and gpu:N", "[unit]") {
  for (const char* spec : {"gpu:", "gpu:-1", "gpu:x", "gpu:1x", "gpu: 1", "gpu:1 ", "gpu:+1", "gpu:1.0", "gpu:0x1",
                           "GPU:", "gpu:1234567890", "gpu:99999999999999999999999"}) {
    INFO("TILEGEMM_DEVICE=\"" << spec << "\"");
    const tilegemm::Error error = error_from([&] { choice(cpu_and_four_gpus, spec); });
    CHECK(error.code() == CL_INVALID_VALUE);
    CHECK(std::string(error.what()) == "tilegemm: TILEGEMM_DEVICE=\"" + std::string(spec) +
                                           "\" is not a GPU's number: expected gpu:N, N = 0, 1, 2, ... (the N-th GPU "
                                           "in list_devices' order, counting from 0)");
  }
}

TEST_CASE("gpu:N beyond the GPUs there are throws CL_DEVICE_NOT_FOUND saying how many there are", "[unit]") {
  const tilegemm::Error one = error_from([] { tilegemm::detail::chosen_entry(pocl_then_h200, "gpu:99"); });
  CHECK(one.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(one.what()) ==
        "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"gpu:99\": there is 1 GPU, gpu:0. Use cpu, gpu, "
        "accelerator, gpu:N, local-rank or part of one of these names:\n"
        "  Portable Computing Language / pthread-haswell-AMD EPYC 9654 96-Core Processor (cpu)\n"
        "  NVIDIA CUDA / NVIDIA H200 (gpu, gpu:0)");
  const tilegemm::Error four = error_from([] { tilegemm::detail::chosen_entry(cpu_and_four_gpus, "gpu:4"); });
  CHECK(std::string(four.what()) ==
        "tilegemm: no OpenCL device matches TILEGEMM_DEVICE=\"gpu:4\": there are 4 GPUs, gpu:0 to gpu:3. Use cpu, "
        "gpu, accelerator, gpu:N, local-rank or part of one of these names:\n"
        "  Portable Computing Language / pthread-haswell-AMD EPYC (cpu)\n"
        "  NVIDIA CUDA / NVIDIA H100 80GB HBM3 (gpu, gpu:0)\n"
        "  NVIDIA CUDA / NVIDIA H100 80GB HBM3 (gpu, gpu:1)\n"
        "  Intel(R) FPGA Emulation Platform for OpenCL(TM) / Intel(R) FPGA Emulation Device (accelerator)\n"
        "  NVIDIA CUDA / NVIDIA H100 80GB HBM3 (gpu, gpu:2)\n"
        "  AMD Accelerated Parallel Processing / gfx90a:sramecc+:xnack- (gpu, gpu:3)");
  const std::vector<DeviceEntry> no_gpu = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
  };
  const tilegemm::Error none = error_from([&] { tilegemm::detail::chosen_entry(no_gpu, "gpu:0"); });
  CHECK(std::string(none.what()).find("TILEGEMM_DEVICE=\"gpu:0\": there is no GPU here. Use") != std::string::npos);
}

TEST_CASE(
    "local-rank takes the GPU numbered the local rank modulo the GPUs, from Open MPI's, MPICH's or Slurm's "
    "variable",
    "[unit]") {
  // Ranks 0 to 9 over four GPUs: gpu:0, 1, 2, 3, 0, 1, ... (entries 1, 2, 4, 5), never the CPU or the accelerator.
  const int gpu_entries[] = {1, 2, 4, 5};
  for (int rank = 0; rank < 10; ++rank) {
    const std::string value = std::to_string(rank);
    INFO("local rank " << rank);
    const int expected = gpu_entries[rank % 4];
    CHECK(choice_with(cpu_and_four_gpus, "local-rank", open_mpi_rank(value.c_str())) == expected);
    CHECK(choice_with(cpu_and_four_gpus, "LOCAL-RANK", open_mpi_rank(value.c_str())) == expected);
    LocalRankVariables mpich;
    mpich.mpich = value.c_str();
    CHECK(choice_with(cpu_and_four_gpus, "local-rank", mpich) == expected);
    LocalRankVariables slurm;
    slurm.slurm = value.c_str();
    CHECK(choice_with(cpu_and_four_gpus, "local-rank", slurm) == expected);
  }
  // Open MPI's variable first, then MPICH's, then Slurm's (srun starting mpirun's ranks sets both).
  CHECK(choice_with(cpu_and_four_gpus, "local-rank", {"1", "2", "3"}) == 2);
  CHECK(choice_with(cpu_and_four_gpus, "local-rank", {nullptr, "2", "3"}) == 4);
  CHECK(choice_with(cpu_and_four_gpus, "local-rank", {nullptr, nullptr, "3"}) == 5);
  CHECK(choice_with(cpu_and_four_gpus, "local-rank", {"", "", "3"}) == 5);  // empty is unset
  // No variable: rank 0, the first GPU.
  CHECK(choice_with(cpu_and_four_gpus, "local-rank", {}) == 1);
  CHECK(tilegemm::detail::local_rank({}) == 0);
  CHECK(tilegemm::detail::local_rank({"007", nullptr, nullptr}) == 7);
  // One GPU: every rank on it.
  CHECK(choice_with(pocl_then_h200, "local-rank", open_mpi_rank("0")) == 1);
  CHECK(choice_with(pocl_then_h200, "local-rank", open_mpi_rank("3")) == 1);
}

TEST_CASE("local-rank without a GPU goes round every device, so that ranks on a CPU-only machine run", "[unit]") {
  const std::vector<DeviceEntry> cpu_and_accelerator = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
      described("Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                CL_DEVICE_TYPE_ACCELERATOR),
  };
  for (const auto& [rank, expected] :
       std::vector<std::pair<const char*, int>>{{"0", 0}, {"1", 1}, {"2", 0}, {"3", 1}}) {
    INFO("local rank " << rank);
    CHECK(choice_with(cpu_and_accelerator, "local-rank", open_mpi_rank(rank)) == expected);
  }
  const std::vector<DeviceEntry> one_cpu = {
      described("Portable Computing Language", "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
  };
  for (const char* rank : {"0", "1", "2", "3"}) CHECK(choice_with(one_cpu, "local-rank", open_mpi_rank(rank)) == 0);
  CHECK(choice_with({}, "local-rank", open_mpi_rank("1")) == no_match);
}

TEST_CASE("local-rank with a rank variable that is not a number throws tilegemm::Error naming it and its value",
          "[unit]") {
  const std::pair<LocalRankVariables, std::string> cases[] = {
      {{"x", nullptr, nullptr}, "OMPI_COMM_WORLD_LOCAL_RANK=\"x\""},
      {{"-1", nullptr, nullptr}, "OMPI_COMM_WORLD_LOCAL_RANK=\"-1\""},
      {{" 1", nullptr, nullptr}, "OMPI_COMM_WORLD_LOCAL_RANK=\" 1\""},
      {{"1234567890", nullptr, nullptr}, "OMPI_COMM_WORLD_LOCAL_RANK=\"1234567890\""},
      {{nullptr, "1.5", "0"}, "MPI_LOCALRANKID=\"1.5\""},  // the first one set is read, and it is wrong
      {{nullptr, nullptr, "rank0"}, "SLURM_LOCALID=\"rank0\""},
  };
  for (const auto& [ranks, named] : cases) {
    INFO(named);
    const tilegemm::Error error = error_from([&] { choice_with(cpu_and_four_gpus, "local-rank", ranks); });
    CHECK(error.code() == CL_INVALID_VALUE);
    CHECK(std::string(error.what()) == "tilegemm: TILEGEMM_DEVICE=local-rank reads the local rank from " + named +
                                           ", which is not a rank: expected a whole number 0, 1, 2, ... (mpirun and "
                                           "srun set it; unset, the rank is 0)");
  }
  // Only local-rank reads them: other choices ignore a bad variable.
  CHECK(choice_with(cpu_and_four_gpus, "gpu:1", open_mpi_rank("x")) == 2);
  CHECK(choice_with(cpu_and_four_gpus, "cpu", open_mpi_rank("x")) == 0);
}

TEST_CASE("choose_device without local-rank's variables reads them from the environment", "[unit]") {
  ScopedEnvironment open_mpi("OMPI_COMM_WORLD_LOCAL_RANK", "2");
  ScopedEnvironment mpich("MPI_LOCALRANKID", nullptr);
  ScopedEnvironment slurm("SLURM_LOCALID", "3");
  CHECK(choice(cpu_and_four_gpus, "local-rank") == 4);
  open_mpi.set(nullptr);
  CHECK(choice(cpu_and_four_gpus, "local-rank") == 5);
  mpich.set("5");
  CHECK(choice(cpu_and_four_gpus, "local-rank") == 2);
  slurm.set(nullptr);
  mpich.set("not-a-rank");
  CHECK(error_from([] { choice(cpu_and_four_gpus, "local-rank"); }).code() == CL_INVALID_VALUE);
  mpich.set(nullptr);
  CHECK(choice(cpu_and_four_gpus, "local-rank") == 1);
}
