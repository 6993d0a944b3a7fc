// version: tilegemm's version, the one place it is written (CMake's project version is read from here).
#pragma once

namespace tilegemm {

// Major.minor.patch. Compiled programs kept on disk are keyed by it, so a new version never loads an old one's.
inline constexpr char library_version[] = "1.0.0";

}  // namespace tilegemm
