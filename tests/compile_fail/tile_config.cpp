// compile_fail/tile_config: must NOT compile: a TileConfig whose TSM is no multiple of WPTM is rejected.
#include <tilegemm/tilegemm.hpp>

int main() { return tilegemm::TileConfig<64, 64, 16, 5, 4>::threads; }
