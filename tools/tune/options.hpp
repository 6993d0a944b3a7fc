// tune/options: tilegemm-tune's command line.
#pragma once

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <tilegemm/gemm/shape_class.hpp>
#include <vector>

namespace tune {

struct ProductShape {
  int m = 0, n = 0, k = 0;
  std::string text() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
};

struct Options {
  double minutes = 10;                  // the time budget of this run; a later run continues where it stopped
  std::vector<std::string> precisions;  // "float", "double"; empty: float, and double where the device has it
  std::vector<tilegemm::detail::ShapeClass> classes;  // empty: every class (or those of --shapes)
  std::vector<ProductShape> shapes;                   // replace the classes' own shapes (each goes to its class)
  std::vector<std::string> candidates;                // only these configurations (names as --list prints them)
  long long max_steps = -1;  // stop after this many new measurements, as the time budget would (tests); -1: no limit
  std::string file;          // the winners file; empty: tuned.txt in the cache folder (partial results beside it)
  bool list = false;
  bool builtin = false;  // print the built-in table
  bool restart = false;  // forget the partial results of earlier runs
  bool help = false;
};

inline constexpr char usage[] =
    R"(tilegemm-tune: times tilegemm's candidate configurations on this device (TILEGEMM_DEVICE picks it) for each
class of product shapes, checks each candidate's results against a double-precision reference, and writes the
winners to tuned.txt in tilegemm's cache folder, where gpu_gemm's default choice reads them.

  --minutes M        stop after M minutes (default 10); run again to continue where it stopped
  --precision P      float, double or all (default: all the device runs). float is tuned in the math mode
                     TILEGEMM_MATH sets (ieee unless set)
  --classes C,...    only these shape classes: square_small, square_medium, square_large, tall_skinny,
                     short_wide, large_k
  --shapes MxNxK,... time these shapes instead of the classes' own (each for the class it belongs to)
  --candidates N,... only these configurations, named as --list prints them
  --max-steps N      stop after N new checks or timings, as the time budget would (for tests)
  --file PATH        write the winners to PATH instead (AutoConfig reads only the cache folder's tuned.txt)
  --list             print the candidates and exit
  --builtin          print the built-in configurations (AutoConfig's without a winner) and exit
  --restart          forget the partial results of earlier runs
)";

inline ProductShape parse_shape(const std::string& text) {
  ProductShape s;
  char x1 = 0, x2 = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c%d%n", &s.m, &x1, &s.n, &x2, &s.k, &used) != 5 || x1 != 'x' || x2 != 'x' ||
      used != static_cast<int>(text.size()) || s.m < 1 || s.n < 1 || s.k < 1) {
    throw std::invalid_argument("not a shape MxNxK: " + text);
  }
  return s;
}

inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return items;
}

inline Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--minutes") {
      const std::string text = value();
      char* end = nullptr;
      o.minutes = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(o.minutes > 0)) throw std::invalid_argument("--minutes " + text);
    } else if (arg == "--precision") {
      const std::string p = value();
      if (p == "all") {
        o.precisions.clear();
      } else if (p == "float" || p == "double") {
        o.precisions = {p};
      } else {
        throw std::invalid_argument("--precision takes float, double or all, not " + p);
      }
    } else if (arg == "--classes") {
      for (const std::string& name : split_list(value())) {
        const auto c = tilegemm::detail::shape_class_named(name);
        if (!c) throw std::invalid_argument("no shape class " + name);
        o.classes.push_back(*c);
      }
    } else if (arg == "--shapes") {
      for (const std::string& s : split_list(value())) o.shapes.push_back(parse_shape(s));
    } else if (arg == "--candidates") {
      o.candidates = split_list(value());
    } else if (arg == "--max-steps") {
      o.max_steps = std::atoll(value().c_str());
    } else if (arg == "--file") {
      o.file = value();
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--builtin") {
      o.builtin = true;
    } else if (arg == "--restart") {
      o.restart = true;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else {
      throw std::invalid_argument("unknown option " + arg + " (--help lists them)");
    }
  }
  return o;
}

}  // namespace tune
