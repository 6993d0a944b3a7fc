// disk_cache_worker: the second process of test_disk_cache. `products N` multiplies with N programs (1 to 4) and
// prints how many it compiled and loaded from disk; `write FILE SEED COUNT` writes a cache file COUNT times.
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "reference.hpp"

namespace {

using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

// Products with Naive<3, 5>, a configuration test_program_cache builds too, in `programs` transpose combinations
// (one program each). Returns how many were wrong.
int multiply(int programs) {
  int wrong = 0;
  for (int combination = 0; combination < programs; ++combination) {
    const bool trans_a = combination & 1, trans_b = combination & 2;
    const Matrix<float> a = trans_a ? random_matrix<float>(9, 13) : random_matrix<float>(13, 9);
    const Matrix<float> b = trans_b ? random_matrix<float>(11, 9) : random_matrix<float>(9, 11);
    const Matrix<float> op_a = trans_a ? Matrix<float>(a.transpose()) : a;
    const Matrix<float> op_b = trans_b ? Matrix<float>(b.transpose()) : b;
    Matrix<float> c = Matrix<float>::Constant(13, 11, tilegemm_test::poison<float>());
    using Config = tilegemm::Naive<3, 5>;
    if (trans_a && trans_b) {
      tilegemm::gpu_gemm<Config>(a.transpose(), b.transpose(), c, 1.0f, 0.0f);
    } else if (trans_a) {
      tilegemm::gpu_gemm<Config>(a.transpose(), b, c, 1.0f, 0.0f);
    } else if (trans_b) {
      tilegemm::gpu_gemm<Config>(a, b.transpose(), c, 1.0f, 0.0f);
    } else {
      tilegemm::gpu_gemm<Config>(a, b, c, 1.0f, 0.0f);
    }
    const std::string problem = tilegemm_test::compare_with_reference<float>(c, 1, op_a, op_b, 0, c);
    if (!problem.empty()) {
      std::fprintf(stderr, "wrong product (transposes %d, %d): %s\n", trans_a, trans_b, problem.c_str());
      ++wrong;
    }
  }
  return wrong;
}

// Writes FILE `count` times with entries of varying sizes made from `seed`, as fast as it can.
void write(const std::string& file, unsigned seed, int count) {
  for (int i = 0; i < count; ++i) {
    tilegemm::detail::CacheEntry entry{"writer " + std::to_string(seed), {}};
    entry.binary.assign(1000 + (seed * 7919 + static_cast<unsigned>(i) * 104729) % 50000,
                        static_cast<unsigned char>(seed + i));
    const std::string problem =
        tilegemm::detail::cache_file::write_atomically(file, tilegemm::detail::cache_file::encode(entry));
    if (!problem.empty()) throw std::runtime_error(problem);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "products") {
    const int wrong = multiply(std::stoi(args[1]));
    std::printf("built=%zu loaded=%zu\n", tilegemm::programs_built(), tilegemm::programs_loaded_from_disk());
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  }
  if (args.size() == 4 && args[0] == "write") {
    write(args[1], static_cast<unsigned>(std::stoul(args[2])), std::stoi(args[3]));
    return EXIT_SUCCESS;
  }
  std::fprintf(stderr, "usage: %s products N | write FILE SEED COUNT\n", argv[0]);
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return EXIT_FAILURE;
}
