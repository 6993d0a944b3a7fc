// blas/dispatch: the messages of calls that fail on the GPU.
#include "dispatch.hpp"

#include <atomic>

namespace tilegemm::detail::blas {

namespace {
std::atomic<bool> said_fallback{false};
}

void stop(const CallLabel& label, const std::string& reason) {
  std::fprintf(stderr, "tilegemm-blas: %s m=%d n=%d k=%d: %s; stopping the process rather than return a wrong C\n",
               label.routine, label.m, label.n, label.k, reason.c_str());
  std::abort();
}

void say_invalid(const CallLabel& label) {
  std::fprintf(stderr,
               "tilegemm-blas: %s %c%c m=%d n=%d k=%d: an argument is invalid (see the reference BLAS's rules); "
               "no CPU BLAS is loaded to report which, C is unchanged\n",
               label.routine, label.trans_a, label.trans_b, label.m, label.n, label.k);
}

void say_fallback(const CallLabel& label, const std::string& failure) {
  // One line: tilegemm's first line names the failure (and, for a refused build, the file holding the whole text).
  const std::string first_line = failure.substr(0, failure.find('\n'));
  say_once(said_fallback, std::string("tilegemm-blas: ") + label.routine + " m=" + std::to_string(label.m) +
                              " n=" + std::to_string(label.n) + " k=" + std::to_string(label.k) +
                              " failed on the GPU (" + first_line +
                              "); redone on the CPU BLAS, as are later failures (said once; counted in "
                              "tilegemm_blas_stats().fallbacks, logged with TILEGEMM_BLAS_LOG)");
}

}  // namespace tilegemm::detail::blas
