// floor_bench: times tilegemm::gemm on host pointers (the floor the BLAS drop-in calls) and gpu_gemm(A, B) on Eigen
// matrices, in the same format as gemm_driver, so that the drop-in's overhead and an unchanged Eigen program compare.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

template <class Scalar, class Call>
void time_shape(const char* label, const char* name, int m, int n, int k, int repeats, Call call) {
  std::vector<double> times;
  for (int r = -1; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    call();
    if (r >= 0) times.push_back(milliseconds_since(start));
  }
  std::sort(times.begin(), times.end());
  std::printf("%s %s %d %d %d median_ms %.3f min_ms %.3f\n", label, name, m, n, k, times[times.size() / 2], times[0]);
  std::fflush(stdout);
}

template <class Scalar>
void run(const std::string& shapes, int repeats, double beta, bool eigen) {
  std::istringstream list(shapes);
  for (std::string shape; std::getline(list, shape, ',');) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(shape.c_str(), "%dx%dx%d", &m, &n, &k) != 3) throw std::invalid_argument("bad shape " + shape);
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    const Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n);
    Matrix c = Matrix::Zero(m, n);
    const char* scalar = sizeof(Scalar) == 8 ? "d" : "s";
    if (eigen) {
      time_shape<Scalar>("gpu_gemm", scalar, m, n, k, repeats, [&] { c = tilegemm::gpu_gemm(a, b); });
    } else {
      time_shape<Scalar>("floor", scalar, m, n, k, repeats, [&] {
        tilegemm::gemm<Scalar>(tilegemm::Transpose::no, tilegemm::Transpose::no, m, n, k, Scalar(1), a.data(), m,
                               b.data(), k, Scalar(beta), c.data(), m);
      });
    }
  }
}

}  // namespace

// Usage: floor_bench s|d MxNxK[,...] [repeats] [beta] [--eigen]
int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s s|d MxNxK[,MxNxK...] [repeats] [beta] [--eigen]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  const double beta = argc > 4 ? std::atof(argv[4]) : 0.0;
  const bool eigen = argc > 5 && std::string(argv[5]) == "--eigen";
  if (argv[1][0] == 'd')
    run<double>(argv[2], repeats, beta, eigen);
  else
    run<float>(argv[2], repeats, beta, eigen);
  return 0;
}
