// store_after_run: PoCL's programs, held until a kernel of them has run and no kernel runs, then handed to the disk
// cache; and the gate that holds PoCL's launches back while their binaries are asked for.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// Why PoCL alone: PoCL compiles a kernel for its work-group size only when it first runs, and puts that code in the
// program's binary only when asked for it after the run (and only the first time): a binary asked for right after the
// build makes a cache file that compiles again when loaded. And asking PoCL for a binary also compiles each kernel
// anew and puts it into its table of loaded kernels, where a kernel of the same program that finishes meanwhile
// releases the wrong entry (an assertion in PoCL 3.1): so binaries are asked for only while no PoCL kernel runs, with
// PoCL's launches held back meanwhile. Other platforms store a program right after its build and launch freely.
//
// A held program is stored when gpu_gemm has its result (DiskCache::store_ran), before a later launch that finds
// every earlier one finished, or when its context is let go of while no kernel runs, whichever comes first. Never at
// exit: the driver's own static objects may be gone by then (PoCL's compiler crashed there). Launches are noted only
// while some program is held: a kernel of the same program text launched in another context before this one was
// compiled, and still running when this one is stored, is the one case not covered.
class StoreAfterRun {
 public:
  // A program compiled in this process, waiting to be stored under `key`.
  struct Held {
    cl::Program program;
    cl::Device device;
    cl_context context = nullptr;  // the program's (which holds it)
    std::string key;
    bool ran = false;  // whether one of its kernels has been launched
  };

  // The process-wide one (leaked on purpose, like the queues: no OpenCL calls from static destructors).
  static StoreAfterRun& instance();

  // Whether programs for `device` are stored after their first run: on PoCL only.
  static bool needed(const cl::Device& device) {
    cl_platform_id platform = nullptr;
    if (clGetDeviceInfo(device(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS) return false;
    char name[64] = {};
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr) != CL_SUCCESS) return false;
    return std::string(name) == "Portable Computing Language";
  }

  void hold(Held held) {
    std::lock_guard<std::mutex> lock(mutex_);
    held_.push_back(std::move(held));
    held_count_ = held_.size();
  }

  // Every launch of a PoCL kernel holds this from before its enqueue until launched() has noted it, so that no launch
  // starts while a binary is asked for.
  std::shared_lock<std::shared_mutex> launching() { return std::shared_lock<std::shared_mutex>(gate_); }

  // Notes a launch of `kernel` (`done` is its event) while some program is held; called holding launching().
  void launched(const cl::Kernel& kernel, const cl::Event& done) noexcept {
    if (held_count_.load() == 0) return;
    try {
      cl_program program = nullptr;
      if (clGetKernelInfo(kernel(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr) != CL_SUCCESS) return;
      cl::Event event = done;  // retained here, not under the lock: no driver calls under it
      std::lock_guard<std::mutex> lock(mutex_);
      running_.push_back(std::move(event));
      for (Held& held : held_) {
        if (held.program() == program && !held.ran) {
          held.ran = true;
          ++ran_count_;
        }
      }
    } catch (...) {
      // Out of memory for the lists: the launch itself succeeded, and the program is compiled again next time.
    }
  }

  // Whether some held program has run (read without a lock: a hint for DiskCache::store_ran).
  bool any_ran() const { return ran_count_.load() > 0; }

  // Takes the held programs `which` picks, when no noted launch still runs, and returns what `binary` makes of each
  // (called holding the gate, so that no launch starts meanwhile) with its key. While launches still run: with `keep`
  // the programs picked stay held, without they are dropped (unstored).
  template <class Which, class Binary>
  std::vector<std::pair<std::string, std::vector<unsigned char>>> take_when_idle(Which&& which, bool keep,
                                                                                 Binary&& binary) {
    std::vector<std::pair<std::string, std::vector<unsigned char>>> binaries;
    std::vector<Held> picked;  // released after the locks are let go
    std::unique_lock<std::shared_mutex> gate(gate_);
    std::vector<cl::Event> running;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running.swap(running_);
    }
    running.erase(std::remove_if(running.begin(), running.end(), finished), running.end());
    const bool idle = running.empty();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_.insert(running_.end(), std::make_move_iterator(running.begin()), std::make_move_iterator(running.end()));
      if (!idle && keep) return binaries;
      // A loop rather than std::stable_partition, whose adaptive code every header-only file would compile again.
      std::vector<Held> kept;
      kept.reserve(held_.size());
      picked.reserve(held_.size());  // no reallocation below: the moves cannot throw
      for (Held& held : held_) (which(held) ? picked : kept).push_back(std::move(held));
      held_.swap(kept);
      held_count_ = held_.size();
      ran_count_ = static_cast<std::size_t>(
          std::count_if(held_.begin(), held_.end(), [](const Held& held) { return held.ran; }));
      if (held_.empty()) running_.clear();  // nothing waits for them any more
    }
    if (!idle) return binaries;  // dropped
    for (const Held& held : picked) {
      if (std::optional<std::vector<unsigned char>> bytes = binary(held.program, held.device, held.key)) {
        binaries.emplace_back(held.key, std::move(*bytes));
      }
    }
    return binaries;
  }

 private:
  static bool finished(const cl::Event& event) {
    cl_int status = CL_QUEUED;
    const cl_int query = clGetEventInfo(event(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    return query != CL_SUCCESS || status <= CL_COMPLETE;  // complete, or failed (a negative code): it will not run
  }

  std::shared_mutex gate_;  // shared by PoCL's launches, exclusive while binaries are asked for
  std::mutex mutex_;        // the members below
  std::vector<Held> held_;
  std::vector<cl::Event> running_;          // launches noted while programs are held, not yet seen done
  std::atomic<std::size_t> held_count_{0};  // held_.size(), read without the lock
  std::atomic<std::size_t> ran_count_{0};   // how many of held_ have run
};

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY StoreAfterRun& StoreAfterRun::instance() {
  static auto* held = new StoreAfterRun;
  return *held;
}
#endif

}  // namespace tilegemm::detail
