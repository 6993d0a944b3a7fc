// kernels/sm90a_marker: how a kernel marks its instructions of sm_90a, which NVIDIA's OpenCL compiler (PTX for sm_90)
// does not assemble: as PTX comments behind this marker, which runtime/sm90a_ptx.hpp removes from the PTX.
#pragma once

#include "../config/fixed_string.hpp"

namespace tilegemm::detail {

inline constexpr fixed_string sm90a_marker = "// sm_90a only: ";
// The marker for the kernel text, as SM90A_ONLY (a string literal to put before each such instruction).
inline constexpr auto sm90a_marker_text = fixed_string("#define SM90A_ONLY \"") + sm90a_marker + "\"\n";

}  // namespace tilegemm::detail
