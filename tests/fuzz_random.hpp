// fuzz_random: the fuzz sweep's random choices, all drawn from tilegemm_test::generator(): sizes weighted toward
// the edges of tiles, alpha and beta, and where an operand lies in its buffer.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <random>

#include "reference.hpp"

namespace tilegemm_fuzz {

inline int uniform_int(int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(tilegemm_test::generator());
}

inline double uniform01() { return std::uniform_real_distribution<double>(0, 1)(tilegemm_test::generator()); }

inline bool chance(double probability) { return std::bernoulli_distribution(probability)(tilegemm_test::generator()); }

template <class T>
T one_of(std::initializer_list<T> values) {
  return *(values.begin() + uniform_int(0, static_cast<int>(values.size()) - 1));
}

// M, N or K: mostly tiny, so that PoCL runs many products a second, with extra weight on the sizes where kernels
// go wrong: 0, 1, small primes, and one off a multiple of the tiles (16, 32, 64, 128) or of a vector.
inline int draw_size() {
  const double u = uniform01();
  if (u < 0.15) return one_of({0, 1, 1, 2, 3, 5, 7, 11, 13});
  if (u < 0.40) return one_of({4, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129});
  if (u < 0.95) return uniform_int(1, 40);
  return uniform_int(41, 300);
}

// A size just past a multiple of a large tile, as the default plan for a GPU leaves thin strips beside: 64 to 80,
// 128 to 144, 192 to 208 or 256 to 272.
inline int draw_size_near_large_tiles() {
  const int multiple = one_of({64, 128, 192, 256});
  return multiple + (chance(0.3) ? 0 : uniform_int(1, 16));
}

// Sizes of whole tiles (of 32, 64 or 128 along M and N, 16 along K), so that the kernels that read either layout
// meet operands they take whole, when offsets and leading dimensions are whole vectors too.
inline int draw_whole_tiles_size() { return one_of({32, 64, 96, 128, 256}); }
inline int draw_whole_tiles_depth() { return one_of({16, 32, 48, 64, 128}); }

// A long K (2048 to 4096) with M and N small: the shape that split-K is for.
inline int draw_long_k() { return uniform_int(2048, 4096); }
inline int draw_size_beside_long_k() { return chance(0.5) ? uniform_int(1, 16) : draw_size() % 65; }

// alpha or beta: 0, 1, -1 or a random value in +-[0.25, 2], with the given weight on 0.
inline double draw_scale(double weight_of_zero) {
  const double u = uniform01();
  if (u < weight_of_zero) return 0;
  if (u < weight_of_zero + 0.3) return 1;
  if (u < weight_of_zero + 0.45) return -1;
  return tilegemm_test::random_scalar<double>();
}

// Where a rows x cols column-major operand lies in its buffer, in elements: its first element, its leading
// dimension, and how many elements follow its last column.
struct Placement {
  int offset = 0;
  int ld = 1;
  int tail = 0;

  int buffer_elements(int rows, int cols) const {
    return std::max(1, offset + ld * std::max(cols - 1, 0) + rows + tail);
  }
};

// Offsets and leading dimensions both whole vectors (so that the kernels that read either layout take the operand
// in place a vector at a time) and not, tight and padded; with `whole_vectors` always whole vectors of 4.
inline Placement draw_placement(int rows, bool whole_vectors = false) {
  Placement p;
  const int tight = std::max(rows, 1);
  const double u = uniform01() * (whole_vectors ? 0.7 : 1);
  p.offset = u < 0.4 ? 0 : u < 0.7 ? 4 * uniform_int(1, 8) : uniform_int(1, 37);
  const double v = uniform01() * (whole_vectors ? 0.7 : 1);
  p.ld = v < 0.4 && (!whole_vectors || tight % 4 == 0) ? tight
         : v < 0.7                                     ? (tight + 3) / 4 * 4 + 4 * uniform_int(0, 2)
                                                       : tight + uniform_int(1, 13);
  p.tail = uniform_int(0, 9);
  return p;
}

}  // namespace tilegemm_fuzz
