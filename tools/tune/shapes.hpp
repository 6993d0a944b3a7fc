// tune/shapes: the products each shape class is timed on: shapes of whole 128 x 128 tiles for every candidate, then a
// few sizes off the tiles on which the best candidates must keep their lead over the built-in choice.
#pragma once

#include <array>
#include <tilegemm/gemm/shape_class.hpp>
#include <vector>

#include "options.hpp"

namespace tune {

struct ClassShapes {
  std::vector<ProductShape> timed;    // every candidate
  std::vector<ProductShape> confirm;  // the finalists and the built-in choice
};

inline ClassShapes shapes_of(tilegemm::detail::ShapeClass c) {
  using tilegemm::detail::ShapeClass;
  switch (c) {
    case ShapeClass::square_small:
      return {{{256, 256, 256}, {512, 512, 512}}, {{500, 500, 500}}};
    case ShapeClass::square_medium:
      return {{{1024, 1024, 1024}, {2048, 2048, 2048}}, {{1000, 1000, 1000}, {1025, 1025, 1025}}};
    case ShapeClass::square_large:
      return {{{3072, 3072, 3072}, {4096, 4096, 4096}}, {{3000, 3000, 3000}, {4097, 4097, 4097}, {8192, 8192, 8192}}};
    case ShapeClass::tall_skinny:
      return {{{8192, 1024, 1024}, {4096, 512, 2048}}, {{4000, 700, 1000}}};
    case ShapeClass::short_wide:
      return {{{1024, 8192, 1024}, {512, 4096, 2048}}, {{700, 4000, 1000}}};
    default:
      return {{{256, 256, 16384}, {512, 512, 8192}}, {{300, 300, 10000}}};
  }
}

}  // namespace tune
