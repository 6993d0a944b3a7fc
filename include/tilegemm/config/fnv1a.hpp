// fnv1a: a constexpr 64-bit FNV-1a hash, the key under which compiled programs are cached.
#pragma once

#include <cstdint>
#include <string_view>

namespace tilegemm::detail {

inline constexpr std::uint64_t fnv1a_offset_basis = 14695981039346656037ULL;
inline constexpr std::uint64_t fnv1a_prime = 1099511628211ULL;

// Hashes `text`, continuing from `hash` so that several pieces can be chained into one key.
constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = fnv1a_offset_basis) {
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= fnv1a_prime;
  }
  return hash;
}

// Hashes the 8 bytes of `word` (least significant first), continuing from `hash`: to chain hashes of hashes.
constexpr std::uint64_t fnv1a_word(std::uint64_t word, std::uint64_t hash) {
  for (int byte = 0; byte < 8; ++byte) {
    hash ^= (word >> (8 * byte)) & 0xffU;
    hash *= fnv1a_prime;
  }
  return hash;
}

}  // namespace tilegemm::detail
