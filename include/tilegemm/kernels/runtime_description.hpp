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

// Calls fn(std::integral_constant<Family, F>{}) for the family `family`; false for a value that names none.
template <class Fn>
constexpr bool with_family(Family family, Fn&& fn) {
  switch (family) {
    case Family::naive:
      fn(std::integral_constant<Family, Family::naive>{});
      return true;
    case Family::local_tiles:
      fn(std::integral_constant<Family, Family::local_tiles>{});
      return true;
    case Family::wide_types:
      fn(std::integral_constant<Family, Family::wide_types>{});
      return true;
    case Family::register_blocking:
      fn(std::integral_constant<Family, Family::register_blocking>{});
      return true;
    case Family::prefetch:
      fn(std::integral_constant<Family, Family::prefetch>{});
      return true;
    case Family::split_k:
      fn(std::integral_constant<Family, Family::split_k>{});
      return true;
    case Family::tensor_cores:
      fn(std::integral_constant<Family, Family::tensor_cores>{});
      return true;
    case Family::warpgroup_mma:
      fn(std::integral_constant<Family, Family::warpgroup_mma>{});
      return true;
    case Family::bulk_tensor_cores:
      fn(std::integral_constant<Family, Family::bulk_tensor_cores>{});
      return true;
  }
  return false;
}

// The family whose traits' name is `name` ("prefetch"), if any.
inline std::optional<Family> family_named(std::string_view name) {
  std::optional<Family> found;
  for (int f = 0; f <= static_cast<int>(Family::bulk_tensor_cores); ++f) {
    with_family(static_cast<Family>(f), [&](auto family) {
      if (name == FamilyTraits<decltype(family)::value>::name) found = decltype(family)::value;
    });
  }
  return found;
}

// The first rule of TileConfig or of the family that `t` breaks, as a sentence, or nullptr: the static_asserts'
// predicates, so that a configuration read at run time obeys exactly what a TileConfig would.
constexpr const char* rule_broken(Family family, const TileShape& t) {
  if (const char* broken = shared_rule_broken(t)) return broken;
  const char* broken = "the family is not one tilegemm has";
  with_family(family, [&](auto f) {
    using Traits = FamilyTraits<decltype(f)::value>;
    broken = Traits::rule_broken(t);
    if (broken == nullptr && !Traits::stages_fit(t.stages)) broken = "Stages is outside what the family allows";
  });
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

// The description of a configuration of `family` with tiles `t`, the same as describe<TileConfig<...>> would give (the
// same preamble text and program keys); nullopt, with the reason in `why` when given, if a rule is broken.
inline std::optional<KernelDescription> describe_at_run_time(Family family, const TileShape& t,
                                                             std::string* why = nullptr) {
  if (const char* broken = rule_broken(family, t)) {
    if (why) *why = std::string("TileConfig rule broken: ") + broken;
    return std::nullopt;
  }
  std::optional<KernelDescription> description;
  with_family(family, [&](auto f) {
    constexpr Family F = decltype(f)::value;
    const PreambleLines lines = config_preamble_lines<F>(t);
    if (lines.overflowed) return;
    description = description_of_family<F>(t, piece(kept_text(std::string(lines.view()))));
  });
  if (!description && why) *why = "its preamble is too long";
  return description;
}

}  // namespace tilegemm::detail
