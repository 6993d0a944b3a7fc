// options: the benchmark's command line, parsed into Options, with its usage text.
#pragma once

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"

namespace bench {

// A command line the benchmark cannot run; main prints the message and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<Shape> shapes;          // --sizes (square) then --shapes, in the order given
  bool double_precision = false;      // --precision
  int repeats = 0;                    // --repeats; 0: 10 up to 2048, 5 above
  int warmup = 2;                     // --warmup
  std::string csv = "benchmark.csv";  // --csv
  std::string plot;                   // --plot; empty: no plot
  std::vector<std::string> kernels;   // --kernels; empty: all
  bool check = true;                  // --no-check turns it off
  Transposes transposes;              // --transpose
  long long eigen_max = 4096;         // --eigen-max
  bool host = false;                  // --host: whole host-to-host calls instead of kernels
  bool batched = false;               // --batched: batches of equally shaped products in one call
  long long batch_count = 10000;      // --batch-count: products per batch in --batched mode
  bool help = false;                  // --help
};

inline const char* usage_text() {
  return "usage: benchmark [options]\n"
         "\n"
         "Times tilegemm's kernel configurations (and CLBlast, cuBLAS and Eigen where available) on the OpenCL\n"
         "device TILEGEMM_DEVICE picks, prints a table per size, writes a CSV and optionally plots GFLOP/s.\n"
         "\n"
         "  --sizes N,N,...        square sizes M = N = K (default 256,512,1024,2048,4096,8192)\n"
         "  --shapes MxNxK,...     other shapes, run after --sizes (alone, they replace the default sizes)\n"
         "  --precision P          float (default) or double\n"
         "  --transpose T          NN (default), NT, TN or TT: whether A and B are stored transposed\n"
         "  --repeats R            timed single calls and batches per configuration (default 10 up to 2048, 5 above)\n"
         "  --warmup W             untimed calls after the first call (default 2)\n"
         "  --kernels S,S,...      run only rows whose \"kernel configuration\" label contains one of these texts,\n"
         "                         ignoring case (e.g. \"prefetch,auto,clblast\"); with --host or --batched, rows\n"
         "                         whose contender name does (e.g. --host --kernels \"host to host\": gpu_gemm alone)\n"
         "  --csv FILE             where to write the results (default benchmark.csv)\n"
         "  --plot FILE.png        also draw GFLOP/s against size with gnuplot (script written next to the CSV)\n"
         "  --no-check             skip the check of each result against a double-precision reference\n"
         "  --eigen-max N          run Eigen on the CPU only up to this size (default 4096)\n"
         "  --host                 time whole host-to-host calls on Eigen matrices in ordinary memory instead:\n"
         "                         tilegemm's gpu_gemm (and where its time went), CLBlast with plain writes and\n"
         "                         reads, cuBLAS with cudaMemcpy, Eigen; and the product on data on the device\n"
         "  --batched              time batches of equally shaped products in one call instead (default shape\n"
         "                         32x32x32): tilegemm's gemm_strided_batched (AutoConfig and some configurations)\n"
         "                         and gpu_gemm_batched on device matrices, CLBlast's GemmStridedBatched, cuBLAS's\n"
         "                         cublasSgemmStridedBatched, and the same products as separate gpu_gemm calls\n"
         "  --batch-count B        products per batch with --batched (default 10000)\n"
         "  --help                 this text\n"
         "\n"
         "Sizes of other shapes are those of the cube with as many multiply-adds, (M N K)^(1/3). Above 4096, the\n"
         "slow families (naive, local_tiles, wide_types: tutorial kernels 1 to 4) are skipped.\n"
         "The first call of each configuration is timed apart (it includes building the OpenCL programs). Then\n"
         "'call ms' is one call from start to finished, and 'device ms' one call's share of a batch of calls\n"
         "started back to back (about 20 ms of them) and finished once: the device time of the whole call,\n"
         "all its kernels. GFLOP/s and the ratios to CLBlast and cuBLAS use the device time; all are medians.\n"
         "Eigen gets no warm-up and at most 3 timed calls above 2048.\n"
         "Exit status: 0; 1 when a row failed (an error, or WRONG in the check) or the run could not start; 2 for a\n"
         "bad command line. Rows whose configuration is too large for the device are skipped, not failed.\n";
}

// The rows --kernels asks for: those whose label contains one of its texts, ignoring case.
class Selection {
 public:
  explicit Selection(const std::vector<std::string>& filters) {
    for (const std::string& f : filters) filters_.push_back(lowercase(f));
  }

  bool selects(const std::string& label) const {
    if (filters_.empty()) return true;
    const std::string text = lowercase(label);
    for (const std::string& f : filters_) {
      if (text.find(f) != std::string::npos) return true;
    }
    return false;
  }
  bool selects(const std::string& kernel, const std::string& configuration) const {
    return selects(kernel + " " + configuration);
  }

 private:
  static std::string lowercase(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  std::vector<std::string> filters_;
};

namespace detail {

inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const std::string::size_type end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// A whole decimal number in [min, max], else a UsageError naming the option.
inline long long parse_integer(const std::string& option, const std::string& text, long long min, long long max) {
  char* end = nullptr;
  const long long value = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min || value > max) {
    throw UsageError(option + " expects a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got \"" + text + "\"");
  }
  return value;
}

constexpr long long largest_size = 1 << 20;

inline std::vector<Shape> parse_sizes(const std::string& text) {
  std::vector<Shape> shapes;
  for (const std::string& part : split(text, ',')) {
    const long long n = parse_integer("--sizes", part, 1, largest_size);
    shapes.push_back({n, n, n});
  }
  return shapes;
}

inline std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  for (const std::string& part : split(text, ',')) {
    const std::vector<std::string> sides = split(part, 'x');
    if (sides.size() != 3) throw UsageError("--shapes expects MxNxK items such as 1000x500x2000, got \"" + part + "\"");
    shapes.push_back({parse_integer("--shapes (M)", sides[0], 1, largest_size),
                      parse_integer("--shapes (N)", sides[1], 1, largest_size),
                      parse_integer("--shapes (K)", sides[2], 1, largest_size)});
  }
  return shapes;
}

inline Transposes parse_transposes(const std::string& text) {
  if (text.size() != 2 || (text[0] != 'N' && text[0] != 'T') || (text[1] != 'N' && text[1] != 'T')) {
    throw UsageError("--transpose expects NN, NT, TN or TT, got \"" + text + "\"");
  }
  return {text[0] == 'T', text[1] == 'T'};
}

inline std::vector<std::string> parse_kernels(const std::string& text) {
  std::vector<std::string> filters;
  for (const std::string& part : split(text, ',')) {
    if (!part.empty()) filters.push_back(part);
  }
  if (filters.empty()) throw UsageError("--kernels expects texts separated by commas, got \"" + text + "\"");
  return filters;
}

}  // namespace detail

// Parses argv; options take their value as the next argument or after '=' (--sizes=256,512).
inline Options parse_options(int argc, char** argv) {
  Options options;
  std::vector<Shape> sizes;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i];
    std::string value;
    bool has_value = false;
    if (const std::string::size_type equals = option.find('='); option.rfind("--", 0) == 0 && equals != option.npos) {
      value = option.substr(equals + 1);
      option = option.substr(0, equals);
      has_value = true;
    }
    const auto next_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(option + " needs a value");
      return argv[++i];
    };
    const auto flag = [&] {
      if (has_value) throw UsageError(option + " takes no value");
    };
    if (option == "--help" || option == "-h") {
      flag();
      options.help = true;
    } else if (option == "--sizes") {
      sizes = detail::parse_sizes(next_value());
    } else if (option == "--shapes") {
      shapes = detail::parse_shapes(next_value());
    } else if (option == "--precision") {
      const std::string precision = next_value();
      if (precision != "float" && precision != "double") {
        throw UsageError("--precision expects float or double, got \"" + precision + "\"");
      }
      options.double_precision = precision == "double";
    } else if (option == "--repeats") {
      options.repeats = static_cast<int>(detail::parse_integer(option, next_value(), 1, 100000));
    } else if (option == "--warmup") {
      options.warmup = static_cast<int>(detail::parse_integer(option, next_value(), 0, 100000));
    } else if (option == "--csv") {
      options.csv = next_value();
      if (options.csv.empty()) throw UsageError("--csv needs a file name");
    } else if (option == "--plot") {
      options.plot = next_value();
      if (options.plot.empty()) throw UsageError("--plot needs a file name");
    } else if (option == "--kernels") {
      options.kernels = detail::parse_kernels(next_value());
    } else if (option == "--no-check") {
      flag();
      options.check = false;
    } else if (option == "--transpose") {
      options.transposes = detail::parse_transposes(next_value());
    } else if (option == "--eigen-max") {
      options.eigen_max = detail::parse_integer(option, next_value(), 0, detail::largest_size);
    } else if (option == "--host") {
      flag();
      options.host = true;
    } else if (option == "--batched") {
      flag();
      options.batched = true;
    } else if (option == "--batch-count") {
      options.batch_count = detail::parse_integer(option, next_value(), 1, 1 << 24);
    } else {
      throw UsageError("unknown option \"" + std::string(argv[i]) + "\"");
    }
  }
  options.shapes = sizes;
  options.shapes.insert(options.shapes.end(), shapes.begin(), shapes.end());
  if (options.host && options.batched) throw UsageError("--host and --batched are modes of their own: choose one");
  if (options.shapes.empty() && options.batched) options.shapes.push_back({32, 32, 32});
  if (options.shapes.empty()) {
    for (long long n : {256, 512, 1024, 2048, 4096, 8192}) options.shapes.push_back({n, n, n});
  }
  return options;
}

}  // namespace bench
