// kernels/kernel_description: a TileConfig and its family's traits as run-time values, and the program text of each
// of its variants: what the planner and the executor work with, so that they are not templates.
#pragma once

#include <cstddef>
#include <string>

#include "../config/tile_config.hpp"
#include "common.hpp"
#include "families.hpp"
#include "preamble.hpp"
#include "program_text.hpp"
#include "remainder.hpp"
#include "strip.hpp"
#include "support.hpp"
#include "variant.hpp"

namespace tilegemm::detail {

struct KernelDescription {
  const char* family_name = "";
  Family family = Family::naive;
  OperandAccess access = OperandAccess::caller_layout;
  bool splits_k = false;
  bool uses_tensor_cores = false;  // runs only where the planner finds tensor cores, with the MmaKind it picks
  bool fuses_strips = false;       // has an entry point whose extra work-groups multiply the strips outside a corner
  TileShape tile{};
  int threads_m = 0;
  int threads_n = 0;
  std::size_t local_memory_elements = 0;  // per work-group, in elements of the scalar type
  TextPiece config_preamble;
  TextPiece helpers;
  EntryPoint product;
  EntryPoint product_and_strips;

  int threads() const { return threads_m * threads_n; }
  std::string name() const { return config_name(family_name, tile); }
};

template <class Config>
inline constexpr KernelDescription describe = {
    FamilyTraits<Config::family>::name,
    Config::family,
    FamilyTraits<Config::family>::access,
    FamilyTraits<Config::family>::splits_k,
    FamilyTraits<Config::family>::uses_tensor_cores,
    FamilyTraits<Config::family>::product_and_strips.name != nullptr&& fused_strips_fit(Config::threads),
    Config::shape,
    Config::threads_m,
    Config::threads_n,
    Config::local_memory_elements,
    piece(config_preamble_text<Config>.view()),
    FamilyTraits<Config::family>::helpers,
    FamilyTraits<Config::family>::product,
    FamilyTraits<Config::family>::product_and_strips,
};

// The program of one variant of a configuration, for float or double.
inline ProgramText gemm_program(const KernelDescription& config, bool is_double, const Variant& variant) {
  const EntryPoint& entry = variant.strips ? config.product_and_strips : config.product;
  return program_text(entry.name, {scalar_piece(is_double, config.tile.vw), config.config_preamble,
                                   variant_piece(config.access, variant), mma_piece(variant.mma), common,
                                   config.helpers, variant.strips ? strip_code : TextPiece{}, entry.source});
}

// The remainder kernel's program (kernels/remainder.hpp) for the transposes.
inline ProgramText remainder_program(bool is_double, bool trans_a, bool trans_b) {
  return program_text(remainder_entry.name, {scalar_piece(is_double, 1), remainder_defines,
                                             variant_piece(OperandAccess::caller_layout, {trans_a, trans_b}), common,
                                             strip_code, remainder_entry.source});
}

// The support program (kernels/support.hpp) with tile x tile work-groups; kernel_name picks one of its kernels.
inline ProgramText support_program(bool is_double, int tile, const char* kernel_name) {
  return program_text(kernel_name, {scalar_piece(is_double, 1), support_defines(tile), support_code});
}

}  // namespace tilegemm::detail
