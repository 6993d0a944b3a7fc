// eigen_use_blas: Eigen's own A * B, A * v, triangular solve, llt() and rank update, built twice: with
// EIGEN_USE_BLAS and the drop-in (the test), and without (eigen_plain, which the test runs and compares with: 1e-4
// relative in float, 1e-12 in double). Only the ?gemm calls reach the drop-in's stats.
#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#ifdef EIGEN_USE_BLAS
#include <tilegemm/blas.h>
#endif

namespace {

// Each operation's result, flattened, and the ?gemm calls Eigen makes for it with EIGEN_USE_BLAS.
struct Result {
  std::string name;
  bool is_float;
  int gemm_calls;
  std::vector<double> values;
};

// Fresh values in [-1, 1) from the seed, the same in both programs (std's distributions are not portable).
struct Values {
  std::uint64_t state;
  double next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
  template <class M>
  M matrix(Eigen::Index rows, Eigen::Index cols) {
    M m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<typename M::Scalar>(next());
    return m;
  }
};

template <class M>
std::vector<double> flat(const M& m) {
  std::vector<double> out(static_cast<std::size_t>(m.size()));
  for (Eigen::Index j = 0, at = 0; j < m.cols(); ++j) {
    for (Eigen::Index i = 0; i < m.rows(); ++i) out[static_cast<std::size_t>(at++)] = static_cast<double>(m(i, j));
  }
  return out;
}

// The operations in one scalar; `after(result)` runs after each (the test reads the stats there).
template <class S>
void operations(Values& values, const std::function<void(Result)>& after) {
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using RowMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  const bool is_float = sizeof(S) == sizeof(float);
  const Matrix a = values.matrix<Matrix>(67, 45), b = values.matrix<Matrix>(45, 33);
  const RowMatrix row_a = values.matrix<RowMatrix>(45, 67);
  const Vector v = values.matrix<Vector>(45, 1);
  {
    Matrix c = a * b;  // sgemm_/dgemm_, beta 1 after zeroing C
    after({"A * B", is_float, 1, flat(c)});
  }
  {
    Matrix c = row_a.transpose() * b + a * b.transpose().transpose();  // a row-major operand, and two products
    after({"A^T * B + A * B (row-major A)", is_float, 2, flat(c)});
  }
  {
    Vector w = a * v;  // ?gemv_
    after({"A * v", is_float, 0, flat(w)});
  }
  {
    Matrix lower = values.matrix<Matrix>(70, 70);
    lower.diagonal().array() += S(8);  // well conditioned: the two builds agree to rounding
    const Matrix rhs = values.matrix<Matrix>(70, 21);
    Matrix x = lower.template triangularView<Eigen::Lower>().solve(rhs);  // ?trsm_
    after({"triangular solve", is_float, 0, flat(x)});
  }
  {
    const Matrix x = values.matrix<Matrix>(100, 100);
    Matrix spd = x * x.transpose();  // one ?gemm_
    spd.diagonal().array() += S(100);
    after({"X * X^T", is_float, 1, flat(spd)});
    Matrix l = spd.llt().matrixL();  // blocked: ?trsm_ and ?syrk_
    after({"llt()", is_float, 0, flat(l)});
  }
  {
    Matrix s = values.matrix<Matrix>(60, 60);
    const Matrix u = values.matrix<Matrix>(60, 40);
    s.template selfadjointView<Eigen::Lower>().rankUpdate(u, S(-0.5));  // ?syrk_
    s.template triangularView<Eigen::StrictlyUpper>().setZero();
    after({"rank update", is_float, 0, flat(s)});
  }
}

std::vector<Result> all_operations(const std::function<void(const Result&)>& after) {
  std::vector<Result> results;
  Values values{20261127};
  const auto keep = [&](Result r) {
    after(r);
    results.push_back(std::move(r));
  };
  operations<float>(values, keep);
  operations<double>(values, keep);
  return results;
}

}  // namespace

#ifndef EIGEN_USE_BLAS

// eigen_plain FILE: Eigen's own kernels; writes every result's values to FILE.
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ofstream out(argv[1], std::ios::binary);
  for (const Result& r : all_operations([](const Result&) {})) {
    out.write(reinterpret_cast<const char*>(r.values.data()),
              static_cast<std::streamsize>(r.values.size() * sizeof(double)));
  }
  return out ? 0 : 1;
}

#else

int main() {
  int failed = 0;
  unsigned long long gemm_calls = 0;
  tilegemm_blas_reset_stats();
  tilegemm_blas_counts last = tilegemm_blas_stats();
  const std::vector<Result> results = all_operations([&](const Result& r) {
    const tilegemm_blas_counts now = tilegemm_blas_stats();
    if (now.calls - last.calls != static_cast<unsigned long long>(r.gemm_calls)) {
      std::fprintf(stderr, "FAIL %s (%s): the stats counted %llu calls; Eigen makes %d ?gemm calls there\n",
                   r.name.c_str(), r.is_float ? "float" : "double", now.calls - last.calls, r.gemm_calls);
      failed = 1;
    }
    gemm_calls += static_cast<unsigned long long>(r.gemm_calls);
    last = now;
  });

  const std::string file = "eigen_plain.out";
  const std::string command = std::string("\"") + TILEGEMM_EIGEN_PLAIN + "\" " + file;
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "FAIL: %s did not run\n", command.c_str());
    return 1;
  }
  std::ifstream in(file, std::ios::binary);
  for (const Result& r : results) {
    std::vector<double> plain(r.values.size());
    in.read(reinterpret_cast<char*>(plain.data()), static_cast<std::streamsize>(plain.size() * sizeof(double)));
    if (!in) {
      std::fprintf(stderr, "FAIL: %s holds fewer results than this program made\n", file.c_str());
      return 1;
    }
    // Relative to the result's largest element: 1e-4 in float, 1e-12 in double.
    double largest = 0, worst = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) {
      largest = std::fmax(largest, std::fabs(plain[i]));
      const double difference = std::fabs(r.values[i] - plain[i]);
      worst = std::isnan(difference) ? INFINITY : std::fmax(worst, difference);
    }
    const double tolerance = (r.is_float ? 1e-4 : 1e-12) * largest;
    if (!(worst <= tolerance) || largest == 0) {
      std::fprintf(stderr, "FAIL %s (%s): differs from Eigen without BLAS by %g (tolerance %g)\n", r.name.c_str(),
                   r.is_float ? "float" : "double", worst, tolerance);
      failed = 1;
    }
  }
  const tilegemm_blas_counts counts = tilegemm_blas_stats();
  const char* mode = std::getenv("TILEGEMM_BLAS_OFFLOAD");
  if (counts.calls != gemm_calls || (mode && std::string(mode) == "always" && counts.gpu_calls != gemm_calls)) {
    std::fprintf(stderr, "FAIL: the stats say %llu calls, %llu on the GPU; Eigen made %llu ?gemm calls%s\n",
                 counts.calls, counts.gpu_calls, gemm_calls, mode ? (std::string(", mode ") + mode).c_str() : "");
    failed = 1;
  }
  std::printf("Eigen with EIGEN_USE_BLAS: %llu ?gemm calls, %llu on the GPU; %s\n", counts.calls, counts.gpu_calls,
              failed ? "FAILED" : "equal to Eigen without it");
  return failed;
}

#endif
