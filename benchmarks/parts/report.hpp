// report: the benchmark's results: one Row per (kernel, configuration, shape), printed as tables and written as CSV.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "problem.hpp"
#include "timing.hpp"

namespace bench {

struct Row {
  std::string kernel;         // "tilegemm", "clblast", "cublas" or "eigen"
  std::string configuration;  // e.g. "prefetch 128x128x16 8x8 v4", "default (auto)"
  Shape shape;
  std::string status = "ok";  // "ok", "skipped" (see note) or "failed" (an error, see note: fails the run)
  std::string note;
  long long programs_built = -1;  // OpenCL programs tilegemm built during the first call; -1 for peers
  Timing timing;
  double gflops = unknown;
  double vs_clblast = unknown;  // this row's GFLOP/s over CLBlast's on the same shape
  double vs_cublas = unknown;   // over cuBLAS's, the row of kernel `cublas_peer` ("cublas-tf32" for TF32 rows)
  std::string cublas_peer = "cublas";
  double max_rel_error = unknown;
  std::string check = "unchecked";  // "ok", "WRONG" or "unchecked"
};

// What the header of each table says about the run.
struct RunInfo {
  std::string device;
  std::string precision;
  std::string transposes;
  std::string date;
};

namespace detail {

// A number for the table: "-" when unknown.
inline std::string cell(double value, const char* format) {
  if (std::isnan(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// A number for the CSV: empty when unknown, else enough digits to keep it.
inline std::string csv_number(double value) {
  if (std::isnan(value)) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// A text cell for the CSV, quoted when it holds a comma, a quote or a line break (RFC 4180).
inline std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace detail

class Report {
 public:
  explicit Report(RunInfo info) : info_(std::move(info)) {}

  const std::vector<Row>& rows() const { return rows_; }

  void begin_shape(const Shape& shape) const {
    std::printf("\n== %s (M x N x K), %s, %s, on %s, %s\n", shape.text().c_str(), info_.precision.c_str(),
                info_.transposes.c_str(), info_.device.c_str(), info_.date.c_str());
    std::printf("%-8s  %-38s %10s %5s %10s %10s %9s %10s %9s %9s\n", "kernel", "configuration", "first ms", "built",
                "call ms", "device ms", "GFLOP/s", "vs CLBlast", "vs cuBLAS", "max err");
    std::fflush(stdout);
  }

  // Completes the row (GFLOP/s, ratios to the peers already measured on its shape), prints and keeps it.
  void add(Row row) {
    row.gflops = row.status == "ok" ? row.shape.flops() / (row.timing.device_ms * 1e6) : unknown;
    row.vs_clblast = row.gflops / peer_gflops("clblast", row.shape);
    row.vs_cublas = row.gflops / peer_gflops(row.cublas_peer, row.shape);
    print(row);
    rows_.push_back(std::move(row));
  }

  // Lists the rows that fail the run, each with its reason, then closes with a line that counts them by reason;
  // returns their number. A row fails on an error (OpenCL, a build, any exception) or a WRONG sampled check.
  int print_failures() const {
    int errors = 0;
    int wrong = 0;
    int skipped = 0;
    for (const Row& r : rows_) {
      if (r.status == "skipped") ++skipped;
      if (!fails_run(r)) continue;
      if (errors + wrong == 0) std::printf("\nfailed rows:\n");
      ++(r.status == "failed" ? errors : wrong);
      std::printf("  %-16s %s %s: %s\n", r.shape.text().c_str(), r.kernel.c_str(), r.configuration.c_str(),
                  failure_reason(r).c_str());
    }
    const int failed = errors + wrong;
    const std::string skipped_text =
        std::to_string(skipped) + (skipped > 0 ? " skipped (see their notes)" : " skipped");
    if (failed == 0) {
      std::printf("\npassed: %zu rows, none failed; %s\n", rows_.size(), skipped_text.c_str());
    } else {
      std::printf(
          "\nFAILED: %d of %zu rows failed: %d with an error (OpenCL, build or exception), %d WRONG in the "
          "sampled check; %s\n",
          failed, rows_.size(), errors, wrong, skipped_text.c_str());
    }
    return failed;
  }

  // Per shape: the fastest tilegemm configuration, the default one and each peer, in GFLOP/s of device time.
  void print_summary() const {
    std::printf("\n== summary: GFLOP/s (device time of whole calls), %s, %s, on %s\n", info_.precision.c_str(),
                info_.transposes.c_str(), info_.device.c_str());
    std::printf("%-16s %-38s %9s %14s %9s %9s %9s\n", "shape", "best tilegemm configuration", "GFLOP/s",
                "default (auto)", "clblast", "cublas", "eigen");
    std::vector<Shape> shapes;
    for (const Row& r : rows_) {
      if (std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end()) shapes.push_back(r.shape);
    }
    for (const Shape& shape : shapes) {
      const Row* best = best_tilegemm(shape);
      std::printf("%-16s %-38s %9s %14s %9s %9s %9s\n", shape.text().c_str(), best ? best->configuration.c_str() : "-",
                  gflops_cell(best ? best->gflops : unknown).c_str(),
                  gflops_cell(gflops_of("tilegemm", "default (auto)", shape)).c_str(),
                  gflops_cell(peer_gflops("clblast", shape)).c_str(), gflops_cell(peer_gflops("cublas", shape)).c_str(),
                  gflops_cell(peer_gflops("eigen", shape)).c_str());
    }
  }

  // Rewrites the whole CSV: a header line, then one line per row; times in ms, rates in GFLOP/s.
  void write_csv(const std::string& path) const {
    std::ofstream out(path, std::ios::trunc);
    out << "device,precision,transpose,m,n,k,kernel,configuration,status,first_call_ms,programs_built,call_ms,"
           "device_ms,batch,gflops,vs_clblast,vs_cublas,max_rel_error,check,note\n";
    for (const Row& r : rows_) {
      out << detail::csv_text(info_.device) << ',' << info_.precision << ',' << info_.transposes << ',' << r.shape.m
          << ',' << r.shape.n << ',' << r.shape.k << ',' << detail::csv_text(r.kernel) << ','
          << detail::csv_text(r.configuration) << ',' << r.status << ',' << detail::csv_number(r.timing.first_ms) << ','
          << (r.programs_built >= 0 ? std::to_string(r.programs_built) : "") << ','
          << detail::csv_number(r.timing.call_ms) << ',' << detail::csv_number(r.timing.device_ms) << ','
          << (r.timing.batch > 0 ? std::to_string(r.timing.batch) : "") << ',' << detail::csv_number(r.gflops) << ','
          << detail::csv_number(r.vs_clblast) << ',' << detail::csv_number(r.vs_cublas) << ','
          << (r.check != "unchecked" && std::isnan(r.max_rel_error) ? "nan" : detail::csv_number(r.max_rel_error))
          << ',' << r.check << ',' << detail::csv_text(r.note) << '\n';
    }
    if (!out.flush()) throw std::runtime_error("could not write " + path);
  }

 private:
  static void print(const Row& r) {
    if (r.status != "ok") {
      std::printf("%-8s  %-38s %s (%s)\n", r.kernel.c_str(), r.configuration.c_str(), r.status.c_str(), r.note.c_str());
    } else {
      std::printf("%-8s  %-38s %10s %5s %10s %10s %9s %10s %9s %9s%s%s\n", r.kernel.c_str(), r.configuration.c_str(),
                  detail::cell(r.timing.first_ms, "%.2f").c_str(),
                  r.programs_built >= 0 ? std::to_string(r.programs_built).c_str() : "-",
                  detail::cell(r.timing.call_ms, "%.3f").c_str(), detail::cell(r.timing.device_ms, "%.3f").c_str(),
                  gflops_cell(r.gflops).c_str(), detail::cell(r.vs_clblast, "%.2f").c_str(),
                  detail::cell(r.vs_cublas, "%.2f").c_str(), error_cell(r).c_str(), r.check == "WRONG" ? "  WRONG" : "",
                  r.note.empty() ? "" : ("  (" + r.note + ")").c_str());
    }
    std::fflush(stdout);
  }

  static bool fails_run(const Row& r) { return r.status == "failed" || r.check == "WRONG"; }

  static std::string failure_reason(const Row& r) {
    if (r.status == "failed") return "error: " + r.note;
    if (std::isnan(r.max_rel_error)) return "WRONG: sampled entries of C were not numbers (never written?)";
    return "WRONG: max relative error " + detail::cell(r.max_rel_error, "%.2e") + " in the sampled check";
  }

  static std::string gflops_cell(double gflops) { return detail::cell(gflops, gflops < 10 ? "%.2f" : "%.1f"); }

  // The error as checked: "nan" when a sampled entry was not a number (never written), "-" when not checked.
  static std::string error_cell(const Row& r) {
    if (r.check == "unchecked") return "-";
    return std::isnan(r.max_rel_error) ? "nan" : detail::cell(r.max_rel_error, "%.2e");
  }

  double gflops_of(const std::string& kernel, const std::string& configuration, const Shape& shape) const {
    for (const Row& r : rows_) {
      if (r.kernel == kernel && r.shape == shape && r.status == "ok" && r.check != "WRONG" &&
          (configuration.empty() || r.configuration == configuration)) {
        return r.gflops;
      }
    }
    return unknown;
  }

  double peer_gflops(const std::string& kernel, const Shape& shape) const { return gflops_of(kernel, "", shape); }

  // The fastest correct tilegemm row of the shape with FP32 (FP64) accuracy: the default, in each mode, excluded (it
  // is one of the others), and so are the TF32 rows.
  const Row* best_tilegemm(const Shape& shape) const {
    const Row* best = nullptr;
    for (const Row& r : rows_) {
      if (r.kernel == "tilegemm" && r.configuration.rfind("default (auto)", 0) != 0 && r.cublas_peer == "cublas" &&
          r.shape == shape && r.status == "ok" && r.check != "WRONG" && (!best || r.gflops > best->gflops)) {
        best = &r;
      }
    }
    return best;
  }

  RunInfo info_;
  std::vector<Row> rows_;
};

}  // namespace bench
