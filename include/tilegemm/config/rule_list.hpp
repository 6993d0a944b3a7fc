// config/rule_list: one list of rules, each written once, made both TileConfig's static_asserts and the check of a
// configuration read at run time.
#pragma once

// A list of rules is a macro LIST(RULE) whose lines are RULE(name, holds, "sentence"): `holds` a constant expression
// on the TileShape `t`, false (never a division by zero) where an earlier rule of the list is broken. In C++17 a
// static_assert's message must be a literal, so a macro list is how one sentence serves both checks.
#define TILEGEMM_RULE_ASSERT(name, holds, sentence) static_assert(holds, "TileConfig: " sentence);
#define TILEGEMM_RULE_CHECK(name, holds, sentence) \
  if (!(holds)) return sentence;

// The two members a family's FamilyTraits (or TileConfig's shared rules) makes from its list: rules_hold<...>(), the
// static_asserts on a TileConfig's parameters, and rule_broken(t), the sentence of the first rule `t` breaks or
// nullptr.
#define TILEGEMM_RULES_FROM(LIST)                                                                     \
  template <int TSM, int TSN, int TSK, int WPTM, int WPTN, int VW, int Stages>                        \
  static constexpr bool rules_hold() {                                                                \
    constexpr ::tilegemm::detail::TileShape t{TSM, TSN, TSK, WPTM, WPTN, VW, Stages};                 \
    (void)t;                                                                                          \
    LIST(TILEGEMM_RULE_ASSERT)                                                                        \
    return true;                                                                                      \
  }                                                                                                   \
  static constexpr const char* rule_broken([[maybe_unused]] const ::tilegemm::detail::TileShape& t) { \
    LIST(TILEGEMM_RULE_CHECK)                                                                         \
    return nullptr;                                                                                   \
  }
