// blas/calibration: timing the CPU BLAS (through the forwarding pointer) and tilegemm's host-to-host gemm at a few
// shapes, and the file that keeps the result (remeasured whenever it is missing, unreadable or says anything odd).
#include "calibration.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tilegemm/config/fnv1a.hpp>
#include <tilegemm/config/version.hpp>
#include <tilegemm/core.hpp>
#include <tilegemm/runtime/cache_location.hpp>
#include <vector>

#include "call_log.hpp"

namespace tilegemm::detail::blas {

namespace {

// The shapes (calibration's CalibrationTimes): small enough that the whole measurement takes well under a second on
// a GPU machine, large enough to leave caches (the thin C is 64 MiB in float).
// The narrow product's large operand (256 MiB in float) is beyond the CPU's caches, as in the products it predicts:
// at 4096 x 32 x 4096 OpenBLAS ran 1.6 times as fast per flop on the H200's host.
constexpr const char* calibration_format = "2";  // raised whenever the shapes or the fields change
constexpr int small_n = 256, thin_mn = 4096, thin_k = 8, square_n = 2048, narrow_mk = 8192;
constexpr int cpu_square_n = static_cast<int>(cpu_square_dimension),
              cpu_narrow_n = static_cast<int>(cpu_narrow_dimension);

// The best of `runs` timings after one untimed run (which compiles the GPU's programs or starts the BLAS's threads).
template <class Run>
double best_seconds(Run&& run, int runs = 3) {
  run();
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

template <class Scalar>
struct Operands {
  std::vector<Scalar> a, b, c;
  Operands(int m, int n, int k)
      : a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n), c(static_cast<std::size_t>(m) * n) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = Scalar(1) / Scalar(1 + i % 7);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = Scalar(1) / Scalar(1 + i % 5);
  }
};

template <class Scalar>
double gpu_time(int m, int n, int k) {
  Operands<Scalar> x(m, n, k);
  return best_seconds([&] {
    tilegemm::gemm<Scalar>(Transpose::no, Transpose::no, m, n, k, 1, x.a.data(), m, x.b.data(), k, 0, x.c.data(), m);
  });
}

template <class Scalar>
double cpu_time(const CpuBlas& cpu, int m, int n, int k) {
  Operands<Scalar> x(m, n, k);
  return best_seconds(
      [&] { cpu_fortran_gemm<Scalar>(cpu, 'N', 'N', m, n, k, 1, x.a.data(), m, x.b.data(), k, 0, x.c.data(), m); });
}

template <class Scalar>
CostModel measured(const CpuBlas& cpu) {
  CalibrationTimes t;
  t.small_n = small_n;
  t.thin_mn = thin_mn;
  t.thin_k = thin_k;
  t.square_n = square_n;
  t.cpu_square_n = cpu_square_n;
  t.gpu_small_s = gpu_time<Scalar>(small_n, small_n, small_n);
  t.gpu_thin_s = gpu_time<Scalar>(thin_mn, thin_mn, thin_k);
  t.gpu_square_s = gpu_time<Scalar>(square_n, square_n, square_n);
  t.cpu_thin_s = cpu_time<Scalar>(cpu, thin_mn, thin_mn, thin_k);
  t.cpu_square_s = cpu_time<Scalar>(cpu, cpu_square_n, cpu_square_n, cpu_square_n);
  t.narrow_mk = narrow_mk;
  t.cpu_narrow_s = cpu_time<Scalar>(cpu, narrow_mk, cpu_narrow_n, narrow_mk);
  return fit_cost_model(t, sizeof(Scalar));
}

// The file's fields, in order.
constexpr const char* field_names[] = {"gpu_fixed_s",     "gpu_bytes_per_s", "gpu_flops_per_s",
                                       "cpu_flops_per_s", "cpu_bytes_per_s", "cpu_narrow_flops_per_s"};
constexpr int field_count = sizeof field_names / sizeof field_names[0];
double* fields(CostModel& model, int i) {
  double* all[] = {&model.gpu_fixed_s,     &model.gpu_bytes_per_s, &model.gpu_flops_per_s,
                   &model.cpu_flops_per_s, &model.cpu_bytes_per_s, &model.cpu_narrow_flops_per_s};
  return all[i];
}

// A model read from `file` only when the file names this very key and has every field, each a usable number.
bool read_model(const std::filesystem::path& file, const std::string& key, CostModel& model) {
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line) || line != "key " + key) return false;
  CostModel read;
  for (int i = 0; i < field_count; ++i) {
    std::string name;
    if (!(in >> name >> *fields(read, i)) || name != field_names[i]) return false;
  }
  if (!read.valid()) return false;
  model = read;
  return true;
}

// Written to a file of its own and renamed into place, so that a process reading at the same time never sees half.
void write_model(const std::filesystem::path& file, const std::string& key, CostModel model) {
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  if (error) return;
  const std::filesystem::path temporary = file.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << "key " << key << '\n';
    out.precision(17);
    for (int i = 0; i < field_count; ++i) out << field_names[i] << ' ' << *fields(model, i) << '\n';
    if (!out) return;
  }
  std::filesystem::rename(temporary, file, error);
  if (error) std::filesystem::remove(temporary, error);
}

template <class Scalar>
struct Kept {
  std::mutex mutex;
  bool tried = false;
  bool ok = false;
  CostModel model;
};

std::atomic<bool> said_failure{false};

// The CPU BLAS's thread count can be set by these; a variable's value, empty when unset.
std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

template <class Scalar>
const CostModel* calibrated_model(const DeviceFacts& device, const CpuBlas& cpu) {
  static auto* kept = new Kept<Scalar>;                 // leaked on purpose, like tilegemm's own tables
  static std::atomic<const CostModel*> ready{nullptr};  // every call after the first: no lock
  if (const CostModel* model = ready.load(std::memory_order_acquire)) return model;
  std::lock_guard<std::mutex> lock(kept->mutex);
  if (kept->tried) return kept->ok ? &kept->model : nullptr;
  kept->tried = true;
  // The shapes and fields above are part of the key: a file measured with others is remeasured.
  const std::string key = std::string("tilegemm ") + library_version + "|calibration " + calibration_format + "|" +
                          device.key + "|" + (sizeof(Scalar) == sizeof(float) ? "float" : "double") + "|" +
                          cpu.library + "|" + cpu.file + "|" + std::to_string(std::thread::hardware_concurrency()) +
                          " cores|" + environment("OPENBLAS_NUM_THREADS") + "|" + environment("OMP_NUM_THREADS");
  const CacheLocation location = cache_location_from_environment();
  std::filesystem::path file;
  if (location.enabled) {
    char name[64];
    std::snprintf(name, sizeof name, "calibration-%016llx.txt", static_cast<unsigned long long>(fnv1a(key)));
    file = location.directory / "blas" / name;
    if (read_model(file, key, kept->model)) {
      kept->ok = true;
      ready.store(&kept->model, std::memory_order_release);
      return &kept->model;
    }
  }
  try {
    kept->model = measured<Scalar>(cpu);
  } catch (const std::exception& error) {
    say_once(said_failure, std::string("tilegemm-blas: measuring the GPU against the CPU BLAS failed (") +
                               error.what() + "); auto keeps every call on the CPU");
    return nullptr;
  }
  if (!kept->model.valid()) {
    say_once(said_failure,
             "tilegemm-blas: measuring the GPU against the CPU BLAS gave unusable times; auto keeps "
             "every call on the CPU");
    return nullptr;
  }
  if (!file.empty()) write_model(file, key, kept->model);
  kept->ok = true;
  ready.store(&kept->model, std::memory_order_release);
  return &kept->model;
}

template const CostModel* calibrated_model<float>(const DeviceFacts&, const CpuBlas&);
template const CostModel* calibrated_model<double>(const DeviceFacts&, const CpuBlas&);

}  // namespace tilegemm::detail::blas
