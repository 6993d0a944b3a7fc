// catch: includes Catch2 v2 or v3, whichever the build found.
#pragma once

#if TILEGEMM_CATCH2_V3
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#else
#include <catch2/catch.hpp>
#endif
