// batched_mode: the benchmark's --batched mode: a batch of equally shaped products in one call (tilegemm's
// gemm_strided_batched and gpu_gemm_batched, CLBlast's GemmStridedBatched, cuBLAS's cublas<S>gemmStridedBatched)
// against the same products as separate tilegemm calls on device matrices.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <tilegemm/tilegemm.hpp>
#include <tuple>
#include <type_traits>
#include <vector>

#include "opencl_operands.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "timing.hpp"
#ifdef TILEGEMM_HAVE_CLBLAST
#include <clblast.h>
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cublas_peer.hpp"
#endif

namespace bench {

// The configurations timed besides AutoConfig (every one takes batches): the built-in table's tiles for batches of
// small and medium products (the in-place tensor-core ones in double only; the staged one where cp.async runs) and
// three of its GPU model's tiles (checked below), and 64 x 64 with 4 x 8 in vectors of 4. A row the device cannot run
// (no tensor cores) is skipped.
using BatchedCandidates =
    std::tuple<tilegemm::Prefetch<16, 16, 16, 2, 2, 2>, tilegemm::Prefetch<20, 20, 20, 2, 2, 2>,
               tilegemm::Prefetch<24, 24, 24, 2, 2, 2>, tilegemm::Prefetch<32, 32, 32, 2, 4, 2>,
               tilegemm::Prefetch<16, 16, 16, 2, 2, 1>, tilegemm::Prefetch<20, 20, 20, 2, 2, 1>,
               tilegemm::Prefetch<24, 24, 24, 2, 2, 1>, tilegemm::Prefetch<32, 32, 32, 2, 4, 1>,
               tilegemm::Prefetch<64, 64, 16, 4, 8, 2>, tilegemm::Prefetch<32, 32, 16, 2, 4, 2>,
               tilegemm::Prefetch<32, 32, 16, 2, 2, 2>, tilegemm::Prefetch<64, 64, 16, 4, 4, 4>,
               tilegemm::Prefetch<64, 64, 16, 4, 8, 4>, tilegemm::Prefetch<128, 128, 8, 8, 8, 4>,
               tilegemm::InPlaceTensorCores<64, 64, 8, 4, 8, 1, 4>, tilegemm::InPlaceTensorCores<32, 32, 8, 2, 4, 1, 3>,
               tilegemm::InPlaceTensorCores<32, 32, 16, 2, 4, 1>, tilegemm::InPlaceTensorCores<64, 64, 16, 4, 4, 2>,
               tilegemm::StagedPrefetch<64, 64, 16, 4, 8, 2, 2>>;

// Whether the list times the built-in table's entry `name`.
template <class... Configs>
constexpr bool times_builtin(std::tuple<Configs...>*, std::string_view name) {
  const tilegemm::detail::KernelDescription& entry = tilegemm::detail::builtin(name).config;
  return (tilegemm::detail::same_configuration(Configs::family, Configs::shape, entry.family, entry.tile) || ...);
}
constexpr bool times_all_builtin(std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    if (!times_builtin(static_cast<BatchedCandidates*>(nullptr), name)) return false;
  }
  return true;
}
static_assert(times_all_builtin({"batch_16x16", "batch_20x20", "batch_24x24", "batch_32x32", "batch_16x16_double",
                                 "batch_20x20_double", "batch_24x24_double", "batch_32x32_double", "batch_64x64",
                                 "batch_32x32_slices", "batch_64x64_staged", "in_place_64x64", "in_place_32x32",
                                 "in_place_single_32x32", "in_place_single_64x64", "gpu_32x32", "gpu_64x64",
                                 "gpu_128x128"}),
              "benchmark --batched times the built-in table's configurations for batches");

// One operand of every problem, side by side in one host matrix and one OpenCL buffer: problem p's stored
// rows x cols matrix at p * rows * cols, leading dimension rows (the BLAS stride is rows * cols).
template <class Scalar>
struct BatchOperand {
  long long rows = 0, cols = 0;
  HostMatrix<Scalar> host;  // rows x (count * cols)
  cl::Buffer buffer;

  long long stride() const { return rows * cols; }
  HostMatrix<Scalar> problem(long long p) const { return host.middleCols(p * cols, cols); }
};

template <class Scalar>
BatchOperand<Scalar> batch_operand(const cl::CommandQueue& queue, long long rows, long long cols, long long count,
                                   std::mt19937_64& random) {
  BatchOperand<Scalar> x;
  x.rows = rows;
  x.cols = cols;
  x.host = random_matrix<Scalar>(rows, cols * count, random);
  cl_int status = CL_SUCCESS;
  x.buffer = cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, sizeof(Scalar) * x.host.size(), nullptr,
                        &status);
  detail::require_cl(status, "allocating a batch operand");
  detail::require_cl(queue.enqueueWriteBuffer(x.buffer, CL_TRUE, 0, sizeof(Scalar) * x.host.size(), x.host.data()),
                     "clEnqueueWriteBuffer");
  return x;
}

// One row of the table: a way of multiplying the whole batch, its timing and its check.
struct BatchedRow {
  std::string name;
  Timing timing;
  double error = unknown;  // largest relative error of the sampled problems
  std::string status = "ok";
  std::string note;
};

// The batch of products and what every contender shares: operands, sampled references, the table.
template <class Scalar>
class BatchedBenchmark {
 public:
  BatchedBenchmark(const Options& options, const cl::CommandQueue& queue, const Shape& shape, std::mt19937_64& random)
      : options_(options), selection_(options.kernels), queue_(queue), shape_(shape), count_(options.batch_count) {
    const Transposes& t = options.transposes;
    a_ = batch_operand<Scalar>(queue, t.a ? shape.k : shape.m, t.a ? shape.m : shape.k, count_, random);
    b_ = batch_operand<Scalar>(queue, t.b ? shape.n : shape.k, t.b ? shape.k : shape.n, count_, random);
    c_elements_ = shape.m * shape.n * count_;
    cl_int status = CL_SUCCESS;
    c_ = cl::Buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE, sizeof(Scalar) * c_elements_, nullptr,
                    &status);
    detail::require_cl(status, "allocating C");
    const int samples = static_cast<int>(std::min<long long>(count_, 16));
    for (int i = 0; i < samples; ++i) sampled_.push_back(samples > 1 ? i * (count_ - 1) / (samples - 1) : 0);
  }

  // Times `start` (enqueues one whole batch without waiting; `finish` waits) after poisoning C, then checks it.
  void time_row(const std::string& name, const std::function<void()>& start, const std::function<void()>& finish,
                const std::function<HostMatrix<Scalar>()>& read_c, const TimingPlan& plan) {
    if (!selection_.selects(name)) return;
    BatchedRow row;
    row.name = name;
    try {
      poison();
      row.timing = measure({start, finish}, plan);
      row.error = check(read_c());
      if (!(row.error <= tolerance())) row.status = "WRONG";
    } catch (const tilegemm::Error& e) {
      row.status = e.code() == CL_INVALID_DEVICE ? "skipped" : "failed";
      row.note = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    } catch (const std::exception& e) {
      row.status = "failed";
      row.note = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    }
    rows_.push_back(row);
  }

  void run_all() {
    const TimingPlan plan = timing_plan(options_.repeats, options_.warmup, 0);
    // Used by the peers' rows only: a build without CLBlast and cuBLAS (CI's) has none.
    [[maybe_unused]] const auto finish = [this] { detail::require_cl(queue_.finish(), "clFinish"); };
    [[maybe_unused]] const auto read_c = [this] { return read_opencl_c(); };
#ifdef TILEGEMM_HAVE_CUBLAS
    run_cublas(plan);
#endif
#ifdef TILEGEMM_HAVE_CLBLAST
    time_row(
        "clblast::GemmStridedBatched",
        [this] {
          cl_command_queue raw = queue_();
          const auto status = clblast::GemmStridedBatched<Scalar>(
              clblast::Layout::kColMajor, transpose_of(options_.transposes.a), transpose_of(options_.transposes.b),
              shape_.m, shape_.n, shape_.k, Scalar(1), a_.buffer(), 0, a_.rows, a_.stride(), b_.buffer(), 0, b_.rows,
              b_.stride(), Scalar(0), c_(), 0, shape_.m, shape_.m * shape_.n, count_, &raw, nullptr);
          if (status != clblast::StatusCode::kSuccess) {
            throw std::runtime_error("clblast::GemmStridedBatched failed with status " +
                                     std::to_string(static_cast<int>(status)));
          }
        },
        finish, read_c, plan);
#endif
    time_strided<tilegemm::AutoConfig>("tilegemm gemm_strided_batched default (auto)", plan);
    std::apply(
        [&](auto... config) {
          (time_strided<decltype(config)>("tilegemm gemm_strided_batched " + decltype(config)::name(), plan), ...);
        },
        BatchedCandidates{});
    run_device_matrices(plan);
  }

  // Prints the table and appends it to the CSV; returns the rows that failed.
  int report(std::ofstream& csv, const std::string& device) const {
    const double flops = shape_.flops() * static_cast<double>(count_);
    const BatchedRow* cublas = find("cublas");
    const BatchedRow* clblast = find("clblast");
    std::printf("\n== %lld products of %s (%s), %.3g GFLOP in all\n", count_, shape_.text().c_str(),
                options_.transposes.text().c_str(), flops * 1e-9);
    std::printf("%-58s %9s %9s %10s %9s %8s %8s %8s  %s\n", "contender", "first ms", "call ms", "device ms", "GFLOP/s",
                "us/prob", "/cuBLAS", "/CLBlast", "check");
    int failures = 0;
    for (const BatchedRow& row : rows_) {
      const double ms = row.timing.device_ms;
      const auto ratio = [&](const BatchedRow* peer) {
        return peer && row.status == "ok" && peer->status == "ok" ? peer->timing.device_ms / ms : unknown;
      };
      std::printf("%-58s %9.3f %9.3f %10.4f %9.1f %8.3f %8.2f %8.2f  %s (max rel err %.1e)%s%s\n", row.name.c_str(),
                  row.timing.first_ms, row.timing.call_ms, ms, flops / ms * 1e-6, ms * 1e3 / count_, ratio(cublas),
                  ratio(clblast), row.status.c_str(), row.error, row.note.empty() ? "" : ": ", row.note.c_str());
      csv << '"' << device << "\"," << (std::is_same_v<Scalar, float> ? "float" : "double") << ','
          << options_.transposes.text() << ',' << count_ << ',' << shape_.m << ',' << shape_.n << ',' << shape_.k
          << ",\"" << row.name << "\"," << row.timing.first_ms << ',' << row.timing.call_ms << ',' << ms << ','
          << flops / ms * 1e-6 << ',' << row.error << ',' << row.status << '\n';
      if (row.status != "ok" && row.status != "skipped") ++failures;
    }
    const BatchedRow* batched = find("tilegemm gemm_strided_batched default");
    const BatchedRow* separate = find("separate gpu_gemm calls");
    if (batched && batched->status == "ok") {
      const auto line = [&](const char* what, const BatchedRow* other, double other_ms, double own_ms) {
        if (other && other->status == "ok")
          std::printf("  tilegemm batched vs %-40s %8.2fx\n", what, other_ms / own_ms);
      };
      line("cublas<S>gemmStridedBatched (device ms)", cublas, cublas ? cublas->timing.device_ms : 0,
           batched->timing.device_ms);
      line("clblast::GemmStridedBatched (device ms)", clblast, clblast ? clblast->timing.device_ms : 0,
           batched->timing.device_ms);
      line("separate gpu_gemm calls (call ms)", separate, separate ? separate->timing.call_ms : 0,
           batched->timing.call_ms);
    }
    return failures;
  }

 private:
  static double tolerance() { return std::is_same_v<Scalar, float> ? 1e-4 : 1e-12; }

#ifdef TILEGEMM_HAVE_CLBLAST
  static clblast::Transpose transpose_of(bool t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; }
#endif

  const BatchedRow* find(const std::string& prefix) const {
    for (const BatchedRow& row : rows_) {
      if (row.name.rfind(prefix, 0) == 0) return &row;
    }
    return nullptr;
  }

  // C all NaN (all bits set), so that a problem left unwritten fails the check.
  void poison() {
    detail::require_cl(queue_.enqueueFillBuffer(c_, static_cast<cl_uchar>(0xff), 0, sizeof(Scalar) * c_elements_),
                       "clEnqueueFillBuffer");
    detail::require_cl(queue_.finish(), "clFinish");
  }

  HostMatrix<Scalar> read_opencl_c() const {
    HostMatrix<Scalar> c(shape_.m, shape_.n * count_);
    detail::require_cl(queue_.enqueueReadBuffer(c_, CL_TRUE, 0, sizeof(Scalar) * c.size(), c.data()),
                       "clEnqueueReadBuffer");
    return c;
  }

  // The largest relative error of the sampled problems of C (m x (count * n)) against double references.
  double check(const HostMatrix<Scalar>& c) const {
    double worst = 0;
    for (const long long p : sampled_) {
      const Eigen::MatrixXd a = a_.problem(p).template cast<double>(), b = b_.problem(p).template cast<double>();
      const Eigen::MatrixXd expected = (options_.transposes.a ? Eigen::MatrixXd(a.transpose()) : a) *
                                       (options_.transposes.b ? Eigen::MatrixXd(b.transpose()) : b);
      const Eigen::MatrixXd got = c.middleCols(p * shape_.n, shape_.n).template cast<double>();
      const double scale = std::max(expected.cwiseAbs().maxCoeff(), 1e-30);
      const double error = (got - expected).cwiseAbs().maxCoeff() / scale;
      if (!(error <= worst)) worst = error;  // NaN sticks
    }
    return worst;
  }

  template <class Config>
  void time_strided(const std::string& name, const TimingPlan& plan) {
    if constexpr (!std::is_same_v<Config, tilegemm::AutoConfig> && std::is_same_v<Scalar, float>) {
      if constexpr (Config::family == tilegemm::Family::in_place_tensor_cores) return;  // double only
    }
    const tilegemm::Transpose ta = options_.transposes.a ? tilegemm::Transpose::yes : tilegemm::Transpose::no;
    const tilegemm::Transpose tb = options_.transposes.b ? tilegemm::Transpose::yes : tilegemm::Transpose::no;
    time_row(
        name,
        [=] {
          tilegemm::gemm_strided_batched<Scalar, Config>(queue_, ta, tb, shape_.m, shape_.n, shape_.k, 1, a_.buffer, 0,
                                                         a_.rows, a_.stride(), b_.buffer, 0, b_.rows, b_.stride(), 0,
                                                         c_, 0, shape_.m, shape_.m * shape_.n, count_);
        },
        [this] { detail::require_cl(queue_.finish(), "clFinish"); }, [this] { return read_opencl_c(); }, plan);
  }

  // gpu_gemm_batched on device matrices that lie in the buffers (read in place), and the same products as separate
  // gpu_gemm calls on those device matrices: each waiting for its result, and all asynchronous, waited for once.
  void run_device_matrices(const TimingPlan& plan) {
    if (options_.transposes.a || options_.transposes.b) return;  // device matrices here are stored untransposed
    std::vector<tilegemm::DeviceMatrix<Scalar>> da, db, dc;
    for (long long p = 0; p < count_; ++p) {
      da.emplace_back(a_.buffer, shape_.m, shape_.k, shape_.m, p * a_.stride(), queue_);
      db.emplace_back(b_.buffer, shape_.k, shape_.n, shape_.k, p * b_.stride(), queue_);
      dc.emplace_back(c_, shape_.m, shape_.n, shape_.m, p * shape_.m * shape_.n, queue_);
    }
    // Used by the peers' rows only: a build without CLBlast and cuBLAS (CI's) has none.
    [[maybe_unused]] const auto finish = [this] { detail::require_cl(queue_.finish(), "clFinish"); };
    [[maybe_unused]] const auto read_c = [this] { return read_opencl_c(); };
    time_row(
        "tilegemm gpu_gemm_batched on DeviceMatrix (waits)",
        [&] { tilegemm::gpu_gemm_batched(queue_, da, db, dc, Scalar(1), Scalar(0)); }, finish, read_c, plan);
    const TimingPlan separate_plan{std::min(plan.warmup, 1), std::min(plan.repeats, 3)};
    time_row(
        "separate gpu_gemm calls on DeviceMatrix (each waits)",
        [&] {
          for (long long p = 0; p < count_; ++p) tilegemm::gpu_gemm(queue_, da[p], db[p], dc[p], Scalar(1), Scalar(0));
        },
        finish, read_c, separate_plan);
    time_row(
        "separate gpu_gemm_async calls on DeviceMatrix (waited once)",
        [&] {
          std::vector<tilegemm::Pending<void>> pending;
          pending.reserve(static_cast<std::size_t>(count_));
          for (long long p = 0; p < count_; ++p) {
            pending.push_back(tilegemm::gpu_gemm_async(queue_, da[p], db[p], dc[p], Scalar(1), Scalar(0)));
          }
          for (auto& x : pending) x.get();
        },
        finish, read_c, separate_plan);
  }

#ifdef TILEGEMM_HAVE_CUBLAS
  // cuBLAS's strided batch on copies of the operands in CUDA memory, pedantic math (no TF32).
  void run_cublas(const TimingPlan& plan) {
    const std::string name =
        std::string(std::is_same_v<Scalar, float> ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched") +
        (cublas_math_mode() == CUBLAS_DEFAULT_MATH ? " (default math)" : " (pedantic math)");
    if (!selection_.selects(name)) return;
    const CudaDevice cuda = find_cuda_device();
    if (!cuda.present) {
      BatchedRow row;
      row.name = name;
      row.status = "skipped";
      row.note = cuda.description;
      rows_.push_back(row);
      return;
    }
    Scalar *ga = nullptr, *gb = nullptr, *gc = nullptr;
    cublasHandle_t handle = nullptr;
    const std::size_t c_bytes = sizeof(Scalar) * static_cast<std::size_t>(c_elements_);
    try {
      detail::require_cuda(cudaMalloc(reinterpret_cast<void**>(&ga), sizeof(Scalar) * a_.host.size()), "cudaMalloc");
      detail::require_cuda(cudaMalloc(reinterpret_cast<void**>(&gb), sizeof(Scalar) * b_.host.size()), "cudaMalloc");
      detail::require_cuda(cudaMalloc(reinterpret_cast<void**>(&gc), c_bytes), "cudaMalloc");
      detail::require_cuda(cudaMemcpy(ga, a_.host.data(), sizeof(Scalar) * a_.host.size(), cudaMemcpyHostToDevice),
                           "cudaMemcpy");
      detail::require_cuda(cudaMemcpy(gb, b_.host.data(), sizeof(Scalar) * b_.host.size(), cudaMemcpyHostToDevice),
                           "cudaMemcpy");
      detail::require_cuda(cudaMemset(gc, 0xff, c_bytes), "cudaMemset");
      detail::require_cublas(cublasCreate(&handle), "cublasCreate");
      detail::require_cublas(cublasSetMathMode(handle, cublas_math_mode()), "cublasSetMathMode");
      const cublasOperation_t op_a = options_.transposes.a ? CUBLAS_OP_T : CUBLAS_OP_N;
      const cublasOperation_t op_b = options_.transposes.b ? CUBLAS_OP_T : CUBLAS_OP_N;
      const int m = static_cast<int>(shape_.m), n = static_cast<int>(shape_.n), k = static_cast<int>(shape_.k);
      const int count = static_cast<int>(count_);
      const Scalar one = 1, zero = 0;
      time_row(
          name,
          [&] {
            if constexpr (std::is_same_v<Scalar, float>) {
              detail::require_cublas(
                  cublasSgemmStridedBatched(handle, op_a, op_b, m, n, k, &one, ga, static_cast<int>(a_.rows),
                                            a_.stride(), gb, static_cast<int>(b_.rows), b_.stride(), &zero, gc, m,
                                            shape_.m * shape_.n, count),
                  "cublasSgemmStridedBatched");
            } else {
              detail::require_cublas(
                  cublasDgemmStridedBatched(handle, op_a, op_b, m, n, k, &one, ga, static_cast<int>(a_.rows),
                                            a_.stride(), gb, static_cast<int>(b_.rows), b_.stride(), &zero, gc, m,
                                            shape_.m * shape_.n, count),
                  "cublasDgemmStridedBatched");
            }
          },
          [] { detail::require_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); },
          [&] {
            HostMatrix<Scalar> c(shape_.m, shape_.n * count_);
            detail::require_cuda(cudaMemcpy(c.data(), gc, c_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
            return c;
          },
          plan);
    } catch (const std::exception& e) {
      BatchedRow row;
      row.name = name;
      row.status = "failed";
      row.note = e.what();
      rows_.push_back(row);
    }
    if (handle) cublasDestroy(handle);
    cudaFree(ga);
    cudaFree(gb);
    cudaFree(gc);
  }
#endif

  const Options& options_;
  const Selection selection_;
  cl::CommandQueue queue_;
  Shape shape_;
  long long count_;
  BatchOperand<Scalar> a_, b_;
  cl::Buffer c_;
  long long c_elements_ = 0;
  std::vector<long long> sampled_;
  std::vector<BatchedRow> rows_;
};

template <class Scalar>
int run_batched_mode(const Options& options) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const std::string device = queue.getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_NAME>();
  const bool new_file = !std::ifstream(options.csv).good();
  std::ofstream csv(options.csv, std::ios::app);
  if (!csv) throw UsageError("cannot write the CSV file " + options.csv);
  if (new_file) {
    csv << "device,precision,transposes,batch_count,m,n,k,contender,first_ms,call_ms,device_ms,gflops,max_rel_error,"
           "status\n";
  }
  std::printf(
      "batched products on %s, %s; first call apart (with OpenCL builds), %d warm-up calls, then the median of %s\n"
      "single calls ('call ms', start to finished) and of calls started back to back ('device ms', per call);\n"
      "/cuBLAS and /CLBlast: their device time over this row's (above 1: this row is faster); 16 problems of each\n"
      "result checked against double-precision products\n",
      device.c_str(), std::is_same_v<Scalar, float> ? "float" : "double", options.warmup,
      options.repeats > 0 ? std::to_string(options.repeats).c_str() : "10");
  std::mt19937_64 random(std::random_device{}());
  int failures = 0;
  for (const Shape& shape : options.shapes) {
    BatchedBenchmark<Scalar> benchmark(options, queue, shape, random);
    benchmark.run_all();
    failures += benchmark.report(csv, device);
  }
  std::printf("\nresults:  %s\n", options.csv.c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace bench
