// gemm: the BLAS-style product on cl::Buffers, C = alpha * op(A) * op(B) + beta * C, column-major.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "default_config.hpp"
#include "device_limits.hpp"
#include "error.hpp"
#include "gemm_arguments.hpp"
#include "kernel_text.hpp"
#include "launch.hpp"
#include "packing.hpp"
#include "scalar.hpp"
#include "tile_config.hpp"

namespace tilegemm {
namespace detail {

template <class Config, class Scalar>
ProgramText direct_program_text(bool trans_a, bool trans_b) {
  if (trans_a) {
    return trans_b ? gemm_program_text<Config, Scalar, true, true>() : gemm_program_text<Config, Scalar, true, false>();
  }
  return trans_b ? gemm_program_text<Config, Scalar, false, true>() : gemm_program_text<Config, Scalar, false, false>();
}

// Runs one configuration: packs the operands first where its family needs that, then the GEMM kernel.
template <class Config, class Scalar>
cl::Event run_config(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, const std::vector<cl::Event>& wait) {
  check_work_group(device_limits(queue.getInfo<CL_QUEUE_DEVICE>()), Config::name(), Config::threads_m,
                   Config::threads_n, Config::local_memory_elements * sizeof(Scalar));
  const cl::NDRange global(round_up(p.m, Config::TSM) / Config::WPTM, round_up(p.n, Config::TSN) / Config::WPTN);
  const cl::NDRange local(Config::threads_m, Config::threads_n);
  if constexpr (Config::packed_operands) {
    std::vector<cl::Event> ready = wait;
    const PackedOperand a =
        pack_operand<Scalar, Config::VW>(queue, p.a, p.m, p.k, !p.trans_a, Config::TSM, Config::TSK, wait, ready);
    const PackedOperand b =
        pack_operand<Scalar, Config::VW>(queue, p.b, p.n, p.k, p.trans_b, Config::TSN, Config::TSK, wait, ready);
    cl::Kernel kernel = make_kernel(queue, gemm_program_text<Config, Scalar, false, false>(), Config::threads);
    set_args(kernel, p.m, p.n, static_cast<int>(round_up(p.k, Config::TSK)), p.alpha, p.beta, a.buffer, a.offset, a.ld,
             b.buffer, b.offset, b.ld, p.c.buffer, p.c.offset, p.c.ld);
    return enqueue(queue, kernel, global, local, ready);
  } else {
    cl::Kernel kernel = make_kernel(queue, direct_program_text<Config, Scalar>(p.trans_a, p.trans_b), Config::threads);
    set_args(kernel, p.m, p.n, p.k, p.alpha, p.beta, p.a.buffer, p.a.offset, p.a.ld, p.b.buffer, p.b.offset, p.b.ld,
             p.c.buffer, p.c.offset, p.c.ld);
    return enqueue(queue, kernel, global, local, wait);
  }
}

template <class Scalar, std::size_t... I>
cl::Event run_default_config(std::size_t choice, const cl::CommandQueue& queue, const GemmProblem<Scalar>& p,
                             const std::vector<cl::Event>& wait, std::index_sequence<I...>) {
  cl::Event done;
  ((choice == I ? (void)(done = run_config<std::tuple_element_t<I, DefaultCandidates>, Scalar>(queue, p, wait))
                : (void)0),
   ...);
  return done;
}

// C = beta * C, for k == 0 or alpha == 0, where A and B are not read (BLAS semantics).
template <class Scalar>
cl::Event scale_c(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, const std::vector<cl::Event>& wait) {
  cl::Kernel kernel = make_kernel(queue, support_program_text<Scalar>(scale_kernel_name), pack_tile * pack_tile);
  set_args(kernel, p.m, p.n, p.beta, p.c.buffer, p.c.offset, p.c.ld);
  return enqueue(queue, kernel, cl::NDRange(round_up(p.m, pack_tile), round_up(p.n, pack_tile)),
                 cl::NDRange(pack_tile, pack_tile), wait);
}

template <class Config, class Scalar>
cl::Event gemm_checked(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p,
                       const std::vector<cl::Event>& wait) {
  const DeviceLimits device = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  if (std::is_same_v<Scalar, double> && !device.fp64) {
    throw Error(CL_INVALID_OPERATION, "tilegemm: " + device.name +
                                          " does not support double precision (cl_khr_fp64). Multiply float matrices, "
                                          "or choose a device with fp64 through TILEGEMM_DEVICE or your own queue.");
  }
  if (p.m == 0 || p.n == 0) {
    cl::Event done;
    check(queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done), "clEnqueueMarkerWithWaitList");
    return done;
  }
  if (p.k == 0 || p.alpha == Scalar(0)) return scale_c(queue, p, wait);
  if constexpr (std::is_same_v<Config, AutoConfig>) {
    return run_default_config(choose_default_config(device, p.m, p.n, p.k), queue, p, wait,
                              std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{});
  } else {
    static_assert(
        is_tile_config<Config>::value,
        "tilegemm: the Config template argument must be a tilegemm::TileConfig<...> or tilegemm::AutoConfig.");
    return run_config<Config, Scalar>(queue, p, wait);
  }
}

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C on the queue's device, with op(A) m x k, op(B) k x n and C m x n stored
// column-major at the given offsets (in elements) with leading dimensions lda, ldb, ldc, as in BLAS. Waits for
// `wait`, returns without waiting for the result; the returned event completes with it. C must not overlap A or
// B. When beta is zero, C is not read. Bad arguments throw std::invalid_argument, OpenCL failures tilegemm::Error.
template <class Config = AutoConfig, class Scalar>
cl::Event gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n,
               long long k, Scalar alpha, const cl::Buffer& a, long long a_offset, long long lda, const cl::Buffer& b,
               long long b_offset, long long ldb, std::common_type_t<Scalar> beta, const cl::Buffer& c,
               long long c_offset, long long ldc, const std::vector<cl::Event>& wait = {}) {
  detail::require_supported_scalar<Scalar>();
  return detail::translate_cl_errors([&] {
    const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    const detail::GemmProblem<Scalar> problem = detail::check_arguments<Scalar>(
        context, trans_a, trans_b, m, n, k, alpha, a, a_offset, lda, b, b_offset, ldb, beta, c, c_offset, ldc);
    return detail::gemm_checked<Config>(queue, problem, wait);
  });
}

}  // namespace tilegemm
