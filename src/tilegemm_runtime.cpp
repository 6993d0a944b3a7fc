// tilegemm_runtime: the runtime's entries compiled once (config/linkage.hpp), for programs whose files define
// TILEGEMM_COMPILED_RUNTIME; CMake's tilegemm::runtime library builds it and passes that definition on.
#define TILEGEMM_BUILDING_RUNTIME
#include <tilegemm/tilegemm.hpp>
