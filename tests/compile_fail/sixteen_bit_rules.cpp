// compile_fail/sixteen_bit_rules: each TILEGEMM_RULE misuses the Eigen front end's Eigen::half and Eigen::bfloat16
// forms and must fail to compile with that rule's sentence (tests/CMakeLists.txt names it); sixteen_bit_valid.cpp
// holds the valid twins.
#include <tilegemm/tilegemm.hpp>
#include <vector>

// Each rule a name, so that TILEGEMM_RULE=<name> picks its case.
// clang-format off
#define half_with_float 1
#define half_with_bfloat16 2
#define sixteen_bit_c 3
#define sixteen_bit_config 4
#define sixteen_bit_queues 5
#define device_half_with_float 6
#define device_sixteen_bit_c 7
#define batched_sixteen_bit_c 8
// clang-format on

using Half = Eigen::Matrix<Eigen::half, Eigen::Dynamic, Eigen::Dynamic>;
using Bfloat16 = Eigen::Matrix<Eigen::bfloat16, Eigen::Dynamic, Eigen::Dynamic>;

int main() {
  Half a(4, 4), b(4, 4);
#if TILEGEMM_RULE == half_with_float
  Eigen::MatrixXf bf(4, 4);
  return static_cast<int>(tilegemm::gpu_gemm(a, bf).size());
#elif TILEGEMM_RULE == half_with_bfloat16
  Bfloat16 bb(4, 4);
  return static_cast<int>(tilegemm::gpu_gemm(a, bb).size());
#elif TILEGEMM_RULE == sixteen_bit_c
  Eigen::MatrixXd cd(4, 4);
  tilegemm::gpu_gemm(a, b, cd, 1.0f, 0.0f);
#elif TILEGEMM_RULE == sixteen_bit_config
  return static_cast<int>(tilegemm::gpu_gemm<tilegemm::LocalTiles<8> >(a, b).size());
#elif TILEGEMM_RULE == sixteen_bit_queues
  return static_cast<int>(tilegemm::gpu_gemm(std::vector<cl::CommandQueue>{}, a, b).size());
#elif TILEGEMM_RULE == device_half_with_float
  tilegemm::DeviceMatrix<Eigen::half> da;
  tilegemm::DeviceMatrix<float> df;
  return static_cast<int>(tilegemm::gpu_gemm(da, df).size());
#elif TILEGEMM_RULE == device_sixteen_bit_c
  tilegemm::DeviceMatrix<Eigen::half> da;
  tilegemm::DeviceMatrix<Eigen::bfloat16> dc;
  tilegemm::gpu_gemm(da, da, dc, 1.0f, 0.0f);
#elif TILEGEMM_RULE == batched_sixteen_bit_c
  std::vector<Half> va(2, a);
  std::vector<Eigen::MatrixXd> vc(2, Eigen::MatrixXd(4, 4));
  tilegemm::gpu_gemm_batched(va, va, vc, 1.0f, 0.0f);
#endif
  return 0;
}
