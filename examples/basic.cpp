// basic: C = tilegemm::gpu_gemm(A, B) in place of C = A * B, timed against Eigen and checked in double precision;
// and a batch of small products in one call (gpu_gemm_batched).
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

// The median wall-clock time of `runs` calls of `work`, in milliseconds.
template <class Work>
double median_ms(int runs, Work&& work) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

int main(int argc, char** argv) try {
  char* end = nullptr;
  const long n = argc > 1 ? std::strtol(argv[1], &end, 10) : 1024;
  if (argc > 2 || (argc > 1 && *end != '\0') || n <= 0 || n > 65536) {
    std::fprintf(stderr, "usage: %s [N]   (N > 0, the size of the square matrices; default 1024)\n", argv[0]);
    return 2;
  }
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  std::printf("device:        %s / %s  (choose another with TILEGEMM_DEVICE, see list_devices)\n",
              platform.getInfo<CL_PLATFORM_NAME>().c_str(), device.getInfo<CL_DEVICE_NAME>().c_str());

  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n);
  const Eigen::MatrixXf b = Eigen::MatrixXf::Random(n, n);
  Eigen::MatrixXf c;

  const double first = median_ms(1, [&] { c = tilegemm::gpu_gemm(a, b); });
  std::printf(
      "first call:    %10.2f ms  (%ldx%ld floats; includes building %zu OpenCL programs and loading %zu from "
      "tilegemm's disk cache)\n",
      first, n, n, tilegemm::programs_built(), tilegemm::programs_loaded_from_disk());
  const double warm = median_ms(5, [&] { c = tilegemm::gpu_gemm(a, b); });
  std::printf("warm call:     %10.2f ms  (median of 5, with uploads and downloads)\n", warm);
  Eigen::MatrixXf eigen(n, n);
  const double cpu = median_ms(5, [&] { eigen.noalias() = a * b; });
  std::printf("Eigen A * B:   %10.2f ms  (median of 5, on the host CPU)\n", cpu);

  const Eigen::MatrixXd ref = a.cast<double>() * b.cast<double>();
  const double error = (c.cast<double>() - ref).cwiseAbs().maxCoeff() / ref.cwiseAbs().maxCoeff();
  bool ok = error <= 1e-4;
  std::printf("max rel error: %10.3g     (against a double-precision product; %s)\n", error,
              ok ? "ok" : "FAILED, above 1e-4");
  // gpu_gemm(A, B) is an Eigen expression: C = gpu_gemm(A, B) wrote into C's memory, and -= subtracts in place.
  c -= tilegemm::gpu_gemm(a, b);  // C = -A * B + C, zero up to rounding
  ok = ok && c.cwiseAbs().maxCoeff() <= 1e-4 * ref.cwiseAbs().maxCoeff();

  // Many small products of one shape: one call, one launch for all of them, instead of a call each.
  std::vector<Eigen::MatrixXf> as, bs;
  for (int p = 0; p < 1000; ++p) {
    as.push_back(Eigen::MatrixXf::Random(17, 23));
    bs.push_back(Eigen::MatrixXf::Random(23, 9));
  }
  std::vector<Eigen::MatrixXf> cs;
  const double batch = median_ms(1, [&] { cs = tilegemm::gpu_gemm_batched(as, bs); });  // cs[p] = as[p] * bs[p]
  double batch_error = 0;
  for (std::size_t p = 0; p < as.size(); ++p) {
    const Eigen::MatrixXd expected = as[p].cast<double>() * bs[p].cast<double>();
    const double e = (cs[p].cast<double>() - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
    if (!(e <= batch_error)) batch_error = e;  // NaN sticks
  }
  const bool batch_ok = batch_error <= 1e-4;
  std::printf("batch:         %10.2f ms  (1000 products of 17x23 by 23x9 in one call; max rel error %.3g, %s)\n", batch,
              batch_error, batch_ok ? "ok" : "FAILED");
  ok = ok && batch_ok;
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const tilegemm::Error& e) {
  std::fprintf(stderr, "tilegemm error %d: %s\n", e.code(), e.what());
  return EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
