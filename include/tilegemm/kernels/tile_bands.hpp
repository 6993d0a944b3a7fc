// kernels/tile_bands: the order in which work-groups take C's tiles on the tensor-core families: down bands of rows of
// tiles, column by column, so that the work-groups running at once share panels of A and B in the L2 cache.
#pragma once

namespace tilegemm::detail {

inline constexpr char tile_bands_source[] = R"CLC(
// The tile (row and column of tiles) that the work-group started `linear`-th takes on a grid of groups_m x groups_n
// tiles in bands of `rows` rows of tiles.
inline int2 banded_tile(const int linear, const int groups_m, const int groups_n, const int rows) {
  const int band = rows * groups_n;  // work-groups in a band
  const int first_m = linear / band * rows;
  const int band_rows = min(groups_m - first_m, rows);
  return (int2)(first_m + linear % band % band_rows, linear % band / band_rows);
}
)CLC";

}  // namespace tilegemm::detail
