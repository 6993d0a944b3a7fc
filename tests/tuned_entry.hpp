// tuned_entry: a line of the tuner's winners file for an H200, as test_tuner and unit/tuner write them.
#pragma once

#include <string>
#include <tilegemm/tilegemm.hpp>

namespace tilegemm_test {

inline tilegemm::detail::TunedEntry tuned_entry(tilegemm::detail::ShapeClass c, tilegemm::Family family,
                                                tilegemm::detail::TileShape tile,
                                                const std::string& precision = "float") {
  tilegemm::detail::TunedEntry e;
  e.device = "NVIDIA CUDA / NVIDIA H200";
  e.driver = "580.159.04";
  e.precision = precision;
  e.shape_class = c;
  e.family = family;
  e.tile = tile;
  e.tflops = 41.5;
  e.builtin_tflops = 40.25;
  return e;
}

}  // namespace tilegemm_test
