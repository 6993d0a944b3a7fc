// blas/offload_mode: the mode in force, from the environment or the control API, and tilegemm's version string.
#include "offload_mode.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tilegemm/config/version.hpp>

#include "exports.hpp"

namespace tilegemm::detail::blas {

namespace {

constexpr int unset = -1;
std::atomic<int> mode{unset};  // constant-initialised: nothing runs before the first call

int from_environment() {
  const char* value = std::getenv("TILEGEMM_BLAS_OFFLOAD");
  if (value == nullptr || *value == '\0') return TILEGEMM_BLAS_AUTO;
  const std::string text = value;
  if (text == "never") return TILEGEMM_BLAS_NEVER;
  if (text == "auto") return TILEGEMM_BLAS_AUTO;
  if (text == "always") return TILEGEMM_BLAS_ALWAYS;
  std::fprintf(stderr, "tilegemm-blas: TILEGEMM_BLAS_OFFLOAD=%s is not never, auto or always; using auto\n", value);
  return TILEGEMM_BLAS_AUTO;
}

}  // namespace

tilegemm_blas_offload offload_mode() {
  int now = mode.load(std::memory_order_relaxed);
  if (now == unset) {
    int expected = unset;
    mode.compare_exchange_strong(expected, from_environment());  // a set_offload in between wins
    now = mode.load();
  }
  return static_cast<tilegemm_blas_offload>(now);
}

}  // namespace tilegemm::detail::blas

extern "C" TILEGEMM_BLAS_EXPORT tilegemm_blas_offload tilegemm_blas_get_offload(void) {
  return tilegemm::detail::blas::offload_mode();
}

extern "C" TILEGEMM_BLAS_EXPORT int tilegemm_blas_set_offload(tilegemm_blas_offload value) {
  const int as_int = static_cast<int>(value);
  if (as_int != TILEGEMM_BLAS_NEVER && as_int != TILEGEMM_BLAS_AUTO && as_int != TILEGEMM_BLAS_ALWAYS) return -1;
  tilegemm::detail::blas::mode.store(as_int);
  return 0;
}

extern "C" TILEGEMM_BLAS_EXPORT const char* tilegemm_blas_version(void) { return tilegemm::library_version; }
