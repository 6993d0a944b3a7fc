// device_chain: (A * B) * C with the matrices kept on the device (DeviceMatrix), timed against the host path.
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
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
  if (argc > 2 || (argc > 1 && *end != '\0') || n <= 0 || n > 16384) {
    std::fprintf(stderr, "usage: %s [N]   (0 < N <= 16384, the size of the square matrices; default 1024)\n", argv[0]);
    return 2;
  }
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  std::printf("device:        %s  (choose another with TILEGEMM_DEVICE)\n", device.getInfo<CL_DEVICE_NAME>().c_str());
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n);
  const Eigen::MatrixXf c = Eigen::MatrixXf::Random(n, n);

  // Upload once: each DeviceMatrix owns a buffer on the default queue's device.
  tilegemm::DeviceMatrix<float> da, db, dc;
  const double upload = median_ms(1, [&] {
    da = tilegemm::DeviceMatrix<float>(a);
    db = tilegemm::DeviceMatrix<float>(b);
    dc = tilegemm::DeviceMatrix<float>(c);
  });

  // A product with device operands is a DeviceMatrix: the intermediate A * B never leaves the device. The first
  // call builds the OpenCL programs, so it is kept out of the timing.
  tilegemm::DeviceMatrix<float> abc = tilegemm::gpu_gemm(tilegemm::gpu_gemm(da, db), dc);
  const double on_device = median_ms(5, [&] { abc = tilegemm::gpu_gemm(tilegemm::gpu_gemm(da, db), dc); });
  Eigen::MatrixXf result;
  const double download = median_ms(1, [&] { result = abc.to_host(); });

  // The same chain on host matrices: every call uploads its operands and downloads its result.
  Eigen::MatrixXf host_path = tilegemm::gpu_gemm(tilegemm::gpu_gemm(a, b), c);
  const double through_host = median_ms(5, [&] { host_path = tilegemm::gpu_gemm(tilegemm::gpu_gemm(a, b), c); });

  std::printf("upload:        %10.2f ms  (A, B and C, %ldx%ld floats each, once)\n", upload, n, n);
  std::printf("on the device: %10.2f ms  ((A * B) * C, median of 5)\n", on_device);
  std::printf("download:      %10.2f ms  (the result, once)\n", download);
  std::printf("host path:     %10.2f ms  (the same chain on Eigen matrices, median of 5, with its transfers)\n",
              through_host);

  const Eigen::MatrixXd reference = (a.cast<double>() * b.cast<double>()) * c.cast<double>();
  const double scale = reference.cwiseAbs().maxCoeff();
  const double error = (result.cast<double>() - reference).cwiseAbs().maxCoeff() / scale;
  const double host_error = (host_path.cast<double>() - reference).cwiseAbs().maxCoeff() / scale;
  const bool ok = result.allFinite() && host_path.allFinite() && error <= 1e-4 && host_error <= 1e-4;
  std::printf("max rel error: %10.3g     (device chain; host path %.3g; against Eigen in double; %s)\n", error,
              host_error, ok ? "ok" : "FAILED, above 1e-4");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const tilegemm::Error& e) {
  std::fprintf(stderr, "tilegemm error %d: %s\n", e.code(), e.what());
  return EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
