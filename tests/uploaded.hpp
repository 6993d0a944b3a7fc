// uploaded: a queue on the default device and host matrices copied into new buffers of its context.
#pragma once

#include <algorithm>
#include <tilegemm/tilegemm.hpp>

#include "catch.hpp"
#include "reference.hpp"

namespace tilegemm_test {

inline cl::CommandQueue test_queue() { return tilegemm::queue_for(tilegemm::find_device("").device); }

// A buffer of at least one element holding `host`'s values, column by column.
template <class S>
cl::Buffer upload(const cl::CommandQueue& queue, const Matrix<S>& host) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE,
                    sizeof(S) * std::max<Eigen::Index>(host.size(), 1), nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  if (host.size() > 0) REQUIRE(queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, sizeof(S) * host.size(), host.data()) == 0);
  return buffer;
}

}  // namespace tilegemm_test
