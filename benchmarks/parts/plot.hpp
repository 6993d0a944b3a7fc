// plot: GFLOP/s against size, one line per configuration and per peer, drawn by gnuplot from a script it writes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"

namespace bench {

// The points of one line of the plot: (size, GFLOP/s) of one kernel and configuration.
struct Series {
  std::string title;
  bool peer = false;
  std::vector<std::pair<double, double>> points;
};

namespace detail {

// `text` as one word for /bin/sh.
inline std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// `text` as a double-quoted gnuplot string.
inline std::string gnuplot_quoted(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

inline bool gnuplot_on_path() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// pngcairo (anti-aliased) where this gnuplot has it, else the plain png terminal.
inline std::string png_terminal() {
  const bool cairo = std::system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1") == 0;
  return cairo ? "pngcairo size 1400,800 font \",10\"" : "png size 1400,800";
}

// benchmark.csv -> benchmark.gnuplot, next to it.
inline std::string script_path_for(const std::string& csv_path) {
  const std::string::size_type slash = csv_path.find_last_of('/');
  const std::string::size_type dot = csv_path.find_last_of('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_extension ? csv_path.substr(0, dot) : csv_path) + ".gnuplot";
}

}  // namespace detail

// One series per kernel and configuration that ran, in the order of the rows, points sorted by size. When the run
// has square products, only they are drawn: other shapes of the same size would zigzag the lines (the tables and
// the CSV have them all).
inline std::vector<Series> gflops_series(const std::vector<Row>& rows) {
  const auto square = [](const Row& r) { return r.shape.m == r.shape.n && r.shape.n == r.shape.k; };
  const bool squares_only = std::any_of(rows.begin(), rows.end(), square);
  std::vector<Series> series;
  for (const Row& r : rows) {
    if (r.status != "ok" || r.check == "WRONG" || (squares_only && !square(r))) continue;
    const std::string& title = r.configuration;  // peers' configurations name them: "clblast::Gemm", "eigen (...)"
    auto found = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.title == title; });
    if (found == series.end()) found = series.insert(series.end(), Series{title, r.kernel != "tilegemm", {}});
    found->points.emplace_back(r.shape.size(), r.gflops);
  }
  for (Series& s : series) std::sort(s.points.begin(), s.points.end());
  return series;
}

// Distinct colours for up to 20 lines (then they repeat with other point shapes).
inline const char* line_colour(std::size_t i) {
  static const char* const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                        "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
                                        "#c5b0d5", "#c49c94", "#f7b6d2", "#000000", "#dbdb8d", "#9edae5"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

// Peers dashed and thick, the default configuration thick, the others thin.
inline std::string line_width(const Series& series) {
  if (series.peer) return " linewidth 3 dashtype 2";
  return series.title == "default (auto)" ? " linewidth 3" : " linewidth 1.5";
}

inline std::string gnuplot_script(const std::vector<Series>& series, const std::string& png_path,
                                  const std::string& title, const std::string& terminal) {
  std::set<double> sizes;
  for (const Series& s : series) {
    for (const auto& point : s.points) sizes.insert(point.first);
  }
  std::string script =
      "# GFLOP/s against matrix size, written by tilegemm's benchmarks/benchmark. Redraw: gnuplot FILE\n";
  script += "set terminal " + terminal + "\nset termoption noenhanced\n";
  script += "set output " + detail::gnuplot_quoted(png_path) + "\n";
  script += "set title " + detail::gnuplot_quoted(title) + "\n";
  script += "set xlabel \"matrix size (M = N = K; for other shapes, when only they ran, the cube root of M*N*K)\"\n";
  script += "set ylabel \"GFLOP/s (device time of whole calls)\"\n";
  script += "set logscale x 2\nset grid\nset key outside right top Left reverse\nset yrange [0:*]\n";
  if (!sizes.empty()) {
    std::string tics;
    for (double size : sizes) tics += (tics.empty() ? "" : ", ") + std::to_string(static_cast<long long>(size));
    script += "set xtics (" + tics + ")\n";
    script +=
        "set xrange [" + std::to_string(*sizes.begin() / 1.25) + ":" + std::to_string(*sizes.rbegin() * 1.25) + "]\n";
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    script += "# " + series[i].title + "\n$series" + std::to_string(i) + " << EOD\n";
    for (const auto& [size, gflops] : series[i].points) {
      script += std::to_string(size) + " " + std::to_string(gflops) + "\n";
    }
    script += "EOD\n";
  }
  std::string plot;
  for (std::size_t i = 0; i < series.size(); ++i) {
    plot += plot.empty() ? "plot " : ", \\\n     ";
    plot += "$series" + std::to_string(i) + " using 1:2 with linespoints linecolor rgb \"" + line_colour(i) +
            "\" pointtype " + std::to_string(i % 12 + 1) + line_width(series[i]) + " title " +
            detail::gnuplot_quoted(series[i].title);
  }
  return script + plot + "\n";
}

// Writes the script next to the CSV and runs gnuplot on it; without gnuplot, says how to get it (the script can
// also be drawn on another machine: gnuplot SCRIPT).
inline void plot_gflops(const std::vector<Row>& rows, const std::string& csv_path, const std::string& png_path,
                        const std::string& title) {
  const std::vector<Series> series = gflops_series(rows);
  if (series.empty()) {
    std::printf("\nno plot: no product ran\n");
    return;
  }
  const bool gnuplot = detail::gnuplot_on_path();
  const std::string script_path = detail::script_path_for(csv_path);
  std::ofstream script(script_path, std::ios::trunc);
  script << gnuplot_script(series, png_path, title, gnuplot ? detail::png_terminal() : "pngcairo size 1400,800");
  if (!script.flush()) {
    std::printf("\nno plot: cannot write %s\n", script_path.c_str());
    return;
  }
  script.close();
  if (!gnuplot) {
    std::printf("\nno plot: gnuplot is not on PATH (Debian, Ubuntu: apt-get install gnuplot-nox); its script is %s\n",
                script_path.c_str());
  } else if (std::system(("gnuplot " + detail::shell_quoted(script_path)).c_str()) == 0) {
    std::printf("\nplot: %s (gnuplot script: %s)\n", png_path.c_str(), script_path.c_str());
  } else {
    std::printf("\nno plot: gnuplot failed on %s\n", script_path.c_str());
  }
}

}  // namespace bench
