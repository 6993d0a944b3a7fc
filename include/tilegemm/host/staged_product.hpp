// host/staged_product: C = alpha * op(A) * op(B) + beta * C from host memory to host memory at the bus's speed:
// operands go through pinned slots (copied in and out by several host threads), and C is made in blocks so that
// uploading what the next block needs, multiplying this one and downloading the last one overlap on three queues.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/sixteen_bit.hpp"
#include "../gemm/gemm.hpp"
#include "../gemm/sixteen_bit_gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/host_threads.hpp"
#include "../runtime/scratch_pool.hpp"
#include "../runtime/staging.hpp"
#include "host_arithmetic.hpp"
#include "host_operand.hpp"
#include "host_options.hpp"
#include "partial_write.hpp"
#include "shared_chunks.hpp"
#include "transfers.hpp"

namespace tilegemm::detail {

// Where the last staged call of this thread spent its time, in milliseconds: the host clock around the whole call
// and around the host threads' copies, and the queues' profiling for the commands (each a sum over the blocks).
// What overlapped is the parts' sum less the whole.
struct HostCallProfile {
  double wall = 0;
  double copy_in = 0;
  double upload = 0;
  double product = 0;
  double download = 0;
  double copy_out = 0;
  int blocks = 0;              // blocks of C made
  int first_block_slices = 0;  // slices of K the first block was made in
};
inline HostCallProfile& last_host_call_profile() {
  thread_local HostCallProfile profile;
  return profile;
}

// A checked product on host memory with its scalar erased (alpha and beta name it): C column-major. With
// `sixteen_bit`, A and B hold 16-bit `element`s (a.size and b.size are 2), C is of `output` and alpha and beta are
// float: the staged path makes its blocks with run_sixteen_bit (gemm/sixteen_bit_gemm.hpp).
struct RawProduct {
  RawInput a;
  RawInput b;
  RawOutput c;
  ScalarValue alpha;
  ScalarValue beta;
  bool sixteen_bit = false;
  SixteenBit element = SixteenBit::half;
  SixteenBitOutput output = SixteenBitOutput::same;
  std::ptrdiff_t k() const { return a.transposed ? a.rows : a.cols; }
};

// Whether a checked product takes the staged path: by its size and device, as StagedPathSettings says.
inline bool staged_path_applies(const CallContext& call, const RawProduct& p) {
  const StagedPathSettings& settings = call.options.staged;
  if ((call.limits.type & CL_DEVICE_TYPE_CPU) && !settings.on_cpu_devices) return false;
  return dense_bytes(p.a) + dense_bytes(p.b) + dense_bytes(p.c) >= settings.from_bytes;
}

// The staged product. A and B stay as the caller stores them (dense on the device, uploaded a block of rows or
// columns of op(A) and op(B) at a time, as the blocks of C need them); C (column-major: gpu_gemm turns a row-major C
// into the transposed product first) is made in blocks of about `block_side` x `block_side`, each downloaded as
// soon as it is made. With `options.fold_beta` C is never uploaded: the device makes alpha * op(A) * op(B) and the
// copy out writes C = R + beta * C; else C's blocks go up and the device adds beta * C. What can fail is taken before
// the first part of C is written (device buffers, pinned slots, the programs); a failure after it throws
// PartialWrite, any other leaves C as it was. A 16-bit product's blocks go up in 16 bits and are widened on the device
// by each block's product; a 16-bit C is never folded on the host (no host arithmetic in 16 bits: its blocks go up
// where beta != 0) nor made in slices of K (each slice would round C again), and the programs its blocks need are
// built by the first block (a refused build there is a PartialWrite only past the first part of C).
TILEGEMM_ENTRY void staged_product(const CallContext& call, const KernelDescription* config, const RawProduct& p,
                                   const HostOptions& options);
#if TILEGEMM_ENTRY_BODIES
// The milliseconds a profiled command ran (0 where the queue does not say).
inline double event_ms(const cl::Event& event) {
  cl_ulong start = 0, end = 0;
  if (event.getProfilingInfo(CL_PROFILING_COMMAND_START, &start) != CL_SUCCESS ||
      event.getProfilingInfo(CL_PROFILING_COMMAND_END, &end) != CL_SUCCESS) {
    return 0;
  }
  return (end - start) * 1e-6;
}

// Whether a command has ended (or failed: waiting on it then reports how).
inline bool finished(const cl::Event& event) {
  cl_int status = CL_QUEUED;
  return event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) != CL_SUCCESS || status <= CL_COMPLETE;
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

// Where C's blocks start along one side of length `length`: one block up to 1.5 x `block`, else blocks of about
// `block`, whole multiples of 128 (of `block` when smaller) but for the last.
inline std::vector<std::size_t> block_starts(std::size_t length, std::size_t block) {
  std::vector<std::size_t> starts{0};
  if (length * 2 <= block * 3) return starts;
  const std::size_t count = (length + block - 1) / block, whole = std::min<std::size_t>(block, 128);
  const std::size_t step = ((length + count - 1) / count + whole - 1) / whole * whole;
  for (std::size_t start = step; start < length; start += step) starts.push_back(start);
  return starts;
}

// The order in which C's blocks are made: by rings around the first one ((0,0), then (0,1), (1,0), (1,1), then
// (0,2), ...), so that the first products need only the first block of rows of op(A) and of columns of op(B), and
// later ones mostly reuse what is already on the device.
inline std::vector<std::pair<std::size_t, std::size_t>> block_order(std::size_t row_blocks, std::size_t col_blocks) {
  std::vector<std::pair<std::size_t, std::size_t>> order;
  for (std::size_t ring = 0; ring < std::max(row_blocks, col_blocks); ++ring) {
    for (std::size_t j = 0; j < std::min(ring, col_blocks); ++j) {
      if (ring < row_blocks) order.emplace_back(ring, j);
    }
    for (std::size_t i = 0; i <= std::min(ring, row_blocks - 1); ++i) {
      if (ring < col_blocks) order.emplace_back(i, ring);
    }
  }
  return order;
}

// Builds, before the staged path writes any of C, the programs its blocks' products run (each distinct block shape's
// plan's product kernel and remainder kernel), so that a refused build fails the call with C intact rather than
// halfway. Plans the default choice would take beyond the local memory the device reports are left to run_gemm,
// which plans them again where the driver refuses them. Packing and split-K's support kernels are small and built
// by the first block.
inline void build_block_programs(const CallContext& call, const KernelDescription* config,
                                 const std::vector<GemmShape>& shapes, std::size_t scalar_size) {
  if (call.options.math_refused) std::rethrow_exception(call.options.math_refused);
  PlanOptions options;
  options.math = call.options.math;
  const bool is_double = scalar_size == sizeof(double);
  for (const GemmShape& shape : shapes) {
    const Plan plan = plan_gemm(config, shape, false, call.limits, scalar_size, options);
    if (plan.work != Work::product) continue;
    if (config == nullptr && beyond_reported_local_memory(plan, call.limits, scalar_size)) continue;
    make_kernel(call, gemm_program(plan.config, is_double, plan.variant), plan.config.threads());
    if (plan.strips == StripWork::remainder_kernel)
      ProgramCache::instance().kernel(call.context, call.device,
                                      remainder_program(is_double, shape.trans_a, shape.trans_b));
  }
}

TILEGEMM_ENTRY void staged_product(const CallContext& call, const KernelDescription* config, const RawProduct& p,
                                   const HostOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const RawInput &a = p.a, &b = p.b;
  const RawOutput& c = p.c;
  const std::size_t size = c.size;  // C's element; A's and B's are a.size and b.size (2 for 16-bit inputs)
  const std::size_t m = static_cast<std::size_t>(c.rows), n = static_cast<std::size_t>(c.cols);
  const std::size_t k = static_cast<std::size_t>(p.k());
  const std::size_t a_rows = static_cast<std::size_t>(a.rows), b_rows = static_cast<std::size_t>(b.rows);
  // The leading dimensions of the dense device copies of A and B, which every block's product reads.
  const long long lda = static_cast<long long>(std::max<std::size_t>(a_rows, 1));
  const long long ldb = static_cast<long long>(std::max<std::size_t>(b_rows, 1));
  // beta * C folded into the copy out (C never uploaded), or added on the device to C's uploaded blocks.
  const bool sixteen_bit_c = p.sixteen_bit && p.output == SixteenBitOutput::same;
  const bool fold = options.fold_beta && p.beta.value != 0 && !sixteen_bit_c;
  const ScalarValue device_beta = fold ? ScalarValue{0, p.beta.is_double} : p.beta;
  const ScalarValue one{1, p.beta.is_double};
  HostCallProfile profile;
  const auto timed = [&](double& total, auto&& work) {
    const auto begin = Clock::now();
    work();
    total += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  };

  const StagedPathSettings& settings = call.options.staged;
  const std::size_t slot_bytes =
      std::max({settings.slot_bytes, std::max<std::size_t>(m, 1) * size, a_rows * a.size, b_rows * b.size});
  ScratchBuffer device_a(call, std::max(dense_bytes(a), size)), device_b(call, std::max(dense_bytes(b), size)),
      device_c(call, std::max(dense_bytes(c), size));
  std::shared_ptr<StagingSet> set = Staging::instance().take(call, slot_bytes);
  CallContext compute = call;
  compute.queue = set->compute;
  SlotRing up(set->upload_slots), down(set->download_slots);
  std::vector<cl::Event> uploads, products, downloads;
  // Other devices of a product over several may upload from this call's upload slots: before the set goes back to
  // the pool (or the call ends), none may any more, and their uploads have ended.
  SharedChunks* const shared = options.shared_chunks.get();
  struct Withdrawn {
    SharedChunks* shared;
    const SlotRing& up;
    void now() const {
      for (std::size_t slot = 0; shared && slot < up.size(); ++slot) shared->withdraw(up.data(slot));
    }
    ~Withdrawn() {
      try {
        now();
      } catch (...) {  // an upload that failed: its failure is the borrowing device's
      }
    }
  } withdrawn{shared, up};

  // Uploads rows [row0, row1) x columns [col0, col1) of a stored matrix (`rows` rows, leading dimension `host_ld`)
  // into its dense device copy, as many columns a slot as fit; returns the last upload's event.
  const auto upload_block = [&](const char* host, std::size_t element, std::size_t host_ld, std::size_t rows,
                                std::size_t row0, std::size_t row1, std::size_t col0, std::size_t col1,
                                const cl::Buffer& device) {
    cl::Event done;
    const std::size_t height = row1 - row0, per_slot = std::max<std::size_t>(1, slot_bytes / (height * element));
    for (std::size_t j = col0; j < col1; j += per_slot) {
      const std::size_t columns = std::min(per_slot, col1 - j);
      const char* from = host + (j * host_ld + row0) * element;
      // The piece from another device's slot where one has it, else copied into a slot of this call's.
      SharedChunks::Use use =
          shared ? shared->use({from, height * element, columns, host_ld * element}) : SharedChunks::Use();
      const char* source = use.borrowed();
      const bool borrowed = source != nullptr;
      std::size_t slot = 0;
      if (!borrowed) {
        slot = up.take();
        if (shared) shared->withdraw(up.data(slot));  // others' uploads from what it held have ended
        timed(profile.copy_in, [&] {
          copy_columns(from, host_ld * element, up.data(slot), height * element, height * element, columns, 1);
        });
        use.filled(up.data(slot));
        source = up.data(slot);
      }
      if (height == rows) {
        check(set->upload.enqueueWriteBuffer(device, CL_FALSE, j * rows * element, columns * rows * element, source,
                                             nullptr, &done),
              "clEnqueueWriteBuffer");
      } else {
        check(set->upload.enqueueWriteBufferRect(device, CL_FALSE, {row0 * element, j, 0}, {0, 0, 0},
                                                 {height * element, columns, 1}, rows * element, 0, height * element, 0,
                                                 source, nullptr, &done),
              "clEnqueueWriteBufferRect");
      }
      check(set->upload.flush(), "clFlush");  // the products wait for it from another queue
      if (borrowed) {
        use.returned(done);
      } else {
        up.used_by(slot, done);
      }
      uploads.push_back(done);
    }
    return done;
  };
  // Rows [first, last) of op(X) for a stored operand X: stored columns when X is transposed, else stored rows.
  const auto upload_op_rows = [&](const RawInput& x, std::size_t first, std::size_t last, const cl::Buffer& device) {
    const std::size_t rows = static_cast<std::size_t>(x.rows), cols = static_cast<std::size_t>(x.cols);
    const std::size_t ld = static_cast<std::size_t>(x.ld);
    return x.transposed ? upload_block(x.data, x.size, ld, rows, 0, rows, first, last, device)
                        : upload_block(x.data, x.size, ld, rows, first, last, 0, cols, device);
  };
  const auto upload_op_cols = [&](const RawInput& x, std::size_t first, std::size_t last, const cl::Buffer& device) {
    const std::size_t rows = static_cast<std::size_t>(x.rows), cols = static_cast<std::size_t>(x.cols);
    const std::size_t ld = static_cast<std::size_t>(x.ld);
    return x.transposed ? upload_block(x.data, x.size, ld, rows, first, last, 0, cols, device)
                        : upload_block(x.data, x.size, ld, rows, 0, rows, first, last, device);
  };

  // Downloads wait in a queue, oldest first, for the drain to copy them into C: the oldest when a slot is needed, all
  // at the end. `parts_written` counts the parts of C written: from the first on, a failure is a PartialWrite.
  struct Download {
    std::size_t slot, row0, height, col0, columns;
    cl::Event done;
  };
  std::deque<Download> pending;
  int parts_written = 0;
  const auto copy_out_oldest = [&] {
    const Download d = pending.front();
    pending.pop_front();
    char* to = c.at(d.row0, d.col0);
    const std::size_t ld = static_cast<std::size_t>(c.ld);
    if (!finished(d.done)) touch_columns(to, ld * size, d.height * size, d.columns);  // page faults while waiting
    check(d.done.wait(), "clWaitForEvents");
    options.fail_if_injected(parts_written);
    ++parts_written;  // from here on C is no longer as it was
    timed(profile.copy_out, [&] {
      if (fold) {
        fold_columns(down.data(d.slot), d.height, to, ld, d.height, d.columns, p.beta);
      } else {
        copy_columns(down.data(d.slot), d.height * size, to, ld * size, d.height * size, d.columns, 1);
      }
    });
  };
  const auto download_block = [&](std::size_t row0, std::size_t row1, std::size_t col0, std::size_t col1,
                                  const cl::Event& product) {
    const std::size_t height = row1 - row0, per_slot = std::max<std::size_t>(1, slot_bytes / (height * size));
    const std::vector<cl::Event> after{product};
    for (std::size_t j = col0; j < col1; j += per_slot) {
      const std::size_t columns = std::min(per_slot, col1 - j);
      if (pending.size() == down.size()) copy_out_oldest();
      const std::size_t slot = down.take();
      cl::Event done;
      check(set->download.enqueueReadBufferRect(device_c.buffer(), CL_FALSE, {row0 * size, j, 0}, {0, 0, 0},
                                                {height * size, columns, 1}, m * size, 0, height * size, 0,
                                                down.data(slot), &after, &done),
            "clEnqueueReadBufferRect");
      check(set->download.flush(), "clFlush");  // started when its product ends, not when the drain waits for it
      down.used_by(slot, done);
      downloads.push_back(done);
      pending.push_back({slot, row0, height, j, columns, done});
    }
  };

  // The drain: blocks of C whose product is enqueued wait in `made` for a host thread of the call's own that downloads
  // and copies them into C, while this thread copies and uploads the panels of the next blocks, so that neither waits
  // for the other (where no thread can be started, this thread drains after each block). Only the drain touches the
  // download slots, `pending`, `downloads` and `parts_written` until it has ended.
  struct Made {
    std::size_t row0, row1, col0, col1;
    cl::Event product;
  };
  struct Drain {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Made> made;
    bool closed = false;   // no more blocks: copy out every one and end
    bool abandon = false;  // the product failed: end at once
    std::exception_ptr failure;
  } drain;
  // Downloads and copies out blocks until the drain is closed and all of C copied out (or it is abandoned); with
  // `until_idle`, only while blocks wait, copying out the downloads that have ended.
  const auto run_drain = [&](bool until_idle) {
    for (;;) {
      std::unique_lock<std::mutex> lock(drain.mutex);
      if (drain.abandon) return;
      if (drain.made.empty()) {
        if (until_idle) return;
        if (drain.closed) break;
        if (!pending.empty()) {  // nothing new yet: copy out what is downloading
          lock.unlock();
          copy_out_oldest();
          continue;
        }
        drain.changed.wait(lock, [&] { return drain.abandon || drain.closed || !drain.made.empty(); });
        continue;
      }
      const Made next = drain.made.front();
      drain.made.pop_front();
      lock.unlock();
      download_block(next.row0, next.row1, next.col0, next.col1, next.product);
      while (!pending.empty() && finished(pending.front().done)) copy_out_oldest();  // free slots, C done early
    }
    while (!pending.empty()) copy_out_oldest();
  };
  std::thread drainer;
  // Hands a block to the drain (rethrowing the drain's failure, after which nothing more is made).
  const auto hand_to_drain = [&](const Made& block) {
    {
      std::lock_guard<std::mutex> lock(drain.mutex);
      if (drain.failure) std::rethrow_exception(drain.failure);
      drain.made.push_back(block);
    }
    drain.changed.notify_one();
    if (!drainer.joinable()) run_drain(true);
  };
  // Ends the drain: with `abandon` at once, else once all of C is copied out; rethrows the drain's failure.
  const auto end_drain = [&](bool abandon) {
    {
      std::lock_guard<std::mutex> lock(drain.mutex);
      (abandon ? drain.abandon : drain.closed) = true;
    }
    drain.changed.notify_one();
    if (drainer.joinable()) {
      drainer.join();
    } else if (!abandon) {
      run_drain(false);
    }
    if (!abandon && drain.failure) std::rethrow_exception(drain.failure);
  };

  try {
    try {
      if (settings.drain_thread)
        drainer = std::thread([&] {
          try {
            run_drain(false);
          } catch (...) {
            std::lock_guard<std::mutex> lock(drain.mutex);
            drain.failure = std::current_exception();
          }
        });
    } catch (const std::system_error&) {  // no thread: this one drains
    }
    const std::vector<std::size_t> row_starts = block_starts(m, settings.block_side);
    const std::vector<std::size_t> col_starts = block_starts(n, settings.block_side);
    const auto end_of = [](const std::vector<std::size_t>& starts, std::size_t i, std::size_t length) {
      return i + 1 < starts.size() ? starts[i + 1] : length;
    };
    const std::vector<std::pair<std::size_t, std::size_t>> order = block_order(row_starts.size(), col_starts.size());
    // The first block is made in slices of K, each slice's product started once its part of A and B is up (the
    // slices after the first add to C, beta = 1).
    const std::size_t first_slices =
        sixteen_bit_c ? 1 : std::max<std::size_t>(1, k / std::max<std::size_t>(settings.first_block_depth, 1));
    const auto block_arguments = [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1, ScalarValue beta) {
      const std::size_t row0 = row_starts[i], row1 = end_of(row_starts, i, m);
      const std::size_t col0 = col_starts[j], col1 = end_of(col_starts, j, n);
      return GemmArguments{
          a.transposed ? Transpose::yes : Transpose::no,
          b.transposed ? Transpose::yes : Transpose::no,
          static_cast<long long>(row1 - row0),
          static_cast<long long>(col1 - col0),
          static_cast<long long>(k1 - k0),
          p.alpha,
          {device_a.buffer(), static_cast<long long>(a.transposed ? row0 * a_rows + k0 : k0 * a_rows + row0), lda},
          {device_b.buffer(), static_cast<long long>(b.transposed ? k0 * b_rows + col0 : col0 * b_rows + k0), ldb},
          beta,
          {device_c.buffer(), static_cast<long long>(col0 * m + row0), static_cast<long long>(m)}};
    };
    const auto block_problem = [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1, ScalarValue beta) {
      return check_arguments(call.context, block_arguments(i, j, k0, k1, beta));
    };
    // A block's product after `ready`: the float or double product, or the 16-bit one (widening, narrowing).
    const auto run_block = [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1, ScalarValue beta,
                               const std::vector<cl::Event>& ready) {
      if (!p.sixteen_bit) return run_gemm(compute, config, block_problem(i, j, k0, k1, beta), ready);
      return run_sixteen_bit(
          compute,
          check_sixteen_bit_arguments(call.context, block_arguments(i, j, k0, k1, beta), p.element, p.output, false),
          ready);
    };
    if (!p.sixteen_bit) {  // the programs of every distinct block shape, before any of C is written
      std::vector<GemmShape> shapes;
      const auto add = [&](const GemmShape& s) {
        for (const GemmShape& seen : shapes) {
          if (seen.m == s.m && seen.n == s.n && seen.k == s.k) return;
        }
        shapes.push_back(s);
      };
      for (std::size_t slice = 0; slice < first_slices; ++slice)
        add(block_problem(0, 0, k * slice / first_slices, k * (slice + 1) / first_slices, device_beta).shape);
      for (const auto& [i, j] : order) {
        if (i != 0 || j != 0 || first_slices == 1) add(block_problem(i, j, 0, k, device_beta).shape);
      }
      build_block_programs(compute, config, shapes, size);
    }
    std::vector<cl::Event> a_ready(row_starts.size()), b_ready(col_starts.size());
    for (const auto& [i, j] : order) {
      const std::size_t row0 = row_starts[i], row1 = end_of(row_starts, i, m);
      const std::size_t col0 = col_starts[j], col1 = end_of(col_starts, j, n);
      // This block of C: rows [row0, row1) of op(A) times columns [col0, col1) of op(B), on the dense device copies.
      const std::size_t slices = i == 0 && j == 0 ? first_slices : 1;
      if (profile.blocks == 0) profile.first_block_slices = static_cast<int>(slices);
      cl::Event product;
      for (std::size_t slice = 0; slice < slices; ++slice) {
        const std::size_t k0 = k * slice / slices, k1 = k * (slice + 1) / slices;
        if (slices > 1) {  // rows [row0, row1) of op(A) and columns [col0, col1) of op(B) over k0 <= k < k1
          a_ready[i] = a.transposed ? upload_block(a.data, a.size, a.ld, a_rows, k0, k1, row0, row1, device_a.buffer())
                                    : upload_block(a.data, a.size, a.ld, a_rows, row0, row1, k0, k1, device_a.buffer());
          b_ready[j] = b.transposed ? upload_block(b.data, b.size, b.ld, b_rows, col0, col1, k0, k1, device_b.buffer())
                                    : upload_block(b.data, b.size, b.ld, b_rows, k0, k1, col0, col1, device_b.buffer());
        } else {
          if (a_ready[i]() == nullptr) a_ready[i] = upload_op_rows(a, row0, row1, device_a.buffer());
          if (b_ready[j]() == nullptr) b_ready[j] = upload_op_cols(b, col0, col1, device_b.buffer());
        }
        std::vector<cl::Event> ready{a_ready[i], b_ready[j]};
        if (slice == 0 && device_beta.value != 0)
          ready.push_back(upload_block(c.data, size, c.ld, m, row0, row1, col0, col1, device_c.buffer()));
        product = run_block(i, j, k0, k1, slice == 0 ? device_beta : one, ready);
        check(set->compute.flush(), "clFlush");  // the drain's downloads wait for it from another queue
        products.push_back(product);
      }
      hand_to_drain({row0, row1, col0, col1, product});
      ++profile.blocks;
    }
    end_drain(false);
  } catch (...) {
    end_drain(true);
    for (cl::CommandQueue* queue : {&set->upload, &set->compute, &set->download}) queue->finish();
    if (parts_written > 0) rethrow_as_partial_write();
    throw;
  }
  try {  // C is written: failing to keep the buffers and slots for the next call only loses them
    withdrawn.now();
    for (ScratchBuffer* used : {&device_a, &device_b, &device_c}) used->give_back_after(cl::Event());
    Staging::instance().give_back(call, std::move(set));
  } catch (...) {
  }
  for (const cl::Event& e : uploads) profile.upload += event_ms(e);
  for (const cl::Event& e : products) profile.product += event_ms(e);
  for (const cl::Event& e : downloads) profile.download += event_ms(e);
  profile.wall = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  last_host_call_profile() = profile;
}
#endif

}  // namespace tilegemm::detail
