// test_kernel_text: the compile-time side, with no device: TileConfig's derived constants, the families' traits as
// run-time descriptions, the preambles and the program keys.
#include <string>
#include <tilegemm/core.hpp>

#include "catch.hpp"

namespace {

using tilegemm::detail::describe;
using tilegemm::detail::EdgeMode;
using tilegemm::detail::fixed_string;
using tilegemm::detail::fnv1a;
using tilegemm::detail::gemm_program;
using tilegemm::detail::OperandAccess;
using tilegemm::detail::ProgramText;
using tilegemm::detail::to_fixed_string;
using tilegemm::detail::Variant;

constexpr bool contains(std::string_view text, std::string_view part) { return text.find(part) != text.npos; }

// fixed_string and the integer formatting the preambles are built from.
static_assert(to_fixed_string<0>().view() == "0");
static_assert(to_fixed_string<7>().view() == "7");
static_assert(to_fixed_string<1152>().view() == "1152");
static_assert(to_fixed_string<-42>().view() == "-42");
static_assert((fixed_string("ab") + "cd" + to_fixed_string<12>()).view() == "abcd12");
static_assert(fnv1a("") == 14695981039346656037ULL && fnv1a("a") == 0xaf63dc4c8601ec8cULL);  // published FNV-1a vectors

// Derived constants of the tutorial's kernel 6 configuration: 16 x 16 work-items, 8 loads each of A and B.
using Kernel6 = tilegemm::RegisterBlocking<128, 128, 16, 8, 8>;
static_assert(Kernel6::threads_m == 16 && Kernel6::threads_n == 16 && Kernel6::threads == 256);
static_assert(Kernel6::loads_a == 8 && Kernel6::loads_b == 8);
static_assert(Kernel6::local_memory_elements == 16 * (128 + 128));

// Kernel 10's shape: 10 x 10 per work-item on 160 x 160 tiles, with 2-wide loads.
using Kernel10 = tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>;
static_assert(Kernel10::threads == 256 && Kernel10::loads_a == 5 && Kernel10::loads_b == 5);

// The families' aliases land on the right family and shape, and their traits say how they take operands.
static_assert(tilegemm::Naive<8, 4>::family == tilegemm::Family::naive && tilegemm::Naive<8, 4>::threads == 32);
static_assert(tilegemm::Naive<8, 4>::local_memory_elements == 0);
static_assert(tilegemm::MoreWorkPerThread<32, 8>::threads_n == 4 && tilegemm::MoreWorkPerThread<32, 8>::loads_a == 8);
static_assert(tilegemm::WideTypes<16, 4>::threads_m == 4 && tilegemm::WideTypes<16, 4>::loads_a == 1);
static_assert(tilegemm::TransposedB<64, 32, 16, 4>::threads == 64 * 8);
static_assert(describe<tilegemm::Naive<8, 4>>.access == OperandAccess::caller_layout);
static_assert(describe<tilegemm::LocalTiles<16>>.access == OperandAccess::caller_layout);
static_assert(describe<tilegemm::WideTypes<16, 4>>.access == OperandAccess::packed);
static_assert(describe<Kernel6>.access == OperandAccess::packed);
static_assert(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>.access == OperandAccess::either_layout);
static_assert(describe<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>.splits_k);
static_assert(!describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>.splits_k);
// The prefetch kernel's local memory: two buffers of each tile, TSK rows of TSM / VW + 1 (TSN / VW + 1) vectors.
static_assert(tilegemm::Prefetch<64, 64, 16, 4, 4, 4>::local_memory_elements == 2 * 16 * (17 + 17) * 4);
static_assert(tilegemm::SplitK<32, 32, 16, 2, 2, 2>::local_memory_elements == 2 * 16 * (17 + 17) * 2);
// Only the prefetch family has the entry point that multiplies the strips too, and only where the strip code's
// partial sums fit: 256 work-items are 32 x 8 lanes (fit), 512 would be 32 x 16 (do not).
static_assert(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>.fuses_strips);
static_assert(!describe<tilegemm::Prefetch<64, 128, 16, 2, 8, 2>>.fuses_strips);  // 32 x 16 work-items
static_assert(!describe<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>.fuses_strips);
// The tensor_cores family: a warp's WM x WN tile spread over 8 x 4 lanes, so WPTM = WM / 8 and WPTN = WN / 4;
// Stages slices of both operands in local memory, rows counted with the doubles' padding of 4 elements (rows of floats
// are swizzled instead); packed operands, no strips.
using Tensor = tilegemm::TensorCores<128, 128, 16, 64, 32, 3>;
static_assert(Tensor::family == tilegemm::Family::tensor_cores && Tensor::stages == 3);
static_assert(Tensor::WPTM == 8 && Tensor::WPTN == 8 && Tensor::VW == 4);
static_assert(Tensor::threads_m == 16 && Tensor::threads_n == 16 && Tensor::threads == 256);  // 8 warps of 64 x 32
static_assert(Tensor::local_memory_elements == 3 * 16 * (128 + 128 + 8));
static_assert(describe<Tensor>.uses_tensor_cores && describe<Tensor>.access == OperandAccess::packed);
static_assert(!describe<Tensor>.fuses_strips && !describe<Tensor>.splits_k);
// The warpgroup_mma family: a warpgroup (128 work-items) per 64 rows, each work-item 2 rows by TSN / 4 columns;
// Stages slices of both operands, unpadded; operands always in core tiles; its PTX retargeted to sm_90a.
using Warpgroup = tilegemm::WarpgroupMma<128, 128, 8, 6>;
static_assert(Warpgroup::family == tilegemm::Family::warpgroup_mma && Warpgroup::stages == 6);
static_assert(Warpgroup::WPTM == 2 && Warpgroup::WPTN == 32 && Warpgroup::VW == 1);
static_assert(Warpgroup::threads_m == 64 && Warpgroup::threads_n == 4 && Warpgroup::threads == 256);
static_assert(Warpgroup::local_memory_elements == 6 * 8 * (128 + 128) + 6 * 4);  // and two 8-byte mbarriers a buffer
static_assert(describe<Warpgroup>.uses_tensor_cores && describe<Warpgroup>.access == OperandAccess::core_tiles);
static_assert(describe<Warpgroup>.needs_sm90a && !describe<Tensor>.needs_sm90a);
static_assert(tilegemm::WarpgroupMma<64, 256, 16, 3>::threads == 128);
// The deep slices AutoConfig takes go past the 48 KiB NVIDIA's OpenCL reports (runtime/sm90a_local_memory.hpp):
// 128 x 256 x 32 in 3 buffers takes 144 KiB + 48 bytes.
using WarpgroupDeep = tilegemm::WarpgroupMma<128, 256, 32, 3>;
static_assert(WarpgroupDeep::local_memory_elements == 3 * 32 * (128 + 256) + 12);
static_assert(WarpgroupDeep::threads == 256);
static_assert(describe<Warpgroup>.fuses_strips && describe<Warpgroup>.strips_share_local_memory);
static_assert(!describe<Tensor>.strips_share_local_memory);
// The bulk_tensor_cores family: the tensor_cores family's warps and padded slices, two 8-byte mbarriers a buffer
// (counted in doubles, its only scalar), operands always in padded slices, local memory past what the device reports.
using Bulk = tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 3>;
static_assert(Bulk::family == tilegemm::Family::bulk_tensor_cores && Bulk::stages == 3);
static_assert(Bulk::WPTM == 8 && Bulk::WPTN == 8 && Bulk::VW == 4 && Bulk::threads == 256);
static_assert(Bulk::local_memory_elements == 3 * 32 * (128 + 128 + 8) + 3 * 2);
static_assert(describe<Bulk>.uses_tensor_cores && describe<Bulk>.access == OperandAccess::padded_slices);
static_assert(describe<Bulk>.local_memory_beyond_reported && describe<Warpgroup>.local_memory_beyond_reported);
static_assert(!describe<Bulk>.needs_sm90a && !describe<Tensor>.local_memory_beyond_reported);
static_assert(!describe<Bulk>.fuses_strips && describe<Bulk>.takes_batches);
static_assert(!describe<Kernel6>.uses_tensor_cores && Kernel6::stages == 1);
static_assert(!describe<Kernel6>.fuses_strips);

}  // namespace

TEST_CASE("TileConfig names describe the configuration", "[unit][kernel_text]") {
  CHECK(tilegemm::RegisterBlocking<64, 64, 16, 4, 4>::name() == "register_blocking 64x64x16 4x4");
  CHECK(tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>::name() == "register_blocking 64x64x16 4x4 v4");
  CHECK(tilegemm::Naive<8, 4>::name() == "naive 8x4x1 1x1");
  CHECK(describe<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>.name() == "split_k 64x64x16 4x4 v4");
  CHECK(Tensor::name() == "tensor_cores 128x128x16 8x8 v4 s3");
  CHECK(Warpgroup::name() == "warpgroup_mma 128x128x8 2x32 s6");
  CHECK(Bulk::name() == "bulk_tensor_cores 128x128x32 8x8 v4 s3");
}

TEST_CASE("a configuration's preamble is one define per parameter, in a fixed order", "[unit][kernel_text]") {
  CHECK(std::string(describe<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>>.config_preamble.text) ==
        "#define TSM 64\n#define TSN 64\n#define TSK 16\n#define WPTM 4\n#define WPTN 4\n#define VW 1\n"
        "#define THREADS_M 16\n#define THREADS_N 16\n#define THREADS 256\n#define LOADS_A 4\n#define LOADS_B 4\n"
        "#define LOCAL_ELEMENTS 2048\n");
  // The prefetch family adds its local tiles' rows, whether a last slice stops at K (small tiles, deep slices) and,
  // where it fuses strips, the strip code's parameters.
  CHECK(std::string(describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>.config_preamble.text)
            .find("#define ROW_A 17\n#define ROW_B 17\n#define SHORT_LAST_SLICE 0\n#define PANEL 32\n#define LANES 8\n"
                  "#define STAGE 2304\n#define WIDTH 8\n#define IN_FLIGHT 8\n") != std::string::npos);
  CHECK(std::string(describe<tilegemm::Prefetch<32, 32, 32, 2, 4, 2>>.config_preamble.text)
            .find("#define SHORT_LAST_SLICE 1\n") != std::string::npos);
  CHECK(std::string(describe<tilegemm::Prefetch<16, 16, 16, 2, 2, 2>>.config_preamble.text)
            .find("#define SHORT_LAST_SLICE 0\n") != std::string::npos);
  CHECK(std::string(describe<tilegemm::SplitK<32, 32, 16, 2, 2, 2>>.config_preamble.text).find("PANEL") ==
        std::string::npos);
}

TEST_CASE("kernels' parameter lists are spelled from the tables the host sets their arguments from",
          "[unit][kernel_text]") {
  using namespace tilegemm::detail;
  static_assert(parameter_list<batch_arguments>().view() ==
                "const int a_stride, const int b_stride, const int c_stride");
  static_assert(arguments_known(gemm_arguments) && arguments_known(strip_arguments) &&
                arguments_known(split_k_arguments) && arguments_known(remainder_arguments) &&
                arguments_known(pack_operand_arguments) && arguments_known(sum_slices_arguments) &&
                arguments_known(scale_c_arguments) && arguments_known(pack_core_tiles_arguments) &&
                arguments_known(tensor_map_arguments));
  static_assert(argument_kind("const int") == ArgumentKind::integer &&
                argument_kind("const real") == ArgumentKind::scalar);
  static_assert(argument_kind("__global real*") == ArgumentKind::buffer &&
                argument_kind("int") == ArgumentKind::unknown);
  const std::string text = whole_text(gemm_program(describe<Kernel6>, false, {}));
  CHECK(contains(text,
                 "#define GEMM_PARAMETERS(type) const int M, const int N, const int K, const real alpha, const "
                 "real beta, __global const type* restrict A, const int a_offset, const int lda, __global const "
                 "type* restrict B, const int b_offset, const int ldb, __global real* C, const int c_offset, "
                 "const int ldc\n"));
  CHECK(contains(text, "void gemm_register_blocking(GEMM_PARAMETERS(realV), BATCH_PARAMETERS)"));
  const std::string support = whole_text(support_program(true, 16, "scale_c"));
  CHECK(contains(support,
                 "#define SCALE_C_PARAMETERS const int M, const int N, const real beta, __global real* C, "
                 "const int c_offset, const int ldc, const int c_stride\n"));
  CHECK(contains(support, "void scale_c(SCALE_C_PARAMETERS)"));
  // The strips' transposes: one bit per operand, named in the strip code's text.
  static_assert(transposes_argument(false, false) == 0 && transposes_argument(true, false) == transposed_a_bit);
  static_assert(transposes_argument(true, true) == (transposed_a_bit | transposed_b_bit) &&
                transposed_a_bit != transposed_b_bit);
  CHECK(
      contains(whole_text(remainder_program(false, true, false)), "#define TRANSPOSED_A 1\n#define TRANSPOSED_B 2\n"));
  // A warpgroup_mma variant that reads an operand through a tensor map takes where its work-groups make their maps and
  // the stored depth last (kernels/tensor_maps.hpp), as its preamble says it maps B; a packed one maps neither.
  const auto wgmma = describe<tilegemm::WarpgroupMma<128, 256, 32, 4>>;
  Variant mapped;
  mapped.mma = tilegemm::detail::MmaKind::tf32;
  mapped.flag_b = true;
  Variant packed;
  packed.mma = tilegemm::detail::MmaKind::tf32;
  const std::string mapped_text = whole_text(gemm_program(wgmma, false, mapped));
  CHECK(contains(mapped_text, "#define TENSOR_MAP_PARAMETERS __global uchar* restrict maps, const int depth\n"));
  CHECK(contains(mapped_text, "#define A_MAPPED 0\n#define B_MAPPED 1\n"));
  CHECK(contains(mapped_text, "#define MAPPED_PARAMETERS , TENSOR_MAP_PARAMETERS\n"));
  CHECK(contains(mapped_text, "void gemm_warpgroup_mma(GEMM_PARAMETERS(realV), BATCH_PARAMETERS MAPPED_PARAMETERS)"));
  const std::string packed_text = whole_text(gemm_program(wgmma, false, packed));
  CHECK(contains(packed_text, "#define A_MAPPED 0\n#define B_MAPPED 0\n"));
}

TEST_CASE("a program is the scalar, configuration and variant preambles, the shared code and an entry point",
          "[unit][kernel_text]") {
  const auto prefetch = describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>;
  const ProgramText plain = gemm_program(prefetch, false, {false, true, EdgeMode::whole_tiles, false});
  CHECK(std::string(plain.kernel_name) == "gemm_prefetch");
  const std::string text = whole_text(plain);
  CHECK(text.rfind("#define real float\n#define realV float4\n", 0) == 0);
  CHECK(contains(text,
                 "#define EDGES_WHOLE_TILES 0\n#define EDGES_VECTORS 1\n#define EDGES_ELEMENTS 2\n"
                 "#define A_K_CONTIGUOUS 0\n#define B_K_CONTIGUOUS 1\n#define EDGES 0\n"));
  CHECK(contains(text, "void gemm_prefetch(GEMM_PARAMETERS(realV), BATCH_PARAMETERS)"));
  CHECK(!contains(text, "multiply_strips"));
  CHECK(!contains(text, "TRANS_A"));

  const ProgramText strips = gemm_program(prefetch, true, {true, false, EdgeMode::elements, true});
  CHECK(std::string(strips.kernel_name) == "gemm_prefetch_strips");
  const std::string strips_text = whole_text(strips);
  CHECK(strips_text.rfind("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define real double\n", 0) == 0);
  CHECK(contains(strips_text, "#define A_K_CONTIGUOUS 1\n#define B_K_CONTIGUOUS 0\n#define EDGES 2\n"));
  CHECK(contains(strips_text, "inline void multiply_strips("));
  CHECK(contains(strips_text, "void gemm_prefetch_strips("));

  const std::string naive = whole_text(gemm_program(describe<tilegemm::Naive<8, 4>>, true, {true, false}));
  CHECK(contains(naive, "#define real double\n#define realV real\n"));
  CHECK(contains(naive, "#define TRANS_A 1\n#define TRANS_B 0\n"));
  CHECK(!contains(naive, "EDGES"));
  const std::string packed =
      whole_text(gemm_program(describe<Kernel6>, false, {true, true, EdgeMode::elements, false}));
  CHECK(!contains(packed, "TRANS_A"));  // packed families ignore the flags
  CHECK(!contains(packed, "EDGES"));
}

TEST_CASE("a tensor_cores program has the warps, stages and local memory in its preamble and its mma kind",
          "[unit][kernel_text]") {
  using tilegemm::detail::MmaKind;
  CHECK(contains(describe<Tensor>.config_preamble.text,
                 "#define WARPS_M 2\n#define WARPS_N 4\n#define WM 64\n#define WN 32\n#define STAGES 3\n"
                 "#define ROW_PAD_DOUBLE 4\n#define BAND_TILES 8\n"
                 "#define LOCAL_ELEMENTS 12672\n"));
  Variant tf32x3;
  tf32x3.mma = MmaKind::tf32x3;
  const ProgramText text = gemm_program(describe<Tensor>, false, tf32x3);
  CHECK(std::string(text.kernel_name) == "gemm_tensor_cores");
  const std::string all = whole_text(text);
  CHECK(contains(all,
                 "#define MMA_TF32X3 1\n#define MMA_TF32 2\n#define MMA_FP64_SM80 3\n#define MMA_FP64_SM90 4\n"
                 "#define MMA_BF16 5\n#define MMA_FP16 6\n#define MMA 1\n"));
  CHECK(contains(all, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
  CHECK(contains(all, "__local real slices[LOCAL_ELEMENTS] __attribute__((aligned(16)))"));
  // Each kind is a program of its own; the other families have no MMA line.
  std::vector<std::uint64_t> keys;
  for (MmaKind kind :
       {MmaKind::tf32x3, MmaKind::tf32, MmaKind::fp64_sm80, MmaKind::fp64_sm90, MmaKind::bf16, MmaKind::fp16}) {
    Variant v;
    v.mma = kind;
    keys.push_back(gemm_program(describe<Tensor>, kind == MmaKind::fp64_sm80 || kind == MmaKind::fp64_sm90, v).key);
  }
  std::sort(keys.begin(), keys.end());
  CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
  CHECK(!contains(whole_text(gemm_program(describe<Kernel6>, false, {})), "MMA"));
  // The 16-bit kinds: their line, the instructions of both types and the pairs' conversion.
  Variant bf16;
  bf16.mma = MmaKind::bf16;
  const std::string sixteen = whole_text(gemm_program(describe<Tensor>, false, bf16));
  CHECK(contains(sixteen, "#define MMA 5\n"));
  CHECK(contains(sixteen, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  CHECK(contains(sixteen, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"));
  CHECK(contains(sixteen, "cvt.rn.bf16x2.f32"));
  CHECK(contains(sixteen, "inline void store_pairs("));
}

TEST_CASE("a warpgroup_mma program marks its sm_90a instructions and asks to be retargeted", "[unit][kernel_text]") {
  Variant tf32;
  tf32.mma = tilegemm::detail::MmaKind::tf32;
  const ProgramText text = gemm_program(describe<Warpgroup>, false, tf32);
  CHECK(std::string(text.kernel_name) == "gemm_warpgroup_mma");
  CHECK(text.needs_sm90a);
  CHECK(!gemm_program(describe<Tensor>, false, tf32).needs_sm90a);
  const std::string all = whole_text(text);
  CHECK(contains(all,
                 "#define STAGES 6\n#define LOCAL_ELEMENTS 12312\n#define CORE_ROWS 8\n#define CORE_COLUMNS 4\n"
                 "#define MMA_PENDING 1\n#define SUMMED_DEPTH 32\n"));
  CHECK(contains(all, "#define SM90A_ONLY \"// sm_90a only: \"\n"));
  CHECK(contains(all,
                 "SM90A_ONLY\n               \"wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {\" WGMMA_LIST64"));
  CHECK(contains(all, "#define WGMMA_LIST64"));  // the accumulator lists it shares with the 16-bit kernel
  CHECK(contains(all, "banded_tile("));          // and the tiles' order with the mma.sync kernels
  CHECK(contains(all, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
  CHECK(!contains(all, "cp.async.cg"));
  // Tiles 256 wide: 32-deep slices in 3 buffers, one m64n256k8 a step on both parts of a warpgroup's accumulators.
  const std::string wide = whole_text(gemm_program(describe<WarpgroupDeep>, false, tf32));
  CHECK(contains(wide, "#define LOCAL_ELEMENTS 36876\n"));
  CHECK(contains(wide, "#define PARTS (TSN / 128)"));
  CHECK(contains(wide, "#if PARTS == 2\n  wgmma_64x256(d, a, b, accumulate);"));
  // The entry point that also multiplies the strips outside a tiled corner, with the strip code and its constants.
  Variant strips = tf32;
  strips.strips = true;
  const ProgramText with_strips = gemm_program(describe<Warpgroup>, false, strips);
  CHECK(std::string(with_strips.kernel_name) == "gemm_warpgroup_mma_strips");
  CHECK(with_strips.needs_sm90a);
  CHECK(contains(whole_text(with_strips), "#define PANEL 32\n#define LANES 8\n"));
  CHECK(contains(whole_text(with_strips), "inline void multiply_strips("));
  // The pack kernel's program states the same core matrices.
  const std::string pack = whole_text(tilegemm::detail::core_tiles_program());
  CHECK(contains(pack, "#define CORE_ROWS 8\n#define CORE_COLUMNS 4\n#define CORE_BLOCK 32\n"));
  CHECK(contains(pack, "void pack_core_tiles("));
  CHECK(contains(pack, "inline float to_tf32("));
}

TEST_CASE("a bulk_tensor_cores program is tensor_cores' shared code with the copy engine's pipeline",
          "[unit][kernel_text]") {
  Variant fp64;
  fp64.mma = tilegemm::detail::MmaKind::fp64_sm90;
  const ProgramText text = gemm_program(describe<Bulk>, true, fp64);
  CHECK(std::string(text.kernel_name) == "gemm_bulk_tensor_cores");
  CHECK(!text.needs_sm90a);  // cp.async.bulk and mbarriers are sm_90's
  const std::string all = whole_text(text);
  CHECK(contains(all,
                 "#define STAGES 3\n#define ROW_PAD_DOUBLE 4\n#define BAND_TILES 8\n"
                 "#define LOCAL_ELEMENTS 25350\n"));
  CHECK(contains(all, "#define MMA 4\n"));
  CHECK(contains(all, "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"));
  CHECK(contains(all, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
  CHECK(contains(all, "mbarrier.try_wait.parity.shared::cta.b64"));
  CHECK(contains(all, "bar.warp.sync -1;"));  // before a warp says it is done with a slice
  CHECK(contains(all, "#define SLICE_A (TSK * ROW_A)"));
  CHECK(contains(all, "inline void multiply_slice("));                                  // tensor_cores' code
  CHECK(!contains(all, "barrier(CLK_LOCAL_MEM_FENCE);\n    if (s + STAGES < count)"));  // not its pipeline
  // Double only: none of tensor_cores' TF32 code, nor its cp.async copies, which the tensor_cores program keeps.
  for (const char* tf32_or_copies : {"to_tf32", "mma_tf32", ".tf32.", "cp.async.cg", "copy_slice("}) {
    INFO(tf32_or_copies);
    CHECK(!contains(all, tf32_or_copies));
    CHECK(contains(whole_text(gemm_program(describe<Tensor>, true, fp64)), tf32_or_copies));
  }
  // The copy engine's text says which lines it needs from the family's text before it.
  CHECK(contains(all, "#ifndef SLOTS\n#error \"kernels/copy_engine.hpp needs SLOTS"));
  CHECK(gemm_program(describe<Bulk>, true, fp64).key != gemm_program(describe<Tensor>, true, fp64).key);
}

TEST_CASE("program keys differ exactly when the program text does", "[unit][kernel_text]") {
  const auto local = describe<tilegemm::LocalTiles<16>>;
  const auto prefetch = describe<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>;
  const std::uint64_t plain = gemm_program(local, false, {false, false}).key;
  CHECK(gemm_program(local, false, {true, false}).key != plain);
  CHECK(gemm_program(local, false, {false, true}).key != plain);
  CHECK(gemm_program(local, true, {false, false}).key != plain);
  CHECK(gemm_program(describe<tilegemm::LocalTiles<8>>, false, {false, false}).key != plain);
  // The same text built twice gets the same key; flags a family ignores do not change its text or key.
  CHECK(gemm_program(describe<tilegemm::LocalTiles<16>>, false, {false, false}).key == plain);
  CHECK(whole_text(gemm_program(describe<Kernel6>, false, {true, false})) ==
        whole_text(gemm_program(describe<Kernel6>, false, {false, true})));
  CHECK(gemm_program(describe<Kernel6>, false, {true, false}).key ==
        gemm_program(describe<Kernel6>, false, {false, true}).key);
  // Every variant of the prefetch family is a program of its own.
  std::vector<std::uint64_t> keys;
  for (int flags = 0; flags < 4; ++flags) {
    for (EdgeMode edges : {EdgeMode::whole_tiles, EdgeMode::vectors, EdgeMode::elements}) {
      for (bool strips : {false, true}) {
        keys.push_back(gemm_program(prefetch, false, {(flags & 1) != 0, (flags & 2) != 0, edges, strips}).key);
      }
    }
  }
  std::sort(keys.begin(), keys.end());
  CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
  // The helper programs too: per scalar, and the remainder kernel per transpose.
  CHECK(tilegemm::detail::support_program(false, 16, "scale_c").key !=
        tilegemm::detail::support_program(true, 16, "scale_c").key);
  // One program holds the support kernels: it is built once, whichever of them is asked for first.
  CHECK(tilegemm::detail::support_program(false, 16, "scale_c").key ==
        tilegemm::detail::support_program(false, 16, "pack_operand").key);
  // Devices with small work-groups get the support kernels with smaller tiles: programs of their own.
  CHECK(tilegemm::detail::support_program(false, 16, "scale_c").key !=
        tilegemm::detail::support_program(false, 4, "scale_c").key);
  CHECK(tilegemm::detail::remainder_program(false, true, false).key !=
        tilegemm::detail::remainder_program(false, false, true).key);
}

// Pieces made of constant texts are hashed at run time, on first use (kernels/program_text.hpp): they must give the
// text and the key that the same text hashed at once gives, joined or not.
namespace {
constexpr char first_text[] = "#define FIRST 1\n";
constexpr auto second_text = fixed_string("#define SECOND ") + "2\n";
constexpr char third_text[] = "__kernel void whole_text(__global float* x) { x[0] = FIRST + SECOND; }\n";
}  // namespace

TEST_CASE("a piece hashed on first use, one text or several, is the same piece as that text hashed at once",
          "[unit][kernel_text]") {
  using tilegemm::detail::joined_piece;
  using tilegemm::detail::piece;
  using tilegemm::detail::piece_of;
  using tilegemm::detail::program_text;
  const std::string whole = std::string(first_text) + second_text.c_str() + third_text;
  const auto joined = joined_piece<first_text, second_text, third_text>();
  CHECK(joined.hash_value() == fnv1a(whole));
  CHECK(joined.hash_value() == fnv1a(whole));  // kept from the first call
  CHECK(piece_of<third_text>().hash_value() == fnv1a(third_text));
  const ProgramText lazy = program_text("joined", {piece_of<first_text>(), joined_piece<second_text, third_text>()});
  const std::string rest = std::string(second_text.c_str()) + third_text;
  const ProgramText eager = program_text("joined", {piece(first_text), piece(rest)});
  CHECK(lazy.key == eager.key);
  std::string lazy_text;
  for (std::size_t i = 0; i < lazy.count; ++i) lazy_text += lazy.sources[i];
  CHECK(lazy_text == whole);
  CHECK(lazy.count == 3);
  CHECK((lazy.starts_piece[0] && lazy.starts_piece[1] && !lazy.starts_piece[2]));
  CHECK(program_text("joined", {joined}).key != program_text("joined", {piece(first_text), piece(third_text)}).key);
}
