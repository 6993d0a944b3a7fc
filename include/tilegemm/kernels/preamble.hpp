// kernels/preamble: the #define lines a program starts with: the scalar type, the configuration and the variant.
#pragma once

#include <array>
#include <cstddef>

#include "../config/family.hpp"
#include "../config/fixed_string.hpp"
#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "preamble_lines.hpp"
#include "program_text.hpp"
#include "variant.hpp"

namespace tilegemm::detail {

// `real` and `realV` for float or double and each vector width.
template <class Scalar, int Width>
inline constexpr auto scalar_preamble_text = scalar_preamble<Scalar, Width>();
inline constexpr std::array<TextPiece, 5> float_pieces = {
    piece_of<scalar_preamble_text<float, 1>>(), piece_of<scalar_preamble_text<float, 2>>(),
    piece_of<scalar_preamble_text<float, 4>>(), piece_of<scalar_preamble_text<float, 8>>(),
    piece_of<scalar_preamble_text<float, 16>>()};
inline constexpr std::array<TextPiece, 5> double_pieces = {
    piece_of<scalar_preamble_text<double, 1>>(), piece_of<scalar_preamble_text<double, 2>>(),
    piece_of<scalar_preamble_text<double, 4>>(), piece_of<scalar_preamble_text<double, 8>>(),
    piece_of<scalar_preamble_text<double, 16>>()};

inline TextPiece scalar_piece(bool is_double, int vector_width) {
  const std::size_t index = vector_width == 1   ? 0
                            : vector_width == 2 ? 1
                            : vector_width == 4 ? 2
                            : vector_width == 8 ? 3
                                                : 4;
  return is_double ? double_pieces[index] : float_pieces[index];
}

// The configuration's sizes and what is derived from them (the rules of TileConfig hold), then the family's own
// lines: one definition for configurations named at compile time (config_preamble_text) and those read at run time
// (kernels/runtime_description.hpp).
constexpr void tile_defines(PreambleLines& lines, const TileShape& t) {
  const int threads_m = t.tsm / t.wptm;
  const int threads_n = t.tsn / t.wptn;
  const int threads = threads_m * threads_n;
  lines.define("TSM", t.tsm);
  lines.define("TSN", t.tsn);
  lines.define("TSK", t.tsk);
  lines.define("WPTM", t.wptm);
  lines.define("WPTN", t.wptn);
  lines.define("VW", t.vw);
  lines.define("THREADS_M", threads_m);
  lines.define("THREADS_N", threads_n);
  lines.define("THREADS", threads);
  lines.define("LOADS_A", (t.tsk * t.tsm) / (t.vw * threads));
  lines.define("LOADS_B", (t.tsk * t.tsn) / (t.vw * threads));
}
// LOCAL_ELEMENTS: the local memory the host counts for a work-group (FamilyTraits::local_memory_elements), which each
// family's text checks its local arrays against (#error); the tensor-core families declare their buffers with it,
// among their own lines.
template <Family F>
constexpr PreambleLines config_preamble_lines(const TileShape& t) {
  PreambleLines lines;
  tile_defines(lines, t);
  FamilyTraits<F>::defines(lines, t);
  if (!lines.defines("LOCAL_ELEMENTS")) {
    lines.define("LOCAL_ELEMENTS", static_cast<long long>(FamilyTraits<F>::local_memory_elements(t)));
  }
  return lines;
}
template <class Config>
inline constexpr PreambleLines config_preamble_text = config_preamble_lines<Config::family>(Config::shape);

// The variant's lines: the transposes for the families that read the caller's operands, the layouts and the edge
// mode (with the modes' names) for those that read either layout, which operands are read through tensor maps for
// those of core tiles (kernels/tensor_maps.hpp), nothing for the other packed ones.
template <bool A, bool B>
inline constexpr auto transposes_text = define_line<A>("TRANS_A") + define_line<B>("TRANS_B");
inline constexpr auto edge_mode_names = define_line<static_cast<int>(EdgeMode::whole_tiles)>("EDGES_WHOLE_TILES") +
                                        define_line<static_cast<int>(EdgeMode::vectors)>("EDGES_VECTORS") +
                                        define_line<static_cast<int>(EdgeMode::elements)>("EDGES_ELEMENTS");
template <bool A, bool B, EdgeMode Edges>
inline constexpr auto layouts_text = edge_mode_names + define_line<A>("A_K_CONTIGUOUS") +
                                     define_line<B>("B_K_CONTIGUOUS") + define_line<static_cast<int>(Edges)>("EDGES");

// A_MAPPED: 0 packed, 1 through a K-contiguous map, 2 through an outer-contiguous one; B_MAPPED: 0 or 1.
template <int A, bool B>
inline constexpr auto mapped_text = define_line<A>("A_MAPPED") + define_line<B>("B_MAPPED");

template <bool A, bool B>
constexpr TextPiece layouts_piece(EdgeMode edges) {
  switch (edges) {
    case EdgeMode::vectors:
      return piece_of<layouts_text<A, B, EdgeMode::vectors>>();
    case EdgeMode::elements:
      return piece_of<layouts_text<A, B, EdgeMode::elements>>();
    default:
      return piece_of<layouts_text<A, B, EdgeMode::whole_tiles>>();
  }
}

// The tensor-core kind's line, with the kinds' names (see kernels/tensor_cores.hpp); nothing for the other families.
template <MmaKind Kind>
inline constexpr auto mma_text =
    define_line<static_cast<int>(MmaKind::tf32x3)>("MMA_TF32X3") +
    define_line<static_cast<int>(MmaKind::tf32)>("MMA_TF32") +
    define_line<static_cast<int>(MmaKind::fp64_sm80)>("MMA_FP64_SM80") +
    define_line<static_cast<int>(MmaKind::fp64_sm90)>("MMA_FP64_SM90") +
    define_line<static_cast<int>(MmaKind::bf16)>("MMA_BF16") +
    define_line<static_cast<int>(MmaKind::fp16)>("MMA_FP16") + define_line<static_cast<int>(Kind)>("MMA");
inline TextPiece mma_piece(MmaKind kind) {
  static constexpr std::array<TextPiece, 7> kinds = {TextPiece{},
                                                     piece_of<mma_text<MmaKind::tf32x3>>(),
                                                     piece_of<mma_text<MmaKind::tf32>>(),
                                                     piece_of<mma_text<MmaKind::fp64_sm80>>(),
                                                     piece_of<mma_text<MmaKind::fp64_sm90>>(),
                                                     piece_of<mma_text<MmaKind::bf16>>(),
                                                     piece_of<mma_text<MmaKind::fp16>>()};
  return kinds[static_cast<std::size_t>(kind)];
}

inline TextPiece variant_piece(OperandAccess access, const Variant& v) {
  static constexpr std::array<TextPiece, 4> transposes = {
      piece_of<transposes_text<false, false>>(), piece_of<transposes_text<true, false>>(),
      piece_of<transposes_text<false, true>>(), piece_of<transposes_text<true, true>>()};
  static constexpr std::array<TextPiece, 12> layouts = {
      layouts_piece<false, false>(EdgeMode::whole_tiles), layouts_piece<true, false>(EdgeMode::whole_tiles),
      layouts_piece<false, true>(EdgeMode::whole_tiles),  layouts_piece<true, true>(EdgeMode::whole_tiles),
      layouts_piece<false, false>(EdgeMode::vectors),     layouts_piece<true, false>(EdgeMode::vectors),
      layouts_piece<false, true>(EdgeMode::vectors),      layouts_piece<true, true>(EdgeMode::vectors),
      layouts_piece<false, false>(EdgeMode::elements),    layouts_piece<true, false>(EdgeMode::elements),
      layouts_piece<false, true>(EdgeMode::elements),     layouts_piece<true, true>(EdgeMode::elements)};
  static constexpr std::array<TextPiece, 6> mapped = {
      piece_of<mapped_text<0, false>>(), piece_of<mapped_text<1, false>>(), piece_of<mapped_text<2, false>>(),
      piece_of<mapped_text<0, true>>(),  piece_of<mapped_text<1, true>>(),  piece_of<mapped_text<2, true>>()};
  const std::size_t flags = (v.flag_a ? 1 : 0) + (v.flag_b ? 2 : 0);
  const std::size_t a_mapped = v.flag_a ? (v.outer_a ? 2 : 1) : 0;  // A_MAPPED
  switch (access) {
    case OperandAccess::caller_layout:
      return transposes[flags];
    case OperandAccess::core_tiles:
      return mapped[a_mapped + (v.flag_b ? 3 : 0)];
    case OperandAccess::either_layout:
      return layouts[flags + 4 * static_cast<std::size_t>(v.edges)];
    default:
      return {};
  }
}

}  // namespace tilegemm::detail
