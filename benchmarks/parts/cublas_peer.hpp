// cublas_peer: cuBLAS's Sgemm/Dgemm on the CUDA device, in IEEE arithmetic (or, asked for, Sgemm on TF32 tensor
// cores, or cublasGemmEx with bfloat16 or half tensor-core math), timed the same way.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

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

// cublasGemmEx on 16-bit tensor cores, float C (float products only): float A and B rounded as they enter
// (CUBLAS_COMPUTE_32F_FAST_16BF / _16F: the peers of tilegemm's bf16 and fp16 modes, kernels "cublas-bf16" and
// "cublas-fp16"), or A and B stored in 16 bits (CUDA_R_16BF / CUDA_R_16F, CUBLAS_COMPUTE_32F: "cublas-bf16-stored",
// "cublas-fp16-stored", the goal of the 16-bit products).
enum class Sixteen { none, bf16, fp16, bf16_stored, fp16_stored };
inline std::string cublas_16_kernel(Sixteen kind) {
  switch (kind) {
    case Sixteen::bf16:
      return "cublas-bf16";
    case Sixteen::fp16:
      return "cublas-fp16";
    case Sixteen::bf16_stored:
      return "cublas-bf16-stored";
    case Sixteen::fp16_stored:
      return "cublas-fp16-stored";
    default:
      return "cublas";
  }
}
inline std::string cublas_16_label(Sixteen kind) {
  switch (kind) {
    case Sixteen::bf16:
      return "cublasGemmEx (float, CUBLAS_COMPUTE_32F_FAST_16BF)";
    case Sixteen::fp16:
      return "cublasGemmEx (float, CUBLAS_COMPUTE_32F_FAST_16F)";
    case Sixteen::bf16_stored:
      return "cublasGemmEx (CUDA_R_16BF A and B, float C, CUBLAS_COMPUTE_32F)";
    case Sixteen::fp16_stored:
      return "cublasGemmEx (CUDA_R_16F A and B, float C, CUBLAS_COMPUTE_32F)";
    default:
      return "";
  }
}

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
  CublasProduct(const HostOperands<Scalar>& host, cublasMath_t math, Sixteen sixteen = Sixteen::none)
      : shape_(host.shape), transposes_(host.transposes), sixteen_(sixteen) {
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
    if (sixteen_ != Sixteen::none) {
      const bool stored = sixteen_ == Sixteen::bf16_stored || sixteen_ == Sixteen::fp16_stored;
      const cudaDataType_t in = !stored ? CUDA_R_32F : sixteen_ == Sixteen::bf16_stored ? CUDA_R_16BF : CUDA_R_16F;
      const cublasComputeType_t compute = stored                      ? CUBLAS_COMPUTE_32F
                                          : sixteen_ == Sixteen::bf16 ? CUBLAS_COMPUTE_32F_FAST_16BF
                                                                      : CUBLAS_COMPUTE_32F_FAST_16F;
      const void* a = stored ? static_cast<const void*>(a16_) : static_cast<const void*>(a_);
      const void* b = stored ? static_cast<const void*>(b16_) : static_cast<const void*>(b_);
      require_cublas(cublasGemmEx(handle_, op_a, op_b, m, n, k, &alpha, a, in, lda_, b, in, ldb_, &beta, c_, CUDA_R_32F,
                                  m, compute, CUBLAS_GEMM_DEFAULT),
                     "GemmEx");
      return;
    }
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
    if constexpr (std::is_same_v<Scalar, float>) {
      if (sixteen_ == Sixteen::bf16_stored || sixteen_ == Sixteen::fp16_stored) {
        a16_ = upload_16_bits(host.a.data(), host.a.size());
        b16_ = upload_16_bits(host.b.data(), host.b.size());
      }
    }
    require_cuda(cudaMemset(c_, 0xff, c_bytes), "cudaMemset");  // all bits set: NaN, so unwritten entries show
    require_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  // `count` floats rounded to bfloat16 or half (nearest even) in CUDA memory.
  std::uint16_t* upload_16_bits(const float* from, std::size_t count) {
    std::vector<std::uint16_t> bits(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (sixteen_ == Sixteen::bf16_stored) {
        bits[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(from[i]));
      } else {
        bits[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(from[i]));
      }
    }
    std::uint16_t* device = nullptr;
    require_cuda(cudaMalloc(reinterpret_cast<void**>(&device), count * sizeof(std::uint16_t)), "cudaMalloc");
    require_cuda(cudaMemcpy(device, bits.data(), count * sizeof(std::uint16_t), cudaMemcpyHostToDevice), "cudaMemcpy");
    return device;
  }

  void release() {
    if (handle_) cublasDestroy(handle_);
    if (b16_) cudaFree(b16_);
    if (a16_) cudaFree(a16_);
    if (c_) cudaFree(c_);
    if (b_) cudaFree(b_);
    if (a_) cudaFree(a_);
  }

  Shape shape_;
  Transposes transposes_;
  Scalar* a_ = nullptr;
  Scalar* b_ = nullptr;
  Scalar* c_ = nullptr;
  std::uint16_t* a16_ = nullptr;
  std::uint16_t* b16_ = nullptr;
  int lda_ = 0;
  int ldb_ = 0;
  Sixteen sixteen_ = Sixteen::none;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace detail

// C = op(A) * op(B) by cuBLAS on copies of the same operands in CUDA memory, in IEEE arithmetic or with
// `math`; finishing synchronizes the device.
template <class Scalar>
Contender<Scalar> cublas_contender(const HostOperands<Scalar>& host, cublasMath_t math = cublas_math_mode(),
                                   Sixteen sixteen = Sixteen::none) {
  auto product = std::make_shared<detail::CublasProduct<Scalar>>(host, math, sixteen);
  Contender<Scalar> contender;
  contender.product.start = [product] { product->start(); };
  contender.product.finish = [product] { product->finish(); };
  contender.read_result = [product](HostMatrix<Scalar>& c) { product->download(c); };
  return contender;
}

}  // namespace bench
