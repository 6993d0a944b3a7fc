// runtime/staging: what the staged host path keeps per context and device: three queues whose commands overlap
// (uploads, products, downloads) and pinned host memory, mapped once, that uploads read and downloads write at the
// bus's speed (pageable memory reaches a fraction of it).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "call_context.hpp"
#include "error.hpp"
#include "kept_contexts.hpp"
#include "opencl.hpp"

namespace tilegemm::detail {

// A pinned host area: a buffer allocated in host memory the device can reach (CL_MEM_ALLOC_HOST_PTR), mapped for
// the life of the area; copies from and to `data` run as DMA. Unmapped when the last holder lets go.
class PinnedArea {
 public:
  PinnedArea(const CallContext& call, const cl::CommandQueue& queue, std::size_t bytes) : queue_(queue), bytes_(bytes) {
    cl_int status = CL_SUCCESS;
    buffer_ = cl::Buffer(call.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
    check(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    data_ = static_cast<char*>(
        queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, &status));
    check(status, "clEnqueueMapBuffer");
  }
  ~PinnedArea() {
    if (data_ == nullptr) return;
    cl::Event unmapped;
    if (queue_.enqueueUnmapMemObject(buffer_, data_, nullptr, &unmapped) == CL_SUCCESS) unmapped.wait();
  }
  PinnedArea(const PinnedArea&) = delete;
  PinnedArea& operator=(const PinnedArea&) = delete;

  char* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The staged path's queues (in order each, with profiling, so that the call can report where its time went) and
// its pinned slots: a ring for uploads and one for downloads, each slot `slot_bytes` or larger.
struct StagingSet {
  cl::CommandQueue upload;
  cl::CommandQueue compute;
  cl::CommandQueue download;
  std::vector<std::shared_ptr<PinnedArea>> upload_slots;
  std::vector<std::shared_ptr<PinnedArea>> download_slots;
};

class Staging final : public ContextResources {
 public:
  static constexpr std::size_t slots_per_ring = 3;

  static Staging& instance() { return process_holder<Staging>(); }

  // The call's set, lent to it alone (one call at a time uses a set; another call at the same time gets a set of
  // its own, not kept afterwards), with slots of at least `slot_bytes`.
  std::shared_ptr<StagingSet> take(const CallContext& call, std::size_t slot_bytes) {
    KeptContexts::instance().use(call.context);
    const Key key{call.context(), call.device()};
    std::shared_ptr<StagingSet> set;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = idle_.find(key);
      if (found != idle_.end()) {
        set = std::move(found->second);
        idle_.erase(found);
      }
    }
    if (!set) set = new_set(call);
    for (auto* ring : {&set->upload_slots, &set->download_slots}) {
      if (!ring->empty() && ring->front()->bytes() >= slot_bytes) continue;
      ring->clear();  // too small: new, larger slots
      for (std::size_t i = 0; i < slots_per_ring; ++i) {
        ring->push_back(std::make_shared<PinnedArea>(call, set->upload, slot_bytes));
      }
    }
    return set;
  }

  // Hands a set back once its commands have ended, to be kept while its context is.
  void give_back(const CallContext& call, std::shared_ptr<StagingSet> set) {
    std::shared_ptr<StagingSet> dropped;  // freed after the lock is let go
    std::lock_guard<std::mutex> lock(mutex_);
    if (!KeptContexts::instance().keeps(call.context())) return;
    auto& slot = idle_[Key{call.context(), call.device()}];
    dropped = std::move(slot);
    slot = std::move(set);
  }

  void release(cl_context context) override {
    std::vector<std::shared_ptr<StagingSet>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto entry = idle_.begin(); entry != idle_.end();) {
      if (entry->first.first == context) {
        dropped.push_back(std::move(entry->second));
        entry = idle_.erase(entry);
      } else {
        ++entry;
      }
    }
  }
  void release_all() override {
    std::map<Key, std::shared_ptr<StagingSet>> dropped;
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(idle_);
  }

  // The pinned bytes kept now, for tests and diagnostics.
  std::size_t pinned_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t bytes = 0;
    for (const auto& entry : idle_) {
      for (const auto* ring : {&entry.second->upload_slots, &entry.second->download_slots}) {
        for (const auto& slot : *ring) bytes += slot->bytes();
      }
    }
    return bytes;
  }

 private:
  using Key = std::pair<cl_context, cl_device_id>;

  static std::shared_ptr<StagingSet> new_set(const CallContext& call) {
    auto set = std::make_shared<StagingSet>();
    for (cl::CommandQueue* queue : {&set->upload, &set->compute, &set->download}) {
      cl_int status = CL_SUCCESS;
      *queue = cl::CommandQueue(call.context, call.device, CL_QUEUE_PROFILING_ENABLE, &status);
      check(status, "clCreateCommandQueue");
    }
    return set;
  }

  std::mutex mutex_;
  std::map<Key, std::shared_ptr<StagingSet>> idle_;
};

}  // namespace tilegemm::detail
