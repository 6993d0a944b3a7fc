// kernels/kernel_description: a TileConfig and its family's traits as run-time values, and the program text of each
// of its variants: what the planner and the executor work with, so that they are not templates.
#pragma once

#include <cstddef>
#include <string>

#include "../config/tile_config.hpp"
#include "common.hpp"
#include "families.hpp"
#include "family_defaults.hpp"
#include "preamble.hpp"
#include "program_text.hpp"
#include "remainder.hpp"
#include "run_target.hpp"
#include "strip.hpp"
#include "support.hpp"
#include "tensor_maps.hpp"
#include "tf32_rounding.hpp"
#include "variant.hpp"

namespace tilegemm::detail {

struct KernelDescription {
  const char* family_name = "";
  Family family = Family::naive;
  OperandAccess access = OperandAccess::caller_layout;
  bool splits_k = false;
  bool takes_batches = false;      // its product entry point runs a batch of problems in launch dimension 2
  bool uses_tensor_cores = false;  // multiplies with the MmaKind its can_implement picks (Variant::mma)
  bool fuses_strips = false;       // has an entry point whose extra work-groups multiply the strips outside a corner
  bool strips_share_local_memory = false;  // those work-groups' stage is in its tiles' local memory, not beside it
  bool needs_sm90a = false;  // its programs are built from PTX retargeted to sm_90a (runtime/sm90a_ptx.hpp)
  bool local_memory_beyond_reported = false;  // may take up to runtime/sm90a_local_memory.hpp's limit on 9.0
  bool reads_tensor_maps = false;             // may read operands through tensor maps (kernels/tensor_maps.hpp)
  TileShape tile{};
  int threads_m = 0;
  int threads_n = 0;
  std::size_t local_memory_elements = 0;  // per work-group, in elements of the scalar type
  TextPiece config_preamble;
  TextPiece helpers;
  EntryPoint product;
  EntryPoint product_and_strips;
  // The family's answer to where it can run (its FamilyTraits' can_implement, kernels/run_target.hpp).
  Implementation (*can_implement)(const TileShape&, const RunTarget&) = FamilyDefaults::can_implement;

  int threads() const { return threads_m * threads_n; }
  std::string name() const { return config_name(family_name, tile); }
};

// A configuration of family F with tiles `t` (TileConfig's rules and the family's hold) and its preamble: one
// definition for describe<Config> and for configurations read at run time (kernels/runtime_description.hpp). F may be
// any family with FamilyTraits, in the built-in list (kernels/families.hpp) or not.
template <Family F>
constexpr KernelDescription description_of_family(const TileShape& t, TextPiece config_preamble) {
  using Traits = FamilyTraits<F>;
  const int threads_m = t.tsm / t.wptm;
  const int threads_n = t.tsn / t.wptn;
  return {Traits::name,
          F,
          Traits::access,
          Traits::splits_k,
          Traits::takes_batches,
          Traits::uses_tensor_cores,
          Traits::product_and_strips.name != nullptr && fused_strips_fit(threads_m * threads_n),
          Traits::strips_share_local_memory,
          Traits::needs_sm90a,
          Traits::local_memory_beyond_reported,
          Traits::reads_tensor_maps,
          t,
          threads_m,
          threads_n,
          Traits::local_memory_elements(t),
          config_preamble,
          Traits::helpers,
          Traits::product,
          Traits::product_and_strips,
          Traits::can_implement};
}

// Its preamble is hashed here, at compile time (a few hundred characters), as a configuration read at run time hashes
// its own: the two are compared by hash.
template <class Config>
inline constexpr KernelDescription describe =
    description_of_family<Config::family>(Config::shape, piece(config_preamble_text<Config>.view()));

// The program of one variant of a configuration, for float or double.
inline ProgramText gemm_program(const KernelDescription& config, bool is_double, const Variant& variant) {
  const EntryPoint& entry = variant.strips ? config.product_and_strips : config.product;
  ProgramText program =
      program_text(entry.name, {scalar_piece(is_double, config.tile.vw), config.config_preamble,
                                variant_piece(config.access, variant), mma_piece(variant.mma), common, config.helpers,
                                variant.strips ? strip_code : TextPiece{}, entry.source});
  program.needs_sm90a = config.needs_sm90a;
  return program;
}

// The remainder kernel's program (kernels/remainder.hpp) for the transposes.
inline ProgramText remainder_program(bool is_double, bool trans_a, bool trans_b) {
  return program_text(remainder_entry.name, {scalar_piece(is_double, 1), remainder_defines,
                                             variant_piece(OperandAccess::caller_layout, {trans_a, trans_b}), common,
                                             strip_code, remainder_entry.source});
}

// The program of the pack kernel of the core tiles (kernels/core_tiles.hpp), float only, work-groups of core_block x
// (core_block / core_columns).
inline ProgramText core_tiles_program() {
  return program_text(core_tiles_kernel_name,
                      {scalar_piece(false, 1), core_defines, common, tf32_rounding, core_tiles_code});
}

// The support program (kernels/support.hpp) with tile x tile work-groups; kernel_name picks one of its kernels.
inline ProgramText support_program(bool is_double, int tile, const char* kernel_name) {
  return program_text(kernel_name, {scalar_piece(is_double, 1), support_defines(tile), common, support_code});
}

}  // namespace tilegemm::detail
