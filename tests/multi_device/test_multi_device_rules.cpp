// test_multi_device_rules: TILEGEMM_DEVICES's parsing and the tiling rule of a product over several devices, without
// OpenCL.
#include <set>
#include <stdexcept>
#include <string>
#include <tilegemm/host/multi_device.hpp>
#include <tilegemm/host/tile_plan.hpp>
#include <tilegemm/runtime/device_list.hpp>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"

namespace {

using tilegemm::DeviceEntry;
using tilegemm::detail::parse_device_list;

DeviceEntry entry(const std::string& name, cl_device_type type) { return {cl::Device(), "platform", name, type}; }

// A CPU first, then three GPUs: indices count GPUs alone.
std::vector<DeviceEntry> mixed() {
  return {entry("cpu", CL_DEVICE_TYPE_CPU), entry("gpu a", CL_DEVICE_TYPE_GPU), entry("gpu b", CL_DEVICE_TYPE_GPU),
          entry("gpu c", CL_DEVICE_TYPE_GPU)};
}

std::string refusal(const std::vector<DeviceEntry>& entries, const std::string& spec) {
  try {
    parse_device_list(entries, spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("TILEGEMM_DEVICES: all is every GPU, or every device where there is none", "[unit][multi_device]") {
  CHECK(parse_device_list(mixed(), "all") == std::vector<std::size_t>{1, 2, 3});
  CHECK(parse_device_list(mixed(), " ALL ") == std::vector<std::size_t>{1, 2, 3});
  const std::vector<DeviceEntry> cpus{entry("pocl a", CL_DEVICE_TYPE_CPU), entry("pocl b", CL_DEVICE_TYPE_CPU)};
  CHECK(parse_device_list(cpus, "all") == std::vector<std::size_t>{0, 1});
}

TEST_CASE("TILEGEMM_DEVICES: indices count GPUs in list_devices' order, in the order given", "[unit][multi_device]") {
  CHECK(parse_device_list(mixed(), "0") == std::vector<std::size_t>{1});
  CHECK(parse_device_list(mixed(), "0,2") == std::vector<std::size_t>{1, 3});
  CHECK(parse_device_list(mixed(), "2, 1") == std::vector<std::size_t>{3, 2});
  const std::vector<DeviceEntry> cpus{entry("pocl a", CL_DEVICE_TYPE_CPU), entry("pocl b", CL_DEVICE_TYPE_CPU)};
  CHECK(parse_device_list(cpus, "1,0") == std::vector<std::size_t>{1, 0});
}

TEST_CASE("TILEGEMM_DEVICES: nonsense is refused with a sentence naming the variable", "[unit][multi_device]") {
  const auto refused = [](const std::string& spec, const std::string& why) {
    INFO("TILEGEMM_DEVICES=" << spec);
    const std::string message = refusal(mixed(), spec);
    CHECK_THAT(message, MESSAGE_CONTAINS("TILEGEMM_DEVICES=\"" + spec + "\"") && MESSAGE_CONTAINS(why) &&
                            MESSAGE_CONTAINS("\"all\" or indices of GPUs") && MESSAGE_CONTAINS("3 GPUs here"));
  };
  refused("0,,2", "an empty entry");
  refused("", "an empty entry");
  refused("1,", "an empty entry");
  refused("x", "\"x\" is not an index");
  refused("-1", "\"-1\" is not an index");
  refused("0,1.5", "\"1.5\" is not an index");
  refused("gpu", "\"gpu\" is not an index");
  refused("3", "GPU 3 does not exist (the last is 2)");
  refused("99999999999999999999999", "does not exist");
  refused("1,1", "GPU 1 is named twice");
  refused("2, 0, 2", "GPU 2 is named twice");
  CHECK_THAT(refusal({}, "all"), MESSAGE_CONTAINS("there is no OpenCL device"));
  CHECK_THAT(refusal({entry("pocl", CL_DEVICE_TYPE_CPU)}, "1"),
             MESSAGE_CONTAINS("device 1 does not exist (the last is 0)") && MESSAGE_CONTAINS("1 device here"));
}

namespace {

using tilegemm::detail::plan_tiles;
using tilegemm::detail::TilePlan;
using tilegemm::detail::TileRoom;
using tilegemm::detail::TileRule;

// "" when the plan's tiles cover C once each (tile(t) walks a grid of its starts: they must rise from 0 and stay within
// C) and its slices cover K once each; else what is wrong.
std::string covers(const TilePlan& plan) {
  const auto parts = [](const std::vector<std::size_t>& starts, std::size_t length) {
    if (starts.empty() || starts[0] != 0) return false;
    for (std::size_t i = 1; i < starts.size(); ++i) {
      if (starts[i] <= starts[i - 1]) return false;
    }
    return starts.back() < length;
  };
  if (!parts(plan.row_starts, plan.m) || !parts(plan.col_starts, plan.n)) return "tiles overlap, are empty or outside";
  if (!parts(plan.k_starts, plan.k)) return "slices overlap, are empty or outside";
  std::size_t area = 0;
  for (std::size_t t = 0; t < plan.count(); ++t) {
    const auto [r0, r1, c0, c1] = plan.tile(t);
    area += (r1 - r0) * (c1 - c0);
  }
  return area == plan.m * plan.n ? "" : "the tiles' area is not C's";
}

}  // namespace

TEST_CASE("tiling: one device takes one tile where the product fits", "[unit][multi_device]") {
  const TilePlan plan = plan_tiles(16384, 16384, 16384, 1, 4, TileRoom{}, TileRule{});
  CHECK(plan.count() == 1);
  CHECK(plan.slices() == 1);
}

TEST_CASE("tiling: several devices get the rule's tiles each, a multiple of the devices, no side under the rule's",
          "[unit][multi_device]") {
  for (const std::size_t devices : {2, 3, 4}) {
    for (const std::size_t n : {16384, 32768, 20000}) {
      INFO(devices << " devices, N = " << n);
      const TilePlan plan = plan_tiles(n, n, n, devices, 4, TileRoom{}, TileRule{});
      CHECK(covers(plan) == "");
      CHECK(plan.count() >= TileRule{}.tiles_per_device * devices);
      CHECK(plan.count() % devices == 0);
      CHECK(plan.slices() == 1);
      for (std::size_t t = 0; t < plan.count(); ++t) {
        const auto [r0, r1, c0, c1] = plan.tile(t);
        CHECK(r1 - r0 >= 4096 - 128);  // even parts: at most one rounding short
        CHECK(c1 - c0 >= 4096 - 128);
      }
    }
  }
  // Three a device where asked (TILEGEMM_TILES_PER_DEVICE=3): 2 x 3 tiles on 2 devices at 16384.
  TileRule three;
  three.tiles_per_device = 3;
  const TilePlan six = plan_tiles(16384, 16384, 16384, 2, 4, TileRoom{}, three);
  CHECK(six.count() == 6);
  CHECK(covers(six) == "");
  // C too small for that many tiles of the rule's side: as many as fit, at least one.
  CHECK(plan_tiles(5000, 5000, 100, 2, 4, TileRoom{}, TileRule{}).count() == 1);
  CHECK(plan_tiles(9000, 5000, 100, 2, 4, TileRoom{}, TileRule{}).count() == 2);
  CHECK(covers(plan_tiles(1, 1, 1, 4, 8, TileRoom{}, TileRule{})) == "");
}

TEST_CASE("tiling: a product beyond a device's room is cut into tiles, then K into slices, that fit",
          "[unit][multi_device]") {
  // 32-bit indices: 114688^2 elements of A alone are past them.
  const std::size_t n = 114688;
  const TilePlan big = plan_tiles(n, n, n, 1, 4, TileRoom{}, TileRule{});
  CHECK(covers(big) == "");
  CHECK(big.count() > 1);
  CHECK(big.slices() == 1);
  const auto [r0, r1, c0, c1] = big.tile(0);
  CHECK((r1 - r0) * n <= 2147483647ull);
  CHECK((c1 - c0) * n <= 2147483647ull);
  // A tiny memory: 4 KiB a device.
  TileRoom room;
  room.bytes = 4096;
  TileRule rule;
  rule.min_side = 8;
  const TilePlan tiny = plan_tiles(60, 50, 300, 1, 4, room, rule);
  CHECK(covers(tiny) == "");
  CHECK(tiny.count() > 1);
  CHECK(tiny.slices() > 1);
  for (std::size_t t = 0; t < tiny.count(); ++t) {
    const auto [a0, a1, b0, b1] = tiny.tile(t);
    for (std::size_t s = 0; s < tiny.slices(); ++s) {
      const auto [k0, k1] = tiny.slice(s);
      CHECK(((a1 - a0) * (k1 - k0) + (k1 - k0) * (b1 - b0) + (a1 - a0) * (b1 - b0)) * 4 <= 4096);
    }
  }
  // So small that not even one row of K fits a tile of the rule's side: the sides go below it.
  room.bytes = 64;
  const TilePlan smallest = plan_tiles(20, 20, 20, 2, 8, room, rule);
  CHECK(covers(smallest) == "");
}

TEST_CASE("out-of-core: a device's room, and which products one queue takes whole", "[unit][multi_device]") {
  using tilegemm::detail::RawProduct;
  tilegemm::detail::DeviceLimits limits;
  limits.global_memory_bytes = 80ull << 30;
  limits.max_alloc_bytes = 20ull << 30;
  const TileRoom room = tilegemm::detail::tile_room(limits, 0);
  CHECK(room.bytes == 60ull << 30);  // 3/4 of the memory
  CHECK(room.max_buffer == 20ull << 30);
  CHECK(room.max_elements == 2147483647ull);
  CHECK(tilegemm::detail::tile_room(limits, 4096).bytes == 3072);  // the settings' memory in place of the device's
  const auto square = [](long long n) {
    RawProduct p;
    p.a = {nullptr, n, n, n, false, 4};
    p.b = {nullptr, n, n, n, false, 4};
    p.c = {nullptr, n, n, n, false, 4};
    return p;
  };
  CHECK(tilegemm::detail::whole_product_fits(square(46080), room));
  CHECK(!tilegemm::detail::whole_product_fits(square(46341), room));  // past 32-bit indices
  limits.global_memory_bytes = 16ull << 30;
  CHECK(!tilegemm::detail::whole_product_fits(square(40000), tilegemm::detail::tile_room(limits, 0)));  // 17.9 GiB
  CHECK(tilegemm::detail::whole_product_fits(square(30000), tilegemm::detail::tile_room(limits, 0)));   // 10 GiB
}
