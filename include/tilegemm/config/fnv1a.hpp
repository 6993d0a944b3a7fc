// fnv1a: a constexpr 64-bit FNV-1a hash, the key under which compiled programs are cached.
#pragma once

#include <cstdint>
#include <string_view>

namespace tilegemm::detail {

inline constexpr std::uint64_t fnv1a_offset_basis = 14695981039346656037ULL;

// Hashes `text`, continuing from `hash` so that several pieces can be chained into one key.
constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = fnv1a_offset_basis) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace tilegemm::detail
