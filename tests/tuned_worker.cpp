// tuned_worker: test_tuner's second process: one gpu_gemm with AutoConfig on fresh random operands of the size given
// (argv[1] argv[2] argv[3]), checked against a double-precision reference; TILEGEMM_VERBOSE, TILEGEMM_TUNED and
// TILEGEMM_CACHE_DIR come from its environment. Prints "ok" and exits 0 when the product is right.
#include <cstdio>
#include <cstdlib>
#include <tilegemm/tilegemm.hpp>

#include "reference.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  using tilegemm_test::Matrix;
  const Matrix<float> a = tilegemm_test::random_matrix<float>(m, k), b = tilegemm_test::random_matrix<float>(k, n);
  Matrix<float> c = Matrix<float>::Constant(m, n, tilegemm_test::poison<float>());
  tilegemm::gpu_gemm(a, b, c, 1.0f, 0.0f);
  const std::string problem = tilegemm_test::compare_with_reference<float>(c, 1.0, a, b, 0.0, c);
  std::printf("%s\n", problem.empty() ? "ok" : problem.c_str());
  return problem.empty() ? 0 : 1;
}
