// blas/call_log: the per-call log (TILEGEMM_BLAS_LOG), opened at the first call, written one whole line at a time.
#include "call_log.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tilegemm::detail::blas {

namespace {

struct Log {
  std::FILE* file = nullptr;  // stderr, a file opened for appending, or null: no log
  bool is_stderr = false;
  std::mutex mutex;  // one line at a time from any thread
};

Log& the_log() {
  static Log* log = [] {  // leaked on purpose: calls may log from static destructors of other libraries
    auto* opened = new Log;
    const char* where = std::getenv("TILEGEMM_BLAS_LOG");
    if (where == nullptr || *where == '\0') return opened;
    if (std::strcmp(where, "stderr") == 0) {
      opened->file = stderr;
      opened->is_stderr = true;
    } else {
      opened->file = std::fopen(where, "a");
      if (opened->file == nullptr) {
        std::fprintf(stderr, "tilegemm-blas: TILEGEMM_BLAS_LOG=%s cannot be opened for appending (%s); no log\n", where,
                     std::strerror(errno));
      }
    }
    return opened;
  }();
  return *log;
}

}  // namespace

void log_call(const CallLabel& label, bool on_gpu, const char* why, double milliseconds) {
  Log& log = the_log();
  if (log.file == nullptr) return;
  char line[256];
  std::snprintf(line, sizeof line, "tilegemm-blas: %s %s %c%c m=%d n=%d k=%d %s %s %.3f ms\n", label.routine,
                label.order, label.trans_a, label.trans_b, label.m, label.n, label.k, on_gpu ? "gpu" : "cpu", why,
                milliseconds);
  std::lock_guard<std::mutex> lock(log.mutex);
  std::fputs(line, log.file);
  std::fflush(log.file);
}

void say_once(std::atomic<bool>& said, const std::string& line) {
  if (said.exchange(true)) return;
  std::fprintf(stderr, "%s\n", line.c_str());
  Log& log = the_log();
  if (log.file == nullptr || log.is_stderr) return;
  std::lock_guard<std::mutex> lock(log.mutex);
  std::fprintf(log.file, "%s\n", line.c_str());
  std::fflush(log.file);
}

}  // namespace tilegemm::detail::blas
