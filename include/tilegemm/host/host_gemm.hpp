// host/host_gemm: the host floor, C = alpha * op(A) * op(B) + beta * C on column-major matrices in host memory
// (raw pointers, as BLAS takes them), blocking (gemm) or not (gemm_async); every front end on host memory calls it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
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
#include "host_operand.hpp"
#include "partial_write.hpp"
#include "pending.hpp"
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

// Copies a rows x cols column-major matrix between host storages.
template <class Scalar, class From>
void copy_host_matrix(const HostOperand<Scalar, From>& from, const HostOperand<Scalar, Scalar*>& to) {
  for (std::ptrdiff_t j = 0; j < to.cols; ++j) std::copy_n(from.data + j * from.ld, to.rows, to.data + j * to.ld);
}

// C = beta * C, without reading C when beta is zero (NaN there is ignored, as in BLAS).
template <class Scalar>
void scale_host_matrix(const HostOperand<Scalar, Scalar*>& c, Scalar beta) {
  for (std::ptrdiff_t j = 0; j < c.cols; ++j) {
    Scalar* column = c.data + j * c.ld;
    for (std::ptrdiff_t i = 0; i < c.rows; ++i) column[i] = beta == Scalar(0) ? Scalar(0) : beta * column[i];
  }
}

// Runs a checked product with `config` (null: the default choice) on the queue's device: on the staged path for
// large products on GPUs (runtime/staging.hpp, staged_product.hpp), else through dense device copies. A and B are
// read (uploaded) before this returns; C is written when the returned handle completes (`blocking`: before this
// returns). A C that shares memory with A or B is made in a copy first, so that no operand changes while it is read.
// The staged path returns once C is written in both forms: its host threads copy through pinned memory for the
// whole call.
template <class Scalar>
Pending<void> host_product(const cl::CommandQueue& queue, const KernelDescription* config, const char* function,
                           const HostProduct<Scalar>& p, bool blocking) {
  const HostOperand<Scalar, Scalar*>& c = p.c;
  if (c.rows == 0 || c.cols == 0) return Pending<void>::enqueued_void(cl::Event());
  if (p.k() == 0 || p.alpha == Scalar(0)) {
    scale_host_matrix(c, p.beta);
    return Pending<void>::enqueued_void(cl::Event());
  }
  if (storages_overlap(c, p.a) || storages_overlap(c, p.b)) {
    auto copy = std::make_shared<std::vector<Scalar>>(static_cast<std::size_t>(c.rows * c.cols));
    HostProduct<Scalar> into_copy = p;
    into_copy.c = {copy->data(), c.rows, c.cols, c.rows, false};
    if (p.beta != Scalar(0)) copy_host_matrix(c, into_copy.c);
    auto product = std::make_shared<Pending<void>>(host_product(queue, config, function, into_copy, blocking));
    Pending<void> done = Pending<void>::enqueued_void(product->event());
    done.then([product, copy, from = into_copy.c, c] {
      product->wait();
      copy_host_matrix(HostOperand<Scalar, const Scalar*>{from.data, from.rows, from.cols, from.ld, false}, c);
    });
    if (blocking) done.wait();
    return done;
  }
  const CallContext call = CallContext::of(queue);
  for (const auto& [name, rows, cols] :
       {std::tuple{"A", p.a.rows, p.a.cols}, std::tuple{"B", p.b.rows, p.b.cols}, std::tuple{"C", c.rows, c.cols}}) {
    require_dense_copy_fits(call.limits, function, name, rows, cols, sizeof(Scalar));
  }
  if (staged_path_applies(call, p.a, p.b, c)) {  // large products on GPUs: overlapped through pinned memory
    staged_product(call, config, p.a, p.b, c, p.alpha, p.beta);
    return Pending<void>::enqueued_void(cl::Event());
  }
  auto device_a = std::make_shared<ScratchBuffer>(call, dense_bytes(p.a));
  auto device_b = std::make_shared<ScratchBuffer>(call, dense_bytes(p.b));
  auto device_c = std::make_shared<ScratchBuffer>(call, dense_bytes(c));
  to_device(queue, p.a, device_a->buffer());
  to_device(queue, p.b, device_b->buffer());
  if (p.beta != Scalar(0)) to_device(queue, c, device_c->buffer());  // C is not read when beta is zero
  const GemmProblem problem = check_arguments(call.context, {p.a.transposed ? Transpose::yes : Transpose::no,
                                                             p.b.transposed ? Transpose::yes : Transpose::no,
                                                             c.rows,
                                                             c.cols,
                                                             p.k(),
                                                             scalar_value(p.alpha),
                                                             {device_a->buffer(), 0, p.a.rows},
                                                             {device_b->buffer(), 0, p.b.rows},
                                                             scalar_value(p.beta),
                                                             {device_c->buffer(), 0, c.rows}});
  const cl::Event product = run_gemm(call, config, problem, {});
  if (blocking) {
    from_device(queue, device_c->buffer(), c, {product});  // blocking: every command of this call has finished
    DiskCache::instance().store_ran();  // programs this call compiled, now that they have run (disk_cache.hpp)
    for (const auto& used : {device_a, device_b, device_c}) used->give_back_after(cl::Event());
    return Pending<void>::enqueued_void(cl::Event());
  }
  const cl::Event done = start_reading(queue, device_c->buffer(), c, {product}, 0, c.rows, call.in_order);
  for (const auto& used : {device_a, device_b, device_c}) used->give_back_after(done);
  auto keep = std::make_shared<std::vector<std::shared_ptr<ScratchBuffer>>>(
      std::vector<std::shared_ptr<ScratchBuffer>>{device_a, device_b, device_c});
  Pending<void> pending = Pending<void>::enqueued_void(done, std::move(keep));
  pending.then([] { DiskCache::instance().store_ran(); });
  return pending;
}

TILEGEMM_ENTRY_INSTANCE(Pending<void> host_product<float>(const cl::CommandQueue&, const KernelDescription*,
                                                          const char*, const HostProduct<float>&, bool))
TILEGEMM_ENTRY_INSTANCE(Pending<void> host_product<double>(const cl::CommandQueue&, const KernelDescription*,
                                                           const char*, const HostProduct<double>&, bool))

// The one entry of every host form: checks, then host_product; failures surface from the returned handle.
template <class Scalar>
Pending<void> host_gemm(const cl::CommandQueue& queue, const KernelDescription* config, const char* function,
                        const HostProduct<Scalar>& p, bool blocking) {
  try {
    return translate_cl_errors(
        [&] { return naming(function, [&] { return host_product(queue, config, function, p, blocking); }); });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
}

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C on the queue's device (TILEGEMM_DEVICE's without one), for column-major
// matrices in host memory as BLAS takes them: op(A) m x k, op(B) k x n, C m x n, leading dimensions lda, ldb, ldc
// at least the rows of the matrix as stored. Returns when C is written. When beta is zero C is not read (NaN there
// is ignored); k = 0 or alpha = 0 scale C by beta without reading A or B. C may share memory with A or B (the
// product is made in a copy of C first). Scalar is float or double, from the pointers or named, gemm<float>(...).
// Bad arguments throw std::invalid_argument with the sentences of gemm on cl::Buffers; OpenCL failures
// tilegemm::Error.
template <class Scalar, class Config = AutoConfig>
void gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
          detail::identity_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b, long long ldb,
          detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
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
template <class Scalar, class Config = AutoConfig>
void gemm(Transpose trans_a, Transpose trans_b, long long m, long long n, long long k, detail::identity_t<Scalar> alpha,
          const Scalar* a, long long lda, const Scalar* b, long long ldb, detail::identity_t<Scalar> beta, Scalar* c,
          long long ldc) {
  gemm<Scalar, Config>(default_queue(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// The same without waiting: A and B are read before it returns (they may change afterwards); C must stay alive
// until the handle is waited on, and is written when it completes. Failures, argument errors included, surface from
// the handle's wait() or get(). Out-of-order queues are accepted, as by gemm.
template <class Scalar, class Config = AutoConfig>
Pending<void> gemm_async(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n,
                         long long k, detail::identity_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b,
                         long long ldb, detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
  detail::require_supported_scalar<Scalar>();
  detail::HostProduct<Scalar> p;
  try {
    p = detail::naming("tilegemm::gemm_async", [&] {
      return detail::check_host_arguments<Scalar>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  } catch (...) {
    return Pending<void>::failed(std::current_exception());
  }
  return detail::host_gemm(queue, detail::description_of<Config>(), "tilegemm::gemm_async", p, false);
}
template <class Scalar, class Config = AutoConfig>
Pending<void> gemm_async(Transpose trans_a, Transpose trans_b, long long m, long long n, long long k,
                         detail::identity_t<Scalar> alpha, const Scalar* a, long long lda, const Scalar* b,
                         long long ldb, detail::identity_t<Scalar> beta, Scalar* c, long long ldc) {
  return gemm_async<Scalar, Config>(default_queue(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tilegemm
