// unit/errors: the cases of test_errors that need no OpenCL device (the unit tier, built by unit_tests).
#include <Eigen/Dense>
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "error_code.hpp"
#include "message_matchers.hpp"
#include "reference.hpp"
#include "uploaded.hpp"

using Eigen::Index;
using tilegemm::Transpose;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;

namespace {

using tilegemm_test::error_code;
using tilegemm_test::no_error;
using tilegemm_test::test_queue;
using tilegemm_test::upload;

// One call of the core tilegemm::gemm on float buffers that is valid as constructed; each test breaks one argument.
struct GemmCall {
  cl::CommandQueue queue = test_queue();
  Transpose trans_a = Transpose::no, trans_b = Transpose::no;
  long long m = 5, n = 6, k = 7;
  Matrix<float> host_a = random_matrix<float>(5, 7), host_b = random_matrix<float>(7, 6),
                host_c = random_matrix<float>(5, 6);
  float alpha = random_scalar<float>(), beta = random_scalar<float>();
  cl::Buffer a = upload(queue, host_a), b = upload(queue, host_b), c = upload(queue, host_c);
  long long a_offset = 0, lda = 5, b_offset = 0, ldb = 7, c_offset = 0, ldc = 5;

  std::vector<cl::Event> wait;

  cl::Event run() const {
    return tilegemm::gemm<float>(queue, trans_a, trans_b, m, n, k, alpha, a, a_offset, lda, b, b_offset, ldb, beta, c,
                                 c_offset, ldc, wait);
  }
  // C as it is in its buffer now.
  Matrix<float> c_now() const {
    Matrix<float> now(5, 6);
    REQUIRE(queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(float) * 30, now.data()) == CL_SUCCESS);
    return now;
  }
};

}  // namespace

TEST_CASE("tilegemm::Error derives from std::runtime_error and carries the OpenCL code", "[unit][errors]") {
  static_assert(std::is_base_of_v<std::runtime_error, tilegemm::Error>, "tilegemm::Error must be a runtime_error");
  const tilegemm::Error error(CL_OUT_OF_RESOURCES, "out of resources");
  CHECK(error.code() == CL_OUT_OF_RESOURCES);
  CHECK(std::string(error.what()) == "out of resources");

  // OpenCL failures name the function and the code.
  CHECK_THROWS_AS(tilegemm::detail::check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel"), tilegemm::Error);
  CHECK_THROWS_WITH(tilegemm::detail::check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel"),
                    CONTAINS_ALL3("clEnqueueNDRangeKernel", "CL_OUT_OF_RESOURCES", "-5"));
  CHECK(error_code([] { tilegemm::detail::check(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer"); }) ==
        CL_MEM_OBJECT_ALLOCATION_FAILURE);
  CHECK(error_code([] { tilegemm::detail::check(CL_SUCCESS, "clFinish"); }) == no_error);
  CHECK(std::string(tilegemm::detail::error_name(CL_BUILD_PROGRAM_FAILURE)) == "CL_BUILD_PROGRAM_FAILURE");
  CHECK(std::string(tilegemm::detail::error_name(CL_PLATFORM_NOT_FOUND_KHR)) == "CL_PLATFORM_NOT_FOUND_KHR");
}
