// out_of_core: one device multiplying a float product whose operands exceed its memory (tiled, host/multi_device.hpp),
// against the same device's rate on the largest product that fits it whole; one summary line for run.sh.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <vector>

namespace {

// Fills `count` floats with values in [-1, 1) from their index (a hash), on every core: 150 GB at one thread's pace
// would take minutes.
void fill(float* data, std::size_t count, std::uint64_t seed) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      const std::size_t begin = count / threads * t, end = t + 1 == threads ? count : count / threads * (t + 1);
      for (std::size_t i = begin; i < end; ++i) {
        std::uint64_t x = (i + seed) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 29;
        data[i] = static_cast<float>(static_cast<double>(x >> 40) / static_cast<double>(1ull << 23) - 1.0);
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
}

struct Run {
  double ms = 0;
  double tflops = 0;
  double worst = 0;  // the largest error of the sampled elements, relative to the bound of their dot products
};

// C = A * B at N, A, B random, timed over `calls` calls after `warmups`; checked on a few sampled elements in double.
Run run(const std::vector<cl::CommandQueue>& queues, long long n, int warmups, int calls) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::unique_ptr<float[]> a(new float[count]), b(new float[count]), c(new float[count]);
  fill(a.get(), count, 1);
  fill(b.get(), count, 2);
  fill(c.get(), count, 3);  // maps C's pages now, not during the timed call
  const auto call = [&] {
    tilegemm::gemm<float>(queues, tilegemm::Transpose::no, tilegemm::Transpose::no, n, n, n, 1.0f, a.get(), n, b.get(),
                          n, 0.0f, c.get(), n);
  };
  for (int i = 0; i < warmups; ++i) call();
  Run result;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / calls;
  result.tflops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / result.ms * 1e-9;
  for (const long long at : {0LL, n - 1, n / 3, n / 2 + 7}) {
    const long long i = at, j = (at * 7 + 5) % n;
    double sum = 0, bound = 0;
    for (long long l = 0; l < n; ++l) {
      const double x = static_cast<double>(a[static_cast<std::size_t>(l * n + i)]) *
                       static_cast<double>(b[static_cast<std::size_t>(j * n + l)]);
      sum += x;
      bound += std::abs(x);
    }
    const double got = static_cast<double>(c[static_cast<std::size_t>(j * n + i)]);
    result.worst = std::max(result.worst, std::abs(got - sum) / (bound * (static_cast<double>(n) + 2) * 1.2e-7));
    if (std::isnan(got)) result.worst = INFINITY;
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) try {
  // The device: TILEGEMM_DEVICES's first where set, else TILEGEMM_DEVICE's.
  std::vector<cl::CommandQueue> listed = tilegemm::default_queues();
  const cl::CommandQueue queue = listed.empty() ? tilegemm::default_queue() : listed.front();
  const std::vector<cl::CommandQueue> one{queue};
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  const unsigned long long memory = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  const unsigned long long host = static_cast<unsigned long long>(sysconf(_SC_PHYS_PAGES)) *
                                  static_cast<unsigned long long>(sysconf(_SC_PAGE_SIZE));
  // Beyond the device: the smallest multiple of 4096 whose A, B and C exceed its memory; in memory: the largest whose
  // operands the kernels' 32-bit indices reach (46340^2 < 2^31), a multiple of 1024, unless the memory is smaller.
  long long beyond = argc > 2 ? std::atoll(argv[2]) : 4096;
  while (argc <= 2 &&
         3.0 * 4 * static_cast<double>(beyond) * static_cast<double>(beyond) <= static_cast<double>(memory))
    beyond += 4096;
  long long fits = argc > 1 ? std::atoll(argv[1]) : 46080;
  while (argc <= 1 &&
         3.0 * 4 * static_cast<double>(fits) * static_cast<double>(fits) > 0.7 * static_cast<double>(memory))
    fits -= 1024;
  const double needed = 3.0 * 4 * static_cast<double>(beyond) * static_cast<double>(beyond);
  std::printf(
      "device %s: %.1f GiB; host %.1f GiB; in memory N = %lld, out of core N = %lld (A, B, C %.1f GiB in all)\n",
      device.getInfo<CL_DEVICE_NAME>().c_str(), static_cast<double>(memory) / (1ull << 30),
      static_cast<double>(host) / (1ull << 30), fits, beyond, needed / (1ull << 30));
  if (needed > 0.9 * static_cast<double>(host)) {
    std::fprintf(stderr, "out_of_core: the host has too little memory for N = %lld (%.1f GiB needed)\n", beyond,
                 needed / (1ull << 30));
    return EXIT_FAILURE;
  }
  const Run whole = run(one, fits, 1, 2);
  std::printf("in memory   N = %6lld: %10.1f ms, %6.2f TFLOP/s, sampled error %.2g of the bound\n", fits, whole.ms,
              whole.tflops, whole.worst);
  const Run tiled = run(one, beyond, 0, 1);
  const tilegemm::detail::MultiDeviceProfile profile = tilegemm::detail::last_multi_device_profile();
  std::printf(
      "out of core N = %6lld: %10.1f ms, %6.2f TFLOP/s, sampled error %.2g of the bound; %zu tiles x %zu slices, "
      "%.1f GB/s host memory\n",
      beyond, tiled.ms, tiled.tflops, tiled.worst, profile.tiles, profile.slices, profile.bytes / tiled.ms * 1e-6);
  if (profile.tiles == 0)
    std::printf("warning: the product at N = %lld fit the device whole: it was not tiled\n", beyond);
  std::printf("summary: out-of-core float N=%lld %.2f TFLOP/s, in-memory N=%lld %.2f TFLOP/s, ratio %.3f\n", beyond,
              tiled.tflops, fits, whole.tflops, tiled.tflops / whole.tflops);
  return whole.worst <= 1 && tiled.worst <= 1 ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "out_of_core: %s\n", e.what());
  return EXIT_FAILURE;
}
