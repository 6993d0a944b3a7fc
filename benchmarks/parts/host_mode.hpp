// host_mode: the benchmark's --host mode: whole host-to-host products on Eigen matrices in ordinary (pageable)
// memory, as a user meets them: tilegemm's gpu_gemm (with where its time went), CLBlast with plain writes and
// reads, cuBLAS with cudaMemcpy, Eigen on the CPU; and the product on data that stays on the device, for scale.
#pragma once

#include <Eigen/Dense>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "options.hpp"
#include "timing.hpp"
#ifdef TILEGEMM_HAVE_CLBLAST
#include <clblast.h>
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace bench {

// The median wall-clock milliseconds of `repeats` calls of `call` after one untimed call; `after_each` runs after
// each timed call with its index (to keep what the call reported).
inline double median_wall_ms(int repeats, const std::function<void()>& call,
                             const std::function<void(int)>& after_each = {}) {
  call();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (after_each) after_each(i);
  }
  return median(times);
}

inline double relative_error(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected) {
  return (got - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
}

template <class Scalar>
int run_host_mode(const Options& options) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  std::ofstream csv(options.csv, std::ios::app);
  csv << "device,precision,m,n,k,contender,wall_ms,copy_in_ms,upload_ms,product_ms,download_ms,copy_out_ms,blocks,"
         "max_rel_error\n";
  const std::string device = queue.getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_NAME>();
  std::printf("host-to-host products on %s, %s, median of %d calls after one untimed (wall clock, ms)\n",
              device.c_str(), std::is_same_v<Scalar, float> ? "float" : "double",
              options.repeats > 0 ? options.repeats : 5);
  int failures = 0;
  // The rows beside gpu_gemm's own (which always runs), by the names --kernels matches.
  const Selection selection(options.kernels);
  constexpr char fresh_row[] = "tilegemm, a new matrix each call";
  constexpr char device_matrix_row[] = "tilegemm gpu_gemm on DeviceMatrix";
  constexpr char buffers_row[] = "tilegemm gemm on cl::Buffers";
  [[maybe_unused]] constexpr char clblast_row[] = "CLBlast with plain writes and reads";
  [[maybe_unused]] constexpr char cublas_row[] = "cuBLAS with cudaMemcpy from pageable memory";
  constexpr char eigen_row[] = "Eigen A * B on the CPU";
  for (const Shape& shape : options.shapes) {
    const int repeats = options.repeats > 0 ? options.repeats : 5;
    const Matrix a = Matrix::Random(shape.m, shape.k), b = Matrix::Random(shape.k, shape.n);
    // The reference on a sample of columns (the whole product in double would take longer than the benchmark).
    const long long sampled = std::min<long long>(shape.n, 16);
    const Eigen::MatrixXd expected = a.template cast<double>() * b.leftCols(sampled).template cast<double>();
    const auto check = [&](const Matrix& c) {
      return relative_error(c.leftCols(sampled).template cast<double>(), expected);
    };
    std::printf("\n== %lld x %lld x %lld\n", shape.m, shape.n, shape.k);
    std::printf("%-44s %10s  %s\n", "contender", "wall ms", "notes");
    const auto row = [&](const std::string& name, double ms, double error, const tilegemm::detail::HostCallProfile* p,
                         const std::string& notes) {
      std::printf("%-44s %10.3f  %s (max rel err %.1e)\n", name.c_str(), ms, notes.c_str(), error);
      csv << '"' << device << "\"," << (std::is_same_v<Scalar, float> ? "float" : "double") << ',' << shape.m << ','
          << shape.n << ',' << shape.k << ",\"" << name << "\"," << ms << ',';
      if (p) {
        csv << p->copy_in << ',' << p->upload << ',' << p->product << ',' << p->download << ',' << p->copy_out << ','
            << p->blocks;
      } else {
        csv << ",,,,,";
      }
      csv << ',' << error << '\n';
      std::fflush(stdout);  // a run stopped by a time limit keeps the rows it printed
      if (!(error < (std::is_same_v<Scalar, float> ? 1e-4 : 1e-12))) ++failures;
    };

    // tilegemm: C = gpu_gemm(A, B), and where the median call's time went.
    Matrix c;
    std::vector<tilegemm::detail::HostCallProfile> profiles(repeats);
    std::vector<tilegemm::detail::MultiDeviceProfile> multi(repeats);
    std::vector<double> walls;
    const double host_ms = median_wall_ms(
        repeats, [&] { c = tilegemm::gpu_gemm(a, b); },
        [&](int i) {
          profiles[i] = tilegemm::detail::last_host_call_profile();
          multi[i] = tilegemm::detail::last_multi_device_profile();
        });
    tilegemm::detail::HostCallProfile profile = profiles[repeats / 2];
    std::string split = "direct path (small product or CPU device)";
    if (profile.blocks > 0) {
      const double parts = profile.copy_in + profile.upload + profile.product + profile.download + profile.copy_out;
      char text[256];
      std::snprintf(text, sizeof text,
                    "staged, %d blocks: copy in %.2f, upload %.2f, product %.2f, download %.2f, copy out %.2f, "
                    "overlapped %.2f",
                    profile.blocks, profile.copy_in, profile.upload, profile.product, profile.download,
                    profile.copy_out, parts - profile.wall);
      split = text;
    }
    const std::vector<cl::CommandQueue> listed = tilegemm::default_queues();
    if (!listed.empty() && multi[repeats / 2].tiles > 0) {
      // Over the devices TILEGEMM_DEVICES names: per device the tiles it made and the time it spent on them, and the
      // host memory bandwidth the call used (the bytes its tiles moved between host memory and the devices).
      const tilegemm::detail::MultiDeviceProfile& shared = multi[repeats / 2];
      char text[128];
      std::snprintf(text, sizeof text,
                    "%zu devices, %zu tiles x %zu slices of K, %.1f GB/s host memory, %zu pieces shared:",
                    shared.devices.size(), shared.tiles, shared.slices, shared.bytes / host_ms * 1e-6, shared.borrowed);
      const std::string staged = split;
      split = text;
      for (std::size_t d = 0; d < shared.devices.size(); ++d) {
        std::snprintf(text, sizeof text, " device %zu %d tiles, busy %.1f ms%s;", d, shared.devices[d].tiles,
                      shared.devices[d].busy_ms, shared.devices[d].failure.empty() ? "" : " (failed)");
        split += text;
      }
      if (profile.blocks > 0) split += " device 0's last tile " + staged;
    }
    // One line for benchmarks/multi_device/run.sh to read.
    std::printf("summary: host %s %lld %zu devices %.3f ms %.1f GB/s\n",
                std::is_same_v<Scalar, float> ? "float" : "double", shape.m, std::max<std::size_t>(listed.size(), 1),
                host_ms,
                (!listed.empty() && multi[repeats / 2].tiles > 0
                     ? multi[repeats / 2].bytes
                     : static_cast<double>(sizeof(Scalar)) *
                           static_cast<double>(shape.m * shape.k + shape.k * shape.n + shape.m * shape.n)) /
                    host_ms * 1e-6);
    row("tilegemm C = gpu_gemm(A, B), host to host", host_ms, check(c), profile.blocks > 0 ? &profile : nullptr, split);
    // A new matrix for every result, as `Matrix c = gpu_gemm(A, B)` in a loop makes: its first writes fault page by
    // page, where C = gpu_gemm(A, B) above writes into C's memory.
    if (selection.selects(fresh_row)) {
      Matrix kept;
      const double fresh_ms = median_wall_ms(repeats, [&] {
        Matrix fresh = tilegemm::gpu_gemm(a, b);
        kept.swap(fresh);  // the last call's matrix is freed here, as a loop's would be
      });
      row(fresh_row, fresh_ms, check(kept), nullptr, "Matrix c = gpu_gemm(A, B)");
    }

    // The same product on data that stays on the device: DeviceMatrix operands (in place into a DeviceMatrix) and
    // tilegemm::gemm on the same buffers.
    if (selection.selects(device_matrix_row) || selection.selects(buffers_row)) {
      const tilegemm::DeviceMatrix<Scalar> da(a, queue), db(b, queue);
      tilegemm::DeviceMatrix<Scalar> dc(shape.m, shape.n, queue);
      const double device_matrix_ms =
          median_wall_ms(repeats, [&] { tilegemm::gpu_gemm(da, db, dc, Scalar(1), Scalar(0)); });
      row(device_matrix_row, device_matrix_ms, check(dc.to_host()), nullptr, "data on the device");
      const double buffers_ms = median_wall_ms(repeats, [&] {
        tilegemm::gemm<Scalar>(queue, tilegemm::Transpose::no, tilegemm::Transpose::no, shape.m, shape.n, shape.k, 1,
                               da.buffer(), 0, da.ld(), db.buffer(), 0, db.ld(), 0, dc.buffer(), 0, dc.ld())
            .wait();
      });
      row(buffers_row, buffers_ms, check(dc.to_host()), nullptr,
          "DeviceMatrix / buffers " + std::to_string(device_matrix_ms / buffers_ms));
      std::printf("%-44s %10.2f\n", "host to host / on the device", host_ms / buffers_ms);
    }

#ifdef TILEGEMM_HAVE_CLBLAST
    if (selection.selects(clblast_row)) {
      // CLBlast with plain writes and reads from the same pageable memory, on the same queue.
      cl_int status = CL_SUCCESS;
      cl::Buffer ba(context, CL_MEM_READ_WRITE, sizeof(Scalar) * a.size(), nullptr, &status);
      cl::Buffer bb(context, CL_MEM_READ_WRITE, sizeof(Scalar) * b.size(), nullptr, &status);
      cl::Buffer bc(context, CL_MEM_READ_WRITE, sizeof(Scalar) * shape.m * shape.n, nullptr, &status);
      Matrix cc(shape.m, shape.n);
      const double ms = median_wall_ms(repeats, [&] {
        queue.enqueueWriteBuffer(ba, CL_TRUE, 0, sizeof(Scalar) * a.size(), a.data());
        queue.enqueueWriteBuffer(bb, CL_TRUE, 0, sizeof(Scalar) * b.size(), b.data());
        cl_command_queue raw = queue();
        clblast::Gemm<Scalar>(clblast::Layout::kColMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, shape.m,
                              shape.n, shape.k, Scalar(1), ba(), 0, shape.m, bb(), 0, shape.k, Scalar(0), bc(), 0,
                              shape.m, &raw, nullptr);
        queue.enqueueReadBuffer(bc, CL_TRUE, 0, sizeof(Scalar) * cc.size(), cc.data());
      });
      row(clblast_row, ms, check(cc), nullptr, "tilegemm is " + std::to_string(ms / host_ms) + "x faster");
    }
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
    {
      int devices = 0;
      if (selection.selects(cublas_row) && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        Scalar *ga = nullptr, *gb = nullptr, *gc = nullptr;
        cudaMalloc(reinterpret_cast<void**>(&ga), sizeof(Scalar) * a.size());
        cudaMalloc(reinterpret_cast<void**>(&gb), sizeof(Scalar) * b.size());
        cudaMalloc(reinterpret_cast<void**>(&gc), sizeof(Scalar) * shape.m * shape.n);
        cublasHandle_t handle = nullptr;
        cublasCreate(&handle);
        cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH);
        Matrix cc(shape.m, shape.n);
        const Scalar one = 1, zero = 0;
        const double ms = median_wall_ms(repeats, [&] {
          cudaMemcpy(ga, a.data(), sizeof(Scalar) * a.size(), cudaMemcpyHostToDevice);
          cudaMemcpy(gb, b.data(), sizeof(Scalar) * b.size(), cudaMemcpyHostToDevice);
          const int m = static_cast<int>(shape.m), n = static_cast<int>(shape.n), k = static_cast<int>(shape.k);
          if constexpr (std::is_same_v<Scalar, float>) {
            cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ga, m, gb, k, &zero, gc, m);
          } else {
            cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ga, m, gb, k, &zero, gc, m);
          }
          cudaMemcpy(cc.data(), gc, sizeof(Scalar) * cc.size(), cudaMemcpyDeviceToHost);
        });
        row(cublas_row, ms, check(cc), nullptr, "tilegemm is " + std::to_string(ms / host_ms) + "x faster");
        cublasDestroy(handle);
        cudaFree(ga);
        cudaFree(gb);
        cudaFree(gc);
      }
    }
#endif
    if (shape.size() <= static_cast<double>(options.eigen_max) && selection.selects(eigen_row)) {
      Matrix ce;
      const double ms = median_wall_ms(std::min(repeats, 3), [&] { ce.noalias() = a * b; });
      row(eigen_row, ms, check(ce), nullptr, "");
    }
  }
  std::printf("\nresults:  %s\n", options.csv.c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace bench
