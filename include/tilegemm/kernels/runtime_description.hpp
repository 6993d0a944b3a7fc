// kernels/runtime_description: a configuration given as values at run time (a family's name and its tile sizes, as
// the tuner's file holds them) checked against TileConfig's and its family's rules and made a KernelDescription.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "kernel_description.hpp"

namespace tilegemm::detail {

// Calls fn(std::integral_constant<Family, F>{}) for the family `family` of List; false for a value that names none.
template <class List = BuiltInFamilies, class Fn>
constexpr bool with_family(Family family, Fn&& fn) {
  return with_family_of<List>(family, fn);
}

// The family of List whose traits' name is `name` ("prefetch"), if any.
template <class List = BuiltInFamilies>
std::optional<Family> family_named(std::string_view name) {
  return family_of_list_named<List>(name);
}

// The first rule of TileConfig or of the family that `t` breaks, as its static_assert's sentence, or nullptr: the
// same lists (config/rule_list.hpp), so that a configuration read at run time obeys exactly what a TileConfig would.
template <class List = BuiltInFamilies>
constexpr const char* rule_broken(Family family, const TileShape& t) {
  if (const char* broken = SharedRules::rule_broken(t)) return broken;
  const char* broken = "the family is not one tilegemm has";
  with_family<List>(family, [&](auto f) { broken = FamilyTraits<decltype(f)::value>::rule_broken(t); });
  return broken;
}

// Preamble texts made at run time, kept for the process (a KernelDescription points into them): one per distinct
// text, and there are few (one per configuration the tuner's file names, or the tuner times).
inline std::string_view kept_text(std::string text) {
  static auto* texts = new std::set<std::string>;  // leaked on purpose, like the other process-wide tables
  static auto* mutex = new std::mutex;
  std::lock_guard<std::mutex> lock(*mutex);
  return *texts->insert(std::move(text)).first;
}

// The description of a configuration of `family` (of List) with tiles `t`, the same as describe<TileConfig<...>> would
// give (the same preamble text and program keys); nullopt, with the reason in `why` when given, if a rule is broken.
template <class List = BuiltInFamilies>
std::optional<KernelDescription> describe_at_run_time(Family family, const TileShape& t, std::string* why = nullptr) {
  if (const char* broken = rule_broken<List>(family, t)) {
    if (why) *why = std::string("TileConfig rule broken: ") + broken;
    return std::nullopt;
  }
  std::optional<KernelDescription> description;
  with_family<List>(family, [&](auto f) {
    constexpr Family F = decltype(f)::value;
    const PreambleLines lines = config_preamble_lines<F>(t);
    if (lines.overflowed) return;
    description = description_of_family<F>(t, piece(kept_text(std::string(lines.view()))));
  });
  if (!description && why) *why = "its preamble is too long";
  return description;
}

}  // namespace tilegemm::detail
