// programs_made: how many OpenCL programs this process has compiled or loaded from tilegemm's disk cache.
#pragma once

#include <cstddef>
#include <tilegemm/tilegemm.hpp>

namespace tilegemm_test {

// With tilegemm's disk cache on (the tests run with it off: CMakeLists.txt), a program another process stored is
// loaded rather than compiled: tests that count the programs a call needs count both.
inline std::size_t programs_made() { return tilegemm::programs_built() + tilegemm::programs_loaded_from_disk(); }

}  // namespace tilegemm_test
