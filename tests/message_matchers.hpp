// message_matchers: Catch2 matchers (v2 and v3) for an exception message that contains given parts.
#pragma once

#include "catch.hpp"

#if TILEGEMM_CATCH2_V3
#define MESSAGE_CONTAINS(text) Catch::Matchers::ContainsSubstring(text)
#else
#define MESSAGE_CONTAINS(text) Catch::Contains(text)
#endif
// A message containing every one of two or three parts. Macros, not functions: Catch2 combines matchers by reference,
// so a combination must not outlive the full expression it is made in.
#define CONTAINS_ALL2(a, b) (MESSAGE_CONTAINS(a) && MESSAGE_CONTAINS(b))
#define CONTAINS_ALL3(a, b, c) (MESSAGE_CONTAINS(a) && MESSAGE_CONTAINS(b) && MESSAGE_CONTAINS(c))
