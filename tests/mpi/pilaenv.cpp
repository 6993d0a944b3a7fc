// mpi/pilaenv: TILEGEMM_PILAENV's parsing, the panel width the drop-in's pilaenv_ gives ScaLAPACK.
#include "pilaenv.hpp"

#include <optional>
#include <string>

#include "catch.hpp"

using tilegemm::detail::blas::largest_pilaenv;
using tilegemm::detail::blas::pilaenv_from;

TEST_CASE("TILEGEMM_PILAENV: a positive integer is the width, and unset or empty asks the CPU library", "[unit]") {
  std::string problem = "left from before";
  CHECK(pilaenv_from(nullptr, problem) == std::nullopt);
  CHECK(problem.empty());
  CHECK(pilaenv_from("", problem) == std::nullopt);
  CHECK(problem.empty());
  for (const auto& [text, width] : {std::pair<const char*, int>{"1", 1},
                                    {"32", 32},
                                    {"128", 128},
                                    {"0128", 128},
                                    {"4096", 4096},
                                    {"1048576", largest_pilaenv}}) {
    INFO("TILEGEMM_PILAENV=" << text);
    CHECK(pilaenv_from(text, problem) == std::optional<int>(width));
    CHECK(problem.empty());
  }
}

TEST_CASE("TILEGEMM_PILAENV: anything else is refused in one line naming it, and the CPU library answers", "[unit]") {
  for (const char* text : {"0", "-1", "+128", "x", "128x", " 128", "128 ", "1e3", "12.5", "1048577", "2147483648",
                           "99999999999999999999999999"}) {
    INFO("TILEGEMM_PILAENV=" << text);
    std::string problem;
    CHECK(pilaenv_from(text, problem) == std::nullopt);
    CHECK(problem == std::string("tilegemm-blas: TILEGEMM_PILAENV=") + text +
                         " is not a positive integer up to 1048576; pilaenv_ gives the CPU library's panel width");
  }
}
