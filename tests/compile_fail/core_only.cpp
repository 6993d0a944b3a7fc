// compile_fail/core_only: core.hpp alone, with the host floor, must compile without Eigen on the include path (the
// BLAS drop-in and core.hpp users need no Eigen).
#include <tilegemm/core.hpp>
#ifdef EIGEN_CORE_H
#error "core.hpp included Eigen"
#endif

int main() {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};
  if (a[0] < 0) {  // compiled, never run: the host floor named and deduced, blocking and not
    tilegemm::gemm<float>(tilegemm::Transpose::no, tilegemm::Transpose::no, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
    tilegemm::gemm(tilegemm::Transpose::no, tilegemm::Transpose::yes, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
    tilegemm::gemm_async<float>(tilegemm::default_queue(), tilegemm::Transpose::no, tilegemm::Transpose::no, 2, 2, 2, 1,
                                a, 2, b, 2, 0, c, 2)
        .get();
  }
  return 0;
}
