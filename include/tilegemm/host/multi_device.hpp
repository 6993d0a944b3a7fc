// host/multi_device: one host-memory product over several devices (or over one device beyond its memory or its 32-bit
// indices): C's tiles handed out as devices ask for them, each a product of the host floor on that device's thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config/linkage.hpp"
#include "../gemm/arguments.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/call_options.hpp"
#include "../runtime/device_list.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "host_arithmetic.hpp"
#include "host_gemm.hpp"
#include "host_operand.hpp"
#include "host_options.hpp"
#include "own_thread.hpp"
#include "partial_write.hpp"
#include "pending.hpp"
#include "shared_chunks.hpp"
#include "tile_plan.hpp"
#if TILEGEMM_ENTRY_BODIES || defined(TILEGEMM_INTERNALS)  // what the entries' bodies alone need (config/linkage.hpp)
#include <chrono>
#include <condition_variable>
#include <thread>
#endif

namespace tilegemm {
namespace detail {

// A test's failure on one device: its `tile`-th tile (0: the first it takes) throws where `after_parts` parts of that
// tile's C were written (host_options.hpp's InjectedFailure, for that tile alone).
struct InjectedTileFailure {
  std::size_t device = 0;
  int tile = 0;
  int after_parts = 0;
};

// What a call over several devices is told rather than finds out: the tiling rule, a device's memory in place of
// CL_DEVICE_GLOBAL_MEM_SIZE (0: the device's; tests shrink it to make a small product out-of-core), and tests'
// injected failures. Read once at the call's entry on the caller's thread (ScopedMultiDevice) and carried by value to
// the devices' threads.
struct MultiDeviceSettings {
  TileRule rule;
  unsigned long long memory_bytes = 0;
  std::vector<InjectedTileFailure> failures;
  // Whether devices upload pieces of A and B from each other's pinned slots (host/shared_chunks.hpp).
  bool share_pieces = true;

  // The innermost ScopedMultiDevice's, else the rule's defaults but for TILEGEMM_TILES_PER_DEVICE (1 to 64, a
  // measurement switch to time the balance against each tile's start on a GPU) and TILEGEMM_SHARE_PIECES=0 (each
  // device copies its own pieces, to time the sharing); both read once per process.
  static MultiDeviceSettings defaults();
};
struct MultiDeviceTag {};
using ScopedMultiDevice = ScopedDefault<MultiDeviceSettings, MultiDeviceTag>;

inline MultiDeviceSettings MultiDeviceSettings::defaults() {
  if (const MultiDeviceSettings* scoped = ScopedMultiDevice::current()) return *scoped;
  static const std::size_t per_device = [] {
    const char* text = std::getenv("TILEGEMM_TILES_PER_DEVICE");
    const long wanted = text ? std::strtol(text, nullptr, 10) : 0;
    return wanted >= 1 && wanted <= 64 ? static_cast<std::size_t>(wanted) : TileRule{}.tiles_per_device;
  }();
  static const bool share = [] {
    const char* text = std::getenv("TILEGEMM_SHARE_PIECES");
    return text == nullptr || std::strcmp(text, "0") != 0;
  }();
  MultiDeviceSettings settings;
  settings.rule.tiles_per_device = per_device;
  settings.share_pieces = share;
  return settings;
}

// Where the last tiled call of this thread went: its tiles and K's slices, and per device (in the call's order) the
// tiles it finished and the milliseconds it spent on tiles, and its failure if it had one.
struct DeviceShare {
  int tiles = 0;
  double busy_ms = 0;
  std::string failure;  // empty: none
};
struct MultiDeviceProfile {
  double wall = 0;
  std::size_t tiles = 0;
  std::size_t slices = 0;
  double bytes = 0;          // moved between host memory and the devices: each tile's panels of A and B up, its C down
  std::size_t borrowed = 0;  // pieces of A and B one device uploaded from another's pinned slot (shared_chunks.hpp)
  std::vector<DeviceShare> devices;
};
inline MultiDeviceProfile& last_multi_device_profile() {
  thread_local MultiDeviceProfile profile;
  return profile;
}

// The room of a tile on a device: the dense copies of its operands may take 3/4 of the device's memory (the product
// may pack copies of them besides; the rest is the drivers' and other programs'), a buffer at most the device's
// largest, an operand at most what 32-bit indices reach.
inline TileRoom tile_room(const DeviceLimits& limits, unsigned long long memory_bytes) {
  TileRoom room;
  const unsigned long long memory = memory_bytes != 0 ? memory_bytes : limits.global_memory_bytes;
  if (memory != 0) room.bytes = memory / 4 * 3;
  room.max_buffer = std::min<unsigned long long>(limits.max_alloc_bytes, room.bytes);
  room.max_elements = static_cast<unsigned long long>(index_limit);
  return room;
}

// Whether the whole of a checked product fits one device's room (then one queue takes it as tilegemm::gemm on that
// queue does).
inline bool whole_product_fits(const RawProduct& p, const TileRoom& room) {
  unsigned long long all = 0;
  for (const auto& [rows, cols] :
       {std::pair{p.a.rows, p.a.cols}, std::pair{p.b.rows, p.b.cols}, std::pair{p.c.rows, p.c.cols}}) {
    const unsigned long long elements = static_cast<unsigned long long>(rows) * static_cast<unsigned long long>(cols);
    if (rows > index_limit || cols > index_limit || elements > room.max_elements) return false;
    if (elements * p.c.size > room.max_buffer) return false;
    all += elements * p.c.size;
  }
  return all <= room.bytes;
}

// The tiled product over `queues` (one or more) of a checked product whose C is not empty, k > 0, alpha != 0 and C
// shares no memory with A or B. A tile's C is written only by the device that finished it; where that tile could be
// taken again with its old values needed (beta != 0 and several devices) or is made in several slices of K, it is
// made in a dense host copy and C's tile is written from it once its product succeeded. A device whose tile failed
// takes no more, and its tile goes back to the others. Throws where every device failed (PartialWrite where C had
// been written in part).
TILEGEMM_ENTRY void tiled_product(const std::vector<cl::CommandQueue>& queues, const KernelDescription* config,
                                  const char* function, const RawProduct& p, const HostOptions& host,
                                  const MultiDeviceSettings& settings);
#if TILEGEMM_ENTRY_BODIES
// Rows [r0, r1) and K's [k0, k1) of op(A) as a storage of the caller's A (and the same for op(B)'s columns).
inline RawInput op_rows(const RawInput& a, std::size_t r0, std::size_t r1, std::size_t k0, std::size_t k1) {
  const auto h = static_cast<std::ptrdiff_t>(r1 - r0), d = static_cast<std::ptrdiff_t>(k1 - k0);
  return a.transposed ? RawInput{a.at(k0, r0), d, h, a.ld, true, a.size}
                      : RawInput{a.at(r0, k0), h, d, a.ld, false, a.size};
}
inline RawInput op_cols(const RawInput& b, std::size_t k0, std::size_t k1, std::size_t c0, std::size_t c1) {
  const auto w = static_cast<std::ptrdiff_t>(c1 - c0), d = static_cast<std::ptrdiff_t>(k1 - k0);
  return b.transposed ? RawInput{b.at(c0, k0), w, d, b.ld, true, b.size}
                      : RawInput{b.at(k0, c0), d, w, b.ld, false, b.size};
}

TILEGEMM_ENTRY void tiled_product(const std::vector<cl::CommandQueue>& queues, const KernelDescription* config,
                                  const char* function, const RawProduct& p, const HostOptions& host,
                                  const MultiDeviceSettings& settings) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const std::size_t devices = queues.size(), size = p.c.size;
  // The plan for the smallest room among the devices.
  std::vector<CallContext> calls;
  TileRoom room;
  for (const cl::CommandQueue& queue : queues) {
    calls.push_back(CallContext::of(queue, *host.call_options));
    const TileRoom own = tile_room(calls.back().limits, settings.memory_bytes);
    room.bytes = std::min(room.bytes, own.bytes);
    room.max_buffer = std::min(room.max_buffer, own.max_buffer);
    room.max_elements = std::min(room.max_elements, own.max_elements);
  }
  const TilePlan plan = plan_tiles(static_cast<std::size_t>(p.c.rows), static_cast<std::size_t>(p.c.cols),
                                   static_cast<std::size_t>(p.k()), devices, size, room, settings.rule);
  const bool into_copy = plan.slices() > 1 || (p.beta.value != 0 && devices > 1);
  // Tiles that share a panel of A or B copy each piece of it into pinned memory once.
  const auto shared = devices > 1 && settings.share_pieces ? std::make_shared<SharedChunks>() : nullptr;

  // The tiles' hand-out: the next tile never taken, tiles given back by failed devices first.
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t next = 0, done = 0, running = 0;
    std::vector<std::size_t> given_back;
    bool c_written = false;  // some of C is no longer as it was
    std::vector<std::exception_ptr> failures;
  } state;
  state.failures.resize(devices);
  state.given_back.reserve(devices);  // a device gives back at most one tile: pushing it back cannot throw
  std::vector<DeviceShare> shares(devices);

  const auto make_tile = [&](std::size_t device, std::size_t t, int injected, std::vector<char>& copy) {
    const auto [r0, r1, c0, c1] = plan.tile(t);
    const auto h = static_cast<std::ptrdiff_t>(r1 - r0), w = static_cast<std::ptrdiff_t>(c1 - c0);
    const RawOutput c_tile{p.c.at(r0, c0), h, w, p.c.ld, false, size};
    if (into_copy) copy.resize(size * static_cast<std::size_t>(h) * static_cast<std::size_t>(w));
    const RawOutput target = into_copy ? RawOutput{copy.data(), h, w, h, false, size} : c_tile;
    for (std::size_t s = 0; s < plan.slices(); ++s) {
      const auto [k0, k1] = plan.slice(s);
      const ScalarValue beta = s > 0       ? ScalarValue{1, p.beta.is_double}
                               : into_copy ? ScalarValue{0, p.beta.is_double}
                                           : p.beta;
      HostOptions options = host;
      options.fail_after_parts = s == 0 ? injected : -1;
      options.shared_chunks = shared;
      const RawProduct part{op_rows(p.a, r0, r1, k0, k1), op_cols(p.b, k0, k1, c0, c1), target, p.alpha, beta};
      translate_cl_errors([&] {
        naming(function, [&] { host_product(queues[device], config, function, part, options, true).wait(); });
      });
    }
    if (into_copy) {  // the product succeeded: now C's tile, C = R + beta * C
      fold_columns(copy.data(), static_cast<std::size_t>(h), c_tile.data, static_cast<std::size_t>(p.c.ld),
                   static_cast<std::size_t>(h), static_cast<std::size_t>(w), p.beta);
    }
  };

  const auto serve = [&](std::size_t device) {
    std::vector<char> copy;
    int taken = 0;  // tiles this device took
    std::unique_lock<std::mutex> lock(state.mutex);
    for (;;) {
      std::size_t t = 0;
      if (!state.given_back.empty()) {
        t = state.given_back.back();
        state.given_back.pop_back();
      } else if (state.next < plan.count()) {
        t = state.next++;
      } else if (state.running > 0) {  // a running tile may yet be given back
        state.changed.wait(lock);
        continue;
      } else {
        return;
      }
      ++state.running;
      lock.unlock();
      int injected = -1;
      for (const InjectedTileFailure& f : settings.failures) {
        if (f.device == device && f.tile == taken) injected = f.after_parts;
      }
      ++taken;
      const auto begin = Clock::now();
      std::exception_ptr failure;
      bool wrote = false;
      try {
        make_tile(device, t, injected, copy);
        wrote = true;
      } catch (const PartialWrite&) {
        failure = std::current_exception();
        wrote = true;
      } catch (...) {
        failure = std::current_exception();
      }
      lock.lock();
      --state.running;
      shares[device].busy_ms += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
      state.c_written = state.c_written || wrote;
      if (failure) {  // this device takes no more; its tile goes to the others
        state.failures[device] = failure;
        state.given_back.push_back(t);
        state.changed.notify_all();
        return;
      }
      ++shares[device].tiles;
      ++state.done;
      if (state.done == plan.count()) state.changed.notify_all();
    }
  };
  {
    std::vector<std::thread> threads;
    try {
      for (std::size_t d = 1; d < devices; ++d) threads.emplace_back(serve, d);
    } catch (...) {  // no thread for the rest of the devices: those that have one share the tiles
    }
    serve(0);
    for (std::thread& thread : threads) thread.join();
  }

  MultiDeviceProfile profile;
  profile.tiles = plan.count();
  profile.slices = plan.slices();
  profile.borrowed = shared ? shared->pieces_borrowed() : 0;
  for (std::size_t t = 0; t < plan.count(); ++t) {
    const auto [r0, r1, c0, c1] = plan.tile(t);
    profile.bytes +=
        static_cast<double>(size) * static_cast<double>((r1 - r0) + (c1 - c0)) * static_cast<double>(plan.k) +
        static_cast<double>(size) * static_cast<double>(r1 - r0) * static_cast<double>(c1 - c0);
  }
  for (std::size_t d = 0; d < devices; ++d) {
    if (state.failures[d]) {
      try {
        std::rethrow_exception(state.failures[d]);
      } catch (const PartialWrite& e) {
        shares[d].failure = e.cause() + " (after writing part of its tile)";
      } catch (const std::exception& e) {
        shares[d].failure = e.what();
      } catch (...) {
        shares[d].failure = "an unknown exception";
      }
    }
  }
  profile.devices = shares;
  profile.wall = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  last_multi_device_profile() = profile;
  if (state.done == plan.count()) return;

  // Every device failed: one device's failure as it is (a PartialWrite where C was written); several, in one Error.
  bool same = true;
  for (std::size_t d = 1; d < devices; ++d) same = same && shares[d].failure == shares[0].failure;
  try {
    if (same) std::rethrow_exception(state.failures[0]);
    std::string message = std::string(function) + ": every device failed:";
    cl_int code = CL_SUCCESS;
    for (std::size_t d = 0; d < devices; ++d) {
      message += "\n  device " + std::to_string(d) + " (" + calls[d].limits.name + "): " + shares[d].failure;
      try {
        std::rethrow_exception(state.failures[d]);
      } catch (const Error& e) {
        if (code == CL_SUCCESS) code = e.code();
      } catch (...) {
      }
    }
    throw Error(code, message);
  } catch (...) {
    if (state.c_written) rethrow_as_partial_write();
    throw;
  }
}
#endif

// The one entry of the forms on a list of queues: one queue with a product that fits it goes as on that queue alone
// (host_gemm_erased); otherwise the tiled product, made in a copy of C where C shares memory with A or B. Blocking;
// failures surface from the returned handle.
TILEGEMM_ENTRY Pending<void> listed_host_gemm(const std::vector<cl::CommandQueue>& queues,
                                              const KernelDescription* config, const char* function,
                                              const RawProduct& p, bool operands_kept);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> listed_host_gemm(const std::vector<cl::CommandQueue>& queues,
                                              const KernelDescription* config, const char* function,
                                              const RawProduct& p, bool operands_kept) {
  try {
    if (queues.empty())
      throw std::invalid_argument(std::string(function) + ": the list of queues is empty; pass at least one queue.");
    const RawOutput& c = p.c;
    if (c.rows == 0 || c.cols == 0) return Pending<void>::enqueued_void(cl::Event());
    if (p.k() == 0 || p.alpha.value == 0) {
      scale_columns(c, p.beta);
      return Pending<void>::enqueued_void(cl::Event());
    }
    HostOptions host = HostOptions::defaults();
    host.call_options = CallOptions::defaults();
    host.fail_after_parts = -1;  // tests inject failures per device (MultiDeviceSettings)
    const MultiDeviceSettings settings = MultiDeviceSettings::defaults();
    if (queues.size() == 1) {
      const CallContext call =
          translate_cl_errors([&] { return naming(function, [&] { return CallContext::of(queues[0]); }); });
      if (whole_product_fits(p, tile_room(call.limits, settings.memory_bytes)))
        return host_gemm_erased(queues[0], config, function, p, true, operands_kept);
    }
    if (!storages_overlap(c, p.a) && !storages_overlap(c, p.b)) {
      tiled_product(queues, config, function, p, host, settings);
      return Pending<void>::enqueued_void(cl::Event());
    }
    // C shares memory with A or B: the product goes into a copy, which alone a failure can leave partly written.
    std::vector<char> copy(dense_bytes(c));
    RawProduct into_copy = p;
    into_copy.c = {copy.data(), c.rows, c.cols, c.rows, false, c.size};
    if (p.beta.value != 0) copy_host_matrix({c.data, c.rows, c.cols, c.ld, false, c.size}, into_copy.c);
    try {
      tiled_product(queues, config, function, into_copy, host, settings);
    } catch (...) {
      rethrow_as_intact();
    }
    copy_host_matrix({copy.data(), c.rows, c.cols, c.rows, false, c.size}, c);
    return Pending<void>::enqueued_void(cl::Event());
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}
#endif

// The product on a list of queues run on a host thread of its own (gemm_async's): returns at once, with a handle whose
// event (a user event in the first queue's context) completes once C is written.
TILEGEMM_ENTRY Pending<void> listed_on_own_thread(const std::vector<cl::CommandQueue>& queues,
                                                  const KernelDescription* config, const char* function,
                                                  const RawProduct& p);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> listed_on_own_thread(const std::vector<cl::CommandQueue>& queues,
                                                  const KernelDescription* config, const char* function,
                                                  const RawProduct& p) {
  try {
    if (queues.empty())
      throw std::invalid_argument(std::string(function) + ": the list of queues is empty; pass at least one queue.");
    const CallContext first =
        translate_cl_errors([&] { return naming(function, [&] { return CallContext::of(queues[0]); }); });
    // The caller's scoped settings, for the thread (they are thread-locals of the caller's).
    const CallOptions call_options = CallOptions::defaults();
    const HostOptions host = HostOptions::defaults();
    const MultiDeviceSettings settings = MultiDeviceSettings::defaults();
    return on_own_thread(
        first.context,
        [queues, config, function, p, call_options, host, settings] {
          std::optional<ScopedMathMode> math;  // a refused TILEGEMM_MATH is read again from the environment there
          if (!call_options.math_refused) math.emplace(call_options.math);
          std::optional<ScopedDeviceDescription> described;
          if (call_options.device) described.emplace(*call_options.device);
          const ScopedStagedPath staged(call_options.staged);
          const ScopedBetaFold fold(host.fold_beta);
          const ScopedMultiDevice multi(settings);
          listed_host_gemm(queues, config, function, p, false).get();
        },
        {});
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}
#endif

template <class Scalar>
Pending<void> host_gemm(const std::vector<cl::CommandQueue>& queues, const KernelDescription* config,
                        const char* function, const HostProduct<Scalar>& p, bool blocking, bool operands_kept = false) {
  if (!blocking && operands_kept) {
    if (queues.size() == 1) {  // one queue and a product that fits it: as on that queue alone
      try {
        const MultiDeviceSettings* settings = ScopedMultiDevice::current();
        const CallContext call = CallContext::of(queues[0]);
        if (whole_product_fits(raw_product(p), tile_room(call.limits, settings ? settings->memory_bytes : 0)))
          return host_gemm(queues[0], config, function, p, false, true);
      } catch (...) {
        return Pending<void>::failed(std::current_exception());
      }
    }
    return listed_on_own_thread(queues, config, function, raw_product(p));
  }
  return listed_host_gemm(queues, config, function, raw_product(p), operands_kept);
}

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C over the devices of `queues` (one queue each), for column-major matrices in host
// memory: tilegemm::gemm's arguments and rules (on C, failures, overlap) but for the queues. C is cut into 2-D tiles
// that the devices take one at a time as they finish the last (so a faster device takes more), each made by the host
// floor's pipeline on that device; a device that fails takes no more and its tile goes to the others, so that the call
// fails only where every device failed. One queue: as tilegemm::gemm on that queue where the product fits the device,
// else in tiles (and slices of K) that do: products larger than one device's memory or than 32-bit indices reach.
// docs/multi_device.md has the tiling rule.
template <class Scalar, class Config = AutoConfig>
void gemm(const std::vector<cl::CommandQueue>& queues, Transpose trans_a, Transpose trans_b, long long m, long long n,
          long long k, detail::identity_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b, long long ldb,
          detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
  detail::require_supported_scalar<Scalar>();
  detail::host_gemm(queues, detail::description_of<Config>(), "tilegemm::gemm",
                    detail::naming("tilegemm::gemm",
                                   [&] {
                                     return detail::check_host_arguments<Scalar>(trans_a, trans_b, m, n, k, alpha, a,
                                                                                 lda, b, ldb, beta, c, ldc);
                                   }),
                    true)
      .get();
}

// The same without waiting (gemm_async's rules): A, B and C must stay alive and unchanged until the handle completes.
template <class Scalar, class Config = AutoConfig>
Pending<void> gemm_async(const std::vector<cl::CommandQueue>& queues, Transpose trans_a, Transpose trans_b, long long m,
                         long long n, long long k, detail::identity_t<Scalar> alpha, const Scalar* a, long long lda,
                         const Scalar* b, long long ldb, detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
  detail::require_supported_scalar<Scalar>();
  detail::HostProduct<Scalar> p;
  try {
    p = detail::naming("tilegemm::gemm_async", [&] {
      return detail::check_host_arguments<Scalar>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
  return detail::host_gemm(queues, detail::description_of<Config>(), "tilegemm::gemm_async", p, false, true);
}

// The same on the devices TILEGEMM_DEVICES names (default_queues()), or TILEGEMM_DEVICE's one where it is unset.
template <class Scalar, class Config = AutoConfig>
void gemm(Transpose trans_a, Transpose trans_b, long long m, long long n, long long k, detail::identity_t<Scalar> alpha,
          const Scalar* a, long long lda, const Scalar* b, long long ldb, detail::identity_t<Scalar> beta, Scalar* c,
          long long ldc) {
  const std::vector<cl::CommandQueue> queues = default_queues();
  if (queues.empty()) {
    gemm<Scalar, Config>(default_queue(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    gemm<Scalar, Config>(queues, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}
template <class Scalar, class Config = AutoConfig>
Pending<void> gemm_async(Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
                         detail::identity_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b,
                         long long ldb, detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
  std::vector<cl::CommandQueue> queues;
  try {
    queues = default_queues();
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
  if (queues.empty())
    return gemm_async<Scalar, Config>(default_queue(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return gemm_async<Scalar, Config>(queues, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tilegemm
