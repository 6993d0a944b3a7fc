// kernels/program_text: an OpenCL program as the pieces of source it is built from, and the key it is cached under.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "../config/fnv1a.hpp"

namespace tilegemm::detail {

// A piece of OpenCL C source with its FNV-1a hash, worked out at compile time.
struct TextPiece {
  std::string_view text;
  std::uint64_t hash = fnv1a_offset_basis;
};

constexpr TextPiece piece(std::string_view text) { return {text, fnv1a(text)}; }

// A __kernel function and the source that defines it.
struct EntryPoint {
  const char* name = nullptr;
  TextPiece source;
};

inline constexpr char build_options[] = "";

// A program's sources in order, the kernel to run from it and the key under which the compiled program is cached:
// a hash of the pieces' hashes and the build options, so that no source is hashed at run time. The kernel's name
// is not in the key: a program with several kernels (the support program) is built once for all of them.
struct ProgramText {
  static constexpr std::size_t max_pieces = 10;
  std::array<std::string_view, max_pieces> sources{};
  std::size_t count = 0;
  const char* kernel_name = "";
  std::uint64_t key = 0;
  bool needs_sm90a = false;  // built from the PTX of its source retargeted to sm_90a (runtime/sm90a_ptx.hpp)
};

inline ProgramText program_text(const char* kernel_name, std::initializer_list<TextPiece> pieces) {
  ProgramText program;
  program.kernel_name = kernel_name;
  std::uint64_t key = fnv1a(build_options);
  for (const TextPiece& p : pieces) {
    if (p.text.empty()) continue;
    program.sources[program.count++] = p.text;
    key = fnv1a_word(p.hash, key);
  }
  program.key = key;
  return program;
}

}  // namespace tilegemm::detail
