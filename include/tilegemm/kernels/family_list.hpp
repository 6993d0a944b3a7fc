// kernels/family_list: a list of families as a type, and every lookup by family made from it (which family a value
// or a name is), so that a family joins them all by joining the list.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

#include "../config/family.hpp"

namespace tilegemm::detail {

// Families, each with a FamilyTraits specialisation (kernels/<name>.hpp), no value or name twice.
template <Family... Fs>
struct FamilyList {};

// The list with `More` appended (a test's or a user's family beside the built-in ones).
template <class List, Family... More>
struct families_with_t;
template <Family... Fs, Family... More>
struct families_with_t<FamilyList<Fs...>, More...> {
  using type = FamilyList<Fs..., More...>;
};
template <class List, Family... More>
using families_with = typename families_with_t<List, More...>::type;

// Calls fn(std::integral_constant<Family, F>{}) for each family F of the list, in its order.
template <Family... Fs, class Fn>
constexpr void for_each_family(FamilyList<Fs...>, Fn&& fn) {
  (fn(std::integral_constant<Family, Fs>{}), ...);
}

// Whether no two families of the list share a value or a name (the lookups below would find the first).
template <Family... Fs>
constexpr bool families_distinct(FamilyList<Fs...>) {
  constexpr Family values[] = {Fs...};
  constexpr std::string_view names[] = {FamilyTraits<Fs>::name...};
  for (std::size_t i = 0; i < sizeof...(Fs); ++i) {
    for (std::size_t j = i + 1; j < sizeof...(Fs); ++j) {
      if (values[i] == values[j] || names[i] == names[j]) return false;
    }
  }
  return true;
}

template <Family... Fs, class Fn>
constexpr bool with_family_in(FamilyList<Fs...>, Family family, Fn& fn) {
  return ((family == Fs ? (fn(std::integral_constant<Family, Fs>{}), true) : false) || ...);
}

// Calls fn(std::integral_constant<Family, F>{}) for the family `family` of List; false for a value that names none.
template <class List, class Fn>
constexpr bool with_family_of(Family family, Fn&& fn) {
  return with_family_in(List{}, family, fn);
}

// The family of List whose traits' name is `name` ("prefetch"), if any.
template <class List>
std::optional<Family> family_of_list_named(std::string_view name) {
  std::optional<Family> found;
  for_each_family(List{}, [&](auto f) {
    if (name == FamilyTraits<decltype(f)::value>::name) found = decltype(f)::value;
  });
  return found;
}

}  // namespace tilegemm::detail
