// host/partial_write: tilegemm::PartialWrite, what the host floor throws when a call failed after it had written part
// of C (C's old values are then lost); any other exception from it leaves C as it was.
#pragma once

#include <string>

#include "../runtime/error.hpp"

namespace tilegemm {

// The call failed after it had written some of C's blocks: C holds new values in some places and old ones in others,
// and the old values are lost (a caller that redoes the product elsewhere must not read C as its input: with beta
// nonzero it needs a copy of C kept before the call). what() is the failure's own message after "tilegemm: C was
// partly written when the call failed: "; code() is its OpenCL status (CL_SUCCESS when it was no OpenCL failure).
struct PartialWrite : Error {
  PartialWrite(cl_int code, const std::string& cause)
      : Error(code, "tilegemm: C was partly written when the call failed: " + cause) {}
};

}  // namespace tilegemm
