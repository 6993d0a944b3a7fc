// error_code: the code of the tilegemm::Error a call throws, for tests that check which error a bad call raises.
#pragma once

#include <tilegemm/core.hpp>

namespace tilegemm_test {

// `no_error` when `body` throws nothing (other exceptions propagate).
constexpr cl_int no_error = 12345;
template <class Body>
cl_int error_code(Body&& body) {
  try {
    body();
  } catch (const tilegemm::Error& e) {
    return e.code();
  }
  return no_error;
}

}  // namespace tilegemm_test
