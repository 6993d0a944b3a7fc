// compile_fail/sixteen_bit_valid: the valid twin of each case in sixteen_bit_rules.cpp, differing in the one thing that
// breaks its rule: this file must compile, so that a failing case fails for its rule and not for a typo.
#include <tilegemm/tilegemm.hpp>
#include <vector>

using Half = Eigen::Matrix<Eigen::half, Eigen::Dynamic, Eigen::Dynamic>;
using Bfloat16 = Eigen::Matrix<Eigen::bfloat16, Eigen::Dynamic, Eigen::Dynamic>;

int main() {
  Half a(4, 4), b(4, 4);
  Bfloat16 bb(4, 4);
  long long sum = tilegemm::gpu_gemm(a, b).eval().size();  // half with half
  sum += tilegemm::gpu_gemm(bb, bb).eval().size();         // bfloat16 with bfloat16
  Eigen::MatrixXf cf(4, 4);
  tilegemm::gpu_gemm(a, b, cf, 1.0f, 0.0f);                                  // a float C
  tilegemm::gpu_gemm(a, b, a, 1.0f, 0.0f);                                   // a C of the input type
  sum += tilegemm::gpu_gemm<tilegemm::AutoConfig>(a, b).eval().size();       // the configuration chosen
  sum += tilegemm::gpu_gemm(tilegemm::default_queue(), a, b).eval().size();  // one queue
  tilegemm::DeviceMatrix<Eigen::half> da;
  tilegemm::DeviceMatrix<float> df;
  sum += tilegemm::gpu_gemm(da, da).size();
  tilegemm::gpu_gemm(da, da, df, 1.0f, 0.0f);
  std::vector<Half> va(2, a);
  std::vector<Eigen::MatrixXf> vc(2, Eigen::MatrixXf(4, 4));
  tilegemm::gpu_gemm_batched(va, va, vc, 1.0f, 0.0f);
  return static_cast<int>(sum);
}
