// runtime/call_options: what a call is told rather than what it finds out (math mode, a device description in place
// of the queue's, the staged host path's settings), read once at the call's entry and carried in its CallContext.
#pragma once

#include <cstddef>
#include <exception>
#include <optional>

#include "../config/math_mode.hpp"
#include "device_limits.hpp"
#include "error.hpp"
#include "math_setting.hpp"

namespace tilegemm::detail {

// When and how the staged host path runs: for products whose operands and result hold at least `from_bytes` in all,
// on GPUs (a CPU device's memory is host memory: the direct path is as fast there), with pinned slots of
// `slot_bytes`, C made in blocks of about `block_side` squared, the first of them in slices of K at least
// `first_block_depth` deep (one slice where K is shallower than two), so that the first product waits for a slice of
// A's and B's first blocks rather than all of them. The defaults were measured on an H200 (benchmarks/README.md).
// C's blocks are copied out by a thread of the call's own (`drain_thread`), or by the calling thread between blocks
// where no thread can start. Tests lower the bound, the slots, the depth, let it run on CPU devices and take the drain
// off its thread.
struct StagedPathSettings {
  std::size_t from_bytes = std::size_t{10} << 20;
  std::size_t slot_bytes = std::size_t{16} << 20;
  std::size_t block_side = 2048;
  std::size_t first_block_depth = 4096;
  bool on_cpu_devices = false;
  bool drain_thread = true;
};

// The options of one call. `device`, when set, is the description the call plans for instead of its queue's device
// (so that tests run the plan made for a GPU on the CPU device CI has).
struct CallOptions {
  MathMode math = MathMode::ieee;
  std::exception_ptr math_refused;  // TILEGEMM_MATH names no mode: what a product throws (other calls go on)
  std::optional<DeviceLimits> device;
  StagedPathSettings staged;

  // The front end's defaults, read at a call's entry: the innermost ScopedMathMode of the thread (else
  // TILEGEMM_MATH's), ScopedDeviceDescription and ScopedStagedPath.
  static CallOptions defaults();
};

// Sets a default of the calls this thread makes while one lives (nested ones stack): a Scoped<T> keeps the value,
// current() the innermost.
template <class T, class Tag>
class ScopedDefault {
 public:
  explicit ScopedDefault(const T& value) : value_(value), outer_(current()) { current() = &value_; }
  ~ScopedDefault() { current() = outer_; }
  ScopedDefault(const ScopedDefault&) = delete;
  ScopedDefault& operator=(const ScopedDefault&) = delete;

  static const T*& current() {
    thread_local const T* innermost = nullptr;
    return innermost;
  }

 private:
  T value_;
  const T* outer_;
};

// Calls made on this thread while one lives plan for `device` instead of their queue's device description.
struct DeviceDescriptionTag {};
using ScopedDeviceDescription = ScopedDefault<DeviceLimits, DeviceDescriptionTag>;

// Calls made on this thread while one lives take the staged host path with these settings.
class ScopedStagedPath : public ScopedDefault<StagedPathSettings, StagedPathSettings> {
 public:
  using ScopedDefault::ScopedDefault;
  static StagedPathSettings settings() { return current() ? *current() : StagedPathSettings{}; }
};

inline CallOptions CallOptions::defaults() {
  CallOptions options;
  try {
    options.math = math_mode();
  } catch (const Error&) {
    options.math_refused = std::current_exception();
  }
  if (const DeviceLimits* described = ScopedDeviceDescription::current()) options.device = *described;
  options.staged = ScopedStagedPath::settings();
  return options;
}

}  // namespace tilegemm::detail
