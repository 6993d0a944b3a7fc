// test_clhpp_exceptions: with CL_HPP_ENABLE_EXCEPTIONS defined before the include, failures still reach the user
// as tilegemm::Error with tilegemm's messages (device lists, build logs), and products still work.
#define CL_HPP_ENABLE_EXCEPTIONS
#include <tilegemm/tilegemm.hpp>

#include "catch.hpp"
#include "reference.hpp"

namespace {

// Runs `call`, expecting a tilegemm::Error, and returns it.
template <class Call>
tilegemm::Error error_from(Call&& call) {
  try {
    call();
  } catch (const tilegemm::Error& e) {
    return e;
  }
  FAIL("expected a tilegemm::Error");
  return tilegemm::Error(CL_SUCCESS, "");
}

}  // namespace

TEST_CASE("with CLHPP exceptions, an unknown device is a tilegemm::Error listing the devices", "[exceptions][slow]") {
  const tilegemm::Error e = error_from([] { tilegemm::find_device("no such device, surely"); });
  CHECK(e.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(e.what()).find(tilegemm::list_devices().front().label()) != std::string::npos);
}

TEST_CASE("with CLHPP exceptions, a program that does not compile gives its build log", "[exceptions][slow]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const tilegemm::detail::ProgramText broken = tilegemm::detail::program_text(
      "broken", {tilegemm::detail::piece("__kernel void broken() { this is not OpenCL C; } // clhpp exceptions test")});
  const tilegemm::Error e = error_from([&] {
    tilegemm::ProgramCache::instance().program(queue.getInfo<CL_QUEUE_CONTEXT>(), queue.getInfo<CL_QUEUE_DEVICE>(),
                                               broken);
  });
  CHECK(e.code() == CL_BUILD_PROGRAM_FAILURE);
  const std::string message = e.what();
  CHECK(message.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos);
  CHECK(message.find("Build log:") != std::string::npos);
  CHECK(message.size() > message.find("Build log:") + 20);  // the log itself is there, not just its heading
}

TEST_CASE("with CLHPP exceptions, products are still right", "[exceptions][slow]") {
  const auto a = tilegemm_test::random_matrix<float>(65, 33), b = tilegemm_test::random_matrix<float>(33, 17);
  const Eigen::MatrixXf c = tilegemm::gpu_gemm(a, b);
  const Eigen::MatrixXf none = Eigen::MatrixXf::Constant(65, 17, tilegemm_test::poison<float>());
  CHECK(tilegemm_test::compare_with_reference<float>(c, 1.0, a, b, 0.0, none) == "");
}
