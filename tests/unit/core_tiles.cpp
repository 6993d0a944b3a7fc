// unit/core_tiles: the cases of test_core_tiles that need no OpenCL device (the unit tier, built by unit_tests).
// (kernels/core_tiles.hpp) against the layout stated independently here, and the PTX retargeting to sm_90a.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tilegemm/core.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

namespace {

using namespace tilegemm::detail;

struct PackCase {
  int outer, inner, tile_outer, tile_inner;
  bool outer_contiguous;
  int batch;
  int parts;
};

}  // namespace

TEST_CASE("the PTX of sm_90 is retargeted to sm_90a with its marked instructions uncommented", "[unit][core_tiles]") {
  const std::string marker(sm90a_marker.view());
  const std::string ptx = "//\n.version 9.0\n.target sm_90, texmode_independent\n.address_size 64\n\t" + marker +
                          "wgmma.fence.sync.aligned;\n\t" + marker + "wgmma.commit_group.sync.aligned;\n";
  const std::optional<std::string> retargeted = sm90a_ptx(ptx);
  REQUIRE(retargeted.has_value());
  CHECK(*retargeted ==
        "//\n.version 9.0\n.target sm_90a, texmode_independent\n.address_size 64\n\t"
        "wgmma.fence.sync.aligned;\n\twgmma.commit_group.sync.aligned;\n");
  // Not PTX for sm_90 (another GPU's, already sm_90a, or not PTX at all): nothing, and the caller says so.
  CHECK(!sm90a_ptx(".version 9.0\n.target sm_80\n" + marker + "wgmma.fence.sync.aligned;\n").has_value());
  CHECK(!sm90a_ptx(".version 9.0\n.target sm_90a\n").has_value());
  CHECK(!sm90a_ptx(".version 9.0\n.target sm_900\n").has_value());
  CHECK(!sm90a_ptx("BC\xc0\xde").has_value());
  CHECK(sm90a_ptx(".target sm_90").value() == ".target sm_90a");
}
