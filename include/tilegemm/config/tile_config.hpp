// config/tile_config: TileConfig, the compile-time description of one GEMM kernel (family, tiles, work per thread).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "family.hpp"
#include "rule_list.hpp"

namespace tilegemm {
namespace detail {

// A configuration's sizes as plain values, for what is worked out at run time (plans, messages).
struct TileShape {
  int tsm, tsn, tsk, wptm, wptn, vw;
  int stages = 1;  // slices of A and B in local memory at once, for the families that pipeline them
};

// "register_blocking 64x64x16 4x4 v4", "tensor_cores 128x128x16 8x8 v4 s2": a configuration's name in messages and
// benchmark tables.
inline std::string config_name(const char* family, const TileShape& t) {
  std::string text = std::string(family) + " " + std::to_string(t.tsm) + "x" + std::to_string(t.tsn) + "x" +
                     std::to_string(t.tsk) + " " + std::to_string(t.wptm) + "x" + std::to_string(t.wptn);
  if (t.vw > 1) text += " v" + std::to_string(t.vw);
  return t.stages > 1 ? text + " s" + std::to_string(t.stages) : text;
}

// The rules every TileConfig obeys, as predicates on plain values. Each is false, never a division by zero, for sizes
// that break an earlier rule.
constexpr bool sizes_positive(const TileShape& t) {
  return t.tsm > 0 && t.tsn > 0 && t.tsk > 0 && t.wptm > 0 && t.wptn > 0 && t.vw > 0;
}
constexpr bool work_divides_tiles(const TileShape& t) {
  return sizes_positive(t) && t.tsm % t.wptm == 0 && t.tsn % t.wptn == 0;
}
constexpr long long group_threads(const TileShape& t) {
  return work_divides_tiles(t) ? static_cast<long long>(t.tsm / t.wptm) * (t.tsn / t.wptn) : 0;
}
inline constexpr int largest_group = 1024;
constexpr bool group_size_allowed(const TileShape& t) { return group_threads(t) <= largest_group; }
constexpr bool vector_width_allowed(int vw) { return vw == 1 || vw == 2 || vw == 4 || vw == 8 || vw == 16; }
constexpr bool tiles_hold_vectors(const TileShape& t) {
  return sizes_positive(t) && t.tsm % t.vw == 0 && t.tsn % t.vw == 0;
}
// The rule of every family that stages tiles in local memory: its work-items share the loads of a tile evenly.
constexpr bool loads_even(const TileShape& t) {
  const long long threads = group_threads(t);
  return threads > 0 && (static_cast<long long>(t.tsk) * t.tsm) % (t.vw * threads) == 0 &&
         (static_cast<long long>(t.tsk) * t.tsn) % (t.vw * threads) == 0;
}

// The rules of every TileConfig (config/rule_list.hpp), checked before its family's.
#define TILEGEMM_SHARED_RULES(RULE)                                                                                    \
  RULE(positive_sizes, sizes_positive(t), "every tile size, work-per-thread and vector width must be positive.")       \
  RULE(tsm_multiple_of_wptm, !sizes_positive(t) || t.tsm % t.wptm == 0,                                                \
       "TSM must be a multiple of WPTM, since each work-item computes WPTM of the TSM rows of a tile.")                \
  RULE(tsn_multiple_of_wptn, !sizes_positive(t) || t.tsn % t.wptn == 0,                                                \
       "TSN must be a multiple of WPTN, since each work-item computes WPTN of the TSN columns of a tile.")             \
  RULE(at_most_1024_work_items, group_size_allowed(t),                                                                 \
       "a work-group may have at most 1024 work-items; (TSM / WPTM) * (TSN / WPTN) is larger. Raise WPTM or WPTN, or " \
       "shrink the tiles.")                                                                                            \
  RULE(vector_width_values, vector_width_allowed(t.vw),                                                                \
       "the vector width VW must be 1, 2, 4, 8 or 16 (the OpenCL vector sizes).")                                      \
  RULE(tiles_multiple_of_vector_width, tiles_hold_vectors(t),                                                          \
       "TSM and TSN must be multiples of the vector width VW, since tiles are loaded in vectors.")
// The rule of the families that stage tiles in local memory, for their lists.
#define TILEGEMM_LOADS_EVEN_RULE(RULE)                                                                          \
  RULE(loads_shared_evenly, loads_even(t),                                                                      \
       "the work-items of a group must share the loads of a tile evenly: TSK * TSM and TSK * TSN must both be " \
       "multiples of VW * (TSM / WPTM) * (TSN / WPTN).")
// The rule of the families that keep one slice in local memory at a time, for their lists.
#define TILEGEMM_ONE_STAGE_RULE(RULE)                                                                                  \
  RULE(one_stage, t.stages == 1,                                                                                       \
       "only the tensor-core families (tensor_cores, warpgroup_mma) keep several slices in flight; leave Stages at 1 " \
       "for the others.")

struct SharedRules {
  TILEGEMM_RULES_FROM(TILEGEMM_SHARED_RULES)
};

}  // namespace detail

// One kernel configuration. TSM x TSN is the tile of C that a work-group computes, TSK the depth of the slices
// of A and B staged in local memory, WPTM x WPTN the block of C each work-item computes, VW the vector width, Stages
// the slices in local memory at once (families with a pipeline of them; 1 for the others).
// The rules every family shares are checked here, those of the family in its FamilyTraits (kernels/).
template <int TSM_, int TSN_, int TSK_, int WPTM_, int WPTN_, int VW_ = 1, Family Family_ = Family::register_blocking,
          int Stages_ = 1>
struct TileConfig {
  static constexpr int TSM = TSM_;
  static constexpr int TSN = TSN_;
  static constexpr int TSK = TSK_;
  static constexpr int WPTM = WPTM_;
  static constexpr int WPTN = WPTN_;
  static constexpr int VW = VW_;
  static constexpr Family family = Family_;
  static constexpr int stages = Stages_;
  static constexpr detail::TileShape given = {TSM_, TSN_, TSK_, WPTM_, WPTN_, VW_, Stages_};

  static_assert(detail::SharedRules::rules_hold<TSM_, TSN_, TSK_, WPTM_, WPTN_, VW_, Stages_>());
  static_assert(detail::FamilyTraits<Family_>::template rules_hold<TSM_, TSN_, TSK_, WPTM_, WPTN_, VW_, Stages_>());

  // Work-items per work-group along M and N (the tutorial's RTSM and RTSN), and in all.
  static constexpr int threads_m = TSM / WPTM;
  static constexpr int threads_n = TSN / WPTN;
  static constexpr int threads = threads_m * threads_n;
  // Vectors of A and of B each work-item moves from global to local memory per TSK slice (LPTA and LPTB).
  static constexpr int loads_a = (TSK * TSM) / (VW * threads);
  static constexpr int loads_b = (TSK * TSN) / (VW * threads);

  static constexpr detail::TileShape shape = {TSM, TSN, TSK, WPTM, WPTN, VW, Stages_};
  // Local memory one work-group uses, in elements of the scalar type.
  static constexpr std::size_t local_memory_elements = detail::FamilyTraits<Family_>::local_memory_elements(shape);

  // A readable name such as "register_blocking 64x64x16 4x4 v4", used in messages and benchmark tables.
  static std::string name() { return detail::config_name(detail::FamilyTraits<Family_>::name, shape); }
};

// Passed as the Config of gemm/gpu_gemm (and its default): choose a configuration per device and shape.
struct AutoConfig {
  static std::string name() { return "auto"; }
};

namespace detail {
template <class T>
struct is_tile_config : std::false_type {};
template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW, Family F, int Stages>
struct is_tile_config<TileConfig<TSM, TSN, TSK, WPTM, WPTN, VW, F, Stages>> : std::true_type {};
}  // namespace detail

}  // namespace tilegemm
