// blas/offload_mode: never, auto or always (TILEGEMM_BLAS_OFFLOAD, read at the first call; tilegemm_blas_set_offload
// overrides it).
#pragma once

#include <tilegemm/blas.h>

namespace tilegemm::detail::blas {

tilegemm_blas_offload offload_mode();

}  // namespace tilegemm::detail::blas
