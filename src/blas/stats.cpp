// blas/stats: the counts behind tilegemm_blas_stats() and tilegemm_blas_reset_stats().
#include "stats.hpp"

#include <atomic>
#include <initializer_list>

#include "exports.hpp"

namespace tilegemm::detail::blas {

namespace {

// Constant-initialised: loading the library runs no code.
std::atomic<unsigned long long> calls{0}, gpu_calls{0}, cpu_calls{0}, fallbacks{0};
std::atomic<double> gpu_flops{0}, cpu_flops{0};

void add(std::atomic<double>& total, double value) {
  double seen = total.load(std::memory_order_relaxed);
  while (!total.compare_exchange_weak(seen, seen + value, std::memory_order_relaxed)) {
  }
}

}  // namespace

void count_call(bool on_gpu, bool fallback, double flops) {
  calls.fetch_add(1, std::memory_order_relaxed);
  (on_gpu ? gpu_calls : cpu_calls).fetch_add(1, std::memory_order_relaxed);
  if (fallback) fallbacks.fetch_add(1, std::memory_order_relaxed);
  add(on_gpu ? gpu_flops : cpu_flops, flops);
}

}  // namespace tilegemm::detail::blas

// Each count is read atomically; a call counted while this runs may show in some fields and not yet in others.
extern "C" TILEGEMM_BLAS_EXPORT tilegemm_blas_counts tilegemm_blas_stats(void) {
  using namespace tilegemm::detail::blas;
  tilegemm_blas_counts counts{};
  counts.calls = calls.load();
  counts.gpu_calls = gpu_calls.load();
  counts.cpu_calls = cpu_calls.load();
  counts.fallbacks = fallbacks.load();
  counts.gpu_flops = gpu_flops.load();
  counts.cpu_flops = cpu_flops.load();
  return counts;
}

extern "C" TILEGEMM_BLAS_EXPORT void tilegemm_blas_reset_stats(void) {
  using namespace tilegemm::detail::blas;
  for (auto* count : {&calls, &gpu_calls, &cpu_calls, &fallbacks}) count->store(0);
  gpu_flops.store(0);
  cpu_flops.store(0);
}
