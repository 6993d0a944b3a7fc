// kernels/tile_bands: the order in which work-groups take C's tiles on the tensor-core families: down bands of
// BAND_TILES rows of tiles, column by column, so that the work-groups running at once share panels of A and B in the
// L2 cache.
#pragma once

namespace tilegemm::detail {

inline constexpr char tile_bands_source[] = R"CLC(
#ifndef BAND_TILES
#error "kernels/tile_bands.hpp needs BAND_TILES from the preamble"
#endif
// The tile (row and column of tiles) that the work-group started `linear`-th takes on a grid of groups_m x groups_n
// tiles.
inline int2 banded_tile(const int linear, const int groups_m, const int groups_n) {
  const int band = BAND_TILES * groups_n;  // work-groups in a band
  const int first_m = linear / band * BAND_TILES;
  const int band_rows = min(groups_m - first_m, BAND_TILES);
  return (int2)(first_m + linear % band % band_rows, linear % band / band_rows);
}
)CLC";

}  // namespace tilegemm::detail
