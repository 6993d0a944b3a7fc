// test_multi_device: one host-memory product over several devices (contexts of CI's one device stand for them), and
// over one device beyond its memory: every transpose, edge tiles, alpha and beta, C sharing A's memory, devices that
// fail, against a double-precision reference with the memory around C untouched.
#include <Eigen/Dense>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <tuple>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "untouched_memory.hpp"

using Eigen::Index;
using tilegemm::Transpose;
using tilegemm::detail::InjectedTileFailure;
using tilegemm::detail::MultiDeviceSettings;
using tilegemm::detail::ScopedMultiDevice;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;
using tilegemm_test::Stored;

namespace {

// `count` "devices": a queue each on a context of its own of the test device (contexts share no buffers, programs
// or staging, as devices do not).
std::vector<cl::CommandQueue> devices(std::size_t count) {
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  std::vector<cl::CommandQueue> queues;
  for (std::size_t i = 0; i < count; ++i) {
    const cl::Context context(device);
    queues.emplace_back(context, device);
  }
  return queues;
}

// Small tiles, so that small products make many of them.
MultiDeviceSettings small_tiles() {
  MultiDeviceSettings settings;
  settings.rule.min_side = 8;
  settings.rule.tiles_per_device = 3;
  return settings;
}

// The staged path forced on small products (the CPU device included), so that tiles run the overlapped pipeline
// (its settings must reach the devices' threads).
tilegemm::detail::StagedPathSettings forced_staging() {
  tilegemm::detail::StagedPathSettings settings;
  settings.from_bytes = 0;
  settings.slot_bytes = 1024;
  settings.block_side = 16;
  settings.on_cpu_devices = true;
  return settings;
}

Transpose transpose_of(bool t) { return t ? Transpose::yes : Transpose::no; }

// C = alpha op(A) op(B) + beta C over `queues` on fresh data, checked against the reference (C poisoned where beta is
// zero) with the memory around every operand untouched. `async`: through gemm_async.
template <class S>
void check_product(const std::vector<cl::CommandQueue>& queues, bool ta, bool tb, Index m, Index n, Index k, S alpha,
                   S beta, bool async = false) {
  INFO("op(A) " << m << "x" << k << (ta ? " (A^T)" : "") << ", op(B) " << k << "x" << n << (tb ? " (B^T)" : "")
                << ", alpha " << alpha << ", beta " << beta << ", " << queues.size() << " devices"
                << (async ? ", gemm_async" : ""));
  Stored<S> a(ta ? k : m, ta ? m : k, (ta ? k : m) + 3), b(tb ? n : k, tb ? k : n, (tb ? n : k) + 2), c(m, n, m + 4);
  a.set(random_matrix<S>(a.rows, a.cols));
  b.set(random_matrix<S>(b.rows, b.cols));
  c.set(beta == S(0) ? Matrix<S>::Constant(m, n, poison<S>()) : random_matrix<S>(m, n));
  const Matrix<S> a0 = a.values(), b0 = b.values(), c0 = c.values();
  if (async) {
    tilegemm::gemm_async<S>(queues, transpose_of(ta), transpose_of(tb), m, n, k, alpha, a.data(), a.ld, b.data(), b.ld,
                            beta, c.data(), c.ld)
        .get();
  } else {
    tilegemm::gemm<S>(queues, transpose_of(ta), transpose_of(tb), m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta,
                      c.data(), c.ld);
  }
  const Matrix<S> op_a = ta ? Matrix<S>(a0.transpose()) : a0, op_b = tb ? Matrix<S>(b0.transpose()) : b0;
  CHECK(compare_with_reference<S>(c.values(), alpha, op_a, op_b, beta, c0) == "");
  CHECK(c.gaps_kept() == "");
  CHECK(a.gaps_kept() == "");
  CHECK(b.gaps_kept() == "");
  CHECK(a.values() == a0);
  CHECK(b.values() == b0);
}

// What a call threw: "" (nothing), "PartialWrite", "Error" (tilegemm::Error, not a PartialWrite) or another's what().
template <class Call>
std::string thrown_by(Call&& call) {
  try {
    call();
  } catch (const tilegemm::PartialWrite& e) {
    CHECK_THAT(e.what(), MESSAGE_CONTAINS("C was partly written") && MESSAGE_CONTAINS("injected failure"));
    return "PartialWrite";
  } catch (const tilegemm::Error& e) {
    CHECK_THAT(e.what(), MESSAGE_CONTAINS("injected failure") && !MESSAGE_CONTAINS("partly written"));
    return "Error";
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

int tiles_done(const tilegemm::detail::MultiDeviceProfile& profile) {
  int done = 0;
  for (const auto& share : profile.devices) done += share.tiles;
  return done;
}

}  // namespace

TEMPLATE_TEST_CASE("several devices: every transpose, edge tiles, alpha and beta, direct and staged", "[multi_device]",
                   float, double) {
  using S = TestType;
  const std::vector<cl::CommandQueue> two = devices(2);
  const ScopedMultiDevice tiles(small_tiles());
  std::size_t borrowed = 0;  // pieces of A and B a device uploaded from the other's pinned slot (staged path alone)
  for (const bool staged : {false, true}) {
    const tilegemm::detail::ScopedStagedPath path(staged ? forced_staging() : tilegemm::detail::StagedPathSettings{});
    for (const auto& [m, n, k] : {std::tuple<Index, Index, Index>{45, 37, 29}, {9, 70, 5}, {67, 8, 40}}) {
      for (const bool ta : {false, true}) {
        for (const bool tb : {false, true}) {
          for (const S beta : {S(0), random_scalar<S>()}) {
            INFO((staged ? "staged" : "direct"));
            tilegemm::detail::last_multi_device_profile() = {};
            check_product<S>(two, ta, tb, m, n, k, random_scalar<S>(), beta);
            const auto& profile = tilegemm::detail::last_multi_device_profile();
            CHECK(profile.tiles >= 4);
            CHECK(profile.devices.size() == 2);
            CHECK(tiles_done(profile) == static_cast<int>(profile.tiles));
            if (!staged) CHECK(profile.borrowed == 0);
            borrowed += profile.borrowed;
          }
        }
      }
    }
  }
  // Tiles of one row (or column) of tiles share their panel of op(A) (op(B)); the devices take their tiles at once.
  CHECK(borrowed > 0);
  // alpha = 0 and k = 0 scale C without reading A or B; beta = 0 ignores NaN in C.
  check_product<S>(two, false, false, 20, 30, 10, S(0), S(0.5));
  check_product<S>(two, false, true, 20, 30, 0, S(1), S(-2));
  check_product<S>(two, true, false, 20, 30, 10, S(1), S(0));
  // gemm_async over the list, and three devices.
  check_product<S>(two, true, true, 33, 41, 17, random_scalar<S>(), random_scalar<S>(), true);
  check_product<S>(devices(3), false, true, 50, 44, 21, random_scalar<S>(), random_scalar<S>());
}

TEMPLATE_TEST_CASE("several devices: fewer tiles than devices, one queue as on that queue alone", "[multi_device]",
                   float, double) {
  using S = TestType;
  {
    // The default rule's tiles (4096 a side) make one tile of a small C: one of three devices takes it.
    tilegemm::detail::last_multi_device_profile() = {};
    check_product<S>(devices(3), false, false, 30, 20, 10, random_scalar<S>(), random_scalar<S>());
    const auto& profile = tilegemm::detail::last_multi_device_profile();
    CHECK(profile.tiles == 1);
    CHECK(tiles_done(profile) == 1);
  }
  {
    // One queue, a product that fits: tilegemm::gemm on that queue (no tiles).
    const ScopedMultiDevice tiles(small_tiles());
    tilegemm::detail::last_multi_device_profile() = {};
    check_product<S>(devices(1), true, false, 40, 30, 20, random_scalar<S>(), random_scalar<S>());
    CHECK(tilegemm::detail::last_multi_device_profile().tiles == 0);
  }
  std::vector<S> x(4);
  CHECK_THROWS_WITH(tilegemm::gemm<S>(std::vector<cl::CommandQueue>{}, Transpose::no, Transpose::no, 2, 2, 2, S(1),
                                      x.data(), 2, x.data(), 2, S(0), x.data(), 2),
                    MESSAGE_CONTAINS("tilegemm::gemm") && MESSAGE_CONTAINS("the list of queues is empty"));
  // Arguments are checked once, with gemm's sentences.
  CHECK_THROWS_WITH(tilegemm::gemm<S>(devices(2), Transpose::no, Transpose::no, 2, 2, 2, S(1), x.data(), 1, x.data(), 2,
                                      S(0), x.data(), 2),
                    MESSAGE_CONTAINS("tilegemm::gemm: the leading dimension of A is 1"));
}

TEMPLATE_TEST_CASE("several devices: C sharing A's memory is made in a copy first", "[multi_device]", float, double) {
  using S = TestType;
  const ScopedMultiDevice tiles(small_tiles());
  const Index m = 40;
  for (const S beta : {S(0), S(1)}) {
    Matrix<S> a = random_matrix<S>(m, m);
    const Matrix<S> a0 = a, b = random_matrix<S>(m, m);
    const S alpha = random_scalar<S>();
    tilegemm::gemm<S>(devices(2), Transpose::no, Transpose::no, m, m, m, alpha, a.data(), m, b.data(), m, beta,
                      a.data(), m);
    CHECK(compare_with_reference<S>(a, alpha, a0, b, beta, a0) == "");
  }
}

TEMPLATE_TEST_CASE("several devices: a device that fails gives its tile to the others, the call is still right",
                   "[multi_device][errors]", float, double) {
  using S = TestType;
  const std::vector<cl::CommandQueue> two = devices(2);
  for (const bool staged : {false, true}) {
    const tilegemm::detail::ScopedStagedPath path(staged ? forced_staging() : tilegemm::detail::StagedPathSettings{});
    for (const S beta : {S(0), random_scalar<S>()}) {
      // Device 0 fails in its first tile after part of that tile's C was written (staged: some of its parts; direct:
      // all of it), or in its second before writing any; device 1 in its third (where it gets that far): their tiles
      // are made by the other device, and a tile's old C (beta != 0) is not lost.
      for (const auto& failures :
           {std::vector<InjectedTileFailure>{{0, 0, 1}}, std::vector<InjectedTileFailure>{{0, 1, 0}},
            std::vector<InjectedTileFailure>{{1, 2, 1}}}) {
        MultiDeviceSettings settings = small_tiles();
        settings.failures = failures;
        const ScopedMultiDevice tiles(settings);
        INFO((staged ? "staged" : "direct") << ", " << failures.size() << " injected");
        tilegemm::detail::last_multi_device_profile() = {};
        check_product<S>(two, false, true, 45, 38, 21, random_scalar<S>(), beta);
        const auto& profile = tilegemm::detail::last_multi_device_profile();
        CHECK(tiles_done(profile) == static_cast<int>(profile.tiles));
        // Whether a device reaches its n-th tile depends on timing (the other may take the rest first); one that did
        // failed there and took no more.
        const auto& share = profile.devices[failures[0].device];
        const int taken = share.tiles + (share.failure.empty() ? 0 : 1);
        if (taken > failures[0].tile) CHECK_THAT(share.failure, MESSAGE_CONTAINS("injected failure"));
        CHECK(taken <= failures[0].tile + 1);
      }
    }
  }
  // Three devices, two of them failing at once.
  MultiDeviceSettings settings = small_tiles();
  settings.failures = {{0, 0, 0}, {2, 0, 1}};
  const ScopedMultiDevice tiles(settings);
  check_product<S>(devices(3), true, false, 31, 52, 19, random_scalar<S>(), random_scalar<S>());
}

TEMPLATE_TEST_CASE("several devices: when every device fails, C is untouched, or the failure is a PartialWrite",
                   "[multi_device][errors]", float, double) {
  using S = TestType;
  const std::vector<cl::CommandQueue> two = devices(2);
  const Index m = 45, n = 38, k = 21;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  for (const S beta : {S(0), S(0.5)}) {
    Stored<S> c(m, n, m + 2);
    c.set(beta == S(0) ? Matrix<S>::Constant(m, n, poison<S>()) : random_matrix<S>(m, n));
    const std::vector<S> before = c.storage;
    const auto call = [&] {
      tilegemm::gemm<S>(two, Transpose::no, Transpose::no, m, n, k, S(1), a.data(), m, b.data(), k, beta, c.data(),
                        c.ld);
    };
    {
      // Both fail in their first tile before writing any of it: C is as it was, the failure an Error.
      MultiDeviceSettings settings = small_tiles();
      settings.failures = {{0, 0, 0}, {1, 0, 0}};
      const ScopedMultiDevice tiles(settings);
      CHECK(thrown_by(call) == "Error");
      CHECK(std::memcmp(c.storage.data(), before.data(), before.size() * sizeof(S)) == 0);
      const auto& profile = tilegemm::detail::last_multi_device_profile();
      CHECK(tiles_done(profile) == 0);
    }
    {
      // Device 0 finishes a tile, then both fail: C was written in part.
      MultiDeviceSettings settings = small_tiles();
      settings.failures = {{0, 1, 0}, {1, 0, 0}};
      const ScopedMultiDevice tiles(settings);
      CHECK(thrown_by(call) == "PartialWrite");
      CHECK(c.gaps_kept() == "");
    }
    {
      // The same on the staged path with a C of values: still untouched.
      MultiDeviceSettings settings = small_tiles();
      settings.failures = {{0, 0, 0}, {1, 0, 0}};
      const ScopedMultiDevice tiles(settings);
      const tilegemm::detail::ScopedStagedPath path(forced_staging());
      c.set(random_matrix<S>(m, n));
      const std::vector<S> now = c.storage;
      try {
        call();
        FAIL("no exception");
      } catch (const tilegemm::PartialWrite&) {
        FAIL("C was not written");
      } catch (const tilegemm::Error& e) {
        CHECK_THAT(e.what(), MESSAGE_CONTAINS("injected failure"));
      }
      CHECK(std::memcmp(c.storage.data(), now.data(), now.size() * sizeof(S)) == 0);
    }
  }
}

TEMPLATE_TEST_CASE("one device beyond its memory: tiles and slices of K that fit, C right", "[multi_device]", float,
                   double) {
  using S = TestType;
  const std::vector<cl::CommandQueue> one = devices(1);
  MultiDeviceSettings settings = small_tiles();
  settings.memory_bytes = 4096 * sizeof(S);  // 3/4 of it a tile's room: 3072 elements
  const ScopedMultiDevice tiles(settings);
  for (const bool staged : {false, true}) {
    const tilegemm::detail::ScopedStagedPath path(staged ? forced_staging() : tilegemm::detail::StagedPathSettings{});
    for (const bool ta : {false, true}) {
      for (const S beta : {S(0), random_scalar<S>()}) {
        tilegemm::detail::last_multi_device_profile() = {};
        check_product<S>(one, ta, !ta, 60, 50, 300, random_scalar<S>(), beta);
        const auto& profile = tilegemm::detail::last_multi_device_profile();
        CHECK(profile.tiles > 1);
        CHECK(profile.slices > 1);
        CHECK(tiles_done(profile) == static_cast<int>(profile.tiles));
      }
    }
  }
  // Over two devices with the same small memory, and a failure on one of them.
  MultiDeviceSettings failing = settings;
  failing.failures = {{1, 1, 1}};
  const ScopedMultiDevice failing_scope(failing);
  check_product<S>(devices(2), false, false, 40, 70, 200, random_scalar<S>(), random_scalar<S>());
  // One device failing in an out-of-core product after tiles were written: a PartialWrite.
  Stored<S> c(30, 30, 30);
  const Matrix<S> a = random_matrix<S>(30, 300), b = random_matrix<S>(300, 30);
  failing.failures = {{0, 2, 0}};
  const ScopedMultiDevice last(failing);
  CHECK(thrown_by([&] {
          tilegemm::gemm<S>(one, Transpose::no, Transpose::no, 30, 30, 300, S(1), a.data(), 30, b.data(), 300, S(1),
                            c.data(), c.ld);
        }) == "PartialWrite");
}

TEMPLATE_TEST_CASE("several devices: gpu_gemm on Eigen operands over a list of queues", "[multi_device][eigen]", float,
                   double) {
  using S = TestType;
  const std::vector<cl::CommandQueue> two = devices(2);
  const ScopedMultiDevice tiles(small_tiles());
  const Matrix<S> a = random_matrix<S>(43, 29), b = random_matrix<S>(29, 51);
  tilegemm::detail::last_multi_device_profile() = {};
  const Matrix<S> c = tilegemm::gpu_gemm(two, a, b);
  CHECK(compare_with_reference<S>(c, 1, a, b, 0, c) == "");
  CHECK(tilegemm::detail::last_multi_device_profile().tiles > 1);
  Matrix<S> d = random_matrix<S>(51, 43);
  const Matrix<S> d0 = d;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm(two, b.transpose(), a.transpose(), d, alpha, beta);  // transposed views
  CHECK(compare_with_reference<S>(d, alpha, b.transpose(), a.transpose(), beta, d0) == "");
  Matrix<S> e = random_matrix<S>(43, 51);
  const Matrix<S> e0 = e;
  e += tilegemm::gpu_gemm(two, a, b);
  CHECK(compare_with_reference<S>(e, 1, a, b, 1, e0) == "");
}

TEMPLATE_TEST_CASE("several devices: larger products, many tiles", "[multi_device][slow]", float, double) {
  using S = TestType;
  MultiDeviceSettings settings;
  settings.rule.min_side = 64;
  const ScopedMultiDevice tiles(settings);
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true})
      check_product<S>(devices(3), ta, tb, 397, 301, 263, random_scalar<S>(), random_scalar<S>());
  }
}

// Run by the ctest entries multi_device_tilegemm_devices_all and _nonsense (tests/multi_device/CMakeLists.txt), which
// set TILEGEMM_DEVICES; without it there is nothing to check.
TEMPLATE_TEST_CASE("TILEGEMM_DEVICES: the calls without a queue go over the devices it names",
                   "[multi_device][tilegemm_devices]", float, double) {
  using S = TestType;
  const char* spec = std::getenv("TILEGEMM_DEVICES");
  if (spec == nullptr) {
    SUCCEED("TILEGEMM_DEVICES is not set");
    return;
  }
  const Index m = 37, n = 29, k = 61;
  const Matrix<S> a = random_matrix<S>(m, k), b = random_matrix<S>(k, n);
  Matrix<S> c = random_matrix<S>(m, n);
  const Matrix<S> c0 = c;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  const auto call = [&] {
    tilegemm::gemm<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b.data(), k, beta, c.data(), m);
  };
  if (std::string(spec) != "all") {  // nonsense: every call without a queue says what is wrong, and C is untouched
    const auto says = MESSAGE_CONTAINS("TILEGEMM_DEVICES=\"" + std::string(spec) + "\"");
    CHECK_THROWS_WITH(call(), says);
    CHECK_THROWS_WITH(tilegemm::gemm_async<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b.data(), k,
                                              beta, c.data(), m)
                          .get(),
                      says);
    CHECK_THROWS_WITH(c = tilegemm::gpu_gemm(a, b), says);
    CHECK(c == c0);
    return;
  }
  // all: CI's device(s); a memory too small for the product makes the calls tile it, which shows they went the list's
  // way.
  const std::vector<cl::CommandQueue> queues = tilegemm::default_queues();
  CHECK(!queues.empty());
  MultiDeviceSettings settings = small_tiles();
  settings.memory_bytes = 4096 * sizeof(S);
  const ScopedMultiDevice tiles(settings);
  tilegemm::detail::last_multi_device_profile() = {};
  call();
  CHECK(compare_with_reference<S>(c, alpha, a, b, beta, c0) == "");
  CHECK(tilegemm::detail::last_multi_device_profile().tiles > 1);
  CHECK(tilegemm::detail::last_multi_device_profile().devices.size() == queues.size());
  Matrix<S> d = c0;
  tilegemm::gemm_async<S>(Transpose::no, Transpose::no, m, n, k, alpha, a.data(), m, b.data(), k, beta, d.data(), m)
      .get();
  CHECK(compare_with_reference<S>(d, alpha, a, b, beta, c0) == "");
  tilegemm::detail::last_multi_device_profile() = {};
  const Matrix<S> e = tilegemm::gpu_gemm(a, b);
  CHECK(compare_with_reference<S>(e, 1, a, b, 0, e) == "");
  CHECK(tilegemm::detail::last_multi_device_profile().tiles > 1);
}
