// chosen_config: gpu_gemm<Config> with kernel configurations you choose, timed and checked beside the default.
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

// A configuration is a type: the tiles of the kernel are template arguments, fixed when the program is compiled.
using TutorialKernel6 = tilegemm::RegisterBlocking<64, 64, 16, 4, 4>;  // 4 x 4 block of C per work-item
using TutorialKernel9 = tilegemm::Prefetch<64, 64, 16, 4, 4, 4>;       // the same, double-buffered, vector loads
// 32 x 32 = 1024 work-items and 520 KiB of local memory per work-group: it compiles (it breaks no rule of
// TileConfig), but today's GPUs give a work-group far less local memory, and PoCL 512 KiB, so gpu_gemm throws.
using TooLarge = tilegemm::Prefetch<256, 256, 128, 8, 8, 4>;
// Tensor cores through mma.sync: NVIDIA GPUs of compute capability 8.0 and newer only (elsewhere gpu_gemm throws
// tilegemm::Error with CL_INVALID_DEVICE); float in a tensor-core math mode (below), double always.
using TensorCores = tilegemm::TensorCores<128, 128, 16, 64, 64, 2>;
// Tensor cores through wgmma, TF32: NVIDIA GPUs of compute capability 9.0 (H100, H200) only. Its slices take 96 KiB
// of local memory, past the 48 KiB the device reports: wgmma kernels may have 227 KiB there.
using Warpgroup = tilegemm::WarpgroupMma<128, 128, 32, 3>;
// Double on the FP64 tensor cores of H100 and H200, its slices copied by the copy engine (AutoConfig's for large
// double products there): compute capability 9.0 and newer only, 203 KiB of local memory.
using Bulk = tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 3>;
// Double on FP64 tensor cores reading A and B in place, the slices copied by cp.async in 4 stages (AutoConfig's for
// double batches of 25 to 256 and products up to 1024 there): compute capability 8.0 and newer.
using InPlace = tilegemm::InPlaceTensorCores<64, 64, 8, 4, 8, 1, 4>;
// The same family for float in a tensor math mode, its slices copied in vectors of 4 (AutoConfig's for single float
// products of up to about 565 x 565 of C in those modes there): no pack kernel, one launch.
using InPlaceFloat = tilegemm::InPlaceTensorCores<32, 32, 16, 2, 4, 4, 4>;
// The tutorial's kernel 9 with its slices copied by cp.async, 2 stages (AutoConfig's for float of 512 to 1100 on a
// side there): NVIDIA GPUs of compute capability 8.0 and newer.
using Staged = tilegemm::StagedPrefetch<64, 32, 16, 4, 4, 4, 2>;
// TF32 keeps 10 bits of mantissa: its products are off by about 1e-4 to 1e-3 of their terms.
constexpr double tf32_tolerance = 1e-2;
// bfloat16 keeps 7: its products are off by about 8 times TF32's.
constexpr double bf16_tolerance = 5e-2;

template <class Config>
std::string name_of() {
  if constexpr (std::is_same_v<Config, tilegemm::AutoConfig>) {
    return "default (AutoConfig: chosen per device and shape)";
  } else {
    return Config::name();  // e.g. "register_blocking 64x64x16 4x4"
  }
}

// Milliseconds of wall-clock time of one call of `work`.
template <class Work>
double time_ms(Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// C = A * B by gpu_gemm<Config>: a first call (which builds the configuration's OpenCL programs), then the
// median of 5 warm calls, each with its uploads and downloads; returns whether C matches the double-precision
// reference within `tolerance` of its largest entry. A configuration the device cannot run throws tilegemm::Error
// before anything is built.
template <class Config, class Scalar>
bool run(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& a,
         const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& b, const Eigen::MatrixXd& reference,
         const std::string& mode = "", double tolerance = 1e-4) {
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> c;
  const double first = time_ms([&] { c = tilegemm::gpu_gemm<Config>(a, b); });
  std::vector<double> warm;
  for (int i = 0; i < 5; ++i) warm.push_back(time_ms([&] { c = tilegemm::gpu_gemm<Config>(a, b); }));
  std::nth_element(warm.begin(), warm.begin() + 2, warm.end());
  const double gflops = 2.0 * a.rows() * a.cols() * b.cols() / (warm[2] * 1e6);
  const double error = (c.template cast<double>() - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
  const bool ok = c.allFinite() && error <= tolerance;  // an entry never written would be NaN
  std::printf("%-52s %10.2f %10.3f %9.2f %10.2e  %s\n", (name_of<Config>() + mode).c_str(), first, warm[2], gflops,
              error, ok ? "ok" : "WRONG");
  return ok;
}

// The same for a configuration that needs something of the device (`needs`, e.g. "tensor cores"): where the device
// lacks it, gpu_gemm throws tilegemm::Error with CL_INVALID_DEVICE before anything is built, which is said, not failed.
template <class Config, class Scalar>
bool run_where_it_can(const char* needs, const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& a,
                      const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& b, const Eigen::MatrixXd& reference,
                      const std::string& mode = "", double tolerance = 1e-4) {
  try {
    return run<Config>(a, b, reference, mode, tolerance);
  } catch (const tilegemm::Error& e) {
    if (e.code() != CL_INVALID_DEVICE) throw;
    std::printf("%-52s needs %s: tilegemm::Error, code() CL_INVALID_DEVICE\n  %s\n", Config::name().c_str(), needs,
                e.what());
    return true;
  }
}

int main(int argc, char** argv) try {
  char* end = nullptr;
  const long n = argc > 1 ? std::strtol(argv[1], &end, 10) : 1024;
  if (argc > 2 || (argc > 1 && *end != '\0') || n <= 0 || n > 65536) {
    std::fprintf(stderr, "usage: %s [N]   (N > 0, the size of the square matrices; default 1024)\n", argv[0]);
    return 2;
  }
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  std::printf("device: %s (choose another with TILEGEMM_DEVICE)\n", device.getInfo<CL_DEVICE_NAME>().c_str());
  std::printf(
      "C = A * B, %ldx%ld floats (the last row doubles); times in ms with uploads and downloads, warm: median of 5\n\n",
      n, n);

  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n);
  const Eigen::MatrixXf b = Eigen::MatrixXf::Random(n, n);
  const Eigen::MatrixXd reference = a.cast<double>() * b.cast<double>();

  std::printf("%-52s %10s %10s %9s %10s\n", "configuration", "first call", "warm call", "GFLOP/s", "max err");
  bool ok = run<tilegemm::AutoConfig>(a, b, reference);  // what tilegemm::gpu_gemm(a, b) uses
  ok = run<TutorialKernel6>(a, b, reference) && ok;
  ok = run<TutorialKernel9>(a, b, reference) && ok;
  ok = run_where_it_can<Staged>("cp.async", a, b, reference) && ok;

  // A device limit is a run-time error, thrown before anything is built; the message says which limit and what
  // to change, and code() tells the two limits from other failures, which this example does not expect.
  try {
    ok = run<TooLarge>(a, b, reference) && ok;
    std::printf("(%s fits this device)\n", TooLarge::name().c_str());
  } catch (const tilegemm::Error& e) {
    if (e.code() != CL_OUT_OF_RESOURCES && e.code() != CL_INVALID_WORK_GROUP_SIZE) throw;
    std::printf("%-52s does not fit this device: tilegemm::Error, code() %s\n  %s\n", TooLarge::name().c_str(),
                e.code() == CL_OUT_OF_RESOURCES ? "CL_OUT_OF_RESOURCES" : "CL_INVALID_WORK_GROUP_SIZE", e.what());
  }

  // Float on the tensor cores, FP32-accurate (3xTF32), for the calls made while `tf32x3` lives (TILEGEMM_MATH=tf32x3
  // sets it for the whole process): AutoConfig takes them where the device has them, and the IEEE kernels elsewhere.
  {
    const tilegemm::ScopedMathMode tf32x3(tilegemm::MathMode::tf32x3);
    ok = run<tilegemm::AutoConfig>(a, b, reference, " in tf32x3") && ok;
    ok = run_where_it_can<TensorCores>("tensor cores", a, b, reference, " in tf32x3") && ok;
    ok = run_where_it_can<InPlaceFloat>("tensor cores", a, b, reference, " in tf32x3") && ok;
  }

  // TF32, as cuBLAS's TF32 mode, on H100 and H200 through wgmma; AutoConfig takes it there for large products.
  {
    const tilegemm::ScopedMathMode tf32(tilegemm::MathMode::tf32);
    ok = run_where_it_can<Warpgroup>("wgmma", a, b, reference, " in tf32", tf32_tolerance) && ok;
  }

  // Float operands rounded to bfloat16 (float's range, 8 significant bits), as cuBLAS's COMPUTE_32F_FAST_16BF: on H100
  // and H200 AutoConfig packs them into 16-bit core tiles for wgmma, the fastest mode there.
  {
    const tilegemm::ScopedMathMode bf16(tilegemm::MathMode::bf16);
    ok = run<tilegemm::AutoConfig>(a, b, reference, " in bf16", bf16_tolerance) && ok;
  }

  // Double on the tensor cores through the copy engine (the same values as doubles: the reference is exact for them
  // up to double's rounding).
  const Eigen::MatrixXd ad = a.cast<double>(), bd = b.cast<double>();
  ok = run_where_it_can<Bulk>("the copy engine", ad, bd, reference, " in double", 1e-12) && ok;

  // Double on tensor cores with A and B read in place.
  ok = run_where_it_can<InPlace>("tensor cores", ad, bd, reference, " in double", 1e-12) && ok;

  std::printf("\n%s\n", ok ? "ok: every configuration that ran matches the double-precision product"
                           : "FAILED: a product differs from the double-precision one by more than its tolerance");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const tilegemm::Error& e) {
  std::fprintf(stderr, "tilegemm error %d: %s\n", e.code(), e.what());
  return EXIT_FAILURE;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
