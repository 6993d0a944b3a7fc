// kernels/families: every kernel family's file, and the list of them as a type (from config/family.hpp's
// TILEGEMM_FAMILIES), from which every lookup by family is made (kernels/family_list.hpp).
#pragma once

#include <cstddef>
#include <utility>

#include "bulk_tensor_cores.hpp"
#include "family_list.hpp"
#include "in_place_tensor_cores.hpp"
#include "local_tiles.hpp"
#include "naive.hpp"
#include "prefetch.hpp"
#include "register_blocking.hpp"
#include "split_k.hpp"
#include "staged_prefetch.hpp"
#include "tensor_cores.hpp"
#include "warpgroup_mma.hpp"
#include "wide_types.hpp"

namespace tilegemm::detail {

#define TILEGEMM_FAMILY_VALUE(name) Family::name,
inline constexpr Family built_in_family_values[] = {TILEGEMM_FAMILIES(TILEGEMM_FAMILY_VALUE)};
#undef TILEGEMM_FAMILY_VALUE
template <std::size_t... Is>
FamilyList<built_in_family_values[Is]...> built_in_list(std::index_sequence<Is...>);
// tilegemm's families, in the order of TILEGEMM_FAMILIES.
using BuiltInFamilies =
    decltype(built_in_list(std::make_index_sequence<sizeof(built_in_family_values) / sizeof(Family)>{}));
static_assert(families_distinct(BuiltInFamilies{}), "tilegemm: two families share a Family value or a name.");

}  // namespace tilegemm::detail
