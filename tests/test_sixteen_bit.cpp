// test_sixteen_bit: products of 16-bit A and B (Eigen::half, Eigen::bfloat16) into a 16-bit or float C on cl::Buffers,
// in strided batches and from host pointers, against a double reference of the rounded inputs; the conversion
// kernels' rounding bit for bit; the argument checks.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "uploaded.hpp"

using tilegemm::Transpose;
using tilegemm_test::generator;
using tilegemm_test::test_queue;

namespace {

using Half = Eigen::half;
using BFloat = Eigen::bfloat16;

template <class T>
double to_double(T x) {
  return static_cast<double>(static_cast<float>(x));
}

template <class T>
std::uint32_t bits_of(T x) {
  if constexpr (sizeof(T) == 2) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, &x, 2);
    return bits;
  } else {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, 4);
    return bits;
  }
}

// The same value bit for bit, or NaN both.
template <class T>
bool same_value(T x, T y) {
  return bits_of(x) == bits_of(y) || (std::isnan(to_double(x)) && std::isnan(to_double(y)));
}

// The unit roundoff of storing a result in Out: 2^-11 half, 2^-8 bfloat16, 0 float.
template <class Out>
double output_rounding() {
  if constexpr (std::is_same_v<Out, Half>) return std::ldexp(1.0, -11);
  if constexpr (std::is_same_v<Out, BFloat>) return std::ldexp(1.0, -8);
  return 0;
}
// The spacing of Out's subnormals (what rounding near zero may lose, whatever the relative bound says).
template <class Out>
double smallest_step() {
  if constexpr (std::is_same_v<Out, Half>) return std::ldexp(1.0, -24);
  if constexpr (std::is_same_v<Out, BFloat>) return std::ldexp(1.0, -133);
  return std::ldexp(1.0, -149);
}

template <class T>
constexpr T sentinel() {
  return T(-99.0f);
}

// A rows x cols column-major matrix at `offset` in a vector of `ld`-spaced columns, sentinels around it (and after
// it, `tail` elements): what the device or host form must not write outside.
template <class T>
struct Stored {
  long long rows, cols, ld, offset;
  std::vector<T> data;
  Stored(long long rows_, long long cols_, long long pad, long long offset_ = 3, long long tail = 5)
      : rows(rows_),
        cols(cols_),
        ld(rows_ + pad),
        offset(offset_),
        data(static_cast<std::size_t>(offset_ + ld * cols_ + tail), sentinel<T>()) {}
  T& at(long long i, long long j) { return data[static_cast<std::size_t>(offset + i + j * ld)]; }
  bool inside(std::size_t index) const {
    const long long e = static_cast<long long>(index) - offset;
    return e >= 0 && e % ld < rows && e / ld < cols;
  }
  std::string outside_untouched() const {
    for (std::size_t i = 0; i < data.size(); ++i) {
      if (!inside(i) && bits_of(data[i]) != bits_of(sentinel<T>()))
        return "element " + std::to_string(i) + " outside the matrix was overwritten";
    }
    return "";
  }
};

template <class T>
cl::Buffer buffer_of(const cl::CommandQueue& queue, const std::vector<T>& host) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                    sizeof(T) * std::max<std::size_t>(host.size(), 1), nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  if (!host.empty()) REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, sizeof(T) * host.size(), host.data()) == 0);
  return buffer;
}
template <class T>
void read_back(const cl::CommandQueue& queue, const cl::Buffer& buffer, std::vector<T>& host) {
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(T) * host.size(), host.data()) == 0);
}

template <class T>
void fill_random(Stored<T>& s, double low = -1, double high = 1) {
  std::uniform_real_distribution<double> uniform(low, high);
  for (long long j = 0; j < s.cols; ++j)
    for (long long i = 0; i < s.rows; ++i) s.at(i, j) = T(static_cast<float>(uniform(generator())));
}

float random_factor() {
  std::uniform_real_distribution<float> uniform(0.25f, 2.0f);
  return std::bernoulli_distribution(0.5)(generator()) ? uniform(generator()) : -uniform(generator());
}

// "" when C (m x n, from the stored A and B as the call saw them, c0 its values before) is within
// (K 2^-23 + u_out) (|alpha| sum_k |A(i,k)||B(k,j)| + |beta| |C0(i,j)|) of the double reference, else the first
// element that is not.
template <class In, class Out>
std::string compare(Stored<In>& a, bool ta, Stored<In>& b, bool tb, Stored<Out>& c, const std::vector<Out>& c0,
                    long long m, long long n, long long k, float alpha, float beta) {
  const double u = output_rounding<Out>(), unit = std::ldexp(1.0, -23);
  for (long long j = 0; j < n; ++j) {
    for (long long i = 0; i < m; ++i) {
      double sum = 0, magnitude = 0;
      for (long long p = 0; p < k; ++p) {
        const double x = to_double(ta ? a.at(p, i) : a.at(i, p)), y = to_double(tb ? b.at(j, p) : b.at(p, j));
        sum += x * y;
        magnitude += std::abs(x * y);
      }
      double expected = static_cast<double>(alpha) * sum;
      double bound = std::abs(static_cast<double>(alpha)) * magnitude;
      if (beta != 0) {
        const double old = to_double(c0[static_cast<std::size_t>(c.offset + i + j * c.ld)]);
        expected += static_cast<double>(beta) * old;
        bound += std::abs(static_cast<double>(beta) * old);
      }
      const double got = to_double(c.at(i, j));
      const double allowed = (static_cast<double>(k + 2) * unit + u) * bound + smallest_step<Out>();
      if (!(std::abs(got - expected) <= allowed)) {
        std::ostringstream out;
        out << "C(" << i << ", " << j << ") of " << m << "x" << n << " (k " << k << ") is " << got << ", expected "
            << expected << " within " << allowed;
        return out.str();
      }
    }
  }
  return c.outside_untouched();
}

// C = alpha op(A) op(B) + beta C through gemm<In, Out> on buffers, fresh data, C poisoned (NaN) where beta is zero,
// every operand at an offset with ld > rows amid sentinels; with `aligned_c`, C's offset and ld multiples of 8 (the
// wgmma path's 16-byte runs of C).
template <class In, class Out>
void check_buffer_product(bool ta, bool tb, long long m, long long n, long long k, bool beta_zero,
                          bool aligned_c = false) {
  const cl::CommandQueue queue = test_queue();
  INFO((std::is_same_v<In, Half> ? "half" : "bfloat16")
       << " -> " << (std::is_same_v<Out, float> ? "float" : "16-bit") << ", op(A) " << m << "x" << k
       << (ta ? " (A^T)" : "") << ", op(B) " << k << "x" << n << (tb ? " (B^T)" : "") << ", beta "
       << (beta_zero ? "0" : "random"));
  Stored<In> a(ta ? k : m, ta ? m : k, 2), b(tb ? n : k, tb ? k : n, 1, 5);
  Stored<Out> c(m, n, aligned_c ? 8 + (8 - m % 8) % 8 : 3, aligned_c ? 8 : 2);
  fill_random(a);
  fill_random(b);
  fill_random(c);
  const float alpha = random_factor(), beta = beta_zero ? 0.0f : random_factor();
  if (beta_zero) {
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < m; ++i) c.at(i, j) = Out(std::numeric_limits<float>::quiet_NaN());
  }
  const std::vector<Out> c0 = c.data;
  const cl::Buffer da = buffer_of(queue, a.data), db = buffer_of(queue, b.data), dc = buffer_of(queue, c.data);
  tilegemm::gemm<In, Out>(queue, ta ? Transpose::yes : Transpose::no, tb ? Transpose::yes : Transpose::no, m, n, k,
                          alpha, da, a.offset, a.ld, db, b.offset, b.ld, beta, dc, c.offset, c.ld)
      .wait();
  read_back(queue, dc, c.data);
  const std::vector<In> a_after = a.data, b_after = b.data;
  read_back(queue, da, a.data);
  read_back(queue, db, b.data);
  for (std::size_t i = 0; i < a.data.size(); ++i) REQUIRE(same_value(a.data[i], a_after[i]));
  for (std::size_t i = 0; i < b.data.size(); ++i) REQUIRE(same_value(b.data[i], b_after[i]));
  const std::string failure = compare(a, ta, b, tb, c, c0, m, n, k, alpha, beta);
  INFO(failure);
  CHECK(failure.empty());
}

template <class In, class Out>
void sample_products() {
  // Each transpose once, sizes and K from the lists (the slow tier runs all of them).
  check_buffer_product<In, Out>(false, false, 61, 7, 1000, true);
  check_buffer_product<In, Out>(true, false, 7, 129, 1, false);
  check_buffer_product<In, Out>(false, true, 1, 61, 4097, false);
  check_buffer_product<In, Out>(true, true, 129, 1, 1000, true);
  check_buffer_product<In, Out>(false, false, 136, 40, 300, false, true);
  check_buffer_product<In, Out>(true, true, 261, 33, 77, true, true);
}

TEST_CASE("16-bit products on buffers are within the bound of FP32 accumulation") {
  SECTION("half -> half") { sample_products<Half, Half>(); }
  SECTION("half -> float") { sample_products<Half, float>(); }
  SECTION("bfloat16 -> bfloat16") { sample_products<BFloat, BFloat>(); }
  SECTION("bfloat16 -> float") { sample_products<BFloat, float>(); }
}

template <class In, class Out>
void all_products() {
  const long long depths[] = {1, 1000, 4097};
  // Each size as M and N together and against the list's other end (1 x 257, 7 x 129, ...): every size in both
  // places, without the 25 pairs' CI time.
  const std::pair<long long, long long> shapes[] = {{1, 1},   {7, 7},   {61, 61}, {129, 129}, {257, 257},
                                                    {1, 257}, {257, 1}, {7, 129}, {129, 7}};
  int index = 0;
  for (int t = 0; t < 4; ++t)
    for (const auto& [m, n] : shapes)
      for (long long k : depths) check_buffer_product<In, Out>(t & 1, t & 2, m, n, k, (index++ % 2) == 0);
}

TEST_CASE("16-bit products: every input, output, transpose, size and K of the issue", "[slow]") {
  SECTION("half -> half") { all_products<Half, Half>(); }
  SECTION("half -> float") { all_products<Half, float>(); }
  SECTION("bfloat16 -> bfloat16") { all_products<BFloat, BFloat>(); }
  SECTION("bfloat16 -> float") { all_products<BFloat, float>(); }
}

// On the wgmma path (9.0): 13 x 7 tiles 128 x 256, whose last column of tiles holds 6 columns of C (multiplied 64 wide)
// and last row 24 rows (one warpgroup's); elsewhere a product as any other.
TEST_CASE("16-bit products past a round of tiles 256 wide, whose edge tiles hold few rows and columns", "[slow]") {
  check_buffer_product<Half, Half>(false, true, 1560, 1542, 130, false);
  check_buffer_product<BFloat, float>(true, false, 1560, 1542, 130, true, true);
}

// Values at the edges of each type (as floats): zeros, the largest finite, subnormals, infinities, NaN.
template <class In>
std::vector<float> edge_values() {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  if constexpr (std::is_same_v<In, Half>) {
    return {0.0f,
            -0.0f,
            1.0f,
            -1.5f,
            65504.0f,
            -65504.0f,
            std::ldexp(1.0f, -24),
            -std::ldexp(3.0f, -24),
            std::ldexp(1.0f, -14),
            std::ldexp(1023.0f, -24),
            inf,
            -inf,
            nan,
            -nan};
  } else {
    return {0.0f,
            -0.0f,
            1.0f,
            -1.5f,
            std::ldexp(255.0f, 120),
            -std::ldexp(255.0f, 120),
            std::ldexp(1.0f, -133),
            -std::ldexp(3.0f, -133),
            std::ldexp(1.0f, -126),
            65504.0f,
            inf,
            -inf,
            nan,
            -nan};
  }
}

// op(A) op(B) with K = 1 and B = [1]: every value of A comes through the widening, the float product and (for a
// 16-bit C) the narrowing unchanged, as a float product would carry it.
template <class In, class Out>
void check_edges_propagate() {
  const cl::CommandQueue queue = test_queue();
  const std::vector<float> values = edge_values<In>();
  const long long m = static_cast<long long>(values.size());
  std::vector<In> a(values.size()), one{In(1.0f)};
  for (std::size_t i = 0; i < values.size(); ++i) a[i] = In(values[i]);
  std::vector<Out> c(values.size(), Out(std::numeric_limits<float>::quiet_NaN()));
  const cl::Buffer da = buffer_of(queue, a), db = buffer_of(queue, one), dc = buffer_of(queue, c);
  tilegemm::gemm<In, Out>(queue, Transpose::no, Transpose::no, m, 1, 1, 1.0f, da, 0, m, db, 0, 1, 0.0f, dc, 0, m)
      .wait();
  read_back(queue, dc, c);
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO("value " << values[i] << " came back as " << to_double(c[i]));
    if (values[i] == 0) {
      CHECK(to_double(c[i]) == 0);  // -0 comes back +0, as from the float product (0 + -0 * 1)
    } else {
      CHECK(same_value(c[i], Out(static_cast<float>(a[i]))));
    }
  }
}

TEST_CASE("16-bit products: subnormals, the largest values, infinities and NaN propagate as in float") {
  check_edges_propagate<Half, Half>();
  check_edges_propagate<Half, float>();
  check_edges_propagate<BFloat, BFloat>();
  check_edges_propagate<BFloat, float>();
}

// The narrowing kernel alone on floats: R rounded to Out bit for bit as the host rounds (Eigen's conversions round to
// nearest even), NaN as NaN.
template <class Out>
void check_narrowing() {
  namespace detail = tilegemm::detail;
  const cl::CommandQueue queue = test_queue();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> r = {0.0f,
                          -0.0f,
                          1.0f,
                          65504.0f,
                          65519.99f,  // below half's midpoint to infinity: 65504
                          65520.0f,   // half's midpoint to infinity: infinity
                          -65520.0f,
                          1e10f,
                          std::numeric_limits<float>::max(),  // beyond bfloat16's largest: infinity
                          std::ldexp(255.5f, 120),            // bfloat16's midpoint to infinity
                          inf,
                          -inf,
                          nan,
                          -nan,
                          std::ldexp(1.0f, -24),  // half's smallest subnormal
                          std::ldexp(1.0f, -25),  // tie: to zero (even)
                          std::ldexp(3.0f, -25),  // tie: up to 2^-23 (even)
                          std::ldexp(1.0f, -26),
                          std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25),  // rounds up to half's smallest normal
                          1.0f + std::ldexp(1.0f, -11),                   // half tie: to 1
                          1.0f + std::ldexp(3.0f, -11),                   // half tie: up
                          1.0f + std::ldexp(1.0f, -8),                    // bfloat16 tie: to 1
                          1.0f + std::ldexp(3.0f, -8),                    // bfloat16 tie: up
                          1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20),
                          std::ldexp(1.0f, -130),  // float subnormals: bfloat16 keeps them
                          std::ldexp(3.0f, -149),
                          -std::ldexp(1.0f, -149)};
  std::mt19937& random = generator();
  for (int i = 0; i < 4000; ++i) {  // random bit patterns, NaN included
    const std::uint32_t bits = random();
    float x = 0;
    std::memcpy(&x, &bits, 4);
    r.push_back(x);
  }
  for (int i = 0; i < 4000; ++i) r.push_back(std::uniform_real_distribution<float>(-70000.0f, 70000.0f)(random));
  const int count = static_cast<int>(r.size());
  std::vector<Out> c(r.size() + 2, sentinel<Out>());
  const cl::Buffer dr = buffer_of(queue, r), dc = buffer_of(queue, c);
  const detail::CallContext call = detail::CallContext::of(queue);
  detail::SixteenBitProblem x;
  x.element = detail::SixteenBitTraits<Out>::element;
  x.output = detail::SixteenBitOutput::same;
  x.problem.shape.m = count;
  x.problem.shape.n = 1;
  x.problem.shape.k = 1;
  x.problem.shape.c = {1, count, 0};
  x.problem.beta = detail::ScalarValue{0, false};
  x.problem.c = dc;
  detail::narrow(call, x, detail::support_tile_for(call.limits), dr, {}).wait();
  read_back(queue, dc, c);
  CHECK(bits_of(c.front()) == bits_of(sentinel<Out>()));
  CHECK(bits_of(c.back()) == bits_of(sentinel<Out>()));
  for (int i = 0; i < count; ++i) {
    const Out expected = Out(r[static_cast<std::size_t>(i)]);
    INFO("float " << r[static_cast<std::size_t>(i)] << " (bits " << bits_of(r[static_cast<std::size_t>(i)])
                  << ") rounded to " << bits_of(c[static_cast<std::size_t>(i) + 1]) << ", the host to "
                  << bits_of(expected));
    REQUIRE(same_value(c[static_cast<std::size_t>(i) + 1], expected));
  }
}

TEST_CASE("the narrowing kernel rounds to nearest even bit for bit, keeping NaN, infinities and subnormals") {
  SECTION("half") { check_narrowing<Half>(); }
  SECTION("bfloat16") { check_narrowing<BFloat>(); }
}

// The wgmma path's pack kernel (portable, so run here on any device): every element of the packed copies against the
// layout written out again on the host (kernels/sixteen_bit_warpgroup.hpp), zero padding, both orientations, runs
// read whole and element by element (offsets and ld not multiples of 4), batches with strides and with stride 0; two
// operands of one k in one launch (A and B), and one alone; 16-bit elements copied bit for bit, and float ones (the
// bf16 and fp16 math modes) rounded to nearest even as the host's Eigen::bfloat16 and Eigen::half round them.
namespace pack_test {

using tilegemm::detail::PackFrom;

// A float of random bits, finite (ties, subnormals and values past half's range among them).
float random_finite_float() {
  std::uint32_t bits = static_cast<std::uint32_t>(generator()());
  if ((bits & 0x7f800000u) == 0x7f800000u) bits &= 0xbfffffffu;  // an exponent of all ones: take one bit off it
  if (bits % 4 == 0) bits &= 0xffff0000u | 0x8000u;              // a quarter of them ties of bfloat16's rounding
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

struct Case {
  int outer, tile_outer, offset, ld_extra, problems;
  bool outer_contiguous, shared;
};

// An operand of a Case with `inner` elements of k, on the host and the device, and its poisoned packed copy.
struct Operand {
  Case t;
  int inner, ld, stride, problems;
  long long outer_padded, inner_padded;
  PackFrom from;
  std::vector<std::uint16_t> src, dst;  // src: the 16-bit elements, or the float ones' roundings (from float)
  std::vector<float> float_src;
  cl::Buffer device_src, device_dst;

  Operand(const cl::CommandQueue& queue, const Case& c, int inner_, int depth, PackFrom from_ = PackFrom::sixteen_bit)
      : t(c), inner(inner_), from(from_) {
    const int rows = t.outer_contiguous ? t.outer : inner, cols = t.outer_contiguous ? inner : t.outer;
    ld = rows + t.ld_extra;
    stride = t.shared ? 0 : ld * cols + (t.offset % 4 == 0 ? 4 : 5);  // aligned runs where offset and ld are
    problems = t.shared ? 1 : t.problems;  // the packed copies: one where every problem reads the same
    src.resize(static_cast<std::size_t>(t.offset + stride * (t.problems - 1) + ld * cols + 3));
    if (from == PackFrom::sixteen_bit) {
      for (auto& v : src) v = static_cast<std::uint16_t>(generator()() | 1u);  // never zero: zeros hide misplacement
      device_src = buffer_of(queue, src);
    } else {
      float_src.resize(src.size());
      for (std::size_t i = 0; i < src.size(); ++i) {
        do {  // never rounding to zero, which would hide misplacement
          float_src[i] = random_finite_float();
          src[i] = static_cast<std::uint16_t>(from == PackFrom::float_to_half ? bits_of(Half(float_src[i]))
                                                                              : bits_of(BFloat(float_src[i])));
        } while ((src[i] & 0x7fffu) == 0);
      }
      device_src = buffer_of(queue, float_src);
    }
    outer_padded = (t.outer + t.tile_outer - 1) / t.tile_outer * t.tile_outer;
    inner_padded = (inner + depth - 1) / depth * depth;
    dst.assign(per_problem() * static_cast<std::size_t>(problems) + 8, 0xbeef);
    device_dst = buffer_of(queue, dst);
  }
  std::size_t per_problem() const { return static_cast<std::size_t>(outer_padded * inner_padded); }
  tilegemm::detail::PackedOperand packed() const {
    return {device_src,
            tilegemm::detail::Storage{t.offset, ld, stride},
            t.outer,
            inner,
            t.outer_contiguous,
            t.tile_outer,
            outer_padded,
            problems,
            device_dst};
  }
  // The first element packed wrongly, or "".
  std::string check(const cl::CommandQueue& queue, int depth) {
    read_back(queue, device_dst, dst);
    const long long slices = inner_padded / depth;
    for (int q = 0; q < problems; ++q) {
      for (long long o = 0; o < outer_padded; ++o) {
        for (long long i = 0; i < inner_padded; ++i) {
          const long long row = o % t.tile_outer, k = i % depth;
          const long long at = q * static_cast<long long>(per_problem()) +
                               ((o / t.tile_outer) * slices + i / depth) * t.tile_outer * depth + row / 8 * 8 * depth +
                               k / 8 * 64 + row % 8 * 8 + k % 8;
          const long long from = t.offset + q * stride + (t.outer_contiguous ? o + i * ld : i + o * ld);
          const std::uint16_t expected = o < t.outer && i < inner ? src[static_cast<std::size_t>(from)] : 0;
          if (dst[static_cast<std::size_t>(at)] != expected) {
            return "outer " + std::to_string(t.outer) + ", inner " + std::to_string(inner) + ", problem " +
                   std::to_string(q) + ": element (" + std::to_string(o) + ", " + std::to_string(i) + ") packed as " +
                   std::to_string(dst[static_cast<std::size_t>(at)]) + ", expected " + std::to_string(expected);
          }
        }
      }
    }
    for (std::size_t i = per_problem() * static_cast<std::size_t>(problems); i < dst.size(); ++i) {
      if (dst[i] != 0xbeef) return "element " + std::to_string(i) + " past the packed copy was overwritten";
    }
    return "";
  }
};

}  // namespace pack_test

TEST_CASE("the 16-bit pack kernel lays operands out as wgmma reads them, zero beyond them") {
  namespace detail = tilegemm::detail;
  using pack_test::Case;
  using pack_test::PackFrom;
  const PackFrom from = GENERATE(PackFrom::sixteen_bit, PackFrom::float_to_half, PackFrom::float_to_bfloat16);
  INFO("reading " << (from == PackFrom::sixteen_bit     ? "16-bit elements"
                      : from == PackFrom::float_to_half ? "float rounded to half"
                                                        : "float rounded to bfloat16"));
  const cl::CommandQueue queue = test_queue();
  const detail::CallContext call = detail::CallContext::of(queue);
  const int depth = detail::warpgroup16_depth;
  struct Pair {
    int inner;
    Case a, b;
    bool alone;  // a only
  };
  for (const Pair& pair : {Pair{1, {1, 128, 0, 0, 1, true, false}, {3, 256, 1, 0, 1, false, false}, false},
                           Pair{70, {130, 128, 3, 1, 1, true, false}, {130, 256, 4, 2, 1, false, false}, false},
                           Pair{200, {7, 128, 1, 2, 3, false, false}, {40, 256, 0, 0, 3, true, true}, false},
                           Pair{65, {300, 128, 8, 0, 2, true, false}, {5, 128, 2, 1, 2, false, false}, false},
                           Pair{129, {61, 128, 0, 3, 3, true, true}, {}, true}}) {
    pack_test::Operand a(queue, pair.a, pair.inner, depth, from);
    // The launch also zeroes the product's counters of split tiles: the first `zeroed` words, none past them.
    const int zeroed = pair.inner % 7 * 100;  // 0 to 600: more words than a work-group has work-items
    std::vector<std::uint32_t> counters(static_cast<std::size_t>(zeroed) + 5, 0xdeadbeefu);
    const cl::Buffer device_counters = buffer_of(queue, counters);
    std::vector<cl::Event> packed;  // none on an in-order queue: finish() waits for the launch
    if (pair.alone) {
      detail::pack16(call, a.packed(), detail::PackedOperand{}, a.inner_padded, {}, packed, {&device_counters, zeroed},
                     from);
      queue.finish();
    } else {
      pack_test::Operand b(queue, pair.b, pair.inner, depth, from);
      detail::pack16(call, a.packed(), b.packed(), a.inner_padded, {}, packed, {&device_counters, zeroed}, from);
      queue.finish();
      const std::string b_failure = b.check(queue, depth);
      INFO("B: " << b_failure);
      CHECK(b_failure.empty());
    }
    const std::string a_failure = a.check(queue, depth);
    INFO("A: " << a_failure);
    CHECK(a_failure.empty());
    read_back(queue, device_counters, counters);
    for (std::size_t i = 0; i < counters.size(); ++i) {
      INFO("counter " << i << " of " << zeroed << " to zero");
      CHECK(counters[i] == (static_cast<int>(i) < zeroed ? 0u : 0xdeadbeefu));
    }
  }
}

// k = 0 and alpha = 0: C = beta C, rounded once; A and B not read (null buffers); beta = 0 writes zeros over NaN.
template <class In, class Out>
void check_scaling_only() {
  const cl::CommandQueue queue = test_queue();
  for (const bool alpha_zero : {true, false}) {
    for (const float beta : {0.0f, 0.7f}) {
      Stored<Out> c(5, 3, 2);
      fill_random(c);
      if (beta == 0) c.at(1, 1) = Out(std::numeric_limits<float>::quiet_NaN());
      const std::vector<Out> c0 = c.data;
      const cl::Buffer dc = buffer_of(queue, c.data);
      tilegemm::gemm<In, Out>(queue, Transpose::no, Transpose::no, 5, 3, alpha_zero ? 4 : 0, alpha_zero ? 0.0f : 1.0f,
                              cl::Buffer(), 0, 5, cl::Buffer(), 0, 4, beta, dc, c.offset, c.ld)
          .wait();
      read_back(queue, dc, c.data);
      for (long long j = 0; j < 3; ++j) {
        for (long long i = 0; i < 5; ++i) {
          const float old = static_cast<float>(c0[static_cast<std::size_t>(c.offset + i + j * c.ld)]);
          CHECK(same_value(c.at(i, j), Out(beta == 0 ? 0.0f : beta * old)));
        }
      }
      CHECK(c.outside_untouched().empty());
    }
  }
}

TEST_CASE("16-bit products with k = 0 or alpha = 0 scale C and read neither A nor B") {
  check_scaling_only<Half, Half>();
  check_scaling_only<BFloat, float>();
}

// A batch: A shared by every problem (stride 0), B and C strided with gaps between the problems.
template <class In, class Out>
void check_batch(bool ta, bool tb, long long m, long long n, long long k, long long batch) {
  const cl::CommandQueue queue = test_queue();
  INFO("batch of " << batch << ", " << m << "x" << n << "x" << k);
  Stored<In> a(ta ? k : m, ta ? m : k, 1);
  fill_random(a);
  const long long b_rows = tb ? n : k, b_cols = tb ? k : n, b_ld = b_rows + 2, b_stride = b_ld * b_cols + 3;
  const long long c_ld = m + 1, c_stride = c_ld * n + 2;
  std::vector<In> b(static_cast<std::size_t>(b_stride * batch), sentinel<In>());
  std::vector<Out> c(static_cast<std::size_t>(c_stride * batch + 4), sentinel<Out>());
  std::vector<Stored<In>> bs;
  std::vector<Stored<Out>> cs;
  for (long long p = 0; p < batch; ++p) {
    bs.emplace_back(b_rows, b_cols, 2, 0, 0);
    fill_random(bs.back());
    cs.emplace_back(m, n, 1, 0, 0);
    fill_random(cs.back());
    for (long long j = 0; j < b_cols; ++j)
      for (long long i = 0; i < b_rows; ++i)
        b[static_cast<std::size_t>(p * b_stride + i + j * b_ld)] = bs.back().at(i, j);
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < m; ++i) c[static_cast<std::size_t>(p * c_stride + i + j * c_ld)] = cs.back().at(i, j);
  }
  const float alpha = random_factor(), beta = random_factor();
  const cl::Buffer da = buffer_of(queue, a.data), db = buffer_of(queue, b), dc = buffer_of(queue, c);
  tilegemm::gemm_strided_batched<In, Out>(queue, ta ? Transpose::yes : Transpose::no,
                                          tb ? Transpose::yes : Transpose::no, m, n, k, alpha, da, a.offset, a.ld, 0,
                                          db, 0, b_ld, b_stride, beta, dc, 0, c_ld, c_stride, batch)
      .wait();
  const std::vector<Out> before = c;
  read_back(queue, dc, c);
  for (long long p = 0; p < batch; ++p) {
    Stored<Out> got = cs[static_cast<std::size_t>(p)];
    const std::vector<Out> c0 = got.data;
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < m; ++i) got.at(i, j) = c[static_cast<std::size_t>(p * c_stride + i + j * c_ld)];
    const std::string failure = compare(a, ta, bs[static_cast<std::size_t>(p)], tb, got, c0, m, n, k, alpha, beta);
    INFO("problem " << p << ": " << failure);
    CHECK(failure.empty());
    for (long long e = 0; e < c_stride; ++e) {  // the gaps between C's problems
      const long long i = e % c_ld, j = e / c_ld;
      if (i < m && j < n) continue;
      const std::size_t at = static_cast<std::size_t>(p * c_stride + e);
      REQUIRE(bits_of(c[at]) == bits_of(before[at]));
    }
  }
  for (std::size_t at = static_cast<std::size_t>(c_stride * batch); at < c.size(); ++at)
    REQUIRE(bits_of(c[at]) == bits_of(sentinel<Out>()));
}

TEST_CASE("gemm_strided_batched with 16-bit inputs") {
  check_batch<Half, Half>(false, true, 13, 9, 37, 3);
  check_batch<BFloat, float>(true, false, 8, 17, 21, 4);
  check_batch<Half, float>(false, false, 5, 5, 5, 1);
  const cl::CommandQueue queue = test_queue();
  std::vector<Half> c(4, Half(2.0f));
  const cl::Buffer dc = buffer_of(queue, c);
  tilegemm::gemm_strided_batched<Half>(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, cl::Buffer(), 0, 2, 4,
                                       cl::Buffer(), 0, 2, 4, 0.0f, dc, 0, 2, 4, 0)
      .wait();  // no problem: nothing is read or written
  read_back(queue, dc, c);
  for (const Half x : c) CHECK(static_cast<float>(x) == 2.0f);
}

TEST_CASE("16-bit products in larger batches", "[slow]") {
  check_batch<Half, Half>(true, true, 129, 61, 1000, 5);
  check_batch<BFloat, BFloat>(false, false, 257, 7, 4097, 3);
}

// The host-pointer forms, blocking and not: A and B uploaded as 16-bit, C 16-bit or float, ld > rows amid sentinels.
template <class In, class Out>
void check_host_product(bool ta, bool tb, long long m, long long n, long long k, bool async) {
  INFO("host " << (async ? "gemm_async " : "gemm ") << m << "x" << n << "x" << k);
  const cl::CommandQueue queue = test_queue();
  Stored<In> a(ta ? k : m, ta ? m : k, 2), b(tb ? n : k, tb ? k : n, 1);
  Stored<Out> c(m, n, 3);
  fill_random(a);
  fill_random(b);
  fill_random(c);
  const float alpha = random_factor(), beta = async ? 0.0f : random_factor();
  if (beta == 0) c.at(0, 0) = Out(std::numeric_limits<float>::quiet_NaN());
  const std::vector<Out> c0 = c.data;
  const Transpose trans_a = ta ? Transpose::yes : Transpose::no, trans_b = tb ? Transpose::yes : Transpose::no;
  if (async) {
    tilegemm::gemm_async<In, Out>(queue, trans_a, trans_b, m, n, k, alpha, &a.at(0, 0), a.ld, &b.at(0, 0), b.ld, beta,
                                  &c.at(0, 0), c.ld)
        .get();
  } else {
    tilegemm::gemm<In, Out>(queue, trans_a, trans_b, m, n, k, alpha, &a.at(0, 0), a.ld, &b.at(0, 0), b.ld, beta,
                            &c.at(0, 0), c.ld);
  }
  const std::string failure = compare(a, ta, b, tb, c, c0, m, n, k, alpha, beta);
  INFO(failure);
  CHECK(failure.empty());
}

TEST_CASE("the host-pointer forms with 16-bit inputs") {
  check_host_product<Half, Half>(false, false, 33, 17, 100, false);
  check_host_product<BFloat, float>(true, true, 9, 40, 65, false);
  check_host_product<Half, float>(false, true, 20, 3, 7, true);
  check_host_product<BFloat, BFloat>(true, false, 6, 11, 300, true);
  // The inputs' type named once, C's deduced as it.
  const cl::CommandQueue queue = test_queue();
  std::vector<Half> a(4, Half(1.0f)), b(4, Half(2.0f)), c(4, Half(0.0f));
  tilegemm::gemm(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2);
  for (const Half x : c) CHECK(static_cast<float>(x) == 4.0f);
  // k = 0: C = beta C, A and B not read (null).
  tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, 2, 2, 0, 1.0f, nullptr, 2, nullptr, 1, 0.5f, c.data(), 2);
  for (const Half x : c) CHECK(static_cast<float>(x) == 2.0f);
}

// The host forms on the staged path (forced on, as CI's CPU device would not take it): blocks of about 16 x 16 through
// slots of 256 bytes, A and B going up in 16 bits; a 16-bit C is uploaded where beta != 0, a float C folded on the
// host.
template <class In, class Out>
void check_staged_product(bool ta, bool tb, long long m, long long n, long long k, bool async) {
  tilegemm::detail::StagedPathSettings settings;
  settings.from_bytes = 0;
  settings.slot_bytes = 256;
  settings.block_side = 16;
  settings.on_cpu_devices = true;
  const tilegemm::detail::ScopedStagedPath staged(settings);
  tilegemm::detail::last_host_call_profile() = {};
  check_host_product<In, Out>(ta, tb, m, n, k, async);
  if (!async) CHECK(tilegemm::detail::last_host_call_profile().blocks > 1);
}

TEST_CASE("the host-pointer forms with 16-bit inputs on the staged path") {
  check_staged_product<Half, Half>(false, false, 45, 37, 50, false);
  check_staged_product<BFloat, float>(true, true, 33, 20, 70, false);
  check_staged_product<Half, float>(false, true, 40, 17, 9, true);
  check_staged_product<BFloat, BFloat>(true, false, 19, 35, 64, true);
}

TEST_CASE("16-bit products from several threads at once") {
  // One queue, made here: the threads share it (OpenCL's queues take commands from any thread) and the products are
  // what runs at once.
  const cl::CommandQueue queue = test_queue();
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures, &queue] {
      try {
        for (int repeat = 0; repeat < 3; ++repeat) {
          const long long m = 17 + t, n = 9 + repeat, k = 40;
          Stored<Half> a(m, k, 1), b(k, n, 1);
          Stored<Half> c(m, n, 1);
          fill_random(a);
          fill_random(b);
          const std::vector<Half> c0 = c.data;
          tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, m, n, k, 1.0f, &a.at(0, 0), a.ld, &b.at(0, 0), b.ld,
                               0.0f, &c.at(0, 0), c.ld);
          const std::string failure = compare(a, false, b, false, c, c0, m, n, k, 1.0f, 0.0f);
          if (!failure.empty()) failures[static_cast<std::size_t>(t)] = failure;
        }
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) {
    INFO(failure);
    CHECK(failure.empty());
  }
}

TEST_CASE("16-bit products refuse bad arguments, naming what was wrong") {
  const cl::CommandQueue queue = test_queue();
  const std::vector<Half> a(16, Half(1.0f));
  const cl::Buffer buffer = buffer_of(queue, a);  // 16 half elements: 32 bytes
  const auto call = [&](long long m, long long lda) {
    tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, m, 4, 4, 1.0f, buffer, 0, lda, buffer, 0, 4, 0.0f, buffer,
                         0, 4);
  };
  cl::Buffer separate_c = buffer_of(queue, std::vector<float>(16, 0.0f));
  REQUIRE_THROWS_WITH(call(4, 3), CONTAINS_ALL2("tilegemm::gemm", "the leading dimension of A is 3"));
  REQUIRE_THROWS_WITH(call(-1, 4), MESSAGE_CONTAINS("must not be negative"));
  // 16 half elements hold a 4 x 4 A, but 4 x 4 floats need 64 bytes: C counts 4 bytes an element.
  const cl::Buffer small_c = buffer_of(queue, std::vector<Half>(16));
  REQUIRE_THROWS_WITH((tilegemm::gemm<Half, float>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1.0f, buffer, 0, 4,
                                                   buffer, 0, 4, 0.0f, small_c, 0, 4)),
                      CONTAINS_ALL2("buffer C holds 8 elements", "needs 16"));
  REQUIRE_THROWS_WITH(tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1.0f, buffer, 1, 4, buffer, 0,
                                           4, 0.0f, separate_c, 0, 4),
                      CONTAINS_ALL2("buffer A holds 16 elements", "needs 17"));
  // C over A: refused, each operand measured in its own element size (C's half from element 8 on meets A's).
  REQUIRE_THROWS_WITH(tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, buffer, 0, 2, separate_c,
                                           0, 2, 0.0f, buffer, 3, 2),
                      MESSAGE_CONTAINS("C overlaps A in memory"));
  CHECK_NOTHROW(tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, buffer, 0, 2, separate_c, 0, 2,
                                     0.0f, buffer, 4, 2)
                    .wait());
  REQUIRE_THROWS_WITH(
      (tilegemm::gemm_strided_batched<BFloat, float>(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, buffer, 0, 2,
                                                     4, buffer, 0, 2, 4, 0.0f, separate_c, 0, 2, 3, 3)),
      CONTAINS_ALL2("tilegemm::gemm_strided_batched", "the problems of C overlap each other"));
  REQUIRE_THROWS_WITH(tilegemm::gemm_strided_batched<BFloat>(queue, Transpose::no, Transpose::no, 2, 2, 2, 1.0f, buffer,
                                                             0, 2, -1, buffer, 0, 2, 4, 0.0f, separate_c, 0, 2, 4, 2),
                      MESSAGE_CONTAINS("the stride of A must not be negative"));
  // Problems of A one element apart: their float copy, dense, would pass the kernels' 32-bit indices.
  const cl::Buffer long_a = buffer_of(queue, std::vector<Half>(130000)),
                   long_b = buffer_of(queue, std::vector<Half>(100000));
  const cl::Buffer many_c = buffer_of(queue, std::vector<float>(30000));
  REQUIRE_THROWS_WITH(
      (tilegemm::gemm_strided_batched<Half, float>(queue, Transpose::no, Transpose::no, 1, 1, 100000, 1.0f, long_a, 0,
                                                   1, 1, long_b, 0, 100000, 0, 0.0f, many_c, 0, 1, 1, 30000)),
      CONTAINS_ALL2("the float copy of A", "30000 x 1 x 100000"));
  std::vector<Half> c(16);
  REQUIRE_THROWS_WITH(tilegemm::gemm<Half>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1.0f, nullptr, 4, a.data(), 4,
                                           0.0f, c.data(), 4),
                      CONTAINS_ALL2("tilegemm::gemm", "A is a null pointer"));
  REQUIRE_THROWS_WITH((tilegemm::gemm_async<BFloat, float>(queue, Transpose::no, Transpose::no, 4, 4, 0, 1.0f, nullptr,
                                                           4, nullptr, 4, 0.0f, nullptr, 2)
                           .get()),
                      CONTAINS_ALL2("tilegemm::gemm_async", "the leading dimension of C is 2"));
}

}  // namespace
