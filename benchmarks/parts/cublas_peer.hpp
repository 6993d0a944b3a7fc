// cublas_peer: cuBLAS's Sgemm/Dgemm on the CUDA device, in IEEE arithmetic (or, asked for, Sgemm on TF32 tensor
// cores), timed the same way.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "contender.hpp"

namespace bench {

// Whether there is a CUDA device to run cuBLAS on, and its name (or why not).
struct CudaDevice {
  bool present = false;
  std::string description;
};

inline CudaDevice find_cuda_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return {false, std::string("no CUDA device: ") + cudaGetErrorString(status)};
  if (count == 0) return {false, "no CUDA device"};
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return {true, "CUDA device 0"};
  return {true, properties.name};
}

// IEEE arithmetic only: pedantic math where cuBLAS has it (11 and newer), which also rules out TF32.
inline cublasMath_t cublas_math_mode() {
#if defined(CUBLAS_VER_MAJOR) && CUBLAS_VER_MAJOR >= 11
  return CUBLAS_PEDANTIC_MATH;
#else
  return CUBLAS_DEFAULT_MATH;
#endif
}

template <class Scalar>
std::string cublas_label() {
  return std::string(std::is_same_v<Scalar, float> ? "cublasSgemm" : "cublasDgemm") +
         (cublas_math_mode() == CUBLAS_DEFAULT_MATH ? " (default math)" : " (pedantic math)");
}

// Sgemm with TF32 tensor-core math allowed: the peer of tilegemm's TF32 mode (kernel "cublas-tf32" in the tables).
inline std::string cublas_tf32_label() { return "cublasSgemm (CUBLAS_TF32_TENSOR_OP_MATH)"; }

namespace detail {

inline void require_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
}

inline void require_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed with cuBLAS status " + std::to_string(status));
  }
}

// The operands in CUDA memory and a cuBLAS handle; calls go to CUDA's default stream.
template <class Scalar>
class CublasProduct {
 public:
  CublasProduct(const HostOperands<Scalar>& host, cublasMath_t math)
      : shape_(host.shape), transposes_(host.transposes) {
    try {
      upload(host);
      require_cublas(cublasCreate(&handle_), "cublasCreate");
      require_cublas(cublasSetMathMode(handle_, math), "cublasSetMathMode");
    } catch (...) {
      release();
      throw;
    }
  }
  CublasProduct(const CublasProduct&) = delete;
  CublasProduct& operator=(const CublasProduct&) = delete;
  ~CublasProduct() { release(); }

  void start() {
    const Scalar alpha = 1;
    const Scalar beta = 0;
    const cublasOperation_t op_a = transposes_.a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = transposes_.b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int m = static_cast<int>(shape_.m), n = static_cast<int>(shape_.n), k = static_cast<int>(shape_.k);
    if constexpr (std::is_same_v<Scalar, float>) {
      require_cublas(cublasSgemm(handle_, op_a, op_b, m, n, k, &alpha, a_, lda_, b_, ldb_, &beta, c_, m), "Sgemm");
    } else {
      require_cublas(cublasDgemm(handle_, op_a, op_b, m, n, k, &alpha, a_, lda_, b_, ldb_, &beta, c_, m), "Dgemm");
    }
  }

  void finish() const { require_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

  void download(HostMatrix<Scalar>& c) const {
    require_cuda(cudaMemcpy(c.data(), c_, c.size() * sizeof(Scalar), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }

 private:
  void upload(const HostOperands<Scalar>& host) {
    lda_ = static_cast<int>(host.a.rows());
    ldb_ = static_cast<int>(host.b.rows());
    const std::size_t c_bytes = static_cast<std::size_t>(shape_.m * shape_.n) * sizeof(Scalar);
    require_cuda(cudaMalloc(reinterpret_cast<void**>(&a_), host.a.size() * sizeof(Scalar)), "cudaMalloc");
    require_cuda(cudaMalloc(reinterpret_cast<void**>(&b_), host.b.size() * sizeof(Scalar)), "cudaMalloc");
    require_cuda(cudaMalloc(reinterpret_cast<void**>(&c_), c_bytes), "cudaMalloc");
    require_cuda(cudaMemcpy(a_, host.a.data(), host.a.size() * sizeof(Scalar), cudaMemcpyHostToDevice), "cudaMemcpy");
    require_cuda(cudaMemcpy(b_, host.b.data(), host.b.size() * sizeof(Scalar), cudaMemcpyHostToDevice), "cudaMemcpy");
    require_cuda(cudaMemset(c_, 0xff, c_bytes), "cudaMemset");  // all bits set: NaN, so unwritten entries show
    require_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  void release() {
    if (handle_) cublasDestroy(handle_);
    if (c_) cudaFree(c_);
    if (b_) cudaFree(b_);
    if (a_) cudaFree(a_);
  }

  Shape shape_;
  Transposes transposes_;
  Scalar* a_ = nullptr;
  Scalar* b_ = nullptr;
  Scalar* c_ = nullptr;
  int lda_ = 0;
  int ldb_ = 0;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace detail

// C = op(A) * op(B) by cuBLAS on copies of the same operands in CUDA memory, in IEEE arithmetic or with
// `math`; finishing synchronizes the device.
template <class Scalar>
Contender<Scalar> cublas_contender(const HostOperands<Scalar>& host, cublasMath_t math = cublas_math_mode()) {
  auto product = std::make_shared<detail::CublasProduct<Scalar>>(host, math);
  Contender<Scalar> contender;
  contender.product.start = [product] { product->start(); };
  contender.product.finish = [product] { product->finish(); };
  contender.read_result = [product](HostMatrix<Scalar>& c) { product->download(c); };
  return contender;
}

}  // namespace bench
