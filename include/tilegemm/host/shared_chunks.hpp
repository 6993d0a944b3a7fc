// host/shared_chunks: in a product over several devices, each piece of A and B that two devices upload is copied into
// pinned memory once: the second device uploads it from the first one's pinned slot, since the host's memory, not the
// devices, bounds such products (every device can read pinned memory mapped in another's context at the bus's speed).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"

namespace tilegemm::detail {

class SharedChunks {
 public:
  // A piece of the caller's memory as a staged upload copies it: `columns` columns of `column_bytes` bytes from
  // `from`, `stride` bytes apart, packed into a slot. The same piece has the same content wherever it is asked for.
  struct Piece {
    const char* from = nullptr;
    std::size_t column_bytes = 0, columns = 0, stride = 0;
    bool operator==(const Piece& other) const {
      return from == other.from && column_bytes == other.column_bytes && columns == other.columns &&
             stride == other.stride;
    }
  };

 private:
  // A piece some device copies (`data` null until it is in that device's slot) or has copied into its slot, and the
  // uploads other devices made from that slot.
  struct Entry {
    Piece piece;
    const char* data = nullptr;
    int borrowers = 0;  // devices that hold `data` and have not yet said which upload reads it
    std::vector<cl::Event> reads;
  };

 public:
  // One device's use of one piece: either borrowed (borrowed() is another device's slot holding it: upload from
  // there, then returned()) or claimed (copy it into an own slot, then filled(slot)); with neither (no sharing, or the
  // piece was given up by the device that claimed it) the device copies it alone.
  class Use {
   public:
    Use() = default;
    Use(Use&& other) noexcept { *this = std::move(other); }
    Use& operator=(Use&& other) noexcept {
      std::swap(owner_, other.owner_);
      std::swap(entry_, other.entry_);
      std::swap(borrowed_, other.borrowed_);
      return *this;
    }
    ~Use() {  // a claim never filled is given up (others then copy the piece themselves); a borrow reads nothing
      if (!entry_) return;
      if (borrowed_) {
        owner_->returned(entry_, cl::Event());
      } else {
        owner_->give_up(entry_);
      }
    }
    const char* borrowed() const { return borrowed_ ? entry_->data : nullptr; }
    // The upload that reads the borrowed slot (the slot's owner waits for it before taking the slot again).
    void returned(const cl::Event& upload) {
      if (!entry_ || !borrowed_) return;
      owner_->returned(entry_, upload);
      entry_.reset();
    }
    // The claimed piece is now in `slot` (no-op without a claim).
    void filled(const char* slot) {
      if (!entry_ || borrowed_) return;
      owner_->filled(entry_, slot);
      entry_.reset();
    }

   private:
    friend class SharedChunks;
    SharedChunks* owner_ = nullptr;
    std::shared_ptr<Entry> entry_;
    bool borrowed_ = false;
  };

  // The piece from another device's slot (waiting while that device copies it), else a claim on it.
  Use use(const Piece& piece) {
    Use use;
    use.owner_ = this;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      std::shared_ptr<Entry> found;
      for (const std::shared_ptr<Entry>& entry : entries_) {
        if (entry->piece == piece) found = entry;
      }
      if (!found) {
        use.entry_ = std::make_shared<Entry>();
        use.entry_->piece = piece;
        entries_.push_back(use.entry_);
        return use;
      }
      if (found->data != nullptr) {
        ++found->borrowers;
        use.entry_ = found;
        use.borrowed_ = true;
        ++pieces_borrowed_;
        return use;
      }
      changed_.wait(lock);  // copied now by another device; or given up, then claimed here on the next turn
    }
  }

  // Before a device takes its slot `slot` again: no device borrows what it held from now, and the uploads that
  // borrowed it have ended.
  void withdraw(const char* slot) {
    std::vector<cl::Event> reads;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (std::size_t i = 0; i < entries_.size();) {
        const std::shared_ptr<Entry> entry = entries_[i];
        if (entry->data != slot) {
          ++i;
          continue;
        }
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        changed_.wait(lock, [&] { return entry->borrowers == 0; });  // they are enqueueing their uploads
        reads.insert(reads.end(), entry->reads.begin(), entry->reads.end());
        i = 0;
      }
    }
    for (cl::Event& read : reads) check(read.wait(), "clWaitForEvents");
  }

  // Pieces that were uploaded from another device's slot rather than copied again.
  std::size_t pieces_borrowed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pieces_borrowed_;
  }

 private:
  void filled(const std::shared_ptr<Entry>& entry, const char* slot) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      entry->data = slot;
    }
    changed_.notify_all();
  }
  void give_up(const std::shared_ptr<Entry>& entry) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = std::find(entries_.begin(), entries_.end(), entry);
      if (found != entries_.end()) entries_.erase(found);
    }
    changed_.notify_all();
  }
  void returned(const std::shared_ptr<Entry>& entry, const cl::Event& upload) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (upload() != nullptr) entry->reads.push_back(upload);
      --entry->borrowers;
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<Entry>> entries_;  // a few a device: those its slots hold and its claims
  std::size_t pieces_borrowed_ = 0;
};

}  // namespace tilegemm::detail
