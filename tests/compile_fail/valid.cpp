// compile_fail/valid: the valid twin of each case in rules.cpp, differing in the one thing that breaks its rule:
// this file must compile, so that a failing case fails for its rule and not for a typo.
#include <tilegemm/tilegemm.hpp>

int main() {
  Eigen::MatrixXf a(4, 4), b(4, 4), c(4, 4);
  int sum = tilegemm::TileConfig<64, 64, 16, 4, 4>::threads;  // positive sizes, TSM % WPTM, TSN % WPTN
  sum += tilegemm::TileConfig<64, 64, 16, 2, 2>::threads;     // 1024 work-items
  sum += tilegemm::TileConfig<64, 64, 16, 4, 4, 4>::threads;  // a vector width of 4
  sum += tilegemm::TileConfig<64, 64, 16, 8, 8, 8>::threads;  // TSM a multiple of VW = 8
  sum += tilegemm::TileConfig<64, 64, 4, 4, 4>::threads;      // TSK * TSM a multiple of the work-items
  sum += tilegemm::TileConfig<8, 8, 1, 1, 1, 1, tilegemm::Family::naive>::threads;
  sum += tilegemm::TileConfig<16, 16, 16, 1, 1, 1, tilegemm::Family::local_tiles>::threads;
  sum += tilegemm::TileConfig<16, 16, 16, 4, 1, 4, tilegemm::Family::wide_types>::threads;
  sum += tilegemm::Prefetch<64, 64, 16, 4, 8, 4>::threads;  // WPTM a multiple of VW
  // tensor_cores: VW 4, even WPTM and WPTN, warps that tile TSM x TSN, TSK a multiple of 4, 2 to 8 stages; WM and
  // WN multiples of 16 and 8; TSM and TSN multiples of 32 (96 x 64 below); other families with one stage
  sum += tilegemm::TileConfig<64, 64, 16, 4, 8, 4, tilegemm::Family::tensor_cores, 2>::threads;
  sum += tilegemm::TileConfig<64, 64, 16, 8, 8, 4, tilegemm::Family::tensor_cores, 2>::threads;
  sum += tilegemm::TensorCores<64, 64, 8, 32, 32, 2>::threads;
  sum += tilegemm::TensorCores<64, 64, 16, 32, 32, 8>::threads;
  sum += tilegemm::TileConfig<64, 64, 16, 4, 4, 4, tilegemm::Family::prefetch, 1>::threads;
  sum += tilegemm::TensorCores<64, 64, 16, 16, 32, 2>::threads;
  sum += tilegemm::TensorCores<96, 64, 16, 96, 32, 2>::threads;
  // warpgroup_mma: TSM 64 or 128, TSN 128 or 256, TSK a multiple of 8, the alias's WPTM, WPTN and VW, 3 to 8 stages
  sum += tilegemm::WarpgroupMma<128, 128, 8, 6>::threads;
  sum += tilegemm::WarpgroupMma<64, 256, 16, 3>::threads;
  sum += tilegemm::TileConfig<128, 128, 8, 2, 32, 1, tilegemm::Family::warpgroup_mma, 8>::threads;
  // staged_prefetch: 2 to 8 stages, vectors of at most 4
  sum += tilegemm::StagedPrefetch<64, 32, 16, 4, 4, 4, 2>::threads;
  sum += tilegemm::StagedPrefetch<64, 64, 16, 8, 8, 4, 8>::threads;
  Eigen::MatrixXd ad(4, 4), cd(4, 4);
  sum += static_cast<int>(tilegemm::gpu_gemm(ad, ad).size());  // a supported scalar, the same on both sides
  tilegemm::gpu_gemm(ad, ad, cd, 1.0, 0.0);                    // C of A's and B's scalar
  Eigen::MatrixXf parent(8, 8);
  tilegemm::gpu_gemm(a, b, parent.block(0, 0, 4, 4), 1.0f, 0.0f);  // a writable C
  Eigen::MatrixXf& writable = c;
  tilegemm::gpu_gemm(a, b, writable, 1.0f, 0.0f);
  sum += static_cast<int>(tilegemm::gpu_gemm<tilegemm::LocalTiles<8>>(a, b).size());  // a TileConfig
  cl::Buffer buffer;
  if (sum < 0) {  // compiled, never run; the scalar named first, then a configuration
    tilegemm::gemm<float, tilegemm::LocalTiles<8>>(tilegemm::default_queue(), tilegemm::Transpose::no,
                                                   tilegemm::Transpose::no, 4, 4, 4, 1, buffer, 0, 4, buffer, 0, 4, 0,
                                                   buffer, 0, 4);
    tilegemm::gemm<float>(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4, 4, 4, 1.0f,
                          buffer, 0, 4, buffer, 0, 4, 0.0f, buffer, 0, 4);
    Eigen::half ah[16], bh[16];  // A and B of one element type (mixed_inputs)
    float cf[16];
    tilegemm::gemm<Eigen::half, float>(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 4,
                                       4, 4, 1.0f, ah, 4, bh, 4, 0.0f, cf, 4);
  }
  return sum;
}
