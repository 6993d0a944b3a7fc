// test_kernel_contracts: what the host and the OpenCL C of each family must agree on, read back from the compiled
// kernels: the local memory the planner counts and the arguments the executor sets, in order.
#include <string>
#include <tilegemm/core.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"

namespace {

using namespace tilegemm::detail;

// The arguments the executor sets (executor.hpp), in order.
const std::vector<std::string> gemm_arguments = {"M",   "N", "K",        "alpha", "beta", "A",        "a_offset",
                                                 "lda", "B", "b_offset", "ldb",   "C",    "c_offset", "ldc"};
// The batch strides an entry point that takes batches ends with (set_batch_arguments).
const std::vector<std::string> batch_arguments = {"a_stride", "b_stride", "c_stride"};
const std::vector<std::string> strip_arguments = {
    "M_all", "N_all",        "K_all",   "transposes", "A_all",        "a_offset_all", "lda_all",
    "B_all", "b_offset_all", "ldb_all", "tile_rows",  "right_groups", "strip_groups"};
const std::vector<std::string> split_k_arguments = {
    "M", "N", "K", "A", "a_offset", "lda", "B", "b_offset", "ldb", "W", "slice_stride", "ldw", "k_per_slice"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The kernel's argument names, or none where the driver keeps no argument information.
std::vector<std::string> argument_names(const cl::Kernel& kernel) {
  std::vector<std::string> names;
  const cl_uint count = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
  for (cl_uint i = 0; i < count; ++i) {
    std::string name;
    if (kernel.getArgInfo(i, CL_KERNEL_ARG_NAME, &name) != CL_SUCCESS) return {};
    while (!name.empty() && name.back() == '\0') name.pop_back();
    names.push_back(name);
  }
  return names;
}

void check_arguments_of(const cl::Kernel& kernel, const std::vector<std::string>& expected) {
  CHECK(kernel.getInfo<CL_KERNEL_NUM_ARGS>() == expected.size());
  const std::vector<std::string> names = argument_names(kernel);
  if (names.empty()) {
    WARN("the driver keeps no kernel argument names; their order is not checked here");
  } else {
    CHECK(names == expected);
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
  } else if (config.uses_tensor_cores) {  // only where there are tensor cores, in the kinds the planner would pick
    if (!has_tensor_cores(call.limits)) return;
    plain.mma = require_implementable(config, call.limits, sizeof(Scalar), tilegemm::MathMode::tf32x3);
  }
  std::vector<Variant> variants = {plain};
  if (config.fuses_strips) {
    variants.push_back(plain);
    variants.back().strips = true;
  }
  for (const Variant& variant : variants) {
    INFO("strips " << variant.strips);
    // The strip code's stage: beside the tiles' local memory, or in it.
    const std::size_t stage = variant.strips && !config.strips_share_local_memory ? strip_stage : 0;
    if ((config.local_memory_elements + stage) * sizeof(Scalar) > local_memory_limit(config, call.limits)) continue;
    tilegemm::KernelLease lease =
        make_kernel(call, gemm_program(config, std::is_same_v<Scalar, double>, variant), config.threads());
    const cl::Kernel& kernel = lease.get();
    check_local_memory(kernel, call, (config.local_memory_elements + stage) * sizeof(Scalar));
    CHECK(config.takes_batches == !config.splits_k);  // every family but split-K's takes batches
    if (config.splits_k) {
      check_arguments_of(kernel, split_k_arguments);
    } else {
      check_arguments_of(kernel, variant.strips ? gemm_arguments + strip_arguments : gemm_arguments + batch_arguments);
    }
  }
}

template <class Scalar>
void check_families(const CallContext& call) {
  check_config<tilegemm::Naive<8, 8>, Scalar>(call);
  check_config<tilegemm::LocalTiles<16>, Scalar>(call);
  check_config<tilegemm::MoreWorkPerThread<16, 4>, Scalar>(call);
  check_config<tilegemm::WideTypes<16, 16>, Scalar>(call);
  check_config<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>, Scalar>(call);
  check_config<tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>, Scalar>(call);
  check_config<tilegemm::Prefetch<128, 128, 8, 8, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<128, 64, 8, 8, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<64, 128, 16, 4, 8, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, Scalar>(call);
  check_config<tilegemm::Prefetch<32, 32, 16, 2, 2, 2>, Scalar>(call);
  check_config<tilegemm::SplitK<64, 64, 16, 4, 4, 4>, Scalar>(call);
  check_config<tilegemm::TensorCores<128, 128, 16, 64, 64, 2>, Scalar>(call);
  check_config<tilegemm::TensorCores<128, 64, 8, 64, 32, 3>, Scalar>(call);
  check_config<tilegemm::WarpgroupMma<128, 128, 8, 6>, Scalar>(call);
  // Past the 48 KiB the device reports (runtime/sm90a_local_memory.hpp): 144 KiB, and 192 KiB in tf32x3.
  check_config<tilegemm::WarpgroupMma<128, 256, 32, 3>, Scalar>(call);
  check_config<tilegemm::WarpgroupMma<128, 128, 32, 6>, Scalar>(call);
  // The copy engine's double, within 48 KiB and past it (135 KiB).
  check_config<tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>, Scalar>(call);
  check_config<tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>, Scalar>(call);
}

}  // namespace

TEST_CASE("each family's kernels use the local memory the planner counts and take the arguments the executor sets",
          "[contracts]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  check_families<float>(call);
  if (call.limits.fp64) check_families<double>(call);
}

TEST_CASE("the helper kernels take the arguments the executor sets", "[contracts]") {
  const CallContext call = CallContext::of(tilegemm::default_queue());
  tilegemm::KernelLease remainder_lease =
      make_kernel(call, remainder_program(false, false, true), remainder_panel * remainder_lanes);
  const cl::Kernel& remainder = remainder_lease.get();
  check_arguments_of(remainder, {"M", "N", "K", "m0", "n0", "alpha", "beta", "A", "a_offset", "lda", "B", "b_offset",
                                 "ldb", "C", "c_offset", "ldc", "right_groups", "groups"});
  check_local_memory(remainder, call, strip_stage * sizeof(float));
  check_arguments_of(
      make_kernel(call, support_program(false, pack_tile, pack_kernel_name), pack_tile * pack_tile).get(),
      {"outer", "inner", "outer_contiguous", "src", "src_offset", "ld", "outer_padded", "inner_padded", "tile_outer",
       "row", "dst", "src_stride", "dst_stride"});
  check_arguments_of(
      make_kernel(call, support_program(false, pack_tile, sum_slices_kernel_name), pack_tile * pack_tile).get(),
      {"M", "N", "slices", "alpha", "beta", "W", "slice_stride", "ldw", "C", "c_offset", "ldc"});
  check_arguments_of(
      make_kernel(call, support_program(false, pack_tile, scale_kernel_name), pack_tile * pack_tile).get(),
      {"M", "N", "beta", "C", "c_offset", "ldc", "c_stride"});
  check_arguments_of(make_kernel(call, core_tiles_program(), core_block * core_block / core_columns).get(),
                     {"outer", "inner", "outer_contiguous", "src", "src_offset", "ld", "outer_padded", "inner_padded",
                      "tile_outer", "tile_inner", "parts", "dst", "src_stride", "dst_stride"});
}
