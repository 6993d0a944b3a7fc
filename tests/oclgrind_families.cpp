// oclgrind_families: small odd products of every portable family on cl::Buffers, to run under oclgrind --data-races.
// Run by tests/oclgrind_run.sh (ctest -L oclgrind, in CI's .ci/run): oclgrind's device is then the only one,
// and any line in LOG is a diagnostic (a race, an out-of-bounds access), which CI fails on. The program also checks
// every product against a double-precision reference and exits 1 on a wrong one. The NVIDIA-only families
// (tensor_cores, warpgroup_mma, bulk_tensor_cores) do not run on oclgrind's device and are left out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <tilegemm/core.hpp>
#include <type_traits>
#include <vector>

namespace {

using tilegemm::Transpose;

// One product: sizes, transposes, and the padding of each operand (offset and extra rows of its leading dimension).
struct Case {
  long long m, n, k;
  Transpose ta, tb;
  long long offset, pad;
};

// Transposes, offsets, ld > rows, K = 0, a long K (split-K's slices), a single element.
const std::vector<Case> cases = {
    {13, 11, 7, Transpose::no, Transpose::no, 3, 2}, {9, 14, 5, Transpose::yes, Transpose::no, 0, 1},
    {10, 7, 6, Transpose::no, Transpose::yes, 5, 0}, {7, 9, 11, Transpose::yes, Transpose::yes, 1, 3},
    {5, 6, 0, Transpose::no, Transpose::no, 2, 1},   {6, 5, 130, Transpose::no, Transpose::no, 0, 0},
    {1, 1, 1, Transpose::no, Transpose::no, 0, 0},
};

template <class Scalar>
cl::Buffer buffer_of(const cl::Context& context, std::vector<Scalar>& host) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(Scalar), host.data(),
                    &status);
  if (status != CL_SUCCESS) throw std::runtime_error("creating a buffer failed: " + std::to_string(status));
  return buffer;
}

// Runs one case with Config; "" when C is right (and everything around its block untouched), else what is wrong.
template <class Scalar, class Config>
std::string run_case(const cl::CommandQueue& queue, const Case& c, std::mt19937& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const long long a_rows = c.ta == Transpose::no ? c.m : c.k, a_cols = c.ta == Transpose::no ? c.k : c.m;
  const long long b_rows = c.tb == Transpose::no ? c.k : c.n, b_cols = c.tb == Transpose::no ? c.n : c.k;
  const long long lda = a_rows + c.pad, ldb = b_rows + c.pad, ldc = c.m + c.pad;
  const auto filled = [&](long long count) {
    std::vector<Scalar> v(static_cast<std::size_t>(count));
    for (Scalar& x : v) x = static_cast<Scalar>(uniform(random));
    return v;
  };
  std::vector<Scalar> a = filled(c.offset + lda * a_cols + 1), b = filled(c.offset + ldb * b_cols + 1);
  std::vector<Scalar> c_host = filled(c.offset + ldc * c.n + 1);
  const std::vector<Scalar> c_before = c_host;
  const double alpha = 1.5, beta = -0.5;
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Buffer a_buffer = buffer_of(context, a), b_buffer = buffer_of(context, b);
  const cl::Buffer c_buffer = buffer_of(context, c_host);
  tilegemm::gemm<Scalar, Config>(queue, c.ta, c.tb, c.m, c.n, c.k, alpha, a_buffer, c.offset, lda, b_buffer, c.offset,
                                 ldb, beta, c_buffer, c.offset, ldc)
      .wait();
  queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, c_host.size() * sizeof(Scalar), c_host.data());
  const auto at = [](const std::vector<Scalar>& v, long long offset, long long ld, long long i, long long j) {
    return static_cast<double>(v[static_cast<std::size_t>(offset + i + j * ld)]);
  };
  const double tolerance = (std::is_same<Scalar, float>::value ? 1e-5 : 1e-12) * static_cast<double>(c.k + 2);
  for (long long j = 0; j < c.n; ++j) {
    for (long long i = 0; i < c.m; ++i) {
      double sum = 0;
      for (long long p = 0; p < c.k; ++p) {
        const double x = c.ta == Transpose::no ? at(a, c.offset, lda, i, p) : at(a, c.offset, lda, p, i);
        const double y = c.tb == Transpose::no ? at(b, c.offset, ldb, p, j) : at(b, c.offset, ldb, j, p);
        sum += x * y;
      }
      const double expected = alpha * sum + beta * at(c_before, c.offset, ldc, i, j);
      if (!(std::abs(at(c_host, c.offset, ldc, i, j) - expected) <= tolerance)) {
        return "C(" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
               std::to_string(at(c_host, c.offset, ldc, i, j)) + ", expected " + std::to_string(expected);
      }
    }
  }
  for (std::size_t e = 0; e < c_host.size(); ++e) {
    const long long rel = static_cast<long long>(e) - c.offset;
    const bool in_block = rel >= 0 && rel % ldc < c.m && rel / ldc < c.n;
    if (!in_block && c_host[e] != c_before[e]) return "an element outside C's block changed: " + std::to_string(e);
  }
  return "";
}

template <class Scalar, class Config>
int run_family(const cl::CommandQueue& queue, const char* name, std::mt19937& random) {
  int failures = 0;
  for (const Case& c : cases) {
    const std::string wrong = run_case<Scalar, Config>(queue, c, random);
    std::printf("%-40s %s %lldx%lldx%lld %s%s: %s\n", name, std::is_same<Scalar, float>::value ? "float " : "double",
                c.m, c.n, c.k, c.ta == Transpose::yes ? "T" : "N", c.tb == Transpose::yes ? "T" : "N",
                wrong.empty() ? "ok" : wrong.c_str());
    failures += !wrong.empty();
  }
  return failures;
}

// The 16 bits of `value` rounded to nearest even: bfloat16's, or half's for a value in half's normal range (this file
// is built without Eigen; tests/test_sixteen_bit.cpp checks the kernel's rounding of every kind of float against
// Eigen's).
std::uint16_t rounded_bits(float value, bool half) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if (!half) return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  const std::uint32_t rebiased = (bits & 0x7fffffffu) - (112u << 23);  // exponent bias 127 -> 15
  return static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) | ((rebiased + 0xfffu + ((rebiased >> 13) & 1u)) >> 13));
}

// The 16-bit wgmma path's pack kernel (portable, unlike the product): A (70 x 65, contiguous along its rows, runs not
// aligned) and B (130 x 65 in two problems, contiguous along k, runs aligned) in one launch, which zeroes 300 counters
// too; 16-bit elements, or float ones rounded to half or bfloat16 as `from` says. "" when every element of each
// operand appears once in its packed copy (as the host rounds it) and the rest of the copy is zero
// (tests/test_sixteen_bit.cpp checks each element's place), else what is wrong.
std::string run_pack16(const cl::CommandQueue& queue, std::mt19937& random, tilegemm::detail::PackFrom from) {
  namespace detail = tilegemm::detail;
  using detail::PackFrom;
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const detail::CallContext call = detail::CallContext::of(queue);
  const int depth = detail::warpgroup16_depth, inner = 65;
  struct Operand {
    int outer, ld, offset, stride, problems, tile_outer;
    bool outer_contiguous;
    std::vector<std::uint16_t> src, packed;  // src: the 16-bit elements, or the float ones' roundings
    std::vector<float> floats;
  };
  Operand a{70, 71, 3, 0, 1, 128, true, {}, {}, {}}, b{130, 68, 4, 68 * 130 + 4, 2, 256, false, {}, {}, {}};
  std::vector<cl::Buffer> buffers;
  std::vector<detail::PackedOperand> operands;
  const long long inner_padded = (inner + depth - 1) / depth * depth;
  for (Operand* x : {&a, &b}) {
    const int cols = x->outer_contiguous ? inner : x->outer;
    x->src.resize(static_cast<std::size_t>(x->offset + x->stride * (x->problems - 1) + x->ld * cols + 2));
    if (from == PackFrom::sixteen_bit) {
      for (std::uint16_t& v : x->src) v = static_cast<std::uint16_t>(random() | 1u);  // never zero
      buffers.push_back(buffer_of(context, x->src));
    } else {
      std::uniform_real_distribution<float> magnitude(0.5f, 2.0f);  // never rounding to zero
      for (std::size_t e = 0; e < x->src.size(); ++e) {
        const float value = random() % 2 ? magnitude(random) : -magnitude(random);
        x->floats.push_back(value);
        x->src[e] = rounded_bits(value, from == PackFrom::float_to_half);
      }
      buffers.push_back(buffer_of(context, x->floats));
    }
    const long long outer_padded = (x->outer + x->tile_outer - 1) / x->tile_outer * x->tile_outer;
    x->packed.assign(static_cast<std::size_t>(outer_padded * inner_padded * x->problems), 0xbeef);
    buffers.push_back(buffer_of(context, x->packed));
    operands.push_back({buffers[buffers.size() - 2], detail::Storage{x->offset, x->ld, x->stride}, x->outer, inner,
                        x->outer_contiguous, x->tile_outer, outer_padded, x->problems, buffers.back()});
  }
  // The launch also zeroes the product's counters of split tiles: 300 here, more than a work-group's work-items.
  std::vector<std::uint32_t> counters(300, 0xdeadbeefu);
  const cl::Buffer device_counters = buffer_of(context, counters);
  std::vector<cl::Event> packed;
  detail::pack16(call, operands[0], operands[1], inner_padded, {}, packed, {&device_counters, 300}, from);
  queue.finish();
  queue.enqueueReadBuffer(device_counters, CL_TRUE, 0, counters.size() * 4, counters.data());
  for (const std::uint32_t counter : counters) {
    if (counter != 0) return "a counter of split tiles was not zeroed";
  }
  for (std::size_t n = 0; n < 2; ++n) {
    Operand& x = n == 0 ? a : b;
    queue.enqueueReadBuffer(buffers[2 * n + 1], CL_TRUE, 0, x.packed.size() * 2, x.packed.data());
    const std::size_t per_problem = x.packed.size() / static_cast<std::size_t>(x.problems);
    for (int q = 0; q < x.problems; ++q) {
      std::vector<std::uint16_t> inside, packed;
      for (int o = 0; o < x.outer; ++o) {
        for (int i = 0; i < inner; ++i) {
          const int at = x.offset + q * x.stride + (x.outer_contiguous ? o + i * x.ld : i + o * x.ld);
          inside.push_back(x.src[static_cast<std::size_t>(at)]);
        }
      }
      for (std::size_t e = q * per_problem; e < (q + 1) * per_problem; ++e) {
        if (x.packed[e] != 0) packed.push_back(x.packed[e]);
      }
      std::sort(inside.begin(), inside.end());
      std::sort(packed.begin(), packed.end());
      if (inside != packed) return std::string(n == 0 ? "A" : "B") + "'s packed copy does not hold its elements once";
    }
  }
  return "";
}

}  // namespace

int main() try {
  std::mt19937 random(26);
  const cl::CommandQueue queue = tilegemm::default_queue();
  std::printf("device: %s\n", queue.getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_NAME>().c_str());
  int failures = 0;
  failures += run_family<float, tilegemm::Naive<8, 8>>(queue, "naive 8x8", random);
  failures += run_family<float, tilegemm::LocalTiles<8>>(queue, "local_tiles 8x8x8", random);
  failures += run_family<float, tilegemm::MoreWorkPerThread<16, 4>>(queue, "local_tiles 16x16x16_1x4", random);
  failures += run_family<float, tilegemm::WideTypes<16, 4>>(queue, "wide_types 16x16x16_4x1 v4", random);
  failures +=
      run_family<float, tilegemm::RegisterBlocking<32, 64, 8, 2, 8>>(queue, "register_blocking 32x64x8_2x8", random);
  failures += run_family<float, tilegemm::VectorLoads<32, 32, 16, 2, 2, 2>>(queue, "register_blocking v2", random);
  failures += run_family<float, tilegemm::Prefetch<32, 32, 8, 2, 2, 1>>(queue, "prefetch 32x32x8_2x2", random);
  failures += run_family<float, tilegemm::SplitK<32, 32, 16, 2, 2, 2>>(queue, "split_k 32x32x16_2x2 v2", random);
  failures += run_family<double, tilegemm::Prefetch<32, 32, 8, 2, 2, 1>>(queue, "prefetch 32x32x8_2x2", random);
  failures += run_family<double, tilegemm::AutoConfig>(queue, "AutoConfig", random);
  using tilegemm::detail::PackFrom;
  for (const auto& [from, name] :
       {std::pair{PackFrom::sixteen_bit, "16-bit pack (A and B in one launch)"},
        std::pair{PackFrom::float_to_half, "16-bit pack of float rounded to half"},
        std::pair{PackFrom::float_to_bfloat16, "16-bit pack of float rounded to bfloat16"}}) {
    const std::string pack = run_pack16(queue, random, from);
    std::printf("%-40s %s\n", name, pack.empty() ? "ok" : pack.c_str());
    failures += !pack.empty();
  }
  std::printf("%d wrong products\n", failures);
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "oclgrind_families: %s\n", e.what());
  return EXIT_FAILURE;
}
