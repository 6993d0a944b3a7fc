// gemm/tuned_file: the text of the tuner's winners file, one checked line per (device, driver, precision, shape
// class): written and read here, without a device, so that a damaged or foreign line is dropped, never trusted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../config/fnv1a.hpp"
#include "../config/tile_config.hpp"
#include "../config/version.hpp"
#include "../kernels/runtime_description.hpp"
#include "shape_class.hpp"

namespace tilegemm::detail {

// One winner: for which device and precision it was measured, the class, and the configuration (its family and
// TileConfig parameters), or `model` where none of the candidates beat the built-in choice; with both throughputs.
struct TunedEntry {
  std::string version = library_version;  // tilegemm's version that measured it: another version's line is stale
  std::string device;                     // "platform name / device name"
  std::string driver;                     // CL_DRIVER_VERSION
  std::string precision;                  // "float", "double", "float-tf32x3", "float-tf32" (float's math mode)
  ShapeClass shape_class = ShapeClass::square_small;
  bool model = false;  // the built-in choice stays for this class
  Family family = Family::prefetch;
  TileShape tile{};
  double tflops = 0;          // the winner's, on the class's shapes
  double builtin_tflops = 0;  // the built-in choice's, on the same shapes
};

namespace tuned_file {

inline constexpr std::string_view name = "tuned.txt";  // in the disk cache's folder (runtime/cache_location.hpp)
inline constexpr std::string_view separator = " | ";
inline constexpr std::size_t largest_file = 1 << 20;  // larger files are not ours: not read
inline constexpr std::string_view header =
    "# tilegemm-tune's winners: the configuration AutoConfig uses per device, driver, precision and shape class.\n"
    "# Delete this file (or set TILEGEMM_TUNED=off) to use the built-in choice. A line whose checksum (the first\n"
    "# field, FNV-1a of the rest of the line) does not match, or of another tilegemm version, is ignored.\n"
    "# checksum | tilegemm | platform / device | driver | precision | class | configuration "
    "(family TSM TSN TSK WPTM WPTN VW Stages, or model) | TFLOP/s | built-in TFLOP/s\n";

// Text that must not break a line's fields: separators and line breaks become '/' and ' '.
inline std::string field_text(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? '/' : (c == '\n' || c == '\r') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

inline std::string hex16(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A configuration as the file writes it: "prefetch 128 128 8 8 8 4 1" (family TSM TSN TSK WPTM WPTN VW Stages).
inline std::string configuration_text(Family family, const TileShape& tile) {
  std::string text;
  with_family(family, [&](auto f) { text = FamilyTraits<decltype(f)::value>::name; });
  for (int v : {tile.tsm, tile.tsn, tile.tsk, tile.wptm, tile.wptn, tile.vw, tile.stages}) {
    text += " " + std::to_string(v);
  }
  return text;
}
inline std::string configuration_text(const TunedEntry& e) {
  return e.model ? "model" : configuration_text(e.family, e.tile);
}

inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// The line of `e`, with its checksum and a line break.
inline std::string line_of(const TunedEntry& e) {
  std::string rest;
  for (const std::string& field : {field_text(e.version), field_text(e.device), field_text(e.driver),
                                   field_text(e.precision), std::string(shape_class_name(e.shape_class)),
                                   configuration_text(e), number_text(e.tflops), number_text(e.builtin_tflops)}) {
    rest += std::string(separator) + field;
  }
  return hex16(fnv1a(rest)) + rest + "\n";
}

inline std::vector<std::string_view> split(std::string_view text, std::string_view by) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(by, at);
    parts.push_back(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + by.size();
  }
}

inline bool parse_int(std::string_view text, int& value) {
  if (text.empty() || text.size() > 6) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}
inline bool parse_number(std::string_view text, double& value) {
  if (text.empty() || text.size() > 20) return false;
  const std::string copy(text);
  char* end = nullptr;
  value = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && value >= 0 && value < 1e9;
}

// The configuration that `text` writes (configuration_text) when it obeys the rules of TileConfig and its family;
// nullopt for anything else.
inline std::optional<std::pair<Family, TileShape>> parse_configuration(std::string_view text) {
  const std::vector<std::string_view> config = split(text, " ");
  const std::optional<Family> family = config.empty() ? std::nullopt : family_named(config[0]);
  if (!family || config.size() != 8) return std::nullopt;
  int values[7];
  for (int i = 0; i < 7; ++i) {
    if (!parse_int(config[i + 1], values[i])) return std::nullopt;
  }
  const TileShape tile{values[0], values[1], values[2], values[3], values[4], values[5], values[6]};
  if (rule_broken(*family, tile) != nullptr) return std::nullopt;
  return std::pair{*family, tile};
}

// The entry on `line` (without its line break) when the line is whole and intact, its configuration obeys the rules
// of TileConfig and its family, and it was written by this tilegemm version; nullopt for anything else.
inline std::optional<TunedEntry> parse_line(std::string_view line) {
  if (line.size() < 16 || line.size() > 1000) return std::nullopt;
  const std::string_view rest = line.substr(16);
  std::uint64_t stored = 0;
  for (char c : line.substr(0, 16)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    stored = stored * 16 + static_cast<std::uint64_t>(digit);
  }
  if (stored != fnv1a(rest)) return std::nullopt;
  const std::vector<std::string_view> fields = split(rest.substr(std::min(rest.size(), separator.size())), separator);
  if (rest.substr(0, separator.size()) != separator || fields.size() != 8) return std::nullopt;
  TunedEntry e;
  e.version = std::string(fields[0]);
  if (e.version != library_version) return std::nullopt;  // stale: another version's kernels and plans
  e.device = std::string(fields[1]);
  e.driver = std::string(fields[2]);
  e.precision = std::string(fields[3]);
  const std::optional<ShapeClass> c = shape_class_named(fields[4]);
  if (!c || !parse_number(fields[6], e.tflops) || !parse_number(fields[7], e.builtin_tflops)) return std::nullopt;
  e.shape_class = *c;
  if (fields[5] == "model") {
    e.model = true;
    return e;
  }
  const std::optional<std::pair<Family, TileShape>> config = parse_configuration(fields[5]);
  if (!config) return std::nullopt;
  std::tie(e.family, e.tile) = *config;
  return e;
}

// Every valid entry of a file's text (later lines win over earlier ones for the same device, precision and class
// where a caller keeps one of each).
inline std::vector<TunedEntry> parse(std::string_view text) {
  std::vector<TunedEntry> entries;
  if (text.size() > largest_file) return entries;
  for (std::string_view line : split(text, "\n")) {
    if (line.empty() || line[0] == '#') continue;
    if (std::optional<TunedEntry> e = parse_line(line)) entries.push_back(std::move(*e));
  }
  return entries;
}

// The file's text for `entries`.
inline std::string text_of(const std::vector<TunedEntry>& entries) {
  std::string text(header);
  for (const TunedEntry& e : entries) text += line_of(e);
  return text;
}

}  // namespace tuned_file
}  // namespace tilegemm::detail
