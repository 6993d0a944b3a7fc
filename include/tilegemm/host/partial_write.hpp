// host/partial_write: tilegemm::PartialWrite, what the host floor throws when a call failed after it had written part
// of C (C's old values are then lost); any other exception from it leaves C as it was.
#pragma once

#include <exception>
#include <string>

#include "../runtime/error.hpp"

namespace tilegemm {

// The call failed after it had written some of C's blocks: C holds new values in some places and old ones in others,
// and the old values are lost (a caller that redoes the product elsewhere must not read C as its input: with beta
// nonzero it needs a copy of C kept before the call). what() is "tilegemm: C was partly written when the call failed:
// " and the failure's own message, cause(); code() is its OpenCL status (CL_SUCCESS when it was no OpenCL failure).
struct PartialWrite : Error {
  PartialWrite(cl_int code, const std::string& cause)
      : Error(code, "tilegemm: C was partly written when the call failed: " + cause), cause_(cause) {}
  const std::string& cause() const noexcept { return cause_; }

 private:
  std::string cause_;
};

namespace detail {

// Rethrows the exception being handled as a PartialWrite (one already is stays as it is); for a catch block of code
// that has written part of C.
[[noreturn]] inline void rethrow_as_partial_write() {
  try {
    throw;
  } catch (const PartialWrite&) {
    throw;
  } catch (const Error& e) {
    throw PartialWrite(e.code(), e.what());
#if defined(CL_HPP_ENABLE_EXCEPTIONS)
  } catch (const cl::Error& e) {
    throw PartialWrite(e.err(), std::string(e.what()) + " failed with " + error_name(e.err()));
#endif
  } catch (const std::exception& e) {
    throw PartialWrite(CL_SUCCESS, e.what());
  } catch (...) {
    throw PartialWrite(CL_SUCCESS, "an unknown exception");
  }
}

// Rethrows the exception being handled, a PartialWrite as the Error it wraps: for a call whose C a PartialWrite did
// not reach (the product was made in a copy of C).
[[noreturn]] inline void rethrow_as_intact() {
  try {
    throw;
  } catch (const PartialWrite& e) {
    throw Error(e.code(), e.cause());
  }
}

}  // namespace detail
}  // namespace tilegemm
