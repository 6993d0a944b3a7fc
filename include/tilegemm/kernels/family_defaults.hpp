// kernels/family_defaults: what a family's traits say unless the family says otherwise, and the local memory of
// the families that stage one tile of A and one of B.
#pragma once

#include <cstddef>

#include "../config/fixed_string.hpp"
#include "../config/tile_config.hpp"
#include "preamble_lines.hpp"
#include "program_text.hpp"
#include "run_target.hpp"

namespace tilegemm::detail {

// A family's FamilyTraits derives from this and sets the rest (name, access, its rules through TILEGEMM_RULES_FROM,
// local_memory_elements, product): no split-K, an entry point that takes batches (it ends with BATCH_PARAMETERS,
// kernels/common.hpp), no tensor cores, runs on every device in every math mode, no preamble lines of its own, no
// shared code before its entry point, no entry point that also multiplies strips.
struct FamilyDefaults {
  static constexpr bool splits_k = false;
  static constexpr bool takes_batches = true;
  static constexpr bool uses_tensor_cores = false;  // multiplies with the MmaKind can_implement picks
  static constexpr bool needs_sm90a = false;        // its PTX is retargeted to sm_90a (kernels/warpgroup_mma.hpp)
  // it may take more local memory than the device reports, up to runtime/sm90a_local_memory.hpp's limit on 9.0
  static constexpr bool local_memory_beyond_reported = false;
  // Reads K-contiguous operands in tf32 in place through tensor maps (kernels/tensor_maps.hpp) rather than packed
  // (A_MAPPED, B_MAPPED in its text): families of core tiles only.
  static constexpr bool reads_tensor_maps = false;
  // Whether a configuration with tiles `t` can run on `target`, and with which tensor-core instructions.
  static Implementation can_implement(const TileShape&, const RunTarget&) { return {}; }
  static constexpr void defines(PreambleLines&, const TileShape&) {}
  static constexpr TextPiece helpers = {};
  static constexpr EntryPoint product_and_strips = {};
  static constexpr bool strips_share_local_memory = false;  // true: the strips' stage is in its tiles' local memory
};

// One TSK x TSM tile of A and one TSK x TSN tile of B, in elements.
constexpr std::size_t single_buffered_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.tsk) * (t.tsm + t.tsn);
}

}  // namespace tilegemm::detail
