// eigen_product: an unchanged Eigen program timing C = A * B and C.noalias() = A * B; built with -DEIGEN_USE_BLAS and
// linked to tilegemm::blas before a CPU BLAS, its products run wherever the drop-in sends them. C = A * B evaluates
// into a temporary that Eigen zeroes, passes to ?gemm_ with beta = 1 and copies into C: that costs time outside BLAS,
// which run.sh measures by preloading a BLAS whose ?gemm_ does nothing.
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <class Scalar>
void time_product(int n, int repeats, bool noalias) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
  Matrix c(n, n);
  std::vector<double> times;
  for (int r = -1; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (noalias)
      c.noalias() = a * b;
    else
      c = a * b;
    if (r >= 0)
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("%s %s %d %d %d median_ms %.3f min_ms %.3f check %.3g\n", noalias ? "eigen_noalias" : "eigen_A*B",
              sizeof(Scalar) == 8 ? "d" : "s", n, n, n, times[times.size() / 2], times[0],
              double((c.col(0) - a * b.col(0)).norm()));
}

// Usage: eigen_product s|d N[,N...] [repeats] [noalias]
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<int> sizes;
  for (char* s = std::strtok(argv[2], ","); s; s = std::strtok(nullptr, ",")) sizes.push_back(std::atoi(s));
  const bool noalias = argc > 4 && std::strcmp(argv[4], "noalias") == 0;
  for (int n : sizes)
    argv[1][0] == 'd' ? time_product<double>(n, repeats, noalias) : time_product<float>(n, repeats, noalias);
  return 0;
}
