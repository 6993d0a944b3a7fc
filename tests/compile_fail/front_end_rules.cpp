// compile_fail/front_end_rules: each TILEGEMM_RULE misuses gemm or gpu_gemm at compile time and must fail to
// compile with that rule's sentence (tests/CMakeLists.txt names it); valid.cpp holds the valid twins.
#include <tilegemm/tilegemm.hpp>

// Each rule a name, so that TILEGEMM_RULE=<name> picks its case.
// clang-format off
#define supported_scalar 1
#define same_scalars 2
#define scalar_of_c 3
#define writable_c 4
#define const_c 5
#define config_argument 6
#define buffer_scalar 7
#define scalar_before_config 8
#define scalar_not_named 9
#define batched_scalar_not_named 10
#define mixed_inputs 11
// clang-format on

int main() {
  Eigen::MatrixXf a(4, 4), b(4, 4), c(4, 4);
#if TILEGEMM_RULE == supported_scalar
  Eigen::MatrixXi ai(4, 4);
  return static_cast<int>(tilegemm::gpu_gemm(ai, ai).size());
#elif TILEGEMM_RULE == same_scalars
  Eigen::MatrixXd ad(4, 4);
  return static_cast<int>(tilegemm::gpu_gemm(a, ad).size());
#elif TILEGEMM_RULE == scalar_of_c
  Eigen::MatrixXd cd(4, 4);
  tilegemm::gpu_gemm(a, b, cd, 1.0f, 0.0f);
#elif TILEGEMM_RULE == writable_c
  const Eigen::MatrixXf parent(8, 8);
  tilegemm::gpu_gemm(a, b, parent.block(0, 0, 4, 4), 1.0f, 0.0f);
#elif TILEGEMM_RULE == const_c
  const Eigen::MatrixXf& read_only = c;
  tilegemm::gpu_gemm(a, b, read_only, 1.0f, 0.0f);
#elif TILEGEMM_RULE == config_argument
  return static_cast<int>(tilegemm::gpu_gemm<int>(a, b).size());
#elif TILEGEMM_RULE == buffer_scalar
  cl::Buffer buffer;
  tilegemm::gemm<int>(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4, 4, 4, 1, buffer,
                      0, 4, buffer, 0, 4, 0, buffer, 0, 4);
#elif TILEGEMM_RULE == scalar_before_config
  cl::Buffer buffer;
  tilegemm::gemm<tilegemm::LocalTiles<8> >(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no,
                                           4, 4, 4, 1.0f, buffer, 0, 4, buffer, 0, 4, 0.0f, buffer, 0, 4);
#elif TILEGEMM_RULE == scalar_not_named
  cl::Buffer buffer;
  tilegemm::gemm(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4, 4, 4, 1.0f, buffer, 0,
                 4, buffer, 0, 4, 0.0f, buffer, 0, 4);
#elif TILEGEMM_RULE == batched_scalar_not_named
  cl::Buffer buffer;
  tilegemm::gemm_strided_batched(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4, 4, 4,
                                 1.0f, buffer, 0, 4, 16, buffer, 0, 4, 16, 0.0f, buffer, 0, 4, 16, 2);
#elif TILEGEMM_RULE == mixed_inputs
  Eigen::half ah[16];
  float bf[16], cf[16];
  tilegemm::gemm(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4, 4, 4, 1.0f, ah, 4, bf,
                 4, 0.0f, cf, 4);
#endif
  return 0;
}
