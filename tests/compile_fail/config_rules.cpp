// compile_fail/config_rules: each TILEGEMM_RULE breaks one rule of TileConfig or of a family and must fail to
// compile with that rule's sentence (tests/CMakeLists.txt names it); valid.cpp holds the valid twins.
#include <tilegemm/kernels/families.hpp>

// Each rule a name, so that TILEGEMM_RULE=<name> picks its case.
// clang-format off
#define positive_sizes 1
#define tsm_multiple_of_wptm 2
#define tsn_multiple_of_wptn 3
#define at_most_1024_work_items 4
#define vector_width_values 5
#define tiles_multiple_of_vector_width 6
#define loads_shared_evenly 7
#define naive_family 8
#define local_tiles_family 9
#define wide_types_family 10
#define whole_vectors_along_k 11
#define tensor_vector_width 12
#define tensor_even_blocks 13
#define tensor_warps_tile 14
#define tensor_slice_depth 15
#define tensor_stages 17
#define stages_of_other_families 18
#define tensor_warp_tile 19
#define tensor_spans 20
#define warpgroup_rows 21
#define warpgroup_columns 22
#define warpgroup_slices 23
#define warpgroup_layout 24
#define warpgroup_stages 25
#define staged_stages 26
#define staged_copy_sizes 27
// clang-format on

int main() {
#if TILEGEMM_RULE == positive_sizes
  return tilegemm::TileConfig<64, 64, 0, 4, 4>::threads;
#elif TILEGEMM_RULE == tsm_multiple_of_wptm
  return tilegemm::TileConfig<64, 64, 16, 5, 4>::threads;
#elif TILEGEMM_RULE == tsn_multiple_of_wptn
  return tilegemm::TileConfig<64, 64, 16, 4, 5>::threads;
#elif TILEGEMM_RULE == at_most_1024_work_items
  return tilegemm::TileConfig<64, 64, 16, 1, 2>::threads;
#elif TILEGEMM_RULE == vector_width_values
  return tilegemm::TileConfig<64, 64, 16, 4, 4, 3>::threads;
#elif TILEGEMM_RULE == tiles_multiple_of_vector_width
  return tilegemm::TileConfig<60, 64, 16, 4, 8, 8>::threads;
#elif TILEGEMM_RULE == loads_shared_evenly
  return tilegemm::TileConfig<64, 64, 2, 4, 4>::threads;
#elif TILEGEMM_RULE == naive_family
  return tilegemm::TileConfig<8, 8, 2, 1, 1, 1, tilegemm::Family::naive>::threads;
#elif TILEGEMM_RULE == local_tiles_family
  return tilegemm::TileConfig<16, 16, 8, 1, 1, 1, tilegemm::Family::local_tiles>::threads;
#elif TILEGEMM_RULE == wide_types_family
  return tilegemm::TileConfig<16, 16, 16, 2, 1, 4, tilegemm::Family::wide_types>::threads;
#elif TILEGEMM_RULE == whole_vectors_along_k
  return tilegemm::Prefetch<64, 64, 16, 2, 8, 4>::threads;
#elif TILEGEMM_RULE == tensor_vector_width
  return tilegemm::TileConfig<64, 64, 16, 4, 8, 2, tilegemm::Family::tensor_cores, 2>::threads;
#elif TILEGEMM_RULE == tensor_even_blocks
  return tilegemm::TileConfig<48, 64, 16, 3, 8, 4, tilegemm::Family::tensor_cores, 2>::threads;
#elif TILEGEMM_RULE == tensor_warps_tile
  return tilegemm::TileConfig<64, 64, 16, 16, 8, 4, tilegemm::Family::tensor_cores, 2>::threads;
#elif TILEGEMM_RULE == tensor_slice_depth
  return tilegemm::TensorCores<64, 64, 2, 32, 32, 2>::threads;
#elif TILEGEMM_RULE == tensor_stages
  return tilegemm::TensorCores<64, 64, 16, 32, 32, 1>::threads;
#elif TILEGEMM_RULE == stages_of_other_families
  return tilegemm::TileConfig<64, 64, 16, 4, 4, 4, tilegemm::Family::prefetch, 2>::threads;
#elif TILEGEMM_RULE == tensor_warp_tile
  return tilegemm::TensorCores<64, 64, 16, 24, 32, 2>::threads;
#elif TILEGEMM_RULE == tensor_spans
  return tilegemm::TensorCores<80, 64, 16, 80, 32, 2>::threads;
#elif TILEGEMM_RULE == warpgroup_rows
  return tilegemm::WarpgroupMma<192, 128, 8, 6>::threads;
#elif TILEGEMM_RULE == warpgroup_columns
  return tilegemm::WarpgroupMma<128, 64, 8, 6>::threads;
#elif TILEGEMM_RULE == warpgroup_slices
  return tilegemm::WarpgroupMma<128, 128, 4, 6>::threads;
#elif TILEGEMM_RULE == warpgroup_layout
  return tilegemm::TileConfig<128, 128, 8, 4, 32, 1, tilegemm::Family::warpgroup_mma, 6>::threads;
#elif TILEGEMM_RULE == warpgroup_stages
  return tilegemm::WarpgroupMma<128, 128, 8, 2>::threads;
#elif TILEGEMM_RULE == staged_stages
  return tilegemm::StagedPrefetch<64, 32, 16, 4, 4, 4, 1>::threads;
#elif TILEGEMM_RULE == staged_copy_sizes
  return tilegemm::StagedPrefetch<64, 64, 16, 8, 8, 8, 2>::threads;
#endif
  return 0;
}
