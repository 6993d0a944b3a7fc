// consumer: a program outside the repository that checks tilegemm products of small random matrices against Eigen.
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <tilegemm/tilegemm.hpp>

// The largest difference from Eigen's product, relative to the largest element of that product.
double relative_error(const Eigen::MatrixXf& c, const Eigen::MatrixXf& a, const Eigen::MatrixXf& b) {
  const Eigen::MatrixXd ref = a.cast<double>() * b.cast<double>();
  return (c.cast<double>() - ref).cwiseAbs().maxCoeff() / ref.cwiseAbs().maxCoeff();
}

int main() try {
  const unsigned seed = std::random_device{}();  // fresh operands on every run; the seed is printed to replay one
  std::srand(seed);
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(37, 29);  // odd sizes: edge tiles on every side
  const Eigen::MatrixXf b = Eigen::MatrixXf::Random(29, 41);
  const double automatic = relative_error(tilegemm::gpu_gemm(a, b), a, b);
  const double explicit_config =
      relative_error(tilegemm::gpu_gemm<tilegemm::RegisterBlocking<32, 32, 16, 2, 2>>(a, b), a, b);
  std::printf(
      "tilegemm consumer (seed %u): relative error %.3g with the default configuration, %.3g with "
      "RegisterBlocking<32, 32, 16, 2, 2>\n",
      seed, automatic, explicit_config);
  return automatic <= 1e-5 && explicit_config <= 1e-5 ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tilegemm consumer: %s\n", e.what());
  return EXIT_FAILURE;
}
