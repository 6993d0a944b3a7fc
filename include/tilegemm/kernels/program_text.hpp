// kernels/program_text: an OpenCL program as the pieces of source it is built from, and the key it is cached under.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

#include "../config/fnv1a.hpp"

namespace tilegemm::detail {

// A piece of OpenCL C source: one text, or several that the program carries one after the other (`parts`: a family's
// helpers made of shared texts), and its FNV-1a hash over them as one text. The library's own pieces (piece_of,
// joined_piece) work their hash out at run time, on the first program that uses them, and keep it (lazy_hash):
// hashing and joining the kernels' texts in the constexpr evaluator cost every file that includes tilegemm about
// 1.5 s of g++. piece(text) hashes at once (at compile time where it is a constant).
struct TextPiece {
  std::string_view text;                    // the piece, when it is one text
  const std::string_view* parts = nullptr;  // else its `part_count` texts, in order
  std::size_t part_count = 0;
  std::uint64_t hash = fnv1a_offset_basis;          // a lazy piece's is 0: ask hash_value()
  std::atomic<std::uint64_t>* kept_hash = nullptr;  // where a lazy piece keeps its hash (0 until worked out)

  constexpr bool empty() const { return parts != nullptr ? part_count == 0 : text.empty(); }
  // Calls fn(text) for each of its texts, in order.
  template <class Fn>
  constexpr void each_text(Fn&& fn) const {
    if (parts == nullptr) {
      fn(text);
      return;
    }
    for (std::size_t i = 0; i < part_count; ++i) fn(parts[i]);
  }
  std::uint64_t hash_value() const {
    if (kept_hash == nullptr) return hash;
    std::uint64_t worked_out = kept_hash->load(std::memory_order_relaxed);
    if (worked_out == 0) {  // two threads may both work it out: they store the same value
      worked_out = fnv1a_offset_basis;
      each_text([&](std::string_view t) { worked_out = fnv1a(t, worked_out); });
      kept_hash->store(worked_out, std::memory_order_relaxed);
    }
    return worked_out;
  }
};

constexpr TextPiece piece(std::string_view text) { return {text, nullptr, 0, fnv1a(text)}; }

// A text as a string_view without scanning it for its end (a literal's size is its type's; a fixed_string's its own).
template <std::size_t N>
constexpr std::string_view text_view(const char (&text)[N]) {
  return {text, N - 1};
}
template <class Text>
constexpr std::string_view text_view(const Text& text) {
  return text.view();
}

// Where the piece of `Texts` keeps its hash, and its texts.
template <const auto&... Texts>
inline std::atomic<std::uint64_t> lazy_hash{0};
template <const auto&... Texts>
inline constexpr std::string_view texts_of[] = {text_view(Texts)...};

// The piece of the constant text `Text` (a literal or a fixed_string), hashed on first use.
template <const auto& Text>
constexpr TextPiece piece_of() {
  return {text_view(Text), nullptr, 0, 0, &lazy_hash<Text>};
}
// The piece of the constant texts `Texts` one after the other, hashed on first use: the same piece, text and hash,
// as their concatenation would be, without making the concatenation.
template <const auto&... Texts>
constexpr TextPiece joined_piece() {
  return {{}, texts_of<Texts...>, sizeof...(Texts), 0, &lazy_hash<Texts...>};
}

// A __kernel function and the source that defines it.
struct EntryPoint {
  const char* name = nullptr;
  TextPiece source;
};

inline constexpr char build_options[] = "";

// A program's sources in order, the kernel to run from it and the key under which the compiled program is cached:
// a hash of the pieces' hashes and the build options (each piece is hashed once per process). The kernel's name
// is not in the key: a program with several kernels (the support program) is built once for all of them.
struct ProgramText {
  static constexpr std::size_t max_sources = 32;
  std::array<std::string_view, max_sources> sources{};
  std::array<bool, max_sources> starts_piece{};  // whether sources[i] is the first text of one of the pieces
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
    if (p.empty()) continue;
    bool first = true;
    p.each_text([&](std::string_view text) {
      if (program.count == ProgramText::max_sources) throw std::logic_error("tilegemm: a program of too many texts");
      program.starts_piece[program.count] = first;
      program.sources[program.count++] = text;
      first = false;
    });
    key = fnv1a_word(p.hash_value(), key);
  }
  program.key = key;
  return program;
}

}  // namespace tilegemm::detail
