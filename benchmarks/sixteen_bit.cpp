// sixteen_bit: Eigen::half and Eigen::bfloat16 products (FP32 accumulation) on device buffers beside cuBLAS's
// cublasGemmEx with the same types in the same process, and host-to-host 16-bit against float; issue 29's figures.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#ifdef TILEGEMM_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The least, over `repeats` rounds, of the mean time of `calls` back-to-back calls of `call` followed by `finish`.
template <class Call, class Finish>
double best_ms(int repeats, int calls, Call&& call, Finish&& finish) {
  call();
  finish();  // the first call builds the programs: not timed
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    finish();
    best = std::min(best, milliseconds_since(start) / calls);
  }
  return best;
}

template <class S>
std::vector<S> random_matrix(std::size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<S> data(count);
  for (S& x : data) x = S(value(engine));
  return data;
}

// The largest error of a sample of C's elements against a double product of the 16-bit inputs, relative to
// sum_k |A(i,k)||B(k,j)|.
template <class S, class Out>
double sampled_error(const std::vector<S>& a, const std::vector<S>& b, const std::vector<Out>& c, long n) {
  double worst = 0;
  for (long s = 0; s < 64; ++s) {
    const long i = (s * 7919) % n, j = (s * 104729 + 13) % n;
    double exact = 0, magnitude = 0;
    for (long k = 0; k < n; ++k) {
      const double p = double(float(a[i + k * n])) * double(float(b[k + j * n]));
      exact += p;
      magnitude += std::fabs(p);
    }
    worst = std::max(worst, std::fabs(double(float(c[i + j * n])) - exact) / magnitude);
  }
  return worst;
}

#ifdef TILEGEMM_HAVE_CUBLAS
void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string(what) + " failed");
}

// cublasGemmEx with 16-bit A, B and C and FP32 compute (CUBLAS_COMPUTE_32F), n x n, milliseconds a call.
template <class S>
double cublas_ms(const std::vector<S>& a, const std::vector<S>& b, long n, int repeats, int calls) {
  const cudaDataType type = std::is_same_v<S, Eigen::half> ? CUDA_R_16F : CUDA_R_16BF;
  const std::size_t bytes = a.size() * sizeof(S);
  void *ga = nullptr, *gb = nullptr, *gc = nullptr;
  cublasHandle_t handle = nullptr;
  require(cudaMalloc(&ga, bytes) == cudaSuccess && cudaMalloc(&gb, bytes) == cudaSuccess &&
              cudaMalloc(&gc, bytes) == cudaSuccess,
          "cudaMalloc");
  require(cudaMemcpy(ga, a.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(gb, b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess,
          "cudaMemcpy");
  require(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  const float one = 1.0f, zero = 0.0f;
  const int side = static_cast<int>(n);
  const double ms = best_ms(
      repeats, calls,
      [&] {
        require(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, side, side, side, &one, ga, type, side, gb, type, side,
                             &zero, gc, type, side, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS,
                "cublasGemmEx");
      },
      [] { require(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize"); });
  cublasDestroy(handle);
  cudaFree(ga);
  cudaFree(gb);
  cudaFree(gc);
  return ms;
}
#endif

// One row: tilegemm::gemm<S> on buffers (C in S) at n, beside cublasGemmEx where there is one.
template <class S>
void device_row(const char* name, long n, int repeats) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::vector<S> a = random_matrix<S>(count, 1), b = random_matrix<S>(count, 2);
  std::vector<S> c(count);
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const std::size_t bytes = count * sizeof(S);
  cl::Buffer ba(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<S*>(a.data()));
  cl::Buffer bb(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<S*>(b.data()));
  cl::Buffer bc(context, CL_MEM_READ_WRITE, bytes);
  const int calls = n >= 8192 ? 3 : 10;
  const double ms = best_ms(
      repeats, calls,
      [&] {
        tilegemm::gemm<S>(queue, tilegemm::Transpose::no, tilegemm::Transpose::no, n, n, n, 1.0f, ba, 0, n, bb, 0, n,
                          0.0f, bc, 0, n);
      },
      [&] { queue.finish(); });
  queue.enqueueReadBuffer(bc, CL_TRUE, 0, bytes, c.data());
  const double tflops = 2.0 * n * n * n / ms * 1e-9;
  std::printf("%-8s %6ld  tilegemm %9.3f ms %7.1f TFLOP/s  sampled error %.2g", name, n, ms, tflops,
              sampled_error(a, b, c, n));
#ifdef TILEGEMM_HAVE_CUBLAS
  int cuda_devices = 0;
  if (cudaGetDeviceCount(&cuda_devices) != cudaSuccess || cuda_devices == 0) {
    std::printf("  (no CUDA device for cuBLAS)\n");
    return;
  }
  const double peer = cublas_ms(a, b, n, repeats, calls);
  std::printf("  cublasGemmEx %9.3f ms %7.1f TFLOP/s  ratio %.2fx", peer, 2.0 * n * n * n / peer * 1e-9, peer / ms);
#endif
  std::printf("\n");
}

// Host-to-host at n: 16-bit A and B with a float C, against the float call on the same values.
template <class S>
void host_row(const char* name, long n, int repeats) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::vector<S> a = random_matrix<S>(count, 3), b = random_matrix<S>(count, 4);
  std::vector<float> af(count), bf(count), c(count), cf(count);
  for (std::size_t i = 0; i < count; ++i) af[i] = float(a[i]), bf[i] = float(b[i]);
  const cl::CommandQueue queue = tilegemm::default_queue();
  const auto no = tilegemm::Transpose::no;
  const double ms16 = best_ms(
      repeats, 1,
      [&] { tilegemm::gemm<S, float>(queue, no, no, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); },
      [] {});
  const double ms32 = best_ms(
      repeats, 1,
      [&] { tilegemm::gemm<float>(queue, no, no, n, n, n, 1.0f, af.data(), n, bf.data(), n, 0.0f, cf.data(), n); },
      [] {});
  std::printf(
      "host to host %6ld  %s A, B, float C %9.2f ms   float %9.2f ms   ratio %.2f (bound 0.75)  sampled error %.2g\n",
      n, name, ms16, ms32, ms16 / ms32, sampled_error(a, b, c, n));
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<long> sizes = {4096, 4097, 8192};
  long host_n = 8192;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (char* p = argv[++i]; *p;) {
        char* end = nullptr;
        sizes.push_back(std::strtol(p, &end, 10));
        if (end == p || sizes.back() <= 0) throw std::invalid_argument("--sizes takes positive numbers: 4096,8192");
        p = *end == ',' ? end + 1 : end;
      }
    } else if (arg == "--host" && i + 1 < argc) {
      host_n = std::atol(argv[++i]);
    } else if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--sizes 4096,4097,8192] [--host 8192 (0: none)] [--repeats 3]\n", argv[0]);
      return 2;
    }
  }
  std::printf("device: %s; math for 16-bit products: as the device allows (docs/sixteen_bit.md)\n",
              tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_NAME>().c_str());
  for (const long n : sizes) {
    device_row<Eigen::bfloat16>("bfloat16", n, repeats);
    device_row<Eigen::half>("half", n, repeats);
  }
  if (host_n > 0) {
    host_row<Eigen::bfloat16>("bfloat16", host_n, repeats);
    host_row<Eigen::half>("half", host_n, repeats);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sixteen_bit: %s\n", e.what());
  return 1;
}
