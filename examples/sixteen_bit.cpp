// sixteen_bit: Eigen::half and Eigen::bfloat16 matrices multiplied with float accumulation: a result of their own type
// (rounded once) or a float one, on the host and on the device, each checked against a double-precision product.
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <tilegemm/tilegemm.hpp>

// The largest error of `got` against the double product of the (rounded) inputs, relative to the largest
// sum_k |A(i,k)| |B(k,j)|.
template <class Got, class S>
double relative_error(const Got& got, const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& a,
                      const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& b) {
  const Eigen::MatrixXd ad = a.template cast<float>().template cast<double>();
  const Eigen::MatrixXd bd = b.template cast<float>().template cast<double>();
  const Eigen::MatrixXd g = got.template cast<float>().template cast<double>();
  return (g - ad * bd).cwiseAbs().maxCoeff() / (ad.cwiseAbs() * bd.cwiseAbs()).maxCoeff();
}

// A * B of 16-bit S: into S (one rounding, unit roundoff `u`) and into float, on the host and chained on the device.
template <class S>
bool multiply(const char* name, long n, double u) {
  using Matrix16 = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const Matrix16 a = Eigen::MatrixXf::Random(n, n).cast<S>(), b = Eigen::MatrixXf::Random(n, n).cast<S>();

  const Matrix16 c = tilegemm::gpu_gemm(a, b);  // a matrix of S: the float sums rounded once, to nearest even
  Eigen::MatrixXf cf(n, n);
  tilegemm::gpu_gemm(a, b, cf, 1.0f, 0.0f);  // or accumulated into a float C (alpha and beta are floats)

  const tilegemm::DeviceMatrix<S> da(a), db(b);                     // uploaded as their 16 bits
  const tilegemm::DeviceMatrix<S> dc = tilegemm::gpu_gemm(da, db);  // stays on the device, in S
  const Matrix16 back = dc.to_host();

  // The bound of a float sum of n terms, (n * 2^-23 + u) * sum |A||B|, with room to spare.
  const double bound = 2 * (n * 0x1p-23 + u);
  const double errors[] = {relative_error(c, a, b), relative_error(cf, a, b), relative_error(back, a, b)};
  bool ok = true;
  for (const double error : errors) ok = ok && error <= bound;
  std::printf("%-9s %ldx%ld: result in %s %.3g, in float %.3g, on the device %.3g (bound %.3g): %s\n", name, n, n, name,
              errors[0], errors[1], errors[2], bound, ok ? "ok" : "FAILED");
  return ok;
}

int main(int argc, char** argv) try {
  char* end = nullptr;
  const long n = argc > 1 ? std::strtol(argv[1], &end, 10) : 513;
  if (argc > 2 || (argc > 1 && *end != '\0') || n <= 0 || n > 16384) {
    std::fprintf(stderr, "usage: %s [N]   (N > 0, the size of the square matrices; default 513)\n", argv[0]);
    return 2;
  }
  const bool half = multiply<Eigen::half>("half", n, 0x1p-11);
  const bool bfloat16 = multiply<Eigen::bfloat16>("bfloat16", n, 0x1p-8);
  return half && bfloat16 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sixteen_bit: %s\n", e.what());
  return 1;
}
