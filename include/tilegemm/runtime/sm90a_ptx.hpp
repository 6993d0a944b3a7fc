// runtime/sm90a_ptx: the PTX of a program with instructions of sm_90a (kernels/warpgroup_mma.hpp), made from the PTX
// that NVIDIA's OpenCL compiler emits for sm_90, where those instructions stand behind a comment marker.
#pragma once

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "../kernels/sm90a_marker.hpp"

namespace tilegemm::detail {

// `ptx` with every marker removed (the instructions behind them become code) and its target sm_90 raised to sm_90a;
// nothing where it names no target sm_90 (it is not PTX, or it is another GPU's).
inline std::optional<std::string> sm90a_ptx(std::string ptx) {
  constexpr std::string_view target = ".target sm_90";
  const std::size_t at = ptx.find(target);
  const std::size_t end = at + target.size();
  if (at == std::string::npos || (end < ptx.size() && std::isalnum(static_cast<unsigned char>(ptx[end])))) {
    return std::nullopt;
  }
  ptx.insert(end, "a");
  const std::string_view marker = sm90a_marker.view();
  for (std::size_t found = ptx.find(marker); found != std::string::npos; found = ptx.find(marker, found)) {
    ptx.erase(found, marker.size());
  }
  return ptx;
}

}  // namespace tilegemm::detail
