// blas/after_fork: whether this process is a child forked after the library's first call, which runs every call on
// the CPU (an OpenCL context made before fork() is unusable in the child).
#pragma once

namespace tilegemm::detail::blas {

// Called at every ?gemm call: registers the fork handler the first time.
void watch_forks();

// Whether this process was forked from one that had called ?gemm through the library.
bool in_forked_child();

}  // namespace tilegemm::detail::blas
