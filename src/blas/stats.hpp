// blas/stats: the process's counts of ?gemm calls (tilegemm_blas_stats), atomics that any thread adds to.
#pragma once

namespace tilegemm::detail::blas {

// One call: where it ran, whether it was a GPU attempt redone on the CPU, and its 2 m n k.
void count_call(bool on_gpu, bool fallback, double flops);

}  // namespace tilegemm::detail::blas
