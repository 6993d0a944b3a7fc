// test_small_devices: the default configuration on whatever work-group size the device allows. CMake runs these
// cases again with PoCL limited to 128, 64 and 8 work-items per group (POCL_MAX_WORK_GROUP_SIZE), where every
// helper kernel (packing, C = beta * C, split-K's sum) must fit as well as the product's.
#include <Eigen/Dense>
#include <tilegemm/tilegemm.hpp>

#include "catch.hpp"
#include "reference.hpp"

using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;

namespace {

template <class S>
void check_default_products() {
  const cl::CommandQueue queue = tilegemm::default_queue();
  INFO("work-groups of at most " << tilegemm::detail::CallContext::of(queue).limits.max_work_group_size
                                 << " work-items");
  struct Shape {
    Eigen::Index m, n, k;
  };
  for (const Shape s : {Shape{1, 1, 1}, Shape{61, 129, 7}, Shape{300, 200, 100}, Shape{17, 33, 1500}}) {
    INFO(s.m << "x" << s.n << "x" << s.k);
    const Matrix<S> a = random_matrix<S>(s.m, s.k), b = random_matrix<S>(s.k, s.n);
    const Matrix<S> c = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<S>(c, 1, a, b, 0, c) == "");
    const Matrix<S> at = a.transpose();
    const Matrix<S> c0 = random_matrix<S>(s.m, s.n);
    Matrix<S> c1 = c0;
    const S alpha = random_scalar<S>(), beta = random_scalar<S>();
    tilegemm::gpu_gemm(at.transpose(), b, c1, alpha, beta);
    CHECK(compare_with_reference<S>(c1, alpha, a, b, beta, c0) == "");
  }
  // k = 0 and alpha = 0: C = beta * C by the support kernels; beta = 0 ignores NaN in C.
  const Matrix<S> c0 = random_matrix<S>(37, 21);
  Matrix<S> c = c0;
  const S beta = random_scalar<S>();
  tilegemm::gpu_gemm(random_matrix<S>(37, 5), random_matrix<S>(5, 21), c, S(0), beta);
  CHECK(compare_with_reference<S>(c, 0, random_matrix<S>(37, 5), random_matrix<S>(5, 21), beta, c0) == "");
  c.setConstant(poison<S>());
  tilegemm::gpu_gemm(random_matrix<S>(37, 0), random_matrix<S>(0, 21), c, S(1), S(0));
  CHECK(c.isZero());
}

}  // namespace

TEMPLATE_TEST_CASE("the default configuration fits the device's work-groups", "[small_groups]", float, double) {
  check_default_products<TestType>();
}
