// eigen/staged_product: C = alpha * op(A) * op(B) + beta * C from host memory to host memory at the bus's speed:
// operands go through pinned slots (copied in and out by several host threads), and C is made in column panels so
// that uploading the next panel, multiplying this one and downloading the last one overlap on three queues.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "../gemm/gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/host_threads.hpp"
#include "../runtime/scratch_pool.hpp"
#include "../runtime/staging.hpp"
#include "eigen_operand.hpp"
#include "transfers.hpp"

namespace tilegemm::detail {

// When and how the staged path runs: for products whose operands and result hold at least `from_bytes` in all, on
// GPUs (a CPU device's memory is host memory: the direct path is as fast there), with pinned slots of `slot_bytes`
// (C's panels are as wide as a slot holds). Tests lower the bound, the slots, and let it run on CPU devices.
struct StagedPathSettings {
  std::size_t from_bytes = std::size_t{24} << 20;
  std::size_t slot_bytes = std::size_t{32} << 20;
  bool on_cpu_devices = false;
};

// Calls of this thread, while one lives, use these settings instead (nested ones stack).
class ScopedStagedPath {
 public:
  explicit ScopedStagedPath(const StagedPathSettings& settings) : settings_(settings), outer_(current()) {
    current() = &settings_;
  }
  ~ScopedStagedPath() { current() = outer_; }
  ScopedStagedPath(const ScopedStagedPath&) = delete;
  ScopedStagedPath& operator=(const ScopedStagedPath&) = delete;

  static const StagedPathSettings*& current() {
    thread_local const StagedPathSettings* settings = nullptr;
    return settings;
  }
  static StagedPathSettings settings() { return current() ? *current() : StagedPathSettings{}; }

 private:
  StagedPathSettings settings_;
  const StagedPathSettings* outer_;
};

// Where the last staged call of this thread spent its time, in milliseconds: the host clock around the whole call
// and around the host threads' copies, and the queues' profiling for the commands (each a sum over the panels).
// What overlapped is the parts' sum less the whole.
struct HostCallProfile {
  double wall = 0;
  double copy_in = 0;
  double upload = 0;
  double product = 0;
  double download = 0;
  double copy_out = 0;
  int panels = 0;
};
inline HostCallProfile& last_host_call_profile() {
  thread_local HostCallProfile profile;
  return profile;
}

inline double event_ms(const cl::Event& event) {
  cl_ulong start = 0, end = 0;
  if (event.getProfilingInfo(CL_PROFILING_COMMAND_START, &start) != CL_SUCCESS ||
      event.getProfilingInfo(CL_PROFILING_COMMAND_END, &end) != CL_SUCCESS) {
    return 0;
  }
  return (end - start) * 1e-6;
}

template <class Scalar, class PA, class PB, class PC>
bool staged_path_applies(const CallContext& call, const HostOperand<Scalar, PA>& a, const HostOperand<Scalar, PB>& b,
                         const HostOperand<Scalar, PC>& c) {
  const StagedPathSettings settings = ScopedStagedPath::settings();
  if ((call.limits.type & CL_DEVICE_TYPE_CPU) && !settings.on_cpu_devices) return false;
  return dense_bytes(a) + dense_bytes(b) + dense_bytes(c) >= settings.from_bytes;
}

// A ring of pinned slots: a slot is taken again only once the command that last used it has completed.
class SlotRing {
 public:
  explicit SlotRing(const std::vector<std::shared_ptr<PinnedArea>>& slots) : slots_(slots), last_use_(slots.size()) {}
  std::size_t size() const { return slots_.size(); }
  // The next slot, once its last command has ended.
  std::size_t take() {
    const std::size_t slot = next_;
    next_ = (next_ + 1) % slots_.size();
    if (last_use_[slot]() != nullptr) check(last_use_[slot].wait(), "clWaitForEvents");
    return slot;
  }
  char* data(std::size_t slot) const { return slots_[slot]->data(); }
  void used_by(std::size_t slot, const cl::Event& command) { last_use_[slot] = command; }

 private:
  std::vector<std::shared_ptr<PinnedArea>> slots_;
  std::vector<cl::Event> last_use_;
  std::size_t next_ = 0;
};

// The staged product. A and B stay as the caller stores them (dense on the device); C's panels are columns of its
// storage (not transposed: gpu_gemm turns a row-major C into the transposed product first).
template <class Scalar>
void staged_product(const CallContext& call, const KernelDescription* config, const HostOperand<Scalar>& a,
                    const HostOperand<Scalar>& b, const HostOperand<Scalar, Scalar*>& c, Scalar alpha, Scalar beta) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  constexpr std::size_t size = sizeof(Scalar);
  const std::size_t m = static_cast<std::size_t>(c.rows), n = static_cast<std::size_t>(c.cols);
  const std::size_t k = static_cast<std::size_t>(a.transposed ? a.rows : a.cols);
  const std::size_t a_rows = static_cast<std::size_t>(a.rows), a_cols = static_cast<std::size_t>(a.cols);
  const std::size_t b_rows = static_cast<std::size_t>(b.rows), b_cols = static_cast<std::size_t>(b.cols);
  const std::size_t a_ld = static_cast<std::size_t>(a.ld), b_ld = static_cast<std::size_t>(b.ld);
  const std::size_t c_ld = static_cast<std::size_t>(c.ld);
  HostCallProfile profile;
  const auto timed = [&](double& total, auto&& work) {
    const auto begin = Clock::now();
    work();
    total += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  };

  // Panels of C: as many columns as a slot holds of C and of B's panel; whole tiles of columns where there are many.
  const StagedPathSettings settings = ScopedStagedPath::settings();
  const std::size_t column_bytes = std::max<std::size_t>({m, k, a_rows, 1}) * size;
  const std::size_t slot_bytes = std::max(settings.slot_bytes, column_bytes);
  std::size_t width = std::max<std::size_t>(1, slot_bytes / (std::max(m, k) * size));
  if (width >= 256) width = width / 128 * 128;
  width = std::min(width, n);

  ScratchBuffer device_a(call, std::max(dense_bytes(a), size)), device_b(call, std::max(dense_bytes(b), size)),
      device_c(call, std::max(dense_bytes(c), size));
  std::shared_ptr<StagingSet> set = Staging::instance().take(call, slot_bytes);
  CallContext compute = call;
  compute.queue = set->compute;
  SlotRing up(set->upload_slots), down(set->download_slots);
  std::vector<cl::Event> uploads, products, downloads;

  // Uploads columns [first, last) of a stored operand through a slot (several columns each, or a block of rows of
  // them), into its dense device copy; returns the last upload's event.
  const auto upload_columns = [&](const char* host, std::size_t host_ld, std::size_t rows, std::size_t first,
                                  std::size_t last, const cl::Buffer& device) {
    cl::Event done;
    const std::size_t per_slot = std::max<std::size_t>(1, slot_bytes / (std::max<std::size_t>(rows, 1) * size));
    for (std::size_t j = first; j < last; j += per_slot) {
      const std::size_t columns = std::min(per_slot, last - j);
      const std::size_t slot = up.take();
      timed(profile.copy_in,
            [&] { copy_columns(host + j * host_ld * size, host_ld, up.data(slot), rows, rows, columns, size); });
      check(set->upload.enqueueWriteBuffer(device, CL_FALSE, j * rows * size, columns * rows * size, up.data(slot),
                                           nullptr, &done),
            "clEnqueueWriteBuffer");
      up.used_by(slot, done);
      uploads.push_back(done);
    }
    return done;
  };
  // Uploads rows [first, last) of all the columns of a stored operand (a panel of op(B) when B is transposed).
  const auto upload_rows = [&](const char* host, std::size_t host_ld, std::size_t rows, std::size_t columns,
                               std::size_t first, std::size_t last, const cl::Buffer& device) {
    const std::size_t slot = up.take();
    const std::size_t panel_rows = last - first;
    timed(profile.copy_in,
          [&] { copy_columns(host + first * size, host_ld, up.data(slot), panel_rows, panel_rows, columns, size); });
    cl::Event done;
    check(set->upload.enqueueWriteBufferRect(device, CL_FALSE, {first * size, 0, 0}, {0, 0, 0},
                                             {panel_rows * size, columns, 1}, rows * size, 0, panel_rows * size, 0,
                                             up.data(slot), nullptr, &done),
          "clEnqueueWriteBufferRect");
    up.used_by(slot, done);
    uploads.push_back(done);
    return done;
  };
  // Reads panels back, oldest first, and copies them into C: the pending ones while a slot is needed, all at the end.
  struct Download {
    std::size_t slot, first, columns;
    cl::Event done;
  };
  std::deque<Download> pending;
  const auto copy_out_oldest = [&] {
    const Download d = pending.front();
    pending.pop_front();
    check(d.done.wait(), "clWaitForEvents");
    timed(profile.copy_out, [&] {
      copy_columns(down.data(d.slot), m, reinterpret_cast<char*>(c.data + d.first * c_ld), c_ld, m, d.columns, size);
    });
  };

  try {
    const char* a_host = reinterpret_cast<const char*>(a.data);
    const char* b_host = reinterpret_cast<const char*>(b.data);
    upload_columns(a_host, a_ld, a_rows, 0, a_cols, device_a.buffer());
    const std::vector<cl::Event> a_ready = uploads;
    for (std::size_t j = 0; j < n; j += width) {
      const std::size_t columns = std::min(width, n - j);
      std::vector<cl::Event> ready = a_ready;
      ready.push_back(b.transposed ? upload_rows(b_host, b_ld, b_rows, b_cols, j, j + columns, device_b.buffer())
                                   : upload_columns(b_host, b_ld, b_rows, j, j + columns, device_b.buffer()));
      if (beta != Scalar(0)) {
        ready.push_back(
            upload_columns(reinterpret_cast<const char*>(c.data), c.ld, m, j, j + columns, device_c.buffer()));
      }
      // This panel of C: op(A) times columns [j, j + columns) of op(B).
      const GemmProblem panel = check_arguments<Scalar>(
          call.context, a.transposed ? Transpose::yes : Transpose::no, b.transposed ? Transpose::yes : Transpose::no,
          static_cast<long long>(m), static_cast<long long>(columns), static_cast<long long>(k), alpha,
          device_a.buffer(), 0, static_cast<long long>(std::max<std::size_t>(a_rows, 1)), device_b.buffer(),
          static_cast<long long>(b.transposed ? j : j * b_rows),
          static_cast<long long>(std::max<std::size_t>(b_rows, 1)), beta, device_c.buffer(),
          static_cast<long long>(j * m), static_cast<long long>(m));
      const cl::Event product = run_gemm(compute, config, panel, ready);
      products.push_back(product);
      if (pending.size() == down.size()) copy_out_oldest();
      const std::size_t slot = down.take();
      cl::Event done;
      const std::vector<cl::Event> after{product};
      check(set->download.enqueueReadBuffer(device_c.buffer(), CL_FALSE, j * m * size, columns * m * size,
                                            down.data(slot), &after, &done),
            "clEnqueueReadBuffer");
      down.used_by(slot, done);
      downloads.push_back(done);
      pending.push_back({slot, j, columns, done});
      ++profile.panels;
    }
    while (!pending.empty()) copy_out_oldest();
  } catch (...) {
    for (cl::CommandQueue* queue : {&set->upload, &set->compute, &set->download}) queue->finish();
    throw;
  }
  for (ScratchBuffer* used : {&device_a, &device_b, &device_c}) used->give_back_after(cl::Event());
  Staging::instance().give_back(call, std::move(set));
  for (const cl::Event& e : uploads) profile.upload += event_ms(e);
  for (const cl::Event& e : products) profile.product += event_ms(e);
  for (const cl::Event& e : downloads) profile.download += event_ms(e);
  profile.wall = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  last_host_call_profile() = profile;
}

}  // namespace tilegemm::detail
