// first_call: how long a process's first tilegemm::gpu_gemm takes, which is where the OpenCL programs are compiled or
// loaded from tilegemm's disk cache. Run it twice: the second run shows the warm disk cache.
#include <Eigen/Dense>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <tilegemm/tilegemm.hpp>

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) try {
  char* end = nullptr;
  const long n = argc > 1 ? std::strtol(argv[1], &end, 10) : 256;
  if (argc > 2 || (argc > 1 && *end != '\0') || n <= 0 || n > 16384) {
    std::fprintf(stderr,
                 "usage: %s [N]   (N > 0, the size of the square float matrices; default 256)\n"
                 "Times the first and second gpu_gemm of this process. TILEGEMM_DEVICE picks the device,\n"
                 "TILEGEMM_CACHE_DIR the disk cache (TILEGEMM_CACHE=off turns it off).\n",
                 argv[0]);
    return 2;
  }
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n);

  auto start = std::chrono::steady_clock::now();
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  const double queue_ms = elapsed_ms(start);
  const tilegemm::detail::CacheLocation cache = tilegemm::detail::DiskCache::instance().location();

  start = std::chrono::steady_clock::now();
  Eigen::MatrixXf c = tilegemm::gpu_gemm(a, b);
  const double first_ms = elapsed_ms(start);
  const std::size_t built = tilegemm::programs_built(), loaded = tilegemm::programs_loaded_from_disk();

  start = std::chrono::steady_clock::now();
  c = tilegemm::gpu_gemm(a, b);
  const double second_ms = elapsed_ms(start);

  const Eigen::MatrixXd reference = a.cast<double>() * b.cast<double>();
  const double error = (c.cast<double>() - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
  const bool right = error <= 1e-4;

  std::printf("device:       %s (tilegemm %s)\n", device.getInfo<CL_DEVICE_NAME>().c_str(), tilegemm::library_version);
  std::printf("disk cache:   %s\n", cache.enabled ? cache.directory.string().c_str() : "off");
  std::printf("queue:        %8.1f ms  (finding the device, creating its context and queue)\n", queue_ms);
  std::printf("first call:   %8.1f ms  (%ldx%ld floats; %zu programs compiled, %zu loaded from disk)\n", first_ms, n, n,
              built, loaded);
  std::printf("second call:  %8.1f ms\n", second_ms);
  std::printf("max rel error: %.3g (%s)\n", error, right ? "ok" : "FAILED, above 1e-4");
  return right ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
