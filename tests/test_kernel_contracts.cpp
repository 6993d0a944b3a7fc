// test_kernel_contracts: what the host and the OpenCL C of each family must agree on, read back from the compiled
// kernels: the local memory the planner counts and the arguments the executor sets, in order.
#include <array>
#include <cstddef>
#include <string>
#include <tilegemm/core.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"

namespace {

using namespace tilegemm::detail;

// A table's arguments, in order: what the kernel's text is spelled from and the executor sets
// (kernels/kernel_arguments.hpp).
template <std::size_t N>
std::vector<KernelArgument> listed(const std::array<KernelArgument, N>& table) {
  return {table.begin(), table.end()};
}

std::vector<KernelArgument> operator+(std::vector<KernelArgument> a, const std::vector<KernelArgument>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string argument_info(const cl::Kernel& kernel, cl_uint index, cl_kernel_arg_info what) {
  std::string text;
  if (kernel.getArgInfo(index, what, &text) != CL_SUCCESS) return {};
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

// The kind of value the compiled kernel takes: its type name (int, float or double, or a pointer).
ArgumentKind compiled_kind(const std::string& type_name) {
  if (type_name == "int") return ArgumentKind::integer;
  if (type_name == "float" || type_name == "double") return ArgumentKind::scalar;
  return type_name.find('*') != std::string::npos ? ArgumentKind::buffer : ArgumentKind::unknown;
}

// The kernel of `program` built again with its argument information kept (-cl-kernel-arg-info; drivers may drop it
// otherwise, PoCL does); the cached one where the program is built from retargeted PTX (sm_90a).
cl::Kernel with_argument_info(const CallContext& call, const ProgramText& program, const cl::Kernel& cached) {
  if (program.needs_sm90a) return cached;
  cl::Program::Sources sources;
  for (std::size_t i = 0; i < program.count; ++i) sources.emplace_back(program.sources[i]);
  cl::Program built(call.context, sources);
  const cl_int status = built.build(std::vector<cl::Device>{call.device}, "-cl-kernel-arg-info");
  INFO(built.getBuildInfo<CL_PROGRAM_BUILD_LOG>(call.device));
  REQUIRE(status == CL_SUCCESS);
  return cl::Kernel(built, program.kernel_name);
}

// The kernel takes the table's arguments: as many, and where the driver keeps argument information, the same names
// in the same order, each of the kind the host sets.
void check_arguments_of(const CallContext& call, const ProgramText& program, const cl::Kernel& cached,
                        const std::vector<KernelArgument>& expected) {
  const cl::Kernel kernel = with_argument_info(call, program, cached);
  REQUIRE(kernel.getInfo<CL_KERNEL_NUM_ARGS>() == expected.size());
  if (argument_info(kernel, 0, CL_KERNEL_ARG_NAME).empty()) {
    WARN("the driver keeps no kernel argument names; their order is not checked here");
    return;
  }
  for (cl_uint i = 0; i < expected.size(); ++i) {
    INFO("argument " << i);
    CHECK(argument_info(kernel, i, CL_KERNEL_ARG_NAME) == expected[i].name);
    CHECK(compiled_kind(argument_info(kernel, i, CL_KERNEL_ARG_TYPE_NAME)) == argument_kind(expected[i].type));
  }
}

// The local memory the compiled kernel uses is what the host planned for: exactly on PoCL; drivers may pad
// __local arrays to their alignment (NVIDIA added 1 to 128 bytes, for an array of double16), which is less than
// any term of the host's count (a vector per step of k of each tile buffer: 256 bytes and more).
void check_local_memory(const cl::Kernel& kernel, const CallContext& call, std::size_t planned) {
  const std::size_t used = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(call.device);
  INFO("the kernel uses " << used << " bytes of local memory; the host planned " << planned);
  CHECK(used >= planned);
  CHECK(used <= planned + 128);
}

template <class Config, class Scalar>
void check_config(const CallContext& call) {
  const KernelDescription& config = describe<Config>;
  INFO(config.name() << (std::is_same_v<Scalar, double> ? " double" : " float"));
  if (!config_fits(config, call.limits, sizeof(Scalar))) return;  // refused anyway
  Variant plain;
  if (config.family == tilegemm::Family::warpgroup_mma) {  // TF32 on compute capability 9.0 only
    if (!has_warpgroup_mma(call.limits) || std::is_same_v<Scalar, double>) return;
    plain.mma = require_implementable(config, call.limits, sizeof(Scalar), tilegemm::MathMode::tf32);
  } else if (config.family == tilegemm::Family::bulk_tensor_cores) {  // double from compute capability 9.0 only
    if (!has_copy_engine(call.limits) || !std::is_same_v<Scalar, double>) return;
    plain.mma = require_implementable(config, call.limits, sizeof(Scalar), tilegemm::MathMode::ieee);
  } else if (config.family == tilegemm::Family::staged_prefetch) {  // cp.async: compute capability 8.0 and newer
    if (!has_tensor_cores(call.limits)) return;
  } else if (config.uses_tensor_cores) {  // only where there are tensor cores, in the kinds the planner would pick
    if (!has_tensor_cores(call.limits)) return;
    plain.mma = require_implementable(config, call.limits, sizeof(Scalar), tilegemm::MathMode::tf32x3);
  }
  std::vector<Variant> variants = {plain};
  if (config.fuses_strips) {
    variants.push_back(plain);
    variants.back().strips = true;
  }
  if (config.reads_tensor_maps && plain.mma == MmaKind::tf32 && config.tile.tsk == tensor_map_depth) {
    variants.push_back(plain);  // B through a tensor map: its slices' alignment and the maps counted
                                // (mapped_local_memory_bytes)
    variants.back().flag_b = true;
    variants.push_back(variants.back());  // and A, outer-contiguous, in boxes of more rows (its fragments loaded)
    variants.back().flag_a = true;
    variants.back().outer_a = true;
  }
  for (const Variant& variant : variants) {
    INFO("strips " << variant.strips << ", B mapped " << variant.flag_b << ", A outer-contiguous " << variant.outer_a);
    // The strip code's stage: beside the tiles' local memory, or in it.
    const std::size_t stage = variant.strips && !config.strips_share_local_memory ? strip_stage : 0;
    const std::size_t planned = (variant.flag_b ? mapped_local_memory_bytes(config, sizeof(Scalar), variant.outer_a)
                                                : config.local_memory_elements * sizeof(Scalar)) +
                                stage * sizeof(Scalar);
    if (planned > local_memory_limit(config, call.limits)) continue;
    const ProgramText program = gemm_program(config, std::is_same_v<Scalar, double>, variant);
    tilegemm::KernelLease lease = make_kernel(call, program, config.threads());
    const cl::Kernel& kernel = lease.get();
    check_local_memory(kernel, call, planned);
    CHECK(config.takes_batches == !config.splits_k);  // every family but split-K's takes batches
    if (config.splits_k) {
      check_arguments_of(call, program, kernel, listed(split_k_arguments));
    } else {
      // A kernel that makes its tensor maps takes where and of what depth last.
      check_arguments_of(
          call, program, kernel,
          listed(gemm_arguments) + (variant.strips ? listed(strip_arguments) : listed(batch_arguments)) +
              (variant.flag_a || variant.flag_b ? listed(tensor_map_arguments) : std::vector<KernelArgument>{}));
    }
  }
}

// One configuration of each family (`slow` false: the device tier's), or the others (the slow tier's): the same
// kernel text at other sizes, and the configurations past the 48 KiB the device reports. Each is a program of PoCL's
// to build.
template <class Scalar>
void check_families(const CallContext& call, bool slow) {
  if (!slow) {
    check_config<tilegemm::Naive<8, 8>, Scalar>(call);
    check_config<tilegemm::LocalTiles<16>, Scalar>(call);
    check_config<tilegemm::MoreWorkPerThread<16, 4>, Scalar>(call);
    check_config<tilegemm::WideTypes<16, 16>, Scalar>(call);
    check_config<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>, Scalar>(call);
    check_config<tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>, Scalar>(call);
    check_config<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, Scalar>(call);
    check_config<tilegemm::SplitK<64, 64, 16, 4, 4, 4>, Scalar>(call);
    check_config<tilegemm::TensorCores<128, 128, 16, 64, 64, 2>, Scalar>(call);
    check_config<tilegemm::WarpgroupMma<128, 128, 8, 6>, Scalar>(call);
    // The copy engine's double, within 48 KiB.
    check_config<tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>, Scalar>(call);
    check_config<tilegemm::StagedPrefetch<64, 32, 16, 4, 4, 2, 3>, Scalar>(call);
    return;
  }
  check_config<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<128, 64, 8, 8, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<64, 128, 16, 4, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<32, 32, 16, 2, 2, 2>, Scalar>(call);
  check_config<tilegemm::TensorCores<128, 64, 8, 64, 32, 3>, Scalar>(call);
  // Past the 48 KiB the device reports (runtime/sm90a_local_memory.hpp): 192 KiB in tf32 and in tf32x3.
  check_config<tilegemm::WarpgroupMma<128, 256, 32, 4>, Scalar>(call);
  check_config<tilegemm::WarpgroupMma<128, 128, 32, 6>, Scalar>(call);
  check_config<tilegemm::WarpgroupMma<64, 128, 32, 8>, Scalar>(call);
  // The copy engine's double past 48 KiB (135 KiB).
  check_config<tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>, Scalar>(call);
}

}  // namespace

TEST_CASE("each family's kernels use the local memory the planner counts and take the arguments the executor sets",
          "[contracts]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_families<float>(call, false);
  if (call.limits.fp64) check_families<double>(call, false);
}

TEST_CASE("the other configurations' kernels use the local memory the planner counts and take the executor's arguments",
          "[contracts][slow]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_families<float>(call, true);
  if (call.limits.fp64) check_families<double>(call, true);
}

// The helper kernel of `program`, leased as the executor does, takes the table's arguments.
void check_helper(const CallContext& call, const ProgramText& program, std::size_t threads,
                  const std::vector<KernelArgument>& expected) {
  INFO(program.kernel_name);
  tilegemm::KernelLease lease = make_kernel(call, program, threads);
  check_arguments_of(call, program, lease.get(), expected);
}

TEST_CASE("the helper kernels take the arguments the executor sets", "[contracts]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  tilegemm::KernelLease remainder_lease =
      make_kernel(call, remainder_program(false, false, true), remainder_panel * remainder_lanes);
  check_local_memory(remainder_lease.get(), call, strip_stage * sizeof(float));
  check_helper(call, remainder_program(false, false, true), remainder_panel * remainder_lanes,
               listed(remainder_arguments));
  const std::size_t support_threads = pack_tile * pack_tile;
  check_helper(call, support_program(false, pack_tile, pack_kernel_name), support_threads,
               listed(pack_operand_arguments));
  check_helper(call, support_program(false, pack_tile, sum_slices_kernel_name), support_threads,
               listed(sum_slices_arguments));
  check_helper(call, support_program(false, pack_tile, scale_kernel_name), support_threads, listed(scale_c_arguments));
  check_helper(call, core_tiles_program(), core_block * core_block / core_columns, listed(pack_core_tiles_arguments));
  for (const SixteenBit element : {SixteenBit::half, SixteenBit::bfloat16}) {  // kernels/sixteen_bit_conversion.hpp
    check_helper(call, sixteen_bit_program(element, pack_tile, widen_kernel_name), support_threads,
                 listed(widen_arguments));
    check_helper(call, sixteen_bit_program(element, pack_tile, narrow_kernel_name), support_threads,
                 listed(narrow_arguments));
  }
}

// A program's text built as it is, with `from` replaced by `to`: the build log, or "" where it built.
std::string build_log_of_edited(const CallContext& call, const ProgramText& program, const std::string& from,
                                const std::string& to) {
  std::string text = whole_text(program);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  cl::Program built(call.context, text);
  if (built.build(std::vector<cl::Device>{call.device}) == CL_SUCCESS) return "";
  return built.getBuildInfo<CL_PROGRAM_BUILD_LOG>(call.device);
}

TEST_CASE("a kernel text refuses to build without the parameters it needs or past the local memory counted",
          "[contracts]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  const ProgramText blocking = gemm_program(describe<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>, false, {});
  CHECK(build_log_of_edited(call, blocking, "#define LOCAL_ELEMENTS 2048\n", "#define LOCAL_ELEMENTS 2048\n").empty());
  CHECK_THAT(build_log_of_edited(call, blocking, "#define LOCAL_ELEMENTS 2048\n", "#define LOCAL_ELEMENTS 2047\n"),
             Catch::Matchers::Contains("more local memory than the host counts"));
  const ProgramText prefetch = gemm_program(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>, false, {});
  CHECK_THAT(build_log_of_edited(call, prefetch, "#define ROW_B 17\n", ""),
             Catch::Matchers::Contains("kernels/prefetch.hpp needs ROW_A, ROW_B"));
  CHECK_THAT(build_log_of_edited(call, support_program(false, pack_tile, scale_kernel_name), "#define PACK_TILE", "//"),
             Catch::Matchers::Contains("needs PACK_TILE"));
  CHECK_THAT(build_log_of_edited(call, sixteen_bit_program(SixteenBit::bfloat16, pack_tile, narrow_kernel_name),
                                 "#define STORAGE16", "//"),
             Catch::Matchers::Contains("needs SIXTEEN_BIT and STORAGE16"));
  CHECK_THAT(build_log_of_edited(call, pack16_program(), "#define PACK_BLOCK", "//"),
             Catch::Matchers::Contains("needs TSK, PACK_BLOCK"));
  CHECK_THAT(build_log_of_edited(call, pack16_program(PackFrom::float_to_bfloat16), "#define PACK_FROM_FLOAT", "//"),
             Catch::Matchers::Contains("and PACK_FROM_FLOAT"));
  // The copy engine's text names each of the six lines its family's text must give it.
  const ProgramText bulk = gemm_program(describe<tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>>, true, {});
  CHECK_THAT(build_log_of_edited(call, bulk, "#define AHEAD (SLOTS - 1)", ""),
             Catch::Matchers::Contains("kernels/copy_engine.hpp needs AHEAD"));
  CHECK_THAT(build_log_of_edited(call, bulk, "#define SLOTS STAGES", ""),
             Catch::Matchers::Contains("kernels/copy_engine.hpp needs SLOTS"));
}
