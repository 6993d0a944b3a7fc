// blas/cpu_blas: finding the CPU BLAS (RTLD_NEXT, else TILEGEMM_BLAS_FALLBACK, libopenblas.so.0, libblas.so.3) and
// the thread's forwarding guard.
#include "cpu_blas.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "exports.hpp"

namespace tilegemm::detail::blas {

namespace {

thread_local bool forwarding = false;

// Whether `symbol` is one of ours (a library opened by name may be this one, or resolve to it).
bool is_ours(void* symbol) {
  return symbol == reinterpret_cast<void*>(&sgemm_) || symbol == reinterpret_cast<void*>(&dgemm_) ||
         symbol == reinterpret_cast<void*>(&cblas_sgemm) || symbol == reinterpret_cast<void*>(&cblas_dgemm);
}

template <class Function>
Function symbol_in(void* handle, const char* name) {
  void* symbol = dlsym(handle, name);
  return is_ours(symbol) ? nullptr : reinterpret_cast<Function>(symbol);
}

// Fills `cpu` from `handle` (RTLD_NEXT or a dlopen handle); true when both Fortran routines are there.
bool take_from(void* handle, CpuBlas& cpu) {
  cpu.sgemm = symbol_in<FortranGemm<float>>(handle, "sgemm_");
  cpu.dgemm = symbol_in<FortranGemm<double>>(handle, "dgemm_");
  if (cpu.sgemm == nullptr || cpu.dgemm == nullptr) return false;
  cpu.cblas_sgemm = symbol_in<CblasGemm<float>>(handle, "cblas_sgemm");
  cpu.cblas_dgemm = symbol_in<CblasGemm<double>>(handle, "cblas_dgemm");
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(cpu.sgemm), &info) != 0 && info.dli_fname != nullptr) cpu.file = info.dli_fname;
  return true;
}

CpuBlas* find_cpu_blas() {
  auto* cpu = new CpuBlas;  // leaked on purpose: read by any thread until the process ends
  if (take_from(RTLD_NEXT, *cpu)) {
    cpu->library = "RTLD_NEXT";
    return cpu;
  }
  std::vector<std::string> names;
  const char* named = std::getenv("TILEGEMM_BLAS_FALLBACK");
  if (named != nullptr && *named != '\0') names.emplace_back(named);
  names.emplace_back("libopenblas.so.0");
  names.emplace_back("libblas.so.3");
  for (const std::string& name : names) {
    // RTLD_LOCAL: its symbols must not take the place of ours for the rest of the process.
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr && take_from(handle, *cpu)) {
      cpu->library = name;
      return cpu;
    }
    if (named != nullptr && name == named) {
      std::fprintf(stderr, "tilegemm-blas: TILEGEMM_BLAS_FALLBACK=%s has no sgemm_ and dgemm_ (%s); trying %s\n", named,
                   handle == nullptr ? dlerror() : "not in the library", "libopenblas.so.0, libblas.so.3");
    }
    if (handle != nullptr) dlclose(handle);
  }
  std::fprintf(stderr,
               "tilegemm-blas: no CPU BLAS found (no sgemm_ after this library, none in TILEGEMM_BLAS_FALLBACK, "
               "libopenblas.so.0 or libblas.so.3): every ?gemm call runs on tilegemm\n");
  delete cpu;
  return nullptr;
}

std::once_flag found_flag;
std::atomic<const CpuBlas*> found{nullptr};

}  // namespace

const CpuBlas* cpu_blas() {
  std::call_once(found_flag, [] { found.store(find_cpu_blas()); });
  return found.load(std::memory_order_acquire);
}

const CpuBlas* cpu_blas_if_found() { return found.load(std::memory_order_acquire); }

bool forwarding_now() { return forwarding; }
ForwardingScope::ForwardingScope() : was_(forwarding) { forwarding = true; }
ForwardingScope::~ForwardingScope() { forwarding = was_; }

}  // namespace tilegemm::detail::blas

// Reading it never opens a library: empty until the first call has looked.
extern "C" TILEGEMM_BLAS_EXPORT const char* tilegemm_blas_cpu_library(void) {
  const tilegemm::detail::blas::CpuBlas* cpu = tilegemm::detail::blas::cpu_blas_if_found();
  return cpu != nullptr ? cpu->library.c_str() : "";
}
