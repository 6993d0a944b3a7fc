// tile_config: TileConfig, the compile-time description of one GEMM kernel (family, tiles, work per thread).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

namespace tilegemm {

// The kernel families of the SGEMM tutorial that tilegemm grew from; each is selectable through a TileConfig.
enum class Family {
  naive,              // kernel 1: one work-item per element of C, straight from global memory
  local_tiles,        // kernels 2 and 3: square tiles in local memory, WPTN columns of C per work-item
  wide_types,         // kernel 4: vector types, VW rows of C per work-item, one vector multiply-add per step
  register_blocking,  // kernels 5, 6 and 7: WPTM x WPTN register blocks, transposed (N-contiguous) B,
                      // rectangular tiles, VW-wide loads from global memory when VW > 1
  prefetch,           // kernel 9: register blocking with double-buffered local memory and VW-wide local reads;
                      // reads the caller's A and B in place, in either layout, whenever they fill whole tiles
  split_k,            // the prefetch kernel on slices of K in parallel, then a kernel that sums the slices:
                      // for small C and large K
};

inline const char* family_name(Family family) {
  switch (family) {
    case Family::naive:
      return "naive";
    case Family::local_tiles:
      return "local_tiles";
    case Family::wide_types:
      return "wide_types";
    case Family::register_blocking:
      return "register_blocking";
    case Family::prefetch:
      return "prefetch";
    case Family::split_k:
      return "split_k";
  }
  return "unknown";
}

// One kernel configuration. TSM x TSN is the tile of C that a work-group computes, TSK the depth of the slices
// of A and B staged in local memory, WPTM x WPTN the block of C each work-item computes, VW the vector width.
template <int TSM_, int TSN_, int TSK_, int WPTM_, int WPTN_, int VW_ = 1, Family Family_ = Family::register_blocking>
struct TileConfig {
  static constexpr int TSM = TSM_;
  static constexpr int TSN = TSN_;
  static constexpr int TSK = TSK_;
  static constexpr int WPTM = WPTM_;
  static constexpr int WPTN = WPTN_;
  static constexpr int VW = VW_;
  static constexpr Family family = Family_;

  static_assert(TSM > 0 && TSN > 0 && TSK > 0 && WPTM > 0 && WPTN > 0 && VW > 0,
                "TileConfig: every tile size, work-per-thread and vector width must be positive.");
  static_assert(TSM % WPTM == 0,
                "TileConfig: TSM must be a multiple of WPTM, since each work-item computes WPTM of "
                "the TSM rows of a tile.");
  static_assert(TSN % WPTN == 0,
                "TileConfig: TSN must be a multiple of WPTN, since each work-item computes WPTN of "
                "the TSN columns of a tile.");

  // Work-items per work-group along M and N (the tutorial's RTSM and RTSN), and in all.
  static constexpr int threads_m = TSM / WPTM;
  static constexpr int threads_n = TSN / WPTN;
  static constexpr int threads = threads_m * threads_n;
  static_assert(threads <= 1024,
                "TileConfig: a work-group may have at most 1024 work-items; (TSM / WPTM) * (TSN / "
                "WPTN) is larger. Raise WPTM or WPTN, or shrink the tiles.");

  static_assert(VW == 1 || VW == 2 || VW == 4 || VW == 8 || VW == 16,
                "TileConfig: the vector width VW must be 1, 2, 4, 8 or 16 (the OpenCL vector sizes).");
  static_assert(TSM % VW == 0 && TSN % VW == 0,
                "TileConfig: TSM and TSN must be multiples of the vector width VW, since tiles are loaded in vectors.");

  // Vectors of A and of B each work-item moves from global to local memory per TSK slice (LPTA and LPTB).
  static constexpr int loads_a = (TSK * TSM) / (VW * threads);
  static constexpr int loads_b = (TSK * TSN) / (VW * threads);
  static_assert(family == Family::naive || ((TSK * TSM) % (VW * threads) == 0 && (TSK * TSN) % (VW * threads) == 0),
                "TileConfig: the work-items of a group must share the loads of a tile evenly: TSK * TSM and TSK * TSN "
                "must both be multiples of VW * (TSM / WPTM) * (TSN / WPTN).");

  static_assert(family != Family::naive || (WPTM == 1 && WPTN == 1 && TSK == 1 && VW == 1),
                "TileConfig: the naive family computes one element per work-item without tiles in K: use "
                "TileConfig<TSM, TSN, 1, 1, 1, 1, Family::naive> (or Naive<TSM, TSN>).");
  static_assert(family != Family::local_tiles || (TSM == TSN && TSN == TSK && WPTM == 1 && VW == 1),
                "TileConfig: the local_tiles family needs square tiles (TSM == TSN == TSK), WPTM == 1 and VW == 1; use "
                "LocalTiles<TS> or MoreWorkPerThread<TS, WPT>.");
  static_assert(
      family != Family::wide_types || (TSM == TSN && TSN == TSK && WPTM == VW && WPTN == 1 && VW > 1),
      "TileConfig: the wide_types family needs square tiles (TSM == TSN == TSK), WPTM == VW > 1 and WPTN == 1; "
      "use WideTypes<TS, WIDTH>.");

  // The prefetch kernel and split-K (which runs it) read operands in either layout and local memory by vectors.
  static constexpr bool reads_either_layout = family == Family::prefetch || family == Family::split_k;
  static_assert(!reads_either_layout || (WPTM % VW == 0 && WPTN % VW == 0 && TSK % VW == 0),
                "TileConfig: the prefetch and split_k families read whole vectors along M, N and K, so WPTM, WPTN "
                "and TSK must be multiples of the vector width VW.");

  // Whether the kernel reads zero-padded copies of A (M-contiguous) and B (N-contiguous) instead of the caller's.
  static constexpr bool packed_operands = family != Family::naive && family != Family::local_tiles;

  // Local memory one work-group uses, in elements of the scalar type.
  // (The prefetch kernel keeps two of each tile, with one vector of padding per row.)
  static constexpr std::size_t local_memory_elements = family == Family::naive ? 0
                                                       : reads_either_layout
                                                           ? static_cast<std::size_t>(2) * TSK * (TSM + TSN + 2 * VW)
                                                           : static_cast<std::size_t>(TSK) * (TSM + TSN);

  // A readable name such as "register_blocking 64x64x16 4x4 v4", used in messages and benchmark tables.
  static std::string name() {
    std::string text = std::string(family_name(family)) + " " + std::to_string(TSM) + "x" + std::to_string(TSN) + "x" +
                       std::to_string(TSK) + " " + std::to_string(WPTM) + "x" + std::to_string(WPTN);
    return VW > 1 ? text + " v" + std::to_string(VW) : text;
  }
};

// The families by the names of the tutorial's kernels.
template <int TSM, int TSN>
using Naive = TileConfig<TSM, TSN, 1, 1, 1, 1, Family::naive>;
template <int TS>
using LocalTiles = TileConfig<TS, TS, TS, 1, 1, 1, Family::local_tiles>;
template <int TS, int WPT>
using MoreWorkPerThread = TileConfig<TS, TS, TS, 1, WPT, 1, Family::local_tiles>;
template <int TS, int WIDTH>
using WideTypes = TileConfig<TS, TS, TS, WIDTH, 1, WIDTH, Family::wide_types>;
template <int TSM, int TSN, int TSK, int WPTN>
using TransposedB = TileConfig<TSM, TSN, TSK, 1, WPTN, 1, Family::register_blocking>;
template <int TSM, int TSN, int TSK, int WPTM, int WPTN>
using RegisterBlocking = TileConfig<TSM, TSN, TSK, WPTM, WPTN, 1, Family::register_blocking>;
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using VectorLoads = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::register_blocking>;
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using Prefetch = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::prefetch>;
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW>
using SplitK = TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, Family::split_k>;

namespace detail {
template <class T>
struct is_tile_config : std::false_type {};
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW, Family F>
struct is_tile_config<TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, F>> : std::true_type {};
}  // namespace detail

}  // namespace tilegemm
