// unit/padded_slices: the cases of test_padded_slices that need no OpenCL device (the unit tier, built by unit_tests):
// the refusal of a padded-slice copy past the kernels' 32-bit indices.
#include <stdexcept>
#include <tilegemm/core.hpp>

#include "catch.hpp"

using tilegemm::detail::padded_slice_copy;

TEST_CASE("a copy in padded slices past 2^31 - 1 elements is refused", "[unit][padded_slices]") {
  // 2^24 rows in tiles of 128 rows of 132 elements, 128 deep: 2^31 * 132 / 128 elements, past the kernels' indices.
  CHECK_THROWS_AS(padded_slice_copy(1 << 24, 128, true, 128, 32, 132, 4, 1), std::invalid_argument);
  CHECK_THROWS_AS(padded_slice_copy(1 << 20, 128, true, 128, 32, 132, 4, 16), std::invalid_argument);
  CHECK_NOTHROW(padded_slice_copy(1 << 20, 128, true, 128, 32, 132, 4, 1));
}
