// compile_time/gpu_gemm_both_scalars: a translation unit a user writes: gpu_gemm in float and double with the default
// configuration. .ci/compile-time times how long g++ -O2 takes to compile it.
#include <tilegemm/tilegemm.hpp>

int main() {
  const Eigen::MatrixXf af = Eigen::MatrixXf::Random(64, 64);
  const Eigen::MatrixXd ad = Eigen::MatrixXd::Random(64, 64);
  const Eigen::MatrixXf cf = tilegemm::gpu_gemm(af, af);
  const Eigen::MatrixXd cd = tilegemm::gpu_gemm(ad, ad);
  return cf(0, 0) > cd(0, 0) ? 1 : 0;
}
