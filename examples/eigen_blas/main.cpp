// eigen_blas: an unchanged Eigen program, built with -DEIGEN_USE_BLAS and linked with -ltilegemm_blas before the CPU
// BLAS: its C = A * B runs on the GPU without a changed line. The one tilegemm line prints what went there.
#include <tilegemm/blas.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

// C = A * B at n x n, then a few of C's elements against dot products in double; the largest relative error.
template <class Scalar>
double product_error(int n, std::mt19937& engine) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
  const Matrix c = a * b;  // with EIGEN_USE_BLAS: one sgemm_ or dgemm_ call
  std::uniform_int_distribution<int> index(0, n - 1);
  double worst = 0;
  for (int sample = 0; sample < 64; ++sample) {
    const int i = index(engine), j = index(engine);
    double exact = 0, scale = 0;
    for (int l = 0; l < n; ++l) {
      exact += double(a(i, l)) * double(b(l, j));
      scale += std::fabs(double(a(i, l)) * double(b(l, j)));
    }
    worst = std::fmax(worst, std::fabs(double(c(i, j)) - exact) / scale);
  }
  return worst;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  std::mt19937 engine(2026);
  const double float_error = product_error<float>(n, engine), double_error = product_error<double>(n, engine);
  std::printf("C = A * B at %d x %d: largest relative error %.2g (float), %.2g (double)\n", n, n, float_error,
              double_error);

  // The only tilegemm line: what went to the GPU (TILEGEMM_BLAS_OFFLOAD=never|auto|always; auto by default).
  const tilegemm_blas_counts counts = tilegemm_blas_stats();
  std::printf("tilegemm_blas: %llu of %llu ?gemm calls on the GPU (%.1f of %.1f GFLOP)\n", counts.gpu_calls,
              counts.calls, counts.gpu_flops * 1e-9, (counts.gpu_flops + counts.cpu_flops) * 1e-9);

  // Within the rounding bound of an n-term dot product, (n + 2) eps, and both products through the drop-in.
  const double float_bound = (n + 2) * 1.2e-7, double_bound = (n + 2) * 2.3e-16;
  const bool right = float_error <= float_bound && double_error <= double_bound && counts.calls == 2;
  if (!right) {
    std::printf("wrong: expected errors within %.2g and %.2g, and 2 calls through the drop-in\n", float_bound,
                double_bound);
  }
  return right ? 0 : 1;
}
