// clblast_peer: CLBlast's Gemm on the same OpenCL queue and buffers as tilegemm, timed the same way.
#pragma once

#include <clblast.h>

#include <stdexcept>
#include <string>

#include "contender.hpp"
#include "opencl_operands.hpp"

namespace bench {

inline clblast::Transpose clblast_transpose(bool transposed) {
  return transposed ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

// C = op(A) * op(B) by clblast::Gemm (column-major) on the same queue: a call enqueues all of CLBlast's kernels,
// and finishing waits for the queue.
template <class Scalar>
Contender<Scalar> clblast_contender(const OpenclOperands<Scalar>& device, const Shape& shape, const Transposes& t) {
  poison_result(device, shape);
  Contender<Scalar> contender;
  contender.product.start = [device, shape, t] {
    cl_command_queue queue = device.queue();
    const clblast::StatusCode status =
        clblast::Gemm<Scalar>(clblast::Layout::kColMajor, clblast_transpose(t.a), clblast_transpose(t.b), shape.m,
                              shape.n, shape.k, Scalar(1), device.a(), 0, device.lda, device.b(), 0, device.ldb,
                              Scalar(0), device.c(), 0, device.ldc, &queue, nullptr);
    if (status != clblast::StatusCode::kSuccess) {
      throw std::runtime_error("clblast::Gemm failed with status " + std::to_string(static_cast<int>(status)));
    }
  };
  contender.product.finish = [device] { detail::require_cl(device.queue.finish(), "clFinish"); };
  contender.read_result = [device](HostMatrix<Scalar>& c) { download_result(device, c); };
  return contender;
}

}  // namespace bench
