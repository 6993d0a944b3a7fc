// blas/runtime: tilegemm's runtime compiled into the drop-in (config/linkage.hpp), from core.hpp alone: the library
// needs no Eigen.
#define TILEGEMM_BUILDING_RUNTIME
#include <tilegemm/core.hpp>
