// buffers: tilegemm::gemm on cl::Buffers you own, without Eigen: a transposed A, and C as a block of a larger matrix;
// then the same product straight from host pointers, on the queue and on a list of queues (one device each).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <tilegemm/core.hpp>  // the cl::Buffer API alone; tilegemm.hpp would add the Eigen front end
#include <vector>

// A buffer of the queue's context holding a copy of `host`. OpenCL-CLHPP reports errors by status, not by exception.
cl::Buffer upload(const cl::Context& context, std::vector<float>& host) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(float), host.data(),
                    &status);
  if (status != CL_SUCCESS) throw std::runtime_error("creating a buffer failed with status " + std::to_string(status));
  return buffer;
}

std::vector<float> random_values(std::size_t count, std::mt19937& random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(random);
  return values;
}

int main(int argc, char** argv) try {
  char* end = nullptr;
  const long size = argc > 1 ? std::strtol(argv[1], &end, 10) : 1000;
  if (argc > 2 || (argc > 1 && *end != '\0') || size <= 0 || size > 4096) {
    std::fprintf(stderr, "usage: %s [N]   (0 < N <= 4096, the size of the matrices; default 1000)\n", argv[0]);
    return 2;
  }
  const long long m = size, n = size, k = size;  // C is m x n, op(A) m x k, op(B) k x n

  // A is stored row-major (m rows of k), which column-major reads as the k x m matrix A^T: tilegemm multiplies
  // by op(A) = A when given Transpose::yes and lda = k, without copying A into the other layout.
  const long long lda = k;
  // B is stored column-major, k x n.
  const long long ldb = k;
  // C is the m x n block at row 5, column 3 of a larger column-major matrix whose columns are m + 8 long: its
  // leading dimension is that of the larger matrix, and it starts `c_offset` elements into the buffer.
  const long long ldc = m + 8;
  const long long big_cols = n + 4;
  const long long c_row = 5, c_col = 3;
  const long long c_offset = c_row + c_col * ldc;

  std::mt19937 random(2024);
  std::vector<float> a_host = random_values(m * lda, random);
  std::vector<float> b_host = random_values(ldb * n, random);
  std::vector<float> c_host = random_values(ldc * big_cols, random);  // beta = 0.5 reads C's block
  const std::vector<float> c_before = c_host;

  cl::CommandQueue queue = tilegemm::default_queue();  // or a queue of your own, on any device
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  std::printf("device:      %s (choose another with TILEGEMM_DEVICE)\n", device.getInfo<CL_DEVICE_NAME>().c_str());
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Buffer a = upload(context, a_host);
  const cl::Buffer b = upload(context, b_host);
  const cl::Buffer c = upload(context, c_host);

  // C = alpha * op(A) * op(B) + beta * C; the scalar type is alpha's (2.0f: float buffers). gemm enqueues its
  // kernels and returns the last one's event without waiting.
  const float alpha = 2.0f, beta = 0.5f;
  cl::Event done =
      tilegemm::gemm<float>(queue, tilegemm::Transpose::yes, tilegemm::Transpose::no, m, n, k,  // A as stored
                            alpha, a, 0, lda,         // alpha, A, offset of A (in elements), lda
                            b, 0, ldb,                // B, offset, ldb
                            beta, c, c_offset, ldc);  // beta, C, offset, ldc
  if (done.wait() != CL_SUCCESS) throw std::runtime_error("waiting for the product failed");
  if (queue.enqueueReadBuffer(c, CL_TRUE, 0, c_host.size() * sizeof(float), c_host.data()) != CL_SUCCESS) {
    throw std::runtime_error("reading C back failed");
  }
  // The same product straight from host memory, as BLAS takes it (no buffers of yours; returns when C is written).
  std::vector<float> c_pointers = c_before;
  tilegemm::gemm<float>(queue, tilegemm::Transpose::yes, tilegemm::Transpose::no, m, n, k, alpha, a_host.data(), lda,
                        b_host.data(), ldb, beta, c_pointers.data() + c_offset, ldc);
  // And over a list of queues, a device each (here just this one): C's tiles shared out among the devices.
  std::vector<float> c_listed = c_before;
  tilegemm::gemm<float>(std::vector<cl::CommandQueue>{queue}, tilegemm::Transpose::yes, tilegemm::Transpose::no, m, n,
                        k, alpha, a_host.data(), lda, b_host.data(), ldb, beta, c_listed.data() + c_offset, ldc);
  std::printf(
      "product:     C = %g * A * B + %g * C: A (%lldx%lld) stored row-major, so passed transposed; C a\n"
      "             %lldx%lld block at row %lld, column %lld of a %lldx%lld matrix (ld %lld, offset %lld)\n",
      alpha, beta, m, k, m, n, c_row, c_col, ldc, big_cols, ldc, c_offset);

  // The same product by a plain loop in double precision, and the largest error relative to the largest entry, of
  // every result.
  double worst_error = 0, largest = 0;
  for (long long j = 0; j < n; ++j) {
    for (long long i = 0; i < m; ++i) {
      double sum = 0;
      for (long long l = 0; l < k; ++l) {
        sum += static_cast<double>(a_host[i * lda + l]) * static_cast<double>(b_host[j * ldb + l]);
      }
      const long long at = c_offset + i + j * ldc;
      const double expected = alpha * sum + beta * static_cast<double>(c_before[at]);
      for (const float got : {c_host[at], c_pointers[at], c_listed[at]}) {
        const double difference = std::abs(static_cast<double>(got) - expected);
        if (std::isnan(difference) || difference > worst_error) worst_error = difference;  // NaN: never written
      }
      largest = std::max(largest, std::abs(expected));
    }
  }
  const double error = worst_error / largest;

  // Everything outside the block must be as it was: the leading dimension keeps the product inside it.
  long long changed_outside = 0;
  for (long long j = 0; j < big_cols; ++j) {
    for (long long i = 0; i < ldc; ++i) {
      const bool inside = i >= c_row && i < c_row + m && j >= c_col && j < c_col + n;
      if (!inside && c_host[i + j * ldc] != c_before[i + j * ldc]) ++changed_outside;
      if (!inside && c_pointers[i + j * ldc] != c_before[i + j * ldc]) ++changed_outside;
      if (!inside && c_listed[i + j * ldc] != c_before[i + j * ldc]) ++changed_outside;
    }
  }

  const bool ok = error <= 1e-4 && changed_outside == 0;
  std::printf("max rel err: %.3g (all three products, against a double-precision loop; at most 1e-4)\n", error);
  std::printf("outside C:   %lld entries changed (must be 0)\n", changed_outside);
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const tilegemm::Error& e) {
  std::fprintf(stderr, "tilegemm error %d: %s\n", e.code(), e.what());
  return EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
