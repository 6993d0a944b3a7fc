// cache_file: one compiled program on disk (a checked header, its key, the driver's binary), read whole or not at all.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../config/fnv1a.hpp"

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace tilegemm::detail {

// What a cache file holds: the key it was stored under (the full text, not a hash of it: a file is used only for the
// exact key) and the driver's binary of the program.
struct CacheEntry {
  std::string key;
  std::vector<unsigned char> binary;
};

// 16 hexadecimal digits: how files are named by a 64-bit key.
inline std::string hex64(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 0xfU];
  return text;
}

namespace cache_file {

// The layout, little-endian: magic, format, key length (4 bytes), binary length (8), checksum (8), key, binary.
inline constexpr char magic[8] = {'t', 'i', 'l', 'e', 'g', 'e', 'm', 'm'};
inline constexpr std::uint32_t format = 1;
inline constexpr std::size_t header_bytes = sizeof(magic) + 4 + 4 + 8 + 8;
// Larger files are not read: no program binary comes near this, so such a file is not one of ours.
inline constexpr std::uintmax_t largest_file = std::uintmax_t{256} << 20;

// FNV-1a over the key and then the binary: catches a flipped or lost byte anywhere after the header.
inline std::uint64_t checksum(std::string_view key, const unsigned char* binary, std::size_t binary_size) {
  return fnv1a(std::string_view(reinterpret_cast<const char*>(binary), binary_size), fnv1a(key));
}

inline void put(std::vector<unsigned char>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<unsigned char>(value >> (8 * i)));
}
inline std::uint64_t get(const unsigned char* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t{in[i]} << (8 * i);
  return value;
}

// The file's bytes for `entry`.
inline std::vector<unsigned char> encode(const CacheEntry& entry) {
  std::vector<unsigned char> out(magic, magic + sizeof(magic));
  out.reserve(header_bytes + entry.key.size() + entry.binary.size());
  put(out, format, 4);
  put(out, entry.key.size(), 4);
  put(out, entry.binary.size(), 8);
  put(out, checksum(entry.key, entry.binary.data(), entry.binary.size()), 8);
  out.insert(out.end(), entry.key.begin(), entry.key.end());
  out.insert(out.end(), entry.binary.begin(), entry.binary.end());
  return out;
}

// The entry in `bytes` when they are one whole, intact entry of this format: nullopt for anything else (empty,
// truncated, longer than its header says, another format, a changed byte).
inline std::optional<CacheEntry> decode(const std::vector<unsigned char>& bytes) {
  if (bytes.size() < header_bytes || !std::equal(magic, magic + sizeof(magic), bytes.begin())) return std::nullopt;
  const unsigned char* at = bytes.data() + sizeof(magic);
  const std::uint64_t file_format = get(at, 4), key_size = get(at + 4, 4), binary_size = get(at + 8, 8);
  const std::uint64_t stored_checksum = get(at + 16, 8);
  const std::uint64_t body = bytes.size() - header_bytes;
  if (file_format != format || key_size > body || binary_size != body - key_size) return std::nullopt;
  const unsigned char* key = bytes.data() + header_bytes;
  CacheEntry entry{std::string(key, key + key_size), std::vector<unsigned char>(key + key_size, key + body)};
  if (checksum(entry.key, entry.binary.data(), entry.binary.size()) != stored_checksum) return std::nullopt;
  return entry;
}

// The whole file at `path`, or nullopt when it is missing, unreadable, not a regular file or too large. The size is
// taken from the open file, so a file renamed over `path` meanwhile is read whole too (the old one or the new one).
inline std::optional<std::vector<unsigned char>> read(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (size < 0 || static_cast<std::uintmax_t>(size) > largest_file || !in.seekg(0)) return std::nullopt;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
  return bytes;
}

// Creates `folder` and its parents where missing. Returns "" when it is there, else why not.
inline std::string make_folder(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  return error ? "cannot create " + folder.string() + ": " + error.message() : "";
}

// A name for a temporary file beside `path` that no other thread or process picks at the same time.
inline std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static const std::uint64_t process = [] {
    std::uint64_t seed = std::random_device{}();
#if __has_include(<unistd.h>)
    seed = (seed << 32) ^ static_cast<std::uint64_t>(::getpid());
#endif
    return seed;
  }();
  static std::atomic<std::uint64_t> counter{0};
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(process) + "." + std::to_string(counter++);
  return temporary;
}

// Writes `bytes` to `path` so that readers see the old file or the whole new one, never a part: into a temporary
// file in the same folder, then renamed over `path` (creating the folder first). Returns "" on success, else why not.
inline std::string write_atomically(const std::filesystem::path& path, const std::vector<unsigned char>& bytes) {
  const std::string no_folder = make_folder(path.parent_path());
  if (!no_folder.empty()) return no_folder;
  std::error_code error;
  const std::filesystem::path temporary = temporary_beside(path);
  std::FILE* file = std::fopen(temporary.string().c_str(), "wb");
  if (file == nullptr) {
    return "cannot create a file in " + path.parent_path().string() + ": " + std::generic_category().message(errno);
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int written_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::filesystem::remove(temporary, error);
    return "cannot write " + temporary.string() + ": " +
           std::generic_category().message(written ? errno : written_errno);
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return "cannot rename " + temporary.string() + " to " + path.filename().string() + ": " + error.message();
  }
  return "";
}

}  // namespace cache_file
}  // namespace tilegemm::detail
