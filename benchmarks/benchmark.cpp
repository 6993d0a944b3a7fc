// benchmark: the SGEMM tutorial's "performance of myGEMM" study on your device, every kernel family against peers.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <random>
#include <string>
#include <tilegemm/tilegemm.hpp>  // before the peers' headers: it sets the OpenCL version they compile against
#include <tuple>
#include <type_traits>
#include <vector>

#include "parts/batched_mode.hpp"
#include "parts/contender.hpp"
#include "parts/eigen_peer.hpp"
#include "parts/host_mode.hpp"
#include "parts/opencl_operands.hpp"
#include "parts/options.hpp"
#include "parts/plot.hpp"
#include "parts/problem.hpp"
#include "parts/report.hpp"
#include "parts/sampling_check.hpp"
#include "parts/tilegemm_contender.hpp"
#include "parts/timing.hpp"
#ifdef TILEGEMM_HAVE_CLBLAST
#include "parts/clblast_peer.hpp"
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
#include "parts/cublas_peer.hpp"
#endif

namespace {

using namespace bench;

// A configuration timed in a math mode other than ieee (float rows; a double product is the same in every mode).
template <class Config, tilegemm::MathMode Math>
struct InMode {};
using tilegemm::MathMode;

// The configurations the benchmark times, one or two per kernel family: add a line here to time another.
using Candidates = std::tuple<tilegemm::Naive<16, 16>,                         // tutorial kernel 1
                              tilegemm::LocalTiles<16>,                        // 2
                              tilegemm::MoreWorkPerThread<32, 8>,              // 3
                              tilegemm::WideTypes<32, 8>,                      // 4
                              tilegemm::WideTypes<16, 16>,                     //   (the default on processors)
                              tilegemm::TransposedB<64, 64, 16, 8>,            // 5
                              tilegemm::RegisterBlocking<64, 64, 16, 4, 4>,    // 6
                              tilegemm::RegisterBlocking<128, 128, 16, 8, 8>,  //
                              tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>,      // 7
                              tilegemm::VectorLoads<128, 128, 16, 8, 8, 4>,    //
                              tilegemm::VectorLoads<160, 160, 16, 10, 10, 2>,  // 10: 10x10 per work-item
                              tilegemm::Prefetch<32, 32, 16, 2, 2, 2>,         // 9, and the GPU defaults
                              tilegemm::Prefetch<64, 64, 16, 4, 4, 4>,         //
                              tilegemm::Prefetch<64, 128, 16, 4, 8, 4>,        //
                              tilegemm::Prefetch<128, 64, 8, 8, 8, 4>,         //
                              tilegemm::Prefetch<128, 128, 8, 8, 8, 4>,        //
                              tilegemm::Prefetch<128, 128, 16, 8, 8, 4>,       //
                              tilegemm::SplitK<32, 32, 16, 2, 2, 2>,           // split-K
                              tilegemm::SplitK<64, 64, 16, 4, 4, 4>,           //
                              tilegemm::AutoConfig,                            // what gpu_gemm uses by default
                              InMode<tilegemm::AutoConfig, MathMode::tf32x3>,  //   in the tensor-core modes
                              InMode<tilegemm::AutoConfig, MathMode::tf32>,    //
                              // Tensor cores (NVIDIA, compute capability 8.0+): double, and float in both modes.
                              tilegemm::TensorCores<128, 128, 4, 64, 32, 4>,  //
                              tilegemm::TensorCores<128, 128, 4, 64, 32, 5>,  //
                              tilegemm::TensorCores<128, 64, 8, 64, 32, 3>,   //
                              tilegemm::TensorCores<64, 64, 8, 32, 32, 4>,    //
                              tilegemm::TensorCores<128, 64, 4, 64, 32, 6>,   //
                              tilegemm::TensorCores<96, 96, 4, 48, 24, 4>,    //
                              // The copy engine's double (compute capability 9.0).
                              tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 4>,  // AutoConfig's (large C)
                              tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 3>,  //
                              tilegemm::BulkTensorCores<128, 128, 16, 64, 32, 5>,  //
                              tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 2>,  //
                              tilegemm::BulkTensorCores<128, 128, 32, 64, 32, 3>,  //
                              tilegemm::BulkTensorCores<128, 128, 8, 64, 32, 6>,   //
                              tilegemm::BulkTensorCores<64, 64, 8, 32, 32, 3>,     // within 48 KiB
                              InMode<tilegemm::TensorCores<128, 128, 8, 64, 64, 5>, MathMode::tf32x3>,   //
                              InMode<tilegemm::TensorCores<128, 128, 16, 64, 64, 2>, MathMode::tf32x3>,  //
                              InMode<tilegemm::TensorCores<64, 64, 16, 32, 32, 3>, MathMode::tf32x3>,    //
                              InMode<tilegemm::TensorCores<96, 96, 16, 48, 48, 3>, MathMode::tf32x3>,    //
                              InMode<tilegemm::TensorCores<96, 96, 16, 48, 48, 3>, MathMode::tf32>,      //
                              InMode<tilegemm::TensorCores<128, 128, 8, 64, 64, 4>, MathMode::tf32>,     //
                              InMode<tilegemm::TensorCores<128, 128, 8, 64, 64, 5>, MathMode::tf32>,     //
                              InMode<tilegemm::TensorCores<256, 128, 8, 64, 64, 3>, MathMode::tf32>,     //
                              // wgmma (compute capability 9.0), TF32 only.
                              InMode<tilegemm::WarpgroupMma<64, 128, 32, 4>, MathMode::tf32>,  // AutoConfig's (small C)
                              InMode<tilegemm::WarpgroupMma<128, 128, 32, 3>, MathMode::tf32>,    //   (mid)
                              InMode<tilegemm::WarpgroupMma<128, 256, 32, 3>, MathMode::tf32>,    //   (large C)
                              InMode<tilegemm::WarpgroupMma<64, 256, 8, 4>, MathMode::tf32>,      // within 48 KiB
                              InMode<tilegemm::WarpgroupMma<64, 128, 16, 4>, MathMode::tf32>,     //
                              InMode<tilegemm::WarpgroupMma<64, 128, 16, 8>, MathMode::tf32x3>,   // AutoConfig's
                              InMode<tilegemm::WarpgroupMma<128, 128, 32, 6>, MathMode::tf32x3>,  //   (large C)
                              InMode<tilegemm::WarpgroupMma<64, 128, 8, 8>, MathMode::tf32x3>>;   // within 48 KiB

// A candidate's configuration and math mode.
template <class T>
struct Candidate {
  using config = T;
  static constexpr MathMode math = MathMode::ieee;
};
template <class Config, MathMode Math>
struct Candidate<InMode<Config, Math>> {
  using config = Config;
  static constexpr MathMode math = Math;
};

template <class Config>
constexpr bool is_tensor_cores() {
  if constexpr (std::is_same_v<Config, tilegemm::AutoConfig>) {
    return false;
  } else {
    return Config::family == tilegemm::Family::tensor_cores || Config::family == tilegemm::Family::warpgroup_mma;
  }
}

// Whether a candidate has a row in this precision: in double only the ieee ones (the modes change nothing there);
// in float, the tensor_cores configurations only in a tensor mode (ieee rules them out).
template <class T, class Scalar>
constexpr bool has_row() {
  using C = Candidate<T>;
  if constexpr (std::is_same_v<Scalar, double>) {
    return C::math == MathMode::ieee;
  } else {
    return C::math != MathMode::ieee || !is_tensor_cores<typename C::config>();
  }
}

// Kernels 1 to 4 reach a few percent of a GPU's peak: at 8192 each of them would need tens of seconds on an H200
// for its 8 calls, more than all the other rows together, so a default run skips them above this size (of a cube
// with as many multiply-adds, for other shapes).
constexpr long long slow_family_limit = 4096;

template <class T>
constexpr bool is_slow_family() {
  using Config = typename Candidate<T>::config;
  if constexpr (std::is_same_v<Config, tilegemm::AutoConfig>) {
    return false;
  } else {
    using tilegemm::Family;
    return Config::family == Family::naive || Config::family == Family::local_tiles ||
           Config::family == Family::wide_types;
  }
}

template <class T>
std::string configuration_label() {
  using Config = typename Candidate<T>::config;
  std::string label;
  if constexpr (std::is_same_v<Config, tilegemm::AutoConfig>) {
    label = "default (auto)";
  } else {
    label = Config::name();
  }
  constexpr MathMode math = Candidate<T>::math;
  return math == MathMode::ieee ? label : label + " " + std::string(tilegemm::detail::math_mode_name(math));
}

template <class T>
struct Tag {
  using type = T;
};

template <class... Configs, class Visit>
void for_each_config(std::tuple<Configs...>*, Visit&& visit) {
  (visit(Tag<Configs>{}), ...);
}

// Calls visit(Tag<Config>{}) for each configuration of Candidates, in order.
template <class Visit>
void for_each_candidate(Visit&& visit) {
  for_each_config(static_cast<Candidates*>(nullptr), visit);
}

std::string clblast_label() { return "clblast::Gemm"; }

// The peers this build has, and whether they can run here.
struct Peers {
  bool clblast = false;
  bool cublas = false;
  std::string cublas_label;
  std::string cuda_device;  // its name, or why there is none
};

template <class Scalar>
Peers find_peers() {
  Peers peers;
#ifdef TILEGEMM_HAVE_CLBLAST
  peers.clblast = true;
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
  const CudaDevice cuda = find_cuda_device();
  peers.cublas = cuda.present;
  peers.cublas_label = cublas_label<Scalar>();
  peers.cuda_device = cuda.description;
#endif
  return peers;
}

void print_peers([[maybe_unused]] const Peers& peers) {
#ifdef TILEGEMM_HAVE_CLBLAST
  std::printf("CLBlast:  on the same OpenCL queue and buffers\n");
#else
  std::printf("CLBlast:  not in this build (install it, e.g. apt-get install libclblast-dev, and reconfigure)\n");
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
  std::printf("cuBLAS:   %s %s\n", peers.cublas ? "on CUDA device" : "skipped,", peers.cuda_device.c_str());
#else
  std::printf("cuBLAS:   not in this build (no CUDA toolkit found when it was configured)\n");
#endif
}

// The rows --kernels asks for: those whose "kernel configuration" contains one of its texts, ignoring case.
class Selection {
 public:
  explicit Selection(const std::vector<std::string>& filters) {
    for (const std::string& f : filters) filters_.push_back(lowercase(f));
  }

  bool selects(const std::string& kernel, const std::string& configuration) const {
    if (filters_.empty()) return true;
    const std::string label = lowercase(kernel + " " + configuration);
    for (const std::string& f : filters_) {
      if (label.find(f) != std::string::npos) return true;
    }
    return false;
  }

 private:
  static std::string lowercase(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  std::vector<std::string> filters_;
};

// Every "kernel configuration" label this run could have, for the message when --kernels selects none of them.
std::vector<std::string> all_labels(const Peers& peers) {
  std::vector<std::string> labels;
  for_each_candidate(
      [&](auto tag) { labels.push_back("tilegemm " + configuration_label<typename decltype(tag)::type>()); });
  if (peers.clblast) labels.push_back("clblast " + clblast_label());
  if (peers.cublas) labels.push_back("cublas " + peers.cublas_label);
#ifdef TILEGEMM_HAVE_CUBLAS
  if (peers.cublas) labels.push_back("cublas-tf32 " + cublas_tf32_label());
#endif
  labels.push_back("eigen " + eigen_label());
  return labels;
}

void require_some_selected(const Selection& selection, const Peers& peers) {
  std::string known;
  for (const std::string& label : all_labels(peers)) {
    if (selection.selects(label, "")) return;
    known += "\n  " + label;
  }
  throw UsageError("--kernels selects none of the rows there are:" + known);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Whether tilegemm refused a configuration because this device cannot run it: too many work-items per group, too
// much local memory, or no tensor cores for the tensor_cores family, which it checks before building anything. Not
// a failure: another device may run it.
bool exceeds_device_limits(const tilegemm::Error& error) {
  return error.code() == CL_INVALID_WORK_GROUP_SIZE || error.code() == CL_OUT_OF_RESOURCES ||
         error.code() == CL_INVALID_DEVICE;
}

std::string local_date() {
  const std::time_t now = std::time(nullptr);
  char text[32] = "";
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", std::localtime(&now));
  return text;
}

std::string device_label(const cl::CommandQueue& queue) {
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  return platform.getInfo<CL_PLATFORM_NAME>() + " / " + device.getInfo<CL_DEVICE_NAME>();
}

// All the rows of one shape: the peers on the GPU first (the ratios need them), tilegemm's configurations, Eigen.
template <class Scalar>
class ShapeBenchmark {
 public:
  ShapeBenchmark(const Options& options, const Selection& selection, const Peers& peers, const cl::CommandQueue& queue,
                 const Shape& shape, std::mt19937_64& random, Report& report)
      : options_(options),
        selection_(selection),
        peers_(peers),
        shape_(shape),
        report_(report),
        plan_(timing_plan(options.repeats, options.warmup, shape.size())),
        host_(random_operands<Scalar>(shape, options.transposes, random)) {
    if (options.check) samples_ = sample_references(host_, random);
    try {
      opencl_ = upload_operands(queue, host_);
    } catch (const std::exception& e) {
      upload_error_ = e.what();
    }
  }

  void run_all() {
#ifdef TILEGEMM_HAVE_CLBLAST
    run_row(new_row("clblast", clblast_label()), plan_, "",
            [&] { return clblast_contender(opencl(), shape_, options_.transposes); });
#endif
#ifdef TILEGEMM_HAVE_CUBLAS
    if (peers_.cublas) {
      run_row(new_row("cublas", peers_.cublas_label), plan_, "", [&] { return cublas_contender(host_); });
      if constexpr (std::is_same_v<Scalar, float>) {  // the peer of the TF32 rows
        run_row(new_row("cublas-tf32", cublas_tf32_label()), plan_, "", [&] {
          Contender<Scalar> contender = cublas_contender(host_, CUBLAS_TF32_TENSOR_OP_MATH);
          contender.error_limit = tf32_error_limit;
          return contender;
        });
      }
    }
#endif
    for_each_candidate([&](auto tag) { run_tilegemm<typename decltype(tag)::type>(); });
    const std::string eigen_skip =
        shape_.size() > options_.eigen_max ? "above --eigen-max " + std::to_string(options_.eigen_max) : "";
    run_row(new_row("eigen", eigen_label()), eigen_timing_plan(plan_, shape_.size()), eigen_skip,
            [&] { return eigen_contender(host_); });
  }

 private:
  Row new_row(const std::string& kernel, const std::string& configuration) const {
    Row row;
    row.kernel = kernel;
    row.configuration = configuration;
    row.shape = shape_;
    return row;
  }

  const OpenclOperands<Scalar>& opencl() const {
    if (!upload_error_.empty()) throw std::runtime_error(upload_error_);
    return opencl_;
  }

  template <class T>
  void run_tilegemm() {
    if constexpr (has_row<T, Scalar>()) {
      using Config = typename Candidate<T>::config;
      constexpr MathMode math = Candidate<T>::math;
      Row row = new_row("tilegemm", configuration_label<T>());
      if (math == MathMode::tf32) row.cublas_peer = "cublas-tf32";
      std::string skip;
      if (is_slow_family<T>() && shape_.size() > slow_family_limit) {
        skip = "slow family above " + std::to_string(slow_family_limit);
      }
      run_row(row, plan_, skip,
              [&] { return tilegemm_contender<Config>(opencl(), shape_, options_.transposes, math); });
    }
  }

  // Times and checks one row unless --kernels leaves it out. A configuration too large for the device makes it a
  // skipped row; any other error makes it a failed one, which fails the run.
  template <class MakeContender>
  void run_row(Row row, const TimingPlan& plan, const std::string& skip, MakeContender&& make_contender) {
    if (!selection_.selects(row.kernel, row.configuration)) return;
    if (!skip.empty()) {
      row.status = "skipped";
      row.note = skip;
      report_.add(row);
      return;
    }
    const std::size_t built_before = tilegemm::programs_built();
    try {
      row = evaluate(row, make_contender(), plan, samples_);
    } catch (const tilegemm::Error& e) {
      row.status = exceeds_device_limits(e) ? "skipped" : "failed";
      row.note = first_line(e.what());
    } catch (const std::exception& e) {
      row.status = "failed";
      row.note = first_line(e.what());
    }
    if (row.kernel == "tilegemm") {
      row.programs_built = static_cast<long long>(tilegemm::programs_built() - built_before);
    }
    report_.add(row);
  }

  const Options& options_;
  const Selection& selection_;
  const Peers& peers_;
  Shape shape_;
  Report& report_;
  TimingPlan plan_;
  HostOperands<Scalar> host_;
  std::vector<SampledEntry> samples_;
  OpenclOperands<Scalar> opencl_;
  std::string upload_error_;
};

template <class Scalar>
int run(const Options& options) {
  const Selection selection(options.kernels);
  const Peers peers = find_peers<Scalar>();
  require_some_selected(selection, peers);
  if (!std::ofstream(options.csv, std::ios::app)) throw UsageError("cannot write the CSV file " + options.csv);
  const cl::CommandQueue queue = tilegemm::default_queue();
  const RunInfo info{device_label(queue), std::is_same_v<Scalar, float> ? "float" : "double", options.transposes.text(),
                     local_date()};
  std::printf("device:   %s (choose another with TILEGEMM_DEVICE)\n", info.device.c_str());
  print_peers(peers);
  std::printf("Eigen:    %s, sizes up to %lld\n", eigen_label().c_str(), options.eigen_max);
  std::printf(
      "timing:   first call apart (with OpenCL builds, 'built'); %d warm-up calls; then, on the host clock, %s\n"
      "          single calls ('call ms', start to finished) and as many batches of calls started back to back\n"
      "          and finished once ('device ms', per call: every kernel of the call, no host round trip);\n"
      "          GFLOP/s and the ratios are of the device time\n",
      options.warmup, options.repeats > 0 ? std::to_string(options.repeats).c_str() : "10 (5 above 2048)");
  if (options.check) {
    std::printf("check:    edges of C and 2000 random entries against exact double dot products, max error %g\n",
                error_limit<Scalar>());
  }

  Report report(info);
  std::mt19937_64 random(std::random_device{}());
  const auto start = std::chrono::steady_clock::now();
  for (const Shape& shape : options.shapes) {
    report.begin_shape(shape);  // before the operands are made: at 8192 that takes seconds
    ShapeBenchmark<Scalar>(options, selection, peers, queue, shape, random, report).run_all();
    report.write_csv(options.csv);
  }
  report.print_summary();
  std::printf("\nresults:  %s (%.0f s in all)\n", options.csv.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!options.plot.empty()) {
    plot_gflops(report.rows(), options.csv, options.plot,
                "GEMM, " + info.precision + " " + info.transposes + ", on " + info.device + ", " + info.date);
  }
  return report.print_failures() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_options(argc, argv);
    if (options.help) {
      std::fputs(usage_text(), stdout);
      return 0;
    }
    if (options.batched) {
      return options.double_precision ? run_batched_mode<double>(options) : run_batched_mode<float>(options);
    }
    if (options.host) return options.double_precision ? run_host_mode<double>(options) : run_host_mode<float>(options);
    return options.double_precision ? run<double>(options) : run<float>(options);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "benchmark: %s\nbenchmark --help lists the options.\n", e.what());
    return 2;
  } catch (const tilegemm::Error& e) {
    std::fprintf(stderr, "benchmark: tilegemm error %d: %s\n", e.code(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "benchmark: %s\n", e.what());
    return 1;
  }
}
