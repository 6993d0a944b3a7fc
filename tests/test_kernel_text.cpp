// test_kernel_text: the compile-time side, with no device: TileConfig's derived constants, the constexpr preamble
// text and the cache keys.
#include <tilegemm/tilegemm.hpp>

#include "catch.hpp"

namespace {

using tilegemm::detail::fixed_string;
using tilegemm::detail::fnv1a;
using tilegemm::detail::gemm_program_text;
using tilegemm::detail::to_fixed_string;

constexpr bool contains(std::string_view text, std::string_view part) { return text.find(part) != text.npos; }

// fixed_string and the integer formatting the preambles are built from.
static_assert(to_fixed_string<0>().view() == "0");
static_assert(to_fixed_string<7>().view() == "7");
static_assert(to_fixed_string<1152>().view() == "1152");
static_assert(to_fixed_string<-42>().view() == "-42");
static_assert((fixed_string("ab") + "cd" + to_fixed_string<12>()).view() == "abcd12");

// Derived constants of the tutorial's kernel 6 configuration: 16 x 16 work-items, 4 loads each of A and B.
using Kernel6 = tilegemm::RegisterBlocking<128, 128, 16, 8, 8>;
static_assert(Kernel6::threads_m == 16 && Kernel6::threads_n == 16 && Kernel6::threads == 256);
static_assert(Kernel6::loads_a == 8 && Kernel6::loads_b == 8);
static_assert(Kernel6::local_memory_elements == 16 * (128 + 128));
static_assert(Kernel6::packed_operands);

// Kernel 10's shape: 10 x 10 per work-item on 160 x 160 tiles, with 2-wide loads.
using Kernel10 = tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>;
static_assert(Kernel10::threads == 256 && Kernel10::loads_a == 5 && Kernel10::loads_b == 5);

// The families' aliases land on the right family and shape.
static_assert(tilegemm::Naive<8, 4>::family == tilegemm::Family::naive && tilegemm::Naive<8, 4>::threads == 32);
static_assert(!tilegemm::Naive<8, 4>::packed_operands && tilegemm::Naive<8, 4>::local_memory_elements == 0);
static_assert(tilegemm::MoreWorkPerThread<32, 8>::threads_n == 4 && tilegemm::MoreWorkPerThread<32, 8>::loads_a == 8);
static_assert(tilegemm::WideTypes<16, 4>::threads_m == 4 && tilegemm::WideTypes<16, 4>::loads_a == 1);
static_assert(tilegemm::TransposedB<64, 32, 16, 4>::threads == 64 * 8);

// The preamble bakes the parameters in; packed families ignore the transposes, direct ones keep them.
constexpr auto vector_loads = gemm_program_text<tilegemm::VectorLoads<64, 32, 16, 4, 2, 2>, float, true, true>();
static_assert(contains(vector_loads.preamble, "#define real float\n"));
static_assert(contains(vector_loads.preamble, "#define realV float2\n"));
static_assert(contains(vector_loads.preamble, "#define TSM 64\n#define TSN 32\n#define TSK 16\n"));
static_assert(contains(vector_loads.preamble, "#define WPTM 4\n#define WPTN 2\n#define VW 2\n"));
static_assert(contains(vector_loads.preamble, "#define THREADS_M 16\n#define THREADS_N 16\n#define THREADS 256\n"));
static_assert(contains(vector_loads.preamble, "#define TRANS_A 0\n#define TRANS_B 0\n#define A_K_CONTIGUOUS 0\n"));
// Prefetch kernels read either layout: the flags say which operands are K-contiguous and whether the variant
// checks edges (reading operands of any size in place); split-K is marked too.
constexpr auto prefetch = gemm_program_text<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, float, false, true>();
static_assert(contains(prefetch.preamble, "#define TRANS_A 0\n#define TRANS_B 0\n"));
static_assert(contains(prefetch.preamble,
                       "#define A_K_CONTIGUOUS 0\n#define B_K_CONTIGUOUS 1\n#define EDGES 0\n#define SPLIT_K 0\n"));
static_assert(contains(gemm_program_text<tilegemm::SplitK<64, 64, 16, 4, 4, 4>, float, true, false, 1>().preamble,
                       "#define A_K_CONTIGUOUS 1\n#define B_K_CONTIGUOUS 0\n#define EDGES 1\n#define SPLIT_K 1\n"));
static_assert(gemm_program_text<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, float, false, true, 2>().key != prefetch.key);
// The variant that multiplies the strips outside its corner has the strip code's parameters and source too.
constexpr auto with_strips = gemm_program_text<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, float, false, true, 0, true>();
static_assert(contains(with_strips.preamble,
                       "#define STRIPS 1\n#define PANEL 32\n#define LANES 8\n#define STAGE 2304\n"));
static_assert(contains(with_strips.common, "multiply_strips") && !contains(prefetch.common, "multiply_strips"));
static_assert(with_strips.key != prefetch.key);
// Families that read packed copies have no edge-checking variant: the flag stays 0.
static_assert(contains(gemm_program_text<tilegemm::VectorLoads<64, 32, 16, 4, 2, 2>, float, true, true, 2>().preamble,
                       "#define EDGES 0\n"));
static_assert(contains(vector_loads.kernel_name, "gemm_register_blocking"));

constexpr auto naive_double = gemm_program_text<tilegemm::Naive<8, 4>, double, true, false>();
static_assert(contains(naive_double.preamble, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define real double\n"));
static_assert(contains(naive_double.preamble, "#define realV real\n"));
static_assert(contains(naive_double.preamble, "#define TRANS_A 1\n#define TRANS_B 0\n"));

// Cache keys are computed at compile time and differ whenever the program text does.
using Local16 = tilegemm::LocalTiles<16>;
static_assert(gemm_program_text<Local16, float, false, false>().key !=
              gemm_program_text<Local16, float, true, false>().key);
static_assert(gemm_program_text<Local16, float, false, false>().key !=
              gemm_program_text<Local16, double, false, false>().key);
static_assert(gemm_program_text<Local16, float, false, false>().key ==
              gemm_program_text<Local16, float, false, false>().key);
static_assert(gemm_program_text<Kernel6, float, true, false>().key ==
              gemm_program_text<Kernel6, float, false, true>().key);
static_assert(fnv1a("") == 14695981039346656037ULL && fnv1a("a") == 0xaf63dc4c8601ec8cULL);  // published FNV-1a vectors

}  // namespace

TEST_CASE("TileConfig names describe the configuration", "[kernel_text]") {
  CHECK(tilegemm::RegisterBlocking<64, 64, 16, 4, 4>::name() == "register_blocking 64x64x16 4x4");
  CHECK(tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>::name() == "register_blocking 64x64x16 4x4 v4");
  CHECK(tilegemm::Naive<8, 4>::name() == "naive 8x4x1 1x1");
}

TEST_CASE("the preamble is one #define per parameter, in a fixed order", "[kernel_text]") {
  constexpr auto text = gemm_program_text<tilegemm::RegisterBlocking<64, 64, 16, 4, 4>, float, false, true>();
  CHECK(std::string(text.preamble) ==
        "#define real float\n#define realV real\n#define STOREV(value, pointer) (*(pointer) = (value))\n"
        "#define TSM 64\n#define TSN 64\n#define TSK 16\n#define WPTM 4\n#define WPTN 4\n#define VW 1\n"
        "#define THREADS_M 16\n#define THREADS_N 16\n#define THREADS 256\n#define LOADS_A 4\n#define LOADS_B 4\n"
        "#define TRANS_A 0\n#define TRANS_B 0\n#define A_K_CONTIGUOUS 0\n#define B_K_CONTIGUOUS 0\n#define EDGES 0\n"
        "#define SPLIT_K 0\n#define STRIPS 0\n");
}
