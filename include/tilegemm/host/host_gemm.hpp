// host/host_gemm: the host floor, C = alpha * op(A) * op(B) + beta * C on column-major matrices in host memory
// (raw pointers, as BLAS takes them), blocking (gemm) or not (gemm_async); every front end on host memory calls it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config/linkage.hpp"
#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "../gemm/arguments.hpp"
#include "../gemm/batched_arguments.hpp"
#include "../gemm/gemm.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/disk_cache.hpp"
#include "../runtime/error.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "../runtime/scratch_pool.hpp"
#include "host_arithmetic.hpp"
#include "host_operand.hpp"
#include "host_options.hpp"
#include "own_thread.hpp"
#include "partial_write.hpp"
#include "pending.hpp"
#include "sixteen_bit_host.hpp"
#include "staged_product.hpp"
#include "transfers.hpp"

namespace tilegemm {
namespace detail {

// T in a parameter that does not take part in deduction (std::type_identity_t of C++20).
template <class T>
struct identity {
  using type = T;
};
template <class T>
using identity_t = typename identity<T>::type;

// alpha's and beta's type in the host forms (float for 16-bit inputs), and C's: Scalar's, or for 16-bit inputs the
// second template argument's (AutoConfig, its default, meaning the inputs' type). Neither takes part in deduction.
template <class Scalar>
using host_scalar_t = typename std::conditional<is_sixteen_bit<Scalar>, float, Scalar>::type;
template <class Scalar, class Second>
using host_output_t =
    typename std::conditional<is_sixteen_bit<Scalar> && !std::is_same_v<Second, AutoConfig>, Second, Scalar>::type;

// Whether A and B are of different element types (the host forms' overload that says they must not be).
template <class A, class B>
using if_mixed_inputs = std::enable_if_t<!std::is_same_v<std::remove_cv_t<A>, std::remove_cv_t<B>>, int>;

// The dense device copy of a rows x cols operand must be indexable by the kernels' 32-bit ints and fit one buffer
// of the device: checked before anything is allocated. `function` is the one the caller called.
TILEGEMM_ENTRY void require_dense_copy_fits(const DeviceLimits& device, const char* function, const char* name,
                                            std::ptrdiff_t rows, std::ptrdiff_t cols, std::size_t scalar_size);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void require_dense_copy_fits(const DeviceLimits& device, const char* function, const char* name,
                                            std::ptrdiff_t rows, std::ptrdiff_t cols, std::size_t scalar_size) {
  if (rows > index_limit || cols > index_limit || rows * cols > index_limit) {
    throw std::invalid_argument(std::string(function) + ": " + name + " is " + shape(rows, cols) +
                                ", more elements than the kernels' 32-bit indices reach (at most " +
                                std::to_string(index_limit) + " in one operand).");
  }
  require_allocation(device, static_cast<unsigned long long>(rows * cols) * scalar_size,
                     std::string("the device copy of ") + name + " (" + shape(rows, cols) + ")",
                     "Multiply smaller blocks, or choose a device with more memory.");
}
#endif

// Checks one stored rows x cols host operand (leading dimension `ld`, read when `used`): a pointer where it is used,
// a leading dimension of at least its rows, and a span that pointer arithmetic reaches without overflow.
TILEGEMM_ENTRY void check_host_storage(const char* name, const void* data, long long ld, long long rows, long long cols,
                                       std::size_t scalar_size, bool used);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY void check_host_storage(const char* name, const void* data, long long ld, long long rows, long long cols,
                                       std::size_t scalar_size, bool used) {
  check_leading_dimension(name, ld, rows);
  if (!used || rows == 0 || cols == 0) return;
  if (data == nullptr) fail(std::string(name) + " is a null pointer.");
  // rows and cols are at most 2^31 - 1 (check_sizes), ld at least rows: the span is at most ld * cols elements.
  const long long limit = std::numeric_limits<std::ptrdiff_t>::max() / static_cast<long long>(scalar_size);
  if (ld > limit / cols)
    fail(std::string(name) + " spans " + std::to_string(cols) + " columns " + std::to_string(ld) +
         " elements apart, more than a pointer reaches.");
}
#endif

// The product as the floor runs it: checked host operands, C column-major (c.transposed is false).
template <class Scalar>
struct HostProduct {
  HostOperand<Scalar> a;
  HostOperand<Scalar> b;
  HostOperand<Scalar, Scalar*> c;
  Scalar alpha = 1;
  Scalar beta = 0;
  std::ptrdiff_t k() const { return a.transposed ? a.rows : a.cols; }
};

// Checks BLAS-style arguments on host memory with the buffer core's sentences (gemm/arguments.hpp) and returns the
// product. A and B are checked where the product reads them (not for an empty C, k = 0 or alpha = 0), C unless it
// is empty.
template <class Scalar>
HostProduct<Scalar> check_host_arguments(Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
                                         Scalar alpha, const Scalar* a, long long lda, const Scalar* b, long long ldb,
                                         Scalar beta, Scalar* c, long long ldc) {
  const bool ta = check_transpose("trans_a", trans_a), tb = check_transpose("trans_b", trans_b);
  check_sizes(m, n, k);
  const bool writes_c = m > 0 && n > 0, reads_ab = writes_c && k > 0 && alpha != Scalar(0);
  HostProduct<Scalar> p;
  p.a = {a, ta ? k : m, ta ? m : k, static_cast<std::ptrdiff_t>(lda), ta};
  p.b = {b, tb ? n : k, tb ? k : n, static_cast<std::ptrdiff_t>(ldb), tb};
  p.c = {c, m, n, static_cast<std::ptrdiff_t>(ldc), false};
  check_host_storage("A", a, lda, p.a.rows, p.a.cols, sizeof(Scalar), reads_ab);
  check_host_storage("B", b, ldb, p.b.rows, p.b.cols, sizeof(Scalar), reads_ab);
  check_host_storage("C", c, ldc, m, n, sizeof(Scalar), writes_c);
  p.alpha = alpha;
  p.beta = beta;
  return p;
}

// The product on storages a front end describes (InputOperands are sliced: their values stay with the caller); a
// transposed C (row-major storage) is the transposed product, C^T = op(B)^T * op(A)^T, column-major.
template <class Scalar>
HostProduct<Scalar> host_product_of(HostOperand<Scalar> a, HostOperand<Scalar> b, HostOperand<Scalar, Scalar*> c,
                                    Scalar alpha, Scalar beta) {
  if (c.transposed) {
    a.transposed = !a.transposed;
    b.transposed = !b.transposed;
    c.transposed = false;
    std::swap(a, b);
  }
  return {a, b, c, alpha, beta};
}

// The product with its scalar erased, for the floor's non-template code.
template <class Scalar>
RawProduct raw_product(const HostProduct<Scalar>& p) {
  return {raw_input(p.a), raw_input(p.b), raw_output(p.c), scalar_value(p.alpha), scalar_value(p.beta)};
}

// The staged path on a host thread of its own: returns at once, with a handle whose event (a user event) the thread
// completes once C is written, or fails with the exception the thread ran into (a PartialWrite where it had written
// part of C); the waiting thread gets the call's profile (last_host_call_profile). The caller keeps A, B and C alive
// and unchanged until then.
TILEGEMM_ENTRY Pending<void> staged_on_own_thread(const CallContext& call, const KernelDescription* config,
                                                  const RawProduct& p, const HostOptions& options);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> staged_on_own_thread(const CallContext& call, const KernelDescription* config,
                                                  const RawProduct& p, const HostOptions& options) {
  // The thread's profile, for the thread that waits (last_host_call_profile is a thread-local).
  struct Profile {
    std::mutex mutex;
    HostCallProfile profile;
  };
  auto profile = std::make_shared<Profile>();
  const auto record = [profile] {
    std::lock_guard<std::mutex> lock(profile->mutex);
    profile->profile = last_host_call_profile();
  };
  return on_own_thread(
      call.context,
      [call, config, p, options, record] {
        try {
          translate_cl_errors([&] { staged_product(call, config, p, options); });
          DiskCache::instance().store_ran();
        } catch (...) {
          record();
          throw;
        }
        record();
      },
      [profile] {
        std::lock_guard<std::mutex> lock(profile->mutex);
        last_host_call_profile() = profile->profile;
      });
}
#endif

// Runs a checked product with `config` (null: the default choice) on the queue's device: on the staged path for
// large products on GPUs (runtime/staging.hpp, staged_product.hpp), else through dense device copies. C is written
// when the returned handle completes (`blocking`: before this returns). A C that shares memory with A or B is made in
// a copy first, so that no operand changes while it is read. A and B are read before this returns, but where the
// staged path runs on its own thread (not blocking, options.staged_on_own_thread); otherwise the staged path returns
// once C is written in both forms, its host threads copying through pinned memory for the whole call. Where beta != 0
// and options.fold_beta, C is not uploaded: the device makes R = alpha * op(A) * op(B) and the host writes C = R + beta
// * C (host_options.hpp). Blocking, a failure before the first part of C is written leaves C as it was; one after it is
// a PartialWrite.
TILEGEMM_ENTRY Pending<void> host_product(const cl::CommandQueue& queue, const KernelDescription* config,
                                          const char* function, const RawProduct& p, const HostOptions& options,
                                          bool blocking);
#if TILEGEMM_ENTRY_BODIES
// Waits for a command; throws tilegemm::Error where it failed.
inline void wait_for(const cl::Event& event) {
  check(event.wait(), "clWaitForEvents");
  cl_int status = CL_COMPLETE;
  check(event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status), "clGetEventInfo");
  if (status < 0) check(status, "the product on the device");
}

TILEGEMM_ENTRY Pending<void> host_product(const cl::CommandQueue& queue, const KernelDescription* config,
                                          const char* function, const RawProduct& p, const HostOptions& options,
                                          bool blocking) {
  const RawOutput& c = p.c;
  const std::size_t size = c.size;
  const RawInput c_input{c.data, c.rows, c.cols, c.ld, false, size};
  if (c.rows == 0 || c.cols == 0) return Pending<void>::enqueued_void(cl::Event());
  if (p.k() == 0 || p.alpha.value == 0) {
    scale_columns(c, p.beta);
    return Pending<void>::enqueued_void(cl::Event());
  }
  if (storages_overlap(c, p.a) || storages_overlap(c, p.b)) {
    // The product goes into a copy, which alone a failure can leave partly written: C is written by the last copy.
    auto copy = std::make_shared<std::vector<char>>(dense_bytes(c));
    RawProduct into_copy = p;
    into_copy.c = {copy->data(), c.rows, c.cols, c.rows, false, size};
    if (p.beta.value != 0) copy_host_matrix(c_input, into_copy.c);
    std::shared_ptr<Pending<void>> product;
    try {
      product = std::make_shared<Pending<void>>(host_product(queue, config, function, into_copy, options, blocking));
    } catch (...) {
      rethrow_as_intact();
    }
    Pending<void> done = Pending<void>::enqueued_void(product->event());
    done.then([product, copy, from = into_copy.c, c] {
      try {
        product->wait();
      } catch (...) {
        rethrow_as_intact();
      }
      copy_host_matrix({from.data, from.rows, from.cols, from.ld, false, from.size}, c);
    });
    if (blocking) done.wait();
    return done;
  }
  const CallContext call =
      options.call_options ? CallContext::of(queue, *options.call_options) : CallContext::of(queue);
  for (const auto& [name, rows, cols] :
       {std::tuple{"A", p.a.rows, p.a.cols}, std::tuple{"B", p.b.rows, p.b.cols}, std::tuple{"C", c.rows, c.cols}}) {
    require_dense_copy_fits(call.limits, function, name, rows, cols, size);
  }
  if (staged_path_applies(call, p)) {  // large products on GPUs: overlapped through pinned memory
    if (!blocking && options.staged_on_own_thread) return staged_on_own_thread(call, config, p, options);
    staged_product(call, config, p, options);
    return Pending<void>::enqueued_void(cl::Event());
  }
  // Folding, R = alpha * op(A) * op(B) comes into a dense host copy and C = R + beta * C is written from it; else C
  // goes up where beta != 0 (it is not read when beta is zero) and comes back.
  const bool fold = options.fold_beta && p.beta.value != 0;
  auto device_a = std::make_shared<ScratchBuffer>(call, dense_bytes(p.a));
  auto device_b = std::make_shared<ScratchBuffer>(call, dense_bytes(p.b));
  auto device_c = std::make_shared<ScratchBuffer>(call, dense_bytes(c));
  auto result = std::make_shared<std::vector<char>>(fold ? dense_bytes(c) : 0);
  const RawOutput dense_result{result->data(), c.rows, c.cols, c.rows, false, size};
  write_matrix(queue, p.a, device_a->buffer(), 0, 0);
  write_matrix(queue, p.b, device_b->buffer(), 0, 0);
  if (p.beta.value != 0 && !fold) write_matrix(queue, c_input, device_c->buffer(), 0, 0);
  const GemmProblem problem = check_arguments(call.context, {p.a.transposed ? Transpose::yes : Transpose::no,
                                                             p.b.transposed ? Transpose::yes : Transpose::no,
                                                             c.rows,
                                                             c.cols,
                                                             p.k(),
                                                             p.alpha,
                                                             {device_a->buffer(), 0, p.a.rows},
                                                             {device_b->buffer(), 0, p.b.rows},
                                                             fold ? ScalarValue{0, p.beta.is_double} : p.beta,
                                                             {device_c->buffer(), 0, c.rows}});
  const cl::Event product = run_gemm(call, config, problem, {});
  const auto fold_into_c = [result, c, beta = p.beta] {
    const std::size_t rows = static_cast<std::size_t>(c.rows);
    fold_columns(result->data(), rows, c.data, static_cast<std::size_t>(c.ld), rows, static_cast<std::size_t>(c.cols),
                 beta);
  };
  if (blocking) {
    wait_for(product);  // a failed product has written nothing
    if (fold) read_matrix(queue, device_c->buffer(), dense_result, {}, 0, 0);
    options.fail_if_injected(0);
    try {
      if (fold) {
        fold_into_c();
      } else {
        read_matrix(queue, device_c->buffer(), c, {}, 0, 0);
      }
      options.fail_if_injected(1);
    } catch (...) {
      rethrow_as_partial_write();
    }
    DiskCache::instance().store_ran();  // programs this call compiled, now that they have run (disk_cache.hpp)
    try {                               // C is written: failing to keep the buffers for the next call only loses them
      for (const auto& used : {device_a, device_b, device_c}) used->give_back_after(cl::Event());
    } catch (...) {
    }
    return Pending<void>::enqueued_void(cl::Event());
  }
  const cl::Event done =
      start_reading_matrix(queue, device_c->buffer(), fold ? dense_result : c, {product}, 0, c.rows, call.in_order);
  for (const auto& used : {device_a, device_b, device_c}) used->give_back_after(done);
  auto keep = std::make_shared<std::vector<std::shared_ptr<ScratchBuffer>>>(
      std::vector<std::shared_ptr<ScratchBuffer>>{device_a, device_b, device_c});
  Pending<void> pending = Pending<void>::enqueued_void(done, std::move(keep));
  pending.then([fold, fold_into_c] {
    if (fold) fold_into_c();
    DiskCache::instance().store_ran();
  });
  return pending;
}
#endif

// The one entry of every host form: reads the floor's switches, then host_product; failures surface from the
// returned handle.
TILEGEMM_ENTRY Pending<void> host_gemm_erased(const cl::CommandQueue& queue, const KernelDescription* config,
                                              const char* function, const RawProduct& p, bool blocking,
                                              bool operands_kept);
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY Pending<void> host_gemm_erased(const cl::CommandQueue& queue, const KernelDescription* config,
                                              const char* function, const RawProduct& p, bool blocking,
                                              bool operands_kept) {
  try {
    HostOptions options = HostOptions::defaults();
    options.staged_on_own_thread = operands_kept;
    return translate_cl_errors(
        [&] { return naming(function, [&] { return host_product(queue, config, function, p, options, blocking); }); });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}
#endif

// `operands_kept`: the caller keeps A, B and C alive and unchanged until the handle completes (HostOptions).
template <class Scalar>
Pending<void> host_gemm(const cl::CommandQueue& queue, const KernelDescription* config, const char* function,
                        const HostProduct<Scalar>& p, bool blocking, bool operands_kept = false) {
  return host_gemm_erased(queue, config, function, raw_product(p), blocking, operands_kept);
}

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C on the queue's device (TILEGEMM_DEVICE's without one), for column-major
// matrices in host memory as BLAS takes them: op(A) m x k, op(B) k x n, C m x n, leading dimensions lda, ldb, ldc
// at least the rows of the matrix as stored. Returns when C is written. When beta is zero C is not read (NaN there
// is ignored); k = 0 or alpha = 0 scale C by beta without reading A or B. C may share memory with A or B (the
// product is made in a copy of C first). Scalar is float or double, from the pointers or named, gemm<float>(...).
// Bad arguments throw std::invalid_argument with the sentences of gemm on cl::Buffers; OpenCL failures
// tilegemm::Error. Failures and C: when gemm throws anything but tilegemm::PartialWrite, C is exactly as it was (no
// element of it written); PartialWrite (a tilegemm::Error) says the call failed after part of C was written, so C's
// old values are lost. A, B and the memory around C are never written.
// With 16-bit A and B (Eigen::half or Eigen::bfloat16) the second template argument names C's type, the inputs' (the
// default) or float, as in gemm<Eigen::half, float>(...); alpha and beta are floats (sixteen_bit_host.hpp).
template <class Scalar, class Config = AutoConfig>
void gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
          detail::host_scalar_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b, long long ldb,
          detail::host_scalar_t<Scalar> beta, detail::host_output_t<Scalar, Config>* c, long long ldc) {
  if constexpr (detail::is_sixteen_bit<Scalar>) {
    detail::sixteen_bit_host_gemm<Scalar, detail::host_output_t<Scalar, Config>>(
        queue, "tilegemm::gemm", true, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        .get();
  } else {
    detail::require_supported_scalar<Scalar>();
    detail::host_gemm(queue, detail::description_of<Config>(), "tilegemm::gemm",
                      detail::naming("tilegemm::gemm",
                                     [&] {
                                       return detail::check_host_arguments<Scalar>(trans_a, trans_b, m, n, k, alpha, a,
                                                                                   lda, b, ldb, beta, c, ldc);
                                     }),
                      true)
        .get();
  }
}

// The same without waiting: returns at once; C is written when the handle completes (wait() or get()). Large
// products on GPUs (the staged path) run on a host thread of their own that reads A and B while it multiplies: A, B
// and C must stay alive and unchanged until the handle completes. (Other products read A and B before it returns.)
// Failures, argument errors included, surface from the handle's wait() or get(), with gemm's rule on C but for one
// case: with beta = 0 on the direct path (small products, CPU devices), a failed download of C surfaces as
// tilegemm::Error though it may have written part of C (whose old values beta = 0 does not read). Out-of-order queues
// are accepted, as by gemm.
// 16-bit A and B as gemm takes them, with the same rule on A, B and C.
template <class Scalar, class Config = AutoConfig>
Pending<void> gemm_async(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n,
                         long long k, detail::host_scalar_t<Scalar> alpha, const Scalar* a, long long lda,
                         const Scalar* b, long long ldb, detail::host_scalar_t<Scalar> beta,
                         detail::host_output_t<Scalar, Config>* c, long long ldc) {
  if constexpr (detail::is_sixteen_bit<Scalar>) {
    return detail::sixteen_bit_host_gemm<Scalar, detail::host_output_t<Scalar, Config>>(
        queue, "tilegemm::gemm_async", false, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    detail::require_supported_scalar<Scalar>();
    detail::HostProduct<Scalar> p;
    try {
      p = detail::naming("tilegemm::gemm_async", [&] {
        return detail::check_host_arguments<Scalar>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      });
    } catch (...) {
      return Pending<void>::failed(std::current_exception());
    }
    return detail::host_gemm(queue, detail::description_of<Config>(), "tilegemm::gemm_async", p, false, true);
  }
}

// A and B of different element types (a half A with a float B): refused with a sentence rather than "no matching
// function".
template <class First = detail::ScalarNotNamed, class Second = AutoConfig, class Alpha, class A, class B, class Beta,
          class C, detail::if_mixed_inputs<A, B> = 0>
void gemm(const cl::CommandQueue&, Transpose, Transpose, long long, long long, long long, Alpha, const A*, long long,
          const B*, long long, Beta, C*, long long) {
  detail::require_same_inputs<A, B>();
}
template <class First = detail::ScalarNotNamed, class Second = AutoConfig, class Alpha, class A, class B, class Beta,
          class C, detail::if_mixed_inputs<A, B> = 0>
Pending<void> gemm_async(const cl::CommandQueue&, Transpose, Transpose, long long, long long, long long, Alpha,
                         const A*, long long, const B*, long long, Beta, C*, long long) {
  detail::require_same_inputs<A, B>();
  return Pending<void>::failed(nullptr);
}
}  // namespace tilegemm

// The forms on several queues, and those without a queue (on TILEGEMM_DEVICES's devices, else TILEGEMM_DEVICE's).
#include "multi_device.hpp"
