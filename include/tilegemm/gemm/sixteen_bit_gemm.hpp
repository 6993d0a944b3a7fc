// gemm/sixteen_bit_gemm: products of 16-bit A and B (half, bfloat16) on cl::Buffers with float accumulation, into a
// 16-bit or float C: A and B widened once into pooled float copies, the float product made on them, a 16-bit C
// written by one rounding to nearest even.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/math_mode.hpp"
#include "../config/sixteen_bit.hpp"
#include "../config/tile_config.hpp"
#include "../kernels/kernel_description.hpp"
#include "../kernels/sixteen_bit_conversion.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "arguments.hpp"
#include "batch_overlap.hpp"
#include "batched_arguments.hpp"
#include "overlap.hpp"
#include "tensor_math.hpp"
#if TILEGEMM_ENTRY_BODIES || defined(TILEGEMM_INTERNALS)
#include "../runtime/launch.hpp"
#include "../runtime/scratch_pool.hpp"
#include "executor.hpp"
#include "plan.hpp"
#include "set_arguments.hpp"
#include "sixteen_bit_warpgroup.hpp"
#include "verbose.hpp"
#endif

namespace tilegemm::detail {

// gemm.hpp's entry (declared again here: gemm.hpp includes this file before it defines it).
TILEGEMM_ENTRY cl::Event run_gemm(const CallContext& call, const KernelDescription* config, const GemmProblem& p,
                                  const std::vector<cl::Event>& wait);

// The arithmetic of a 16-bit product's float product, decided here only: on tensor cores (mma.sync m16n8k16) the
// mode of the inputs' own type, where the widened operands round back to themselves exactly, so the result is the
// FP32-accumulated product of the stored values; IEEE FP32 elsewhere. Half must take fp16: bf16 would round it.
inline MathMode math_for_sixteen_bit(const CallContext& call, SixteenBit element) {
  if (!has_tensor_cores(call.limits)) return MathMode::ieee;
  return element == SixteenBit::bfloat16 ? MathMode::bf16 : MathMode::fp16;
}

// A checked 16-bit product (or batch of them): the problem as gemm checks it (alpha and beta float; A and B the
// caller's 16-bit buffers, C of `output`), and its elements.
struct SixteenBitProblem {
  GemmProblem problem;
  SixteenBit element = SixteenBit::half;
  SixteenBitOutput output = SixteenBitOutput::same;
  std::size_t output_size() const { return output == SixteenBitOutput::float32 ? sizeof(float) : sixteen_bit_size; }
};

// Checks the arguments of a 16-bit product as check_arguments (or, `batched`, check_batched_arguments) checks a float
// one's, with A and B of 2 bytes an element and C of the output's; and that the float copies the product makes (of A
// and B, and of the result for a 16-bit C) stay within the kernels' 32-bit indices.
TILEGEMM_ENTRY SixteenBitProblem check_sixteen_bit_arguments(const cl::Context& context, const GemmArguments& x,
                                                             SixteenBit element, SixteenBitOutput output, bool batched);
// Runs a checked 16-bit product after `wait`; the returned event completes with C.
TILEGEMM_ENTRY cl::Event run_sixteen_bit(const CallContext& call, const SixteenBitProblem& x,
                                         const std::vector<cl::Event>& wait);
// The buffer core's 16-bit form: checks, then runs in the call's context with `math` asked for.
TILEGEMM_ENTRY cl::Event sixteen_bit_buffer_gemm(const cl::CommandQueue& queue, SixteenBit element,
                                                 SixteenBitOutput output, const GemmArguments& x, bool batched,
                                                 const std::vector<cl::Event>& wait, MathMode math);

#if TILEGEMM_ENTRY_BODIES || defined(TILEGEMM_INTERNALS)
// Enqueues the widening of a rows x cols 16-bit operand (`problems` of them, `storage.stride` apart) into a dense
// float copy in `dst` (problems rows * cols apart).
inline cl::Event widen(const CallContext& call, SixteenBit element, int tile, const cl::Buffer& src,
                       const Storage& storage, int rows, int cols, int problems, const cl::Buffer& dst,
                       const std::vector<cl::Event>& wait) {
  KernelLease kernel = make_kernel(call, sixteen_bit_program(element, tile, widen_kernel_name), tile * tile);
  const int dst_stride = problems > 1 ? rows * cols : 0;
  set_arguments<widen_arguments>(kernel, 0, rows, cols, src, storage.offset, storage.ld, storage.stride, dst,
                                 dst_stride);
  const std::size_t items = (static_cast<std::size_t>(rows) + widen_rows_per_item - 1) / widen_rows_per_item;
  return enqueue(call.queue, kernel,
                 batch_range(round_up(items, tile), round_up(cols, tile), static_cast<std::size_t>(problems)),
                 batch_range(tile, tile, 1), wait);
}

// Enqueues C = round_to_nearest_even(R + beta * C) for every problem, R dense float (problems m * n apart) or zero
// where `r` is null.
inline cl::Event narrow(const CallContext& call, const SixteenBitProblem& x, int tile, const cl::Buffer& r,
                        const std::vector<cl::Event>& wait) {
  const GemmProblem& p = x.problem;
  const GemmShape& s = p.shape;
  KernelLease kernel = make_kernel(call, sixteen_bit_program(x.element, tile, narrow_kernel_name), tile * tile);
  const bool has_r = r() != nullptr;
  const int r_stride = s.batch > 1 ? s.m * s.n : 0;
  set_arguments<narrow_arguments>(kernel, 0, s.m, s.n, p.beta, static_cast<int>(has_r), has_r ? r : p.c, r_stride, p.c,
                                  s.c.offset, s.c.ld, s.c.stride);
  return enqueue(call.queue, kernel,
                 batch_range(round_up(s.m, tile), round_up(s.n, tile), static_cast<std::size_t>(s.batch)),
                 batch_range(tile, tile, 1), wait);
}

#endif

#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY SixteenBitProblem check_sixteen_bit_arguments(const cl::Context& context, const GemmArguments& x,
                                                             SixteenBit element, SixteenBitOutput output,
                                                             bool batched) {
  SixteenBitProblem checked;
  checked.element = element;
  checked.output = output;
  const CheckedStorage s = check_problems(context, x, sixteen_bit_size, checked.output_size(), batched);
  checked.problem = s.problem;
  const GemmShape& shape = s.problem.shape;
  if (shape.m == 0 || shape.n == 0 || shape.batch == 0 || shape.k == 0 || x.alpha.value == 0) return checked;
  // The float copies are dense: problems x rows x cols elements each, indexed with 32-bit ints.
  for (const auto& [name, rows, cols, stride] :
       {std::tuple{"A", s.a_rows, s.a_cols, shape.a.stride}, std::tuple{"B", s.b_rows, s.b_cols, shape.b.stride},
        std::tuple{"the result", x.m, x.n, 1}}) {
    if (std::string(name) == "the result" && output == SixteenBitOutput::float32) continue;
    const long long problems = copied_problems(shape.batch, stride);
    // rows, cols and problems are at most 2^31 - 1: compared by division, nothing overflows.
    if (rows > index_limit / cols || rows * cols > index_limit / problems) {
      const std::string message = std::string("the float copy of ") + name + " that a 16-bit product makes (" +
                                  std::to_string(problems) + " x " + std::to_string(rows) + " x " +
                                  std::to_string(cols) + " elements) is more than the kernels' 32-bit indices reach " +
                                  "(at most " + std::to_string(index_limit) +
                                  "). Multiply fewer problems, or smaller blocks, at once.";
      if (batched) fail_batch(message);
      fail(message);
    }
  }
  return checked;
}

TILEGEMM_ENTRY cl::Event run_sixteen_bit(const CallContext& call, const SixteenBitProblem& x,
                                         const std::vector<cl::Event>& wait) {
  const GemmProblem& p = x.problem;
  const GemmShape& s = p.shape;
  const bool float_c = x.output == SixteenBitOutput::float32;
  if (s.m == 0 || s.n == 0 || s.batch == 0) {
    cl::Event done;
    check(call.queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done), "clEnqueueMarkerWithWaitList");
    return done;
  }
  // The float product's context: its arithmetic is the 16-bit one's, whatever the caller's float mode says.
  CallContext product_call = call;
  product_call.options.math = math_for_sixteen_bit(call, x.element);
  product_call.options.math_refused = nullptr;
  const int tile = support_tile_for(call.limits);
  if (s.k == 0 || p.alpha.value == 0) {  // C = beta * C; A and B are not read
    return float_c ? run_gemm(product_call, nullptr, p, wait) : narrow(call, x, tile, cl::Buffer(), wait);
  }
  // On wgmma (compute capability 9.0) A and B are packed as they are and one kernel writes C; where the driver
  // refuses that kernel's local memory, the device is marked and the product made on widened copies as elsewhere.
  if (const std::optional<Warpgroup16Plan> plan = plan_warpgroup16(call.limits, s, x.element, false)) {
    try {
      const cl::Event done = run_warpgroup16(call, p, float_c, *plan, wait);
      report_warpgroup16(s, call.limits, *plan);
      return done;
    } catch (const Error& e) {
      if (!refuses_local_memory(e)) throw;
      note_sm90a_local_memory_refused(call.device);
    }
  }
  const int a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
  const int b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
  const long long a_problems = copied_problems(s.batch, s.a.stride);
  const long long b_problems = copied_problems(s.batch, s.b.stride);
  const auto floats = [](long long rows, long long cols, long long problems) {
    return static_cast<std::size_t>(rows * cols * problems) * sizeof(float);  // within 2^31 floats (checked)
  };
  const std::string advice = "Multiply smaller blocks, or choose a device with more memory.";
  require_allocation(call.limits, floats(a_rows, a_cols, a_problems), "the float copy of A", advice);
  require_allocation(call.limits, floats(b_rows, b_cols, b_problems), "the float copy of B", advice);
  if (!float_c) require_allocation(call.limits, floats(s.m, s.n, s.batch), "the float result", advice);
  ScratchBuffer wide_a(call, floats(a_rows, a_cols, a_problems));
  ScratchBuffer wide_b(call, floats(b_rows, b_cols, b_problems));
  const cl::Event a_ready =
      widen(call, x.element, tile, p.a, s.a, a_rows, a_cols, static_cast<int>(a_problems), wide_a.buffer(), wait);
  const cl::Event b_ready =
      widen(call, x.element, tile, p.b, s.b, b_rows, b_cols, static_cast<int>(b_problems), wide_b.buffer(), wait);
  GemmProblem wide = p;
  wide.a = wide_a.buffer();
  wide.b = wide_b.buffer();
  wide.shape.a = {0, std::max(a_rows, 1), a_problems > 1 ? a_rows * a_cols : 0};
  wide.shape.b = {0, std::max(b_rows, 1), b_problems > 1 ? b_rows * b_cols : 0};
  cl::Event done;
  if (float_c) {
    done = run_gemm(product_call, nullptr, wide, {a_ready, b_ready});
  } else {
    ScratchBuffer result(call, floats(s.m, s.n, s.batch));
    wide.c = result.buffer();
    wide.shape.c = {0, std::max(s.m, 1), s.batch > 1 ? s.m * s.n : 0};
    wide.beta = ScalarValue{0, false};
    const cl::Event product = run_gemm(product_call, nullptr, wide, {a_ready, b_ready});
    done = narrow(call, x, tile, result.buffer(), {product});
    result.give_back_after(done);
  }
  wide_a.give_back_after(done);
  wide_b.give_back_after(done);
  return done;
}

TILEGEMM_ENTRY cl::Event sixteen_bit_buffer_gemm(const cl::CommandQueue& queue, SixteenBit element,
                                                 SixteenBitOutput output, const GemmArguments& x, bool batched,
                                                 const std::vector<cl::Event>& wait, MathMode math) {
  return translate_cl_errors([&] {
    CallOptions options = CallOptions::defaults();
    options.math = math;  // asked for; math_for_sixteen_bit decides
    options.math_refused = nullptr;
    const CallContext call = CallContext::of(queue, options);
    const SixteenBitProblem problem = naming(batched ? "tilegemm::gemm_strided_batched" : "tilegemm::gemm", [&] {
      check_wait_list(wait);
      return check_sixteen_bit_arguments(call.context, x, element, output, batched);
    });
    return run_sixteen_bit(call, problem, wait);
  });
}
#endif

// The buffer forms' 16-bit path: In (Eigen::half or Eigen::bfloat16) with Out (AutoConfig: In, else In or float).
template <class In, class Out, class Alpha, class Beta>
cl::Event sixteen_bit_gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m,
                           long long n, long long k, Alpha alpha, OperandArguments a, OperandArguments b, Beta beta,
                           OperandArguments c, long long batch_count, bool batched, const std::vector<cl::Event>& wait,
                           MathMode math) {
  using Output = std::conditional_t<std::is_same_v<Out, AutoConfig>, In, Out>;
  constexpr SixteenBitOutput output = sixteen_bit_output<In, Output>();
  return sixteen_bit_buffer_gemm(queue, SixteenBitTraits<In>::element, output,
                                 {trans_a, trans_b, m, n, k, scalar_value(static_cast<float>(alpha)), std::move(a),
                                  std::move(b), scalar_value(static_cast<float>(beta)), std::move(c), batch_count},
                                 batched, wait, math);
}

}  // namespace tilegemm::detail
