// gemm: the BLAS-style product on cl::Buffers, C = alpha * op(A) * op(B) + beta * C, column-major.
#pragma once

#include <exception>
#include <type_traits>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "../kernels/kernel_description.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/math_setting.hpp"
#include "arguments.hpp"
#include "plan.hpp"
#include "sixteen_bit_gemm.hpp"
// What only the entries' bodies use (config/linkage.hpp): the planner's defaults, the executor, the tuner's file and
// the verbose lines, with their caches and files, are not parsed in a file that links tilegemm::runtime.
#if TILEGEMM_ENTRY_BODIES || defined(TILEGEMM_INTERNALS)
#include "default_plan.hpp"
#include "executor.hpp"
#include "tuned_configs.hpp"
#include "verbose.hpp"
#endif

namespace tilegemm {
namespace detail {

// The default of a scalar template argument that must be named (gemm<float>(...)): a call that names none meets a
// sentence saying so rather than "couldn't deduce template parameter".
struct ScalarNotNamed {};
template <class Scalar>
inline constexpr bool scalar_named = !std::is_same_v<Scalar, ScalarNotNamed>;

// The configuration a Config template argument names, or null for AutoConfig (chosen per device and shape).
template <class Config>
constexpr const KernelDescription* description_of() {
  if constexpr (std::is_same_v<Config, AutoConfig>) {
    return nullptr;
  } else {
    static_assert(
        is_tile_config<Config>::value,
        "tilegemm: the Config template argument must be a tilegemm::TileConfig<...> or tilegemm::AutoConfig.");
    return &describe<Config>;
  }
}

// The plan of a checked product (or batch of products) with `config` (null: the default choice, with the tuner's
// winners for the device where its file has some) on the call's device.
TILEGEMM_ENTRY Plan plan_gemm(const KernelDescription* config, const GemmShape& s, bool alpha_is_zero,
                              const DeviceLimits& device, std::size_t scalar_size, const PlanOptions& options = {});
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Plan plan_gemm(const KernelDescription* config, const GemmShape& s, bool alpha_is_zero,
                              const DeviceLimits& device, std::size_t scalar_size, const PlanOptions& options) {
  require_fp64(device, scalar_size);
  if (s.m == 0 || s.n == 0 || s.batch == 0) return plan_without_product(Work::nothing, s, device);
  if (s.k == 0 || alpha_is_zero) return plan_without_product(Work::scale_c, s, device);
  return config ? plan_product(*config, s, device, scalar_size, options)
                : plan_default(s, device, scalar_size, options.math,
                               TunedConfigs::shared().find(device, scalar_size, options.math));
}
#endif

// Plans and runs a checked product in the call's math mode (call.options.math); the returned event completes with C.
TILEGEMM_ENTRY cl::Event run_gemm(const CallContext& call, const KernelDescription* config, const GemmProblem& p,
                                  const std::vector<cl::Event>& wait);
#if TILEGEMM_ENTRY_BODIES
// The product planned again and run where a first plan failed: `within` is the call with the failure marked on its
// device's description.
inline cl::Event run_replanned(const CallContext& within, const KernelDescription* config, const GemmProblem& p,
                               const std::vector<cl::Event>& wait, const PlanOptions& options) {
  const Plan plan = plan_gemm(config, p.shape, false, within.limits, p.scalar_size(), options);
  report_choice(plan, p.shape, within.limits, p.scalar_size(), options.math);
  return execute(within, plan, p, wait);
}

TILEGEMM_ENTRY cl::Event run_gemm(const CallContext& call, const KernelDescription* config, const GemmProblem& p,
                                  const std::vector<cl::Event>& wait) {
  PlanOptions options;
  if (call.options.math_refused) std::rethrow_exception(call.options.math_refused);
  options.math = call.options.math;
  const Plan plan = plan_gemm(config, p.shape, p.alpha.value == 0, call.limits, p.scalar_size(), options);
  report_choice(plan, p.shape, call.limits, p.scalar_size(), options.math);
  try {
    return execute(call, plan, p, wait);
  } catch (const TensorMapsFailed& e) {
    // Where the driver cannot build a product kernel that makes tensor maps, the device is marked and the product
    // planned again with its operands packed. That kernel never ran, so C is not yet written.
    report_tensor_maps_refusal(plan, call.limits, e.what());
    note_tensor_maps_refused(call.device);
    CallContext within = call;
    within.limits.tensor_maps_refused = true;
    return run_gemm(within, config, p, wait);  // maps no operand now, and may still meet the local memory's refusal
  } catch (const Error& e) {
    // The default choice may take more local memory than the device reports (runtime/sm90a_local_memory.hpp). Where
    // the driver refuses it, the device is marked and the product planned again within what the device reports. C is
    // not written before the product kernel runs, so the product starts afresh.
    if (config != nullptr || !beyond_reported_local_memory(plan, call.limits, p.scalar_size()) ||
        !refuses_local_memory(e)) {
      throw;
    }
    report_refusal(plan, call.limits, e.what());
    note_sm90a_local_memory_refused(call.device);
    CallContext within = call;
    within.limits.sm90a_local_memory_refused = true;
    return run_replanned(within, nullptr, p, wait, options);
  }
}
#endif

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C on the queue's device, in Scalar (float or double, named explicitly as in
// tilegemm::gemm<float>(...), so that a literal such as 1.0 cannot make a float product a double one), with op(A)
// m x k, op(B) k x n and C m x n stored column-major at the given offsets (in elements) with leading dimensions lda,
// ldb, ldc, as in BLAS. Waits for `wait`, returns without waiting for the result; the returned event completes
// with it. C must not overlap A or B. When beta is zero, C is not read. `math` is the arithmetic of a float product
// (MathMode; by default the thread's or the process's, math_mode()). Bad arguments throw std::invalid_argument,
// OpenCL failures tilegemm::Error.
// With a 16-bit Scalar (Eigen::half or Eigen::bfloat16: A and B stored as 16-bit, 2 bytes an element) the second
// template argument names C's type instead, the inputs' (the default) or float: gemm<Eigen::half, float>(...); alpha
// and beta are floats, the products accumulate in float and a 16-bit C is rounded once, to nearest even
// (gemm/sixteen_bit_gemm.hpp, docs/sixteen_bit.md).
template <class Scalar = detail::ScalarNotNamed, class Config = AutoConfig, class Alpha, class Beta>
cl::Event gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n,
               long long k, Alpha alpha, const cl::Buffer& a, long long a_offset, long long lda, const cl::Buffer& b,
               long long b_offset, long long ldb, Beta beta, const cl::Buffer& c, long long c_offset, long long ldc,
               const std::vector<cl::Event>& wait = {}, MathMode math = math_mode()) {
  static_assert(detail::scalar_named<Scalar>,
                "tilegemm::gemm: name the scalar type, float or double: tilegemm::gemm<float>(queue, ...).");
  static_assert(!detail::is_tile_config<Scalar>::value && !std::is_same_v<Scalar, AutoConfig>,
                "tilegemm::gemm: name the scalar type first, then the configuration: gemm<float, Config>(...).");
  static_assert(std::is_arithmetic_v<Alpha> && std::is_arithmetic_v<Beta>,
                "tilegemm::gemm: alpha and beta must be numbers (they are converted to the scalar type).");
  if constexpr (!detail::scalar_named<Scalar>) {
    return cl::Event();  // refused above; nothing more to say
  } else if constexpr (detail::is_sixteen_bit<Scalar>) {
    return detail::sixteen_bit_gemm<Scalar, Config>(queue, trans_a, trans_b, m, n, k, alpha, {a, a_offset, lda},
                                                    {b, b_offset, ldb}, beta, {c, c_offset, ldc}, 1, false, wait, math);
  } else {
    detail::require_supported_scalar<Scalar>();
    constexpr const detail::KernelDescription* config = detail::description_of<Config>();
    return detail::translate_cl_errors([&] {
      detail::CallOptions options = detail::CallOptions::defaults();
      options.math = math;  // this call's, passed on in its context (TILEGEMM_MATH's, valid or not, is not read)
      options.math_refused = nullptr;
      const detail::CallContext call = detail::CallContext::of(queue, options);
      detail::check_wait_list(wait);
      const detail::GemmProblem problem =
          detail::check_arguments(call.context, {trans_a,
                                                 trans_b,
                                                 m,
                                                 n,
                                                 k,
                                                 detail::scalar_value(static_cast<Scalar>(alpha)),
                                                 {a, a_offset, lda},
                                                 {b, b_offset, ldb},
                                                 detail::scalar_value(static_cast<Scalar>(beta)),
                                                 {c, c_offset, ldc}});
      return detail::run_gemm(call, config, problem, wait);
    });
  }
}

}  // namespace tilegemm
