// kernel_text: the OpenCL C sources of a GEMM kernel, with its parameters baked into a compile-time preamble.
#pragma once

#include <cstdint>
#include <string_view>

#include "../config/fixed_string.hpp"
#include "../config/fnv1a.hpp"
#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "common.hpp"
#include "local_tiles.hpp"
#include "naive.hpp"
#include "prefetch.hpp"
#include "register_blocking.hpp"
#include "remainder.hpp"
#include "strip.hpp"
#include "support.hpp"
#include "wide_types.hpp"

namespace tilegemm::detail {

// A program's sources, the kernel to run from it and the key under which the compiled program is cached.
struct ProgramText {
  std::string_view preamble;
  std::string_view common;
  std::string_view body;
  const char* kernel_name;
  std::uint64_t key;
};

inline constexpr char build_options[] = "";

constexpr std::uint64_t program_key(std::string_view preamble, std::string_view common, std::string_view body) {
  return fnv1a(build_options, fnv1a(body, fnv1a(common, fnv1a(preamble))));
}

template <Family F>
constexpr std::string_view family_source() {
  if constexpr (F == Family::naive) return naive_kernel_source;
  if constexpr (F == Family::local_tiles) return local_tiles_kernel_source;
  if constexpr (F == Family::wide_types) return wide_types_kernel_source;
  if constexpr (F == Family::register_blocking) return register_blocking_kernel_source;
  if constexpr (F == Family::prefetch || F == Family::split_k) return prefetch_kernel_source;
}

template <Family F>
constexpr const char* family_kernel_name() {
  if constexpr (F == Family::naive) return naive_kernel_name;
  if constexpr (F == Family::local_tiles) return local_tiles_kernel_name;
  if constexpr (F == Family::wide_types) return wide_types_kernel_name;
  if constexpr (F == Family::register_blocking) return register_blocking_kernel_name;
  if constexpr (F == Family::prefetch || F == Family::split_k) return prefetch_kernel_name;
}

// STRIPS, and for the variant that multiplies strips the strip code's parameters (kernels/strip.hpp).
template <class Config, bool Strips>
constexpr auto strips_defines() {
  if constexpr (Strips) {
    return define_line<1>("STRIPS") + define_line<fused_strip_panel>("PANEL") +
           define_line<Config::threads / fused_strip_panel>("LANES") + define_line<strip_stage>("STAGE");
  } else {
    return define_line<0>("STRIPS");
  }
}

// The preamble that turns a TileConfig, a scalar type and three layout flags into OpenCL C #defines. The first two
// are the transposes for the families that read the caller's operands directly (TRANS_A, TRANS_B), whether A and B
// are K-contiguous for those that read either layout (A_K_CONTIGUOUS, B_K_CONTIGUOUS), and unused (0) by the
// others, which read packed copies. Edges picks the way the families that read either layout meet operands that
// do not fill whole tiles (EDGES, see kernels/prefetch.hpp); 0 for the others.
template <class Config, class Scalar, bool FlagA, bool FlagB, int Edges = 0, bool Strips = false>
inline constexpr auto gemm_preamble =
    scalar_preamble<Scalar, Config::VW>() + define_line<Config::TSM>("TSM") + define_line<Config::TSN>("TSN") +
    define_line<Config::TSK>("TSK") + define_line<Config::WPTM>("WPTM") + define_line<Config::WPTN>("WPTN") +
    define_line<Config::VW>("VW") + define_line<Config::threads_m>("THREADS_M") +
    define_line<Config::threads_n>("THREADS_N") + define_line<Config::threads>("THREADS") +
    define_line<Config::loads_a>("LOADS_A") + define_line<Config::loads_b>("LOADS_B") +
    define_line<FlagA && !Config::packed_operands>("TRANS_A") +
    define_line<FlagB && !Config::packed_operands>("TRANS_B") +
    define_line<FlagA && Config::reads_either_layout>("A_K_CONTIGUOUS") +
    define_line<FlagB && Config::reads_either_layout>("B_K_CONTIGUOUS") +
    define_line<Config::reads_either_layout ? Edges : 0>("EDGES") +
    define_line<Config::family == Family::split_k>("SPLIT_K") + strips_defines<Config, Strips>();

// The common source followed by the strips' (kernels/strip.hpp), for the kernels that multiply strips.
inline constexpr auto common_and_strip_source = fixed_string(common_kernel_source) + strip_kernel_source;

// Strips: the prefetch variant whose extra work-groups multiply the strips outside the corner it tiles.
template <class Config, class Scalar, bool FlagA, bool FlagB, int Edges = 0, bool Strips = false>
constexpr ProgramText gemm_program_text() {
  constexpr std::string_view preamble = gemm_preamble<Config, Scalar, FlagA, FlagB, Edges, Strips>.view();
  constexpr std::string_view common = Strips ? common_and_strip_source.view() : std::string_view(common_kernel_source);
  constexpr std::string_view body = family_source<Config::family>();
  return {preamble, common, body, family_kernel_name<Config::family>(), program_key(preamble, common, body)};
}

// The remainder kernel, which reads the caller's operands with their transposes.
template <class Scalar, bool TransA, bool TransB>
inline constexpr auto remainder_preamble =
    scalar_preamble<Scalar, 1>() + define_line<TransA>("TRANS_A") + define_line<TransB>("TRANS_B") +
    define_line<remainder_panel>("PANEL") + define_line<remainder_lanes>("LANES") + define_line<strip_stage>("STAGE");

template <class Scalar, bool TransA, bool TransB>
constexpr ProgramText remainder_program_text() {
  constexpr std::string_view preamble = remainder_preamble<Scalar, TransA, TransB>.view();
  constexpr std::string_view common = common_and_strip_source.view();
  return {preamble, common, remainder_kernel_source, remainder_kernel_name,
          program_key(preamble, common, remainder_kernel_source)};
}

// The support kernels (packing, scaling C) for one scalar type; kernel_name is filled in by the caller.
template <class Scalar>
inline constexpr auto support_preamble = scalar_preamble<Scalar, 1>();

template <class Scalar>
constexpr ProgramText support_program_text(const char* kernel_name) {
  constexpr std::string_view preamble = support_preamble<Scalar>.view();
  return {preamble, "", support_kernel_source, kernel_name, program_key(preamble, "", support_kernel_source)};
}

}  // namespace tilegemm::detail
