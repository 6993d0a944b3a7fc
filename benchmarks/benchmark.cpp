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
#include "parts/rows.hpp"
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

// Every "kernel configuration" label this run could have, for the message when --kernels selects none of them.
std::vector<std::string> all_labels(const Peers& peers, const std::vector<RowConfig>& rows) {
  std::vector<std::string> labels;
  for (const RowConfig& row : rows) labels.push_back("tilegemm " + row.label());
  if (peers.clblast) labels.push_back("clblast " + clblast_label());
  if (peers.cublas) labels.push_back("cublas " + peers.cublas_label);
#ifdef TILEGEMM_HAVE_CUBLAS
  if (peers.cublas) labels.push_back("cublas-tf32 " + cublas_tf32_label());
  for (Sixteen kind : {Sixteen::bf16, Sixteen::fp16, Sixteen::bf16_stored, Sixteen::fp16_stored}) {
    if (peers.cublas) labels.push_back(cublas_16_kernel(kind) + " " + cublas_16_label(kind));
  }
#endif
  labels.push_back("eigen " + eigen_label());
  return labels;
}

void require_some_selected(const Selection& selection, const Peers& peers, const std::vector<RowConfig>& rows) {
  std::string known;
  for (const std::string& label : all_labels(peers, rows)) {
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
  ShapeBenchmark(const Options& options, const Selection& selection, const Peers& peers,
                 const std::vector<RowConfig>& rows, const cl::CommandQueue& queue, const Shape& shape,
                 std::mt19937_64& random, Report& report)
      : options_(options),
        selection_(selection),
        peers_(peers),
        rows_(rows),
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
        // The peers of the bf16 and fp16 rows: float operands rounded by cuBLAS, and operands stored in 16 bits.
        for (Sixteen kind : {Sixteen::bf16, Sixteen::fp16, Sixteen::bf16_stored, Sixteen::fp16_stored}) {
          run_row(new_row(cublas_16_kernel(kind), cublas_16_label(kind)), plan_, "", [&] {
            Contender<Scalar> contender = cublas_contender(host_, CUBLAS_DEFAULT_MATH, kind);
            const bool bf16 = kind == Sixteen::bf16 || kind == Sixteen::bf16_stored;
            contender.error_limit = bf16 ? bf16_error_limit : fp16_error_limit;
            return contender;
          });
        }
      }
    }
#endif
    for (const RowConfig& row : rows_) run_tilegemm(row);
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

  void run_tilegemm(const RowConfig& config) {
    Row row = new_row("tilegemm", config.label());
    if (config.math == MathMode::tf32) row.cublas_peer = "cublas-tf32";
#ifdef TILEGEMM_HAVE_CUBLAS
    if (config.math == MathMode::bf16) row.cublas_peer = cublas_16_kernel(Sixteen::bf16);
    if (config.math == MathMode::fp16) row.cublas_peer = cublas_16_kernel(Sixteen::fp16);
#endif
    run_row(row, plan_, slow_row_skip(config, shape_.size()), [&] {
      return tilegemm_contender(config.config ? &*config.config : nullptr, opencl(), shape_, options_.transposes,
                                config.math);
    });
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
  const std::vector<RowConfig>& rows_;
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
  const std::vector<RowConfig> rows = benchmark_rows(std::is_same_v<Scalar, double>);
  require_some_selected(selection, peers, rows);
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
    ShapeBenchmark<Scalar>(options, selection, peers, rows, queue, shape, random, report).run_all();
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
