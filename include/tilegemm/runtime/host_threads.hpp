// runtime/host_threads: a few host threads, started once, that copy large matrices between user memory and pinned
// staging memory in parallel (one thread copies at a fraction of the host's memory bandwidth).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilegemm::detail {

class HostThreads {
 public:
  // Leaked on purpose, like the queues: its threads live as long as the process.
  static HostThreads& instance() {
    static auto* threads = new HostThreads(thread_count());
    return *threads;
  }

  // TILEGEMM_HOST_THREADS when set (1 to 64), else the hardware's threads up to 16 (on the H200 machine's 16 cores,
  // 16 threads made a 4096 host call 5% faster than 8).
  static unsigned thread_count() {
    if (const char* text = std::getenv("TILEGEMM_HOST_THREADS")) {
      const long wanted = std::strtol(text, nullptr, 10);
      if (wanted >= 1 && wanted <= 64) return static_cast<unsigned>(wanted);
    }
    return std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 16);
  }

  std::size_t count() const { return workers_.size() + 1; }  // the calling thread takes a part too

  // Runs part(i) for i in [0, parts) on the pool and the calling thread; returns when all have run, rethrowing the
  // first exception. Calls from several threads (one per device of a product over several) run at once: the workers
  // take parts from the oldest job with parts left, and each caller works on its own job, so none waits for another's.
  void run(std::size_t parts, const std::function<void(std::size_t)>& part) {
    if (parts == 0) return;
    Job job(&part, parts);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      waiting_.push_back(&job);
    }
    wake_.notify_all();
    for (;;) {  // the caller's own parts, while any is left
      std::unique_lock<std::mutex> lock(mutex_);
      if (job.next >= job.parts) break;
      const std::size_t index = take(job);
      lock.unlock();
      run_part(job, index);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return job.unfinished == 0; });
    if (job.failure) std::rethrow_exception(job.failure);
  }

 private:
  // One call of run(): its parts, the next one to hand out, those not finished, the first failure.
  struct Job {
    Job(const std::function<void(std::size_t)>* part_, std::size_t parts_)
        : part(part_), parts(parts_), unfinished(parts_) {}
    const std::function<void(std::size_t)>* part;
    std::size_t parts;
    std::size_t next = 0;
    std::size_t unfinished;
    std::exception_ptr failure;
  };

  explicit HostThreads(unsigned threads) {
    for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { serve(); });
    for (std::thread& worker : workers_) worker.detach();
  }

  // The next part of `job` (under mutex_); a job whose last part is handed out leaves the waiting list.
  std::size_t take(Job& job) {
    const std::size_t index = job.next++;
    if (job.next == job.parts) waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &job));
    return index;
  }

  void run_part(Job& job, std::size_t index) {
    std::exception_ptr failure;
    try {
      (*job.part)(index);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure && !job.failure) job.failure = failure;
    if (--job.unfinished == 0) done_.notify_all();
  }

  // A worker: parts of the oldest waiting job, for ever.
  void serve() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return !waiting_.empty(); });
      Job& job = *waiting_.front();
      const std::size_t index = take(job);
      lock.unlock();
      run_part(job, index);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<Job*> waiting_;  // jobs with parts not yet handed out, oldest first
  std::vector<std::thread> workers_;
};

// Copies `columns` columns of `rows` elements of `size` bytes each, from `from` (leading dimension from_ld) to `to`
// (to_ld), on the host threads in stretches of whole columns (or of one column, for a single long one).
inline void copy_columns(const char* from, std::size_t from_ld, char* to, std::size_t to_ld, std::size_t rows,
                         std::size_t columns, std::size_t size) {
  HostThreads& threads = HostThreads::instance();
  const std::size_t bytes = rows * columns * size;
  const std::size_t parts = std::clamp<std::size_t>(bytes / (1 << 20), 1, threads.count() * 2);
  if (columns == 1 || (from_ld == rows && to_ld == rows)) {  // one contiguous stretch: split it by bytes
    const std::size_t piece = (bytes + parts - 1) / parts;
    threads.run(parts, [&](std::size_t i) {
      const std::size_t begin = std::min(bytes, i * piece), end = std::min(bytes, begin + piece);
      std::copy(from + begin, from + end, to + begin);
    });
    return;
  }
  const std::size_t per_part = (columns + parts - 1) / parts;
  threads.run(parts, [&](std::size_t i) {
    const std::size_t first = std::min(columns, i * per_part), last = std::min(columns, first + per_part);
    for (std::size_t j = first; j < last; ++j) {
      std::copy(from + j * from_ld * size, from + (j * from_ld + rows) * size, to + j * to_ld * size);
    }
  });
}

// Writes the first byte of each page of `columns` columns of `bytes` bytes (leading dimension `ld` bytes) back
// unchanged, on the host threads: the pages of memory nothing has written yet get mapped now (while the caller would
// otherwise wait) rather than during a later copy into them. Only for memory no other thread uses meanwhile.
inline void touch_columns(char* to, std::size_t ld, std::size_t bytes, std::size_t columns) {
  constexpr std::size_t page = 4096;
  HostThreads& threads = HostThreads::instance();
  const std::size_t parts = std::min(columns, threads.count() * 2), per_part = (columns + parts - 1) / parts;
  threads.run(parts, [&](std::size_t i) {
    for (std::size_t j = i * per_part; j < std::min(columns, (i + 1) * per_part); ++j) {
      volatile char* column = to + j * ld;
      const std::size_t into_page = reinterpret_cast<std::uintptr_t>(to + j * ld) % page;
      for (std::size_t at = 0; at < bytes; at = ((at + into_page) / page + 1) * page - into_page)
        column[at] = column[at];
    }
  });
}

}  // namespace tilegemm::detail
