// blas/call_log: TILEGEMM_BLAS_LOG=stderr|FILE, one line per ?gemm call, and the messages said once per process.
#pragma once

#include <atomic>
#include <string>

namespace tilegemm::detail::blas {

// A call as its caller made it (before CBLAS's row-major mapping), for the log.
struct CallLabel {
  const char* routine;  // "sgemm_", "cblas_dgemm", ...
  const char* order;    // "col" or "row"
  char trans_a;         // the letters as given ('N', 't', ...; '?' for a CBLAS value that is none)
  char trans_b;
  int m, n, k;
};

// Writes the call's line where TILEGEMM_BLAS_LOG says (nothing when it is unset):
//   tilegemm-blas: cblas_sgemm row NT m=512 n=512 k=64 gpu model 1.234 ms
// (routine, order, the two transposes, sizes as called, gpu or cpu, why, milliseconds).
void log_call(const CallLabel& label, bool on_gpu, const char* why, double milliseconds);

// Writes `line` (without its newline) to stderr and to a log file, the first time only for each `said`.
void say_once(std::atomic<bool>& said, const std::string& line);

}  // namespace tilegemm::detail::blas
