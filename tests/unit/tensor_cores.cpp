// unit/tensor_cores: the cases of test_tensor_cores that need no OpenCL device (the unit tier, built by unit_tests):
// the math modes' names and ScopedMathMode.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"

using tilegemm::MathMode;

TEST_CASE("math modes have names, which TILEGEMM_MATH takes", "[unit][tensor_cores]") {
  using tilegemm::detail::math_mode_from_environment;
  using tilegemm::detail::parse_math_mode;
  CHECK(parse_math_mode("ieee") == MathMode::ieee);
  CHECK(parse_math_mode("tf32x3") == MathMode::tf32x3);
  CHECK(parse_math_mode("tf32") == MathMode::tf32);
  CHECK(parse_math_mode("bf16") == MathMode::bf16);
  CHECK(parse_math_mode("fp16") == MathMode::fp16);
  CHECK(!parse_math_mode("BF16").has_value());
  CHECK(!parse_math_mode("f16").has_value());
  CHECK(!parse_math_mode("half").has_value());
  CHECK(!parse_math_mode("TF32").has_value());
  CHECK(!parse_math_mode("fp32").has_value());
  CHECK(!parse_math_mode("").has_value());
  CHECK(math_mode_from_environment(nullptr) == MathMode::ieee);
  CHECK(math_mode_from_environment("") == MathMode::ieee);
  CHECK(math_mode_from_environment("tf32x3") == MathMode::tf32x3);
  CHECK(math_mode_from_environment("tf32") == MathMode::tf32);
  CHECK(math_mode_from_environment("bf16") == MathMode::bf16);
  CHECK(math_mode_from_environment("fp16") == MathMode::fp16);
  // Every mode's name is taken back, and only the 16-bit ones round operands to 16 bits.
  for (MathMode mode : tilegemm::detail::math_modes) {
    CHECK(parse_math_mode(tilegemm::detail::math_mode_name(mode)) == mode);
    CHECK(tilegemm::detail::sixteen_bit_math(mode) == (mode == MathMode::bf16 || mode == MathMode::fp16));
  }
  try {
    math_mode_from_environment("tf32x2");
    FAIL("TILEGEMM_MATH=tf32x2 was taken");
  } catch (const tilegemm::Error& e) {
    CHECK(e.code() == CL_INVALID_VALUE);
    CHECK(std::string(e.what()).find("TILEGEMM_MATH is \"tf32x2\"") != std::string::npos);
    CHECK(std::string(e.what()).find("expected ieee") != std::string::npos);
    CHECK_THAT(std::string(e.what()), CONTAINS_ALL2("bf16 or fp16", "operands rounded to bfloat16 or half"));
  }
}

TEST_CASE("a ScopedMathMode sets the mode of this thread's calls while it lives, nested ones stack",
          "[unit][tensor_cores]") {
  const MathMode process = tilegemm::math_mode();  // TILEGEMM_MATH's, ieee when unset
  {
    const tilegemm::ScopedMathMode outer(MathMode::tf32);
    CHECK(tilegemm::math_mode() == MathMode::tf32);
    {
      const tilegemm::ScopedMathMode inner(MathMode::tf32x3);
      CHECK(tilegemm::math_mode() == MathMode::tf32x3);
    }
    CHECK(tilegemm::math_mode() == MathMode::tf32);
  }
  CHECK(tilegemm::math_mode() == process);
}
