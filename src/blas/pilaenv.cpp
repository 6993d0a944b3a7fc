// blas/pilaenv: ScaLAPACK's pilaenv_, the width of the panels PBLAS (pdgemm_, ...) multiplies in, from
// TILEGEMM_PILAENV, else the CPU library's.
#include "pilaenv.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "call_log.hpp"
#include "exports.hpp"

extern "C" TILEGEMM_BLAS_EXPORT int pilaenv_(const int* ictxt, const char* prec) noexcept;

// The reference returns 32: pdgemm_ then makes one local dgemm_ of k = 32 per panel, each moving the local C across
// the bus both ways for few flops, which no GPU can win. With TILEGEMM_PILAENV=128 or more, one local call carries a
// whole panel. Debian's libscalapack calls pilaenv_ through its PLT, so the definition of a library loaded before it
// (this one, preloaded or linked first) takes every call.

namespace tilegemm::detail::blas {

namespace {

// ScaLAPACK's Fortran INTEGER FUNCTION PILAENV(ICTXT, PREC), PREC a CHARACTER*1: PBLAS's C calls it without the
// hidden length a Fortran caller would pass, so neither side reads one.
using Pilaenv = int (*)(const int* ictxt, const char* prec);

// The reference's answer, where no library after this one defines pilaenv_.
constexpr int reference_width = 32;

Pilaenv next_pilaenv() {
  void* symbol = dlsym(RTLD_NEXT, "pilaenv_");
  return symbol == reinterpret_cast<void*>(&pilaenv_) ? nullptr : reinterpret_cast<Pilaenv>(symbol);
}

std::atomic<bool> said_bad_value{false};

}  // namespace

// TILEGEMM_PILAENV's width (read once: PBLAS asks on every call, and every rank must get the same answer all run
// long), or 0 to ask the CPU library.
int pilaenv_override() {
  static const int width = [] {
    std::string problem;
    const std::optional<int> value = pilaenv_from(std::getenv("TILEGEMM_PILAENV"), problem);
    if (!problem.empty()) say_once(said_bad_value, problem);
    return value.value_or(0);
  }();
  return width;
}

}  // namespace tilegemm::detail::blas

extern "C" TILEGEMM_BLAS_EXPORT int pilaenv_(const int* ictxt, const char* prec) noexcept {
  using namespace tilegemm::detail::blas;
  if (const int width = pilaenv_override(); width > 0) return width;
  static const Pilaenv next = next_pilaenv();
  return next != nullptr ? next(ictxt, prec) : reference_width;
}
