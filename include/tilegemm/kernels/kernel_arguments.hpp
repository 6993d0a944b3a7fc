// kernels/kernel_arguments: every kernel's arguments as constexpr tables of {name, OpenCL C type}, from which both the
// kernels' parameter lists (a #define each, in their program's text) and the host's setters (gemm/set_arguments.hpp)
// are made, so that the order is written once.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "../config/fixed_string.hpp"

namespace tilegemm::detail {

// One argument: its name and its type as the kernel declares it. A type that names `type` is the macro's parameter
// (GEMM_PARAMETERS(type): real or realV, the unit of the operands' offsets).
struct KernelArgument {
  std::string_view name;
  std::string_view type;
};

// What the host passes for an argument: an int, the product's scalar (ScalarValue) or a buffer.
enum class ArgumentKind { integer, scalar, buffer, unknown };
constexpr ArgumentKind argument_kind(std::string_view type) {
  if (type == "const int") return ArgumentKind::integer;
  if (type == "const real") return ArgumentKind::scalar;
  return type.substr(0, 9) == "__global " && type.find('*') != type.npos ? ArgumentKind::buffer : ArgumentKind::unknown;
}

constexpr KernelArgument integer(std::string_view name) { return {name, "const int"}; }
constexpr KernelArgument scalar(std::string_view name) { return {name, "const real"}; }
constexpr KernelArgument pointer(std::string_view name, std::string_view type) { return {name, type}; }

inline constexpr std::string_view operand_in = "__global const type* restrict";  // real or realV, the macro's `type`
inline constexpr std::string_view real_in = "__global const real* restrict";
inline constexpr std::string_view real_out = "__global real*";  // C: no restrict, it may be read too
inline constexpr std::string_view real_out_only = "__global real* restrict";
inline constexpr std::string_view vectors_in = "__global const realV* restrict";
inline constexpr std::string_view floats_in = "__global const float* restrict";
inline constexpr std::string_view floats_out_only = "__global float* restrict";

// GEMM_PARAMETERS(type): what every entry point computing C = alpha * op(A) * op(B) + beta * C starts with.
inline constexpr std::array gemm_arguments = {integer("M"),        integer("N"),   integer("K"),
                                              scalar("alpha"),     scalar("beta"), pointer("A", operand_in),
                                              integer("a_offset"), integer("lda"), pointer("B", operand_in),
                                              integer("b_offset"), integer("ldb"), pointer("C", real_out),
                                              integer("c_offset"), integer("ldc")};
// BATCH_PARAMETERS: what an entry point that takes batches ends with, the distances between the operands of
// consecutive problems in the units of their offsets (kernels/common.hpp).
inline constexpr std::array batch_arguments = {integer("a_stride"), integer("b_stride"), integer("c_stride")};
// STRIP_PARAMETERS: what an entry point that also multiplies the strips takes after GEMM_PARAMETERS
// (kernels/strip.hpp).
inline constexpr std::array strip_arguments = {
    integer("M_all"),          integer("N_all"),        integer("K_all"),     integer("transposes"),
    pointer("A_all", real_in), integer("a_offset_all"), integer("lda_all"),   pointer("B_all", real_in),
    integer("b_offset_all"),   integer("ldb_all"),      integer("tile_rows"), integer("right_groups"),
    integer("strip_groups")};
// SPLIT_K_PARAMETERS: split-K's first pass (kernels/split_k.hpp).
inline constexpr std::array split_k_arguments = {integer("M"),
                                                 integer("N"),
                                                 integer("K"),
                                                 pointer("A", vectors_in),
                                                 integer("a_offset"),
                                                 integer("lda"),
                                                 pointer("B", vectors_in),
                                                 integer("b_offset"),
                                                 integer("ldb"),
                                                 pointer("W", real_out),
                                                 integer("slice_stride"),
                                                 integer("ldw"),
                                                 integer("k_per_slice")};
// REMAINDER_PARAMETERS: the remainder kernel (kernels/remainder.hpp).
inline constexpr std::array remainder_arguments = {integer("M"),
                                                   integer("N"),
                                                   integer("K"),
                                                   integer("m0"),
                                                   integer("n0"),
                                                   scalar("alpha"),
                                                   scalar("beta"),
                                                   pointer("A", real_in),
                                                   integer("a_offset"),
                                                   integer("lda"),
                                                   pointer("B", real_in),
                                                   integer("b_offset"),
                                                   integer("ldb"),
                                                   pointer("C", real_out),
                                                   integer("c_offset"),
                                                   integer("ldc"),
                                                   integer("right_groups"),
                                                   integer("groups")};
// PACK_OPERAND_PARAMETERS, SUM_SLICES_PARAMETERS, SCALE_C_PARAMETERS: the support kernels (kernels/support.hpp).
inline constexpr std::array pack_operand_arguments = {
    integer("outer"),      integer("inner"), integer("outer_contiguous"),   pointer("src", real_in),
    integer("src_offset"), integer("ld"),    integer("outer_padded"),       integer("inner_padded"),
    integer("tile_outer"), integer("row"),   pointer("dst", real_out_only), integer("src_stride"),
    integer("dst_stride")};
inline constexpr std::array sum_slices_arguments = {
    integer("M"),           integer("N"),          integer("slices"),       scalar("alpha"),
    scalar("beta"),         pointer("W", real_in), integer("slice_stride"), integer("ldw"),
    pointer("C", real_out), integer("c_offset"),   integer("ldc")};
inline constexpr std::array scale_c_arguments = {integer("M"),           integer("N"),        scalar("beta"),
                                                 pointer("C", real_out), integer("c_offset"), integer("ldc"),
                                                 integer("c_stride")};
// PACK_CORE_TILES_PARAMETERS: the core tiles' pack kernel (kernels/core_tiles.hpp), float only: two operands, a_ then
// b_, in one launch, the first a_blocks work-groups along dimension 0 packing a_.
#define TILEGEMM_CORE_TILES_OPERAND(p)                                                                         \
  integer(p "outer"), integer(p "inner"), integer(p "outer_contiguous"), pointer(p "src", floats_in),          \
      integer(p "src_offset"), integer(p "ld"), integer(p "outer_padded"), integer(p "inner_padded"),          \
      integer(p "tile_outer"), integer(p "tile_inner"), integer(p "parts"), pointer(p "dst", floats_out_only), \
      integer(p "src_stride"), integer(p "dst_stride")
inline constexpr std::array pack_core_tiles_arguments = {TILEGEMM_CORE_TILES_OPERAND("a_"),
                                                         TILEGEMM_CORE_TILES_OPERAND("b_"), integer("a_blocks")};
#undef TILEGEMM_CORE_TILES_OPERAND

// The strips' `transposes` argument: a bit for each operand the caller stores transposed (TRANSPOSED_A and
// TRANSPOSED_B in the strip code's text).
inline constexpr int transposed_a_bit = 1;
inline constexpr int transposed_b_bit = 2;
constexpr int transposes_argument(bool trans_a, bool trans_b) {
  return (trans_a ? transposed_a_bit : 0) | (trans_b ? transposed_b_bit : 0);
}

// Whether every argument of a table has a type the host knows how to pass.
template <std::size_t N>
constexpr bool arguments_known(const std::array<KernelArgument, N>& table) {
  for (const KernelArgument& argument : table) {
    if (argument.name.empty() || argument_kind(argument.type) == ArgumentKind::unknown) return false;
  }
  return true;
}

// "type name, type name, ..." for a table.
template <std::size_t N>
constexpr std::size_t parameter_list_size(const std::array<KernelArgument, N>& table) {
  std::size_t size = 0;
  for (std::size_t i = 0; i < N; ++i) size += (i == 0 ? 0 : 2) + table[i].type.size() + 1 + table[i].name.size();
  return size;
}
template <const auto& Table>
constexpr auto parameter_list() {
  static_assert(arguments_known(Table), "a kernel argument's type must be const int, const real or a __global pointer");
  fixed_string<parameter_list_size(Table)> text;
  std::size_t at = 0;
  const auto add = [&](std::string_view part) {
    for (char c : part) text.data[at++] = c;
  };
  for (std::size_t i = 0; i < Table.size(); ++i) {
    if (i != 0) add(", ");
    add(Table[i].type);
    add(" ");
    add(Table[i].name);
  }
  return text;
}

// "#define MACRO type name, ...\n": the parameter list a kernel's text spells as MACRO (which may take `(type)`).
template <const auto& Table, std::size_t N>
constexpr auto parameters_define(const char (&macro)[N]) {
  return fixed_string("#define ") + macro + " " + parameter_list<Table>() + "\n";
}

}  // namespace tilegemm::detail
