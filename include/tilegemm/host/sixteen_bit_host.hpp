// host/sixteen_bit_host: the host floor's 16-bit form: A and B (half or bfloat16) uploaded as they are (2 bytes an
// element), the device's 16-bit product (gemm/sixteen_bit_gemm.hpp), C (16-bit or float) downloaded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/sixteen_bit.hpp"
#include "../gemm/arguments.hpp"
#include "../gemm/sixteen_bit_gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/disk_cache.hpp"
#include "../runtime/error.hpp"
#include "../runtime/math_setting.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/scratch_pool.hpp"
#include "host_operand.hpp"
#include "host_options.hpp"
#include "partial_write.hpp"
#include "pending.hpp"
#include "staged_product.hpp"
#include "transfers.hpp"

namespace tilegemm::detail {

// host_gemm.hpp's entries (declared again here: host_gemm.hpp includes this file before it defines them).
TILEGEMM_ENTRY void check_host_storage(const char* name, const void* data, long long ld, long long rows, long long cols,
                                       std::size_t scalar_size, bool used);
TILEGEMM_ENTRY void require_dense_copy_fits(const DeviceLimits& device, const char* function, const char* name,
                                            std::ptrdiff_t rows, std::ptrdiff_t cols, std::size_t scalar_size);
TILEGEMM_ENTRY Pending<void> staged_on_own_thread(const CallContext& call, const KernelDescription* config,
                                                  const RawProduct& p, const HostOptions& options);

// A checked 16-bit product on host memory: A and B of `element`, C column-major of `output`.
struct RawSixteenBitProduct {
  RawInput a;
  RawInput b;
  RawOutput c;
  float alpha = 1;
  float beta = 0;
  SixteenBit element = SixteenBit::half;
  SixteenBitOutput output = SixteenBitOutput::same;
  std::ptrdiff_t k() const { return a.transposed ? a.rows : a.cols; }
};

// Checks BLAS-style arguments of a 16-bit product on host memory with the sentences of the float form
// (check_host_arguments): A and B where the product reads them, C unless it is empty.
template <class In, class Out>
RawSixteenBitProduct check_sixteen_bit_host_arguments(Transpose trans_a, Transpose trans_b, long long m, long long n,
                                                      long long k, float alpha, const In* a, long long lda, const In* b,
                                                      long long ldb, float beta, Out* c, long long ldc) {
  const bool ta = check_transpose("trans_a", trans_a), tb = check_transpose("trans_b", trans_b);
  check_sizes(m, n, k);
  const bool writes_c = m > 0 && n > 0, reads_ab = writes_c && k > 0 && alpha != 0;
  RawSixteenBitProduct p;
  p.a = {reinterpret_cast<const char*>(a), ta ? k : m, ta ? m : k, static_cast<std::ptrdiff_t>(lda), ta, sizeof(In)};
  p.b = {reinterpret_cast<const char*>(b), tb ? n : k, tb ? k : n, static_cast<std::ptrdiff_t>(ldb), tb, sizeof(In)};
  p.c = {reinterpret_cast<char*>(c), m, n, static_cast<std::ptrdiff_t>(ldc), false, sizeof(Out)};
  check_host_storage("A", a, lda, p.a.rows, p.a.cols, sizeof(In), reads_ab);
  check_host_storage("B", b, ldb, p.b.rows, p.b.cols, sizeof(In), reads_ab);
  check_host_storage("C", c, ldc, m, n, sizeof(Out), writes_c);
  p.alpha = alpha;
  p.beta = beta;
  p.element = SixteenBitTraits<In>::element;
  p.output = sixteen_bit_output<In, Out>();
  return p;
}

// Runs a checked 16-bit product on the queue's device. Large products on GPUs take the staged path (as float ones do,
// host/staged_product.hpp: A and B go up in 16 bits through pinned slots, block by block), unless C shares memory
// with A or B; the others go through dense device copies: A and B go up as they are, C too where beta != 0 (it is not
// read when beta is zero), the product runs on the device, C comes back, A and B read before this returns. C is
// written when the returned handle completes (`blocking`: before this returns; not blocking, the staged path runs on
// a host thread of its own, and A, B and C must stay alive and unchanged until the handle completes). Blocking, a
// failure before the first part of C is written leaves C as it was; one after it is a PartialWrite.
TILEGEMM_ENTRY Pending<void> host_sixteen_bit_product(const cl::CommandQueue& queue, const char* function,
                                                      const RawSixteenBitProduct& p, bool blocking);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> host_sixteen_bit_product(const cl::CommandQueue& queue, const char* function,
                                                      const RawSixteenBitProduct& p, bool blocking) {
  const RawOutput& c = p.c;
  if (c.rows == 0 || c.cols == 0) return Pending<void>::enqueued_void(cl::Event());
  CallOptions options = CallOptions::defaults();
  options.math_refused = nullptr;  // the 16-bit arithmetic is math_for_sixteen_bit's
  const CallContext call = CallContext::of(queue, options);
  const bool reads_ab = p.k() > 0 && p.alpha != 0, reads_c = p.beta != 0;
  if (reads_ab) {
    require_dense_copy_fits(call.limits, function, "A", p.a.rows, p.a.cols, p.a.size);
    require_dense_copy_fits(call.limits, function, "B", p.b.rows, p.b.cols, p.b.size);
  }
  require_dense_copy_fits(call.limits, function, "C", c.rows, c.cols, c.size);
  const RawProduct raw{p.a, p.b, c, scalar_value(p.alpha), scalar_value(p.beta), true, p.element, p.output};
  if (reads_ab && staged_path_applies(call, raw) && !storages_overlap(c, p.a) && !storages_overlap(c, p.b)) {
    const HostOptions host_options = HostOptions::defaults();
    if (!blocking) return staged_on_own_thread(call, nullptr, raw, host_options);
    staged_product(call, nullptr, raw, host_options);
    return Pending<void>::enqueued_void(cl::Event());
  }
  std::vector<std::shared_ptr<ScratchBuffer>> used;
  const auto device_copy = [&](const auto& host) {
    used.push_back(std::make_shared<ScratchBuffer>(call, dense_bytes(host)));
    return used.back()->buffer();
  };
  const cl::Buffer device_a = reads_ab ? device_copy(p.a) : cl::Buffer();
  const cl::Buffer device_b = reads_ab ? device_copy(p.b) : cl::Buffer();
  const cl::Buffer device_c = device_copy(c);
  if (reads_ab) {
    write_matrix(queue, p.a, device_a, 0, 0);
    write_matrix(queue, p.b, device_b, 0, 0);
  }
  if (reads_c) write_matrix(queue, {c.data, c.rows, c.cols, c.ld, false, c.size}, device_c, 0, 0);
  const auto ld = [](std::ptrdiff_t rows) { return static_cast<long long>(std::max<std::ptrdiff_t>(rows, 1)); };
  const SixteenBitProblem problem = check_sixteen_bit_arguments(call.context,
                                                                {p.a.transposed ? Transpose::yes : Transpose::no,
                                                                 p.b.transposed ? Transpose::yes : Transpose::no,
                                                                 c.rows,
                                                                 c.cols,
                                                                 p.k(),
                                                                 scalar_value(p.alpha),
                                                                 {device_a, 0, ld(p.a.rows)},
                                                                 {device_b, 0, ld(p.b.rows)},
                                                                 scalar_value(p.beta),
                                                                 {device_c, 0, ld(c.rows)}},
                                                                p.element, p.output, false);
  const cl::Event product = run_sixteen_bit(call, problem, {});
  if (blocking) {
    check(product.wait(), "clWaitForEvents");
    cl_int status = CL_COMPLETE;
    check(product.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), "clGetEventInfo");
    if (status < 0) check(status, "the product on the device");  // a failed product has written nothing
    try {
      read_matrix(queue, device_c, c, {}, 0, 0);
    } catch (...) {
      rethrow_as_partial_write();
    }
    DiskCache::instance().store_ran();  // programs this call compiled, now that they have run (disk_cache.hpp)
    try {                               // C is written: failing to keep the buffers only loses them
      for (const auto& buffer : used) buffer->give_back_after(cl::Event());
    } catch (...) {
    }
    return Pending<void>::enqueued_void(cl::Event());
  }
  const cl::Event done = start_reading_matrix(queue, device_c, c, {product}, 0, c.rows, call.in_order);
  for (const auto& buffer : used) buffer->give_back_after(done);
  auto keep = std::make_shared<std::vector<std::shared_ptr<ScratchBuffer>>>(std::move(used));
  Pending<void> pending = Pending<void>::enqueued_void(done, std::move(keep));
  pending.then([] { DiskCache::instance().store_ran(); });
  return pending;
}
#endif

// The one entry of the 16-bit host forms: failures surface from the returned handle, with `function` named.
TILEGEMM_ENTRY Pending<void> host_sixteen_bit_gemm(const cl::CommandQueue& queue, const char* function,
                                                   const RawSixteenBitProduct& p, bool blocking);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> host_sixteen_bit_gemm(const cl::CommandQueue& queue, const char* function,
                                                   const RawSixteenBitProduct& p, bool blocking) {
  try {
    return translate_cl_errors(
        [&] { return naming(function, [&] { return host_sixteen_bit_product(queue, function, p, blocking); }); });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}
#endif

// The host forms' 16-bit path: checks (failures surface from the handle, as gemm_async's do), then the product.
template <class In, class Out>
Pending<void> sixteen_bit_host_gemm(const cl::CommandQueue& queue, const char* function, bool blocking,
                                    Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
                                    float alpha, const In* a, long long lda, const In* b, long long ldb, float beta,
                                    Out* c, long long ldc) {
  RawSixteenBitProduct p;
  try {
    p = naming(function, [&] {
      return check_sixteen_bit_host_arguments<In, Out>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
  return host_sixteen_bit_gemm(queue, function, p, blocking);
}

}  // namespace tilegemm::detail
