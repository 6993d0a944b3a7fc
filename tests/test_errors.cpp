// test_errors: each error path throws the documented exception (invalid_argument, tilegemm::Error) and message.
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

cl::Buffer buffer_of(const cl::Context& context, std::size_t bytes) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  return buffer;
}

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

TEST_CASE("gpu_gemm with mismatched shapes throws std::invalid_argument naming both shapes", "[errors]") {
  const Matrix<float> a = random_matrix<float>(3, 4), b = random_matrix<float>(5, 6);
  CHECK_THROWS_AS(tilegemm::gpu_gemm(a, b), std::invalid_argument);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, b), CONTAINS_ALL2("3x4", "5x6"));

  const Matrix<double> ad = random_matrix<double>(3, 4), bd = random_matrix<double>(5, 6);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(ad.transpose(), bd), CONTAINS_ALL2("4x3", "5x6"));

  SECTION("in place, a C of the wrong shape") {
    const Matrix<float> b46 = random_matrix<float>(4, 6);
    Matrix<float> c = random_matrix<float>(3, 5);
    const Matrix<float> c0 = c;
    CHECK_THROWS_AS(tilegemm::gpu_gemm(a, b46, c, 1.0f, 0.0f), std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, b46, c, 1.0f, 0.0f), CONTAINS_ALL2("3x5", "3x6"));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, b46, c, 1.0f, 0.0f), CONTAINS_ALL2("3x4", "4x6"));
    CHECK((c.array() == c0.array()).all());  // C is left alone

    Matrix<float> wrong_rows = random_matrix<float>(2, 6);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, b46, wrong_rows, 1.0f, 1.0f), CONTAINS_ALL2("2x6", "3x6"));
  }
  SECTION("in place, A and B that do not fit") {
    Matrix<float> c = random_matrix<float>(3, 6);
    CHECK_THROWS_AS(tilegemm::gpu_gemm(a, b, c, 1.0f, 0.0f), std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(a, b, c, 1.0f, 0.0f), CONTAINS_ALL2("3x4", "5x6"));
  }
  SECTION("the queue form and an explicit configuration check shapes too") {
    const cl::CommandQueue queue = test_queue();
    CHECK_THROWS_WITH(tilegemm::gpu_gemm(queue, a, b), CONTAINS_ALL2("3x4", "5x6"));
    CHECK_THROWS_WITH(tilegemm::gpu_gemm<tilegemm::LocalTiles<8>>(a, b), CONTAINS_ALL2("3x4", "5x6"));
  }
}

TEST_CASE("the core gemm on cl::Buffers accepts valid arguments (the baseline the error tests break)", "[errors]") {
  const GemmCall call;
  const cl::Event done = call.run();
  Matrix<float> result(5, 6);
  const std::vector<cl::Event> wait{done};
  REQUIRE(call.queue.enqueueReadBuffer(call.c, CL_TRUE, 0, sizeof(float) * 30, result.data(), &wait) == CL_SUCCESS);
  CHECK(compare_with_reference<float>(result, call.alpha, call.host_a, call.host_b, call.beta, call.host_c) == "");
}

TEST_CASE("the core gemm rejects negative or oversized m, n and k", "[errors]") {
  GemmCall call;
  call.m = -1;
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("must not be negative", "m = -1"));
  call.m = 5;
  call.n = -2;
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("must not be negative", "n = -2"));
  call.n = 6;
  call.k = -3;
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("must not be negative", "k = -3"));
  call.k = static_cast<long long>(INT_MAX) + 1;
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("32-bit"));
}

TEST_CASE("the core gemm rejects negative offsets", "[errors]") {
  GemmCall call;
  call.a_offset = -1;
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("offset of A", "must not be negative"));
  call.a_offset = 0;
  call.b_offset = -4;
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("offset of B", "-4"));
  call.b_offset = 0;
  call.c_offset = -2;
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("offset of C", "-2"));
}

TEST_CASE("the core gemm rejects leading dimensions smaller than the stored rows", "[errors]") {
  GemmCall call;
  SECTION("lda") {
    call.lda = 4;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of A is 4", "5 rows"));
  }
  SECTION("lda of a transposed A counts k rows") {
    call.trans_a = Transpose::yes;  // A is stored 7 x 5
    call.lda = 6;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of A is 6", "7 rows"));
  }
  SECTION("ldb") {
    call.ldb = 6;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of B is 6", "7 rows"));
  }
  SECTION("ldb of a transposed B counts n rows") {
    call.trans_b = Transpose::yes;  // B is stored 6 x 7, in a buffer of 42 elements
    call.ldb = 5;
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of B is 5", "6 rows"));
  }
  SECTION("ldc") {
    call.ldc = 4;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of C is 4", "5 rows"));
  }
  SECTION("zero") {
    call.ldc = 0;
    CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("leading dimension of C is 0"));
  }
}

TEST_CASE("the core gemm rejects buffers too small for the operands they hold", "[errors]") {
  GemmCall call;
  const cl::Context context = call.queue.getInfo<CL_QUEUE_CONTEXT>();
  SECTION("A one element short") {
    call.a = buffer_of(context, sizeof(float) * 34);
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer A holds 34 elements", "needs 35"));
  }
  SECTION("B with an offset that runs past its end") {
    call.b_offset = 1;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer B holds 42 elements", "needs 43"));
  }
  SECTION("C with a leading dimension that runs past its end") {
    call.ldc = 6;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer C holds 30 elements", "needs 35"));
  }
  SECTION("float buffers passed as double") {
    CHECK_THROWS_AS(tilegemm::gemm<double>(call.queue, Transpose::no, Transpose::no, 5, 6, 7, 1.0, call.a, 0, 5, call.b,
                                           0, 7, 0.0, call.c, 0, 5),
                    std::invalid_argument);
    CHECK_THROWS_WITH(tilegemm::gemm<double>(call.queue, Transpose::no, Transpose::no, 5, 6, 7, 1.0, call.a, 0, 5,
                                             call.b, 0, 7, 0.0, call.c, 0, 5),
                      CONTAINS_ALL2("buffer A holds 17 elements", "needs 35"));
  }
  SECTION("a span beyond 32-bit indexing") {
    call.lda = INT_MAX;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("A spans", "32-bit"));
  }
  SECTION("a null buffer") {
    call.c = cl::Buffer();
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("null cl::Buffer"));
  }
}

TEST_CASE("the core gemm rejects a buffer from another cl::Context", "[errors]") {
  GemmCall call;
  const cl::Device device = call.queue.getInfo<CL_QUEUE_DEVICE>();
  cl_int status = CL_SUCCESS;
  const cl::Context other(device, nullptr, nullptr, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  SECTION("A") {
    call.a = buffer_of(other, sizeof(float) * 35);
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer A", "another OpenCL context"));
  }
  SECTION("B") {
    call.b = buffer_of(other, sizeof(float) * 42);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer B", "another OpenCL context"));
  }
  SECTION("C") {
    call.c = buffer_of(other, sizeof(float) * 30);
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("buffer C", "another OpenCL context"));
  }
}

TEST_CASE("a TileConfig needing more local memory than the device has throws tilegemm::Error", "[errors]") {
  // 8192 * (64 + 64) elements of local memory: 4 MiB in float, 8 MiB in double, more than any device has (PoCL: 2 MiB);
  // 64 work-items, so the work-group check passes everywhere.
  using TooMuchLocal = tilegemm::TileConfig<64, 64, 8192, 8, 8>;
  static_assert(TooMuchLocal::threads == 64, "the work-group must be small");
  const tilegemm::DeviceEntry entry = tilegemm::find_device("");
  const auto& limits = tilegemm::detail::device_limits(entry.device);
  REQUIRE(TooMuchLocal::local_memory_elements * sizeof(float) > limits.local_memory_bytes);
  const Matrix<float> a = random_matrix<float>(70, 9), b = random_matrix<float>(9, 65);
  CHECK(error_code([&] { (void)tilegemm::gpu_gemm<TooMuchLocal>(a, b).eval(); }) == CL_OUT_OF_RESOURCES);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm<TooMuchLocal>(a, b).eval(),
                    CONTAINS_ALL3("local memory", TooMuchLocal::name(), std::to_string(limits.local_memory_bytes)));
  CHECK_THROWS_WITH(tilegemm::gpu_gemm<TooMuchLocal>(a, b).eval(), MESSAGE_CONTAINS(limits.name));

  const Matrix<double> ad = random_matrix<double>(70, 9), bd = random_matrix<double>(9, 65);
  Matrix<double> cd = random_matrix<double>(70, 65);
  CHECK(error_code([&] { tilegemm::gpu_gemm<TooMuchLocal>(ad, bd, cd, 1.0, 1.0); }) == CL_OUT_OF_RESOURCES);

  // The core gemm checks the same before enqueueing anything.
  GemmCall call;
  CHECK(error_code([&] {
          tilegemm::gemm<float, TooMuchLocal>(call.queue, Transpose::no, Transpose::no, 5, 6, 7, 1.0f, call.a, 0, 5,
                                              call.b, 0, 7, 0.0f, call.c, 0, 5);
        }) == CL_OUT_OF_RESOURCES);
}

TEST_CASE("a TileConfig needing more work-items than the device allows throws tilegemm::Error", "[errors]") {
  // TileConfig's static_assert caps work-groups at 1024 work-items and PoCL allows 4096, so on PoCL no configuration
  // that compiles exceeds the limit through gpu_gemm: the check is exercised on a device description with tighter
  // limits, and through gpu_gemm only where the device allows fewer than 1024.
  tilegemm::detail::DeviceLimits small;
  small.name = "a small test device";
  small.max_work_group_size = 256;
  small.max_work_item_sizes = {256, 256, 64};
  small.local_memory_bytes = 32768;
  CHECK(error_code([&] { tilegemm::detail::check_work_group(small, "test 32x32", 32, 32, 1024, 32768); }) ==
        CL_INVALID_WORK_GROUP_SIZE);
  CHECK_THROWS_WITH(tilegemm::detail::check_work_group(small, "test 32x32", 32, 32, 1024, 32768),
                    CONTAINS_ALL3("32 x 32", "256", "a small test device"));
  CHECK(error_code([&] { tilegemm::detail::check_work_group(small, "test 512x1", 512, 1, 1024, 32768); }) ==
        CL_INVALID_WORK_GROUP_SIZE);  // one dimension too large
  CHECK(error_code([&] { tilegemm::detail::check_work_group(small, "test 16x16", 16, 16, 32768, 32768); }) == no_error);
  CHECK(error_code([&] { tilegemm::detail::check_work_group(small, "test 16x16", 16, 16, 32769, 32768); }) ==
        CL_OUT_OF_RESOURCES);

  // A real 1024-work-item configuration: where the device (or the compiled kernel) allows fewer, tilegemm::Error with
  // CL_INVALID_WORK_GROUP_SIZE; where it allows them (PoCL), a correct result.
  using Wide = tilegemm::RegisterBlocking<32, 32, 32, 1, 1>;
  static_assert(Wide::threads == 1024, "the configuration must use 1024 work-items");
  const Matrix<float> a = random_matrix<float>(40, 33), b = random_matrix<float>(33, 35);
  const tilegemm::DeviceEntry entry = tilegemm::find_device("");
  const auto& limits = tilegemm::detail::device_limits(entry.device);
  Matrix<float> c;
  const cl_int code = error_code([&] { c = tilegemm::gpu_gemm<Wide>(a, b); });
  if (limits.max_work_group_size < 1024) {
    CHECK(code == CL_INVALID_WORK_GROUP_SIZE);
    CHECK_THROWS_WITH(tilegemm::gpu_gemm<Wide>(a, b).eval(), CONTAINS_ALL2("work-items", "32 x 32"));
  } else if (code == no_error) {
    CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
  } else {
    CHECK(code == CL_INVALID_WORK_GROUP_SIZE);
  }
}

TEST_CASE("find_device with a name that matches nothing throws tilegemm::Error listing the devices", "[errors]") {
  const std::vector<tilegemm::DeviceEntry> devices = tilegemm::list_devices();
  REQUIRE(!devices.empty());
  CHECK_THROWS_AS(tilegemm::find_device("no-such-device-xyz"), tilegemm::Error);
  CHECK(error_code([] { tilegemm::find_device("no-such-device-xyz"); }) == CL_DEVICE_NOT_FOUND);
  CHECK_THROWS_WITH(tilegemm::find_device("no-such-device-xyz"), MESSAGE_CONTAINS("no-such-device-xyz"));
  for (const tilegemm::DeviceEntry& device : devices) {
    INFO("device " << device.label());
    CHECK_THROWS_WITH(tilegemm::find_device("no-such-device-xyz"),
                      CONTAINS_ALL3(device.device_name, device.platform_name, device.label()));
  }
}

TEST_CASE("a program that fails to build throws tilegemm::Error with the build log, on every try", "[errors]") {
  const cl::CommandQueue queue = test_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  // Not a kernel family: a source that cannot compile, whose key no real program has.
  const tilegemm::detail::ProgramText broken = tilegemm::detail::program_text(
      "broken_kernel",
      {tilegemm::detail::piece("#define BROKEN 1\n"),
       tilegemm::detail::piece("__kernel void broken_kernel(__global float* x) { x[0] = undeclared; }")});
  const std::size_t built = tilegemm::programs_built();
  for (int attempt = 0; attempt < 2; ++attempt) {
    INFO("attempt " << attempt);
    CHECK(error_code([&] { tilegemm::ProgramCache::instance().program(context, device, broken); }) ==
          CL_BUILD_PROGRAM_FAILURE);
    CHECK_THROWS_WITH(tilegemm::ProgramCache::instance().program(context, device, broken),
                      CONTAINS_ALL3("broken_kernel", "CL_BUILD_PROGRAM_FAILURE", "Build log"));
    CHECK_THROWS_WITH(tilegemm::ProgramCache::instance().program(context, device, broken),
                      CONTAINS_ALL2("undeclared", "#define BROKEN 1"));
  }
  CHECK(tilegemm::programs_built() == built);
}

TEST_CASE("double precision needs fp64, which tilegemm reads from the device", "[errors]") {
  for (const tilegemm::DeviceEntry& entry : tilegemm::list_devices()) {
    INFO("device " << entry.label());
    std::string extensions;
    REQUIRE(entry.device.getInfo(CL_DEVICE_EXTENSIONS, &extensions) == CL_SUCCESS);
    CHECK(tilegemm::detail::device_limits(entry.device).fp64 == (extensions.find("cl_khr_fp64") != std::string::npos));
  }
}

TEST_CASE("double precision on a device without fp64 throws tilegemm::Error before anything runs", "[errors]") {
  // The call as gemm makes it, on this machine's queue, with the device's description saying it has no fp64.
  const GemmCall call;
  tilegemm::detail::CallContext context = tilegemm::detail::CallContext::of(call.queue);
  context.limits.fp64 = false;
  const Matrix<double> host = random_matrix<double>(5, 5);
  const cl::Buffer a = upload(call.queue, host), b = upload(call.queue, host);
  const Matrix<double> c0 = random_matrix<double>(5, 5);
  const cl::Buffer c = upload(call.queue, c0);
  const auto problem = tilegemm::detail::check_arguments(context.context, {Transpose::no,
                                                                           Transpose::no,
                                                                           5,
                                                                           5,
                                                                           5,
                                                                           tilegemm::detail::scalar_value(1.0),
                                                                           {a, 0, 5},
                                                                           {b, 0, 5},
                                                                           tilegemm::detail::scalar_value(0.0),
                                                                           {c, 0, 5}});
  const std::size_t built = tilegemm::programs_built();
  CHECK(error_code([&] { tilegemm::detail::run_gemm(context, nullptr, problem, {}); }) == CL_INVALID_OPERATION);
  CHECK_THROWS_WITH(tilegemm::detail::run_gemm(context, nullptr, problem, {}),
                    CONTAINS_ALL2(context.limits.name, "does not support double precision (cl_khr_fp64)"));
  CHECK(tilegemm::programs_built() == built);  // refused before building anything
  Matrix<double> after(5, 5);
  REQUIRE(call.queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(double) * 25, after.data()) == CL_SUCCESS);
  CHECK(after == c0);  // and C untouched
  // The same description with fp64 runs the product.
  context.limits.fp64 = true;
  tilegemm::detail::run_gemm(context, nullptr, problem, {}).wait();
  REQUIRE(call.queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(double) * 25, after.data()) == CL_SUCCESS);
  CHECK(compare_with_reference<double>(after, 1.0, host, host, 0.0, c0) == "");
}

TEST_CASE("offsets and leading dimensions beyond 32-bit indexing are refused, without overflow", "[errors]") {
  // Each of these was accepted: the span offset + (cols - 1) * ld + rows overflowed, and the kernel got a wrapped
  // offset (writing before C) or leading dimension (a wrong C).
  GemmCall call;
  SECTION("an offset of C of LLONG_MAX") {
    call.m = call.n = call.k = 1;
    call.c_offset = LLONG_MAX;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL3("offset of C", std::to_string(LLONG_MAX), "at most 2147483647"));
  }
  SECTION("an offset of A of LLONG_MAX") {
    call.a_offset = LLONG_MAX;
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("offset of A", "at most 2147483647"));
  }
  SECTION("a leading dimension of 2^62") {
    call.m = call.n = 2;
    call.k = 3;
    call.lda = 1LL << 62;
    CHECK_THROWS_AS(call.run(), std::invalid_argument);
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of A", "at most 2147483647"));
    call.lda = 2;
    call.ldc = LLONG_MAX;
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("leading dimension of C", "at most 2147483647"));
  }
  SECTION("a span just past 32-bit indexing, each factor within it") {
    call.ldb = 1LL << 30;  // B is 7 x 6: (6 - 1) * 2^30 + 7 elements
    CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("B spans", "32-bit"));
  }
  CHECK(call.c_now() == call.host_c);  // nothing ran
}

TEST_CASE("a null cl::CommandQueue is named as such", "[errors]") {
  GemmCall call;
  call.queue = cl::CommandQueue();
  CHECK(error_code([&] { call.run(); }) == CL_INVALID_COMMAND_QUEUE);
  CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("cl::CommandQueue is null"));
  const Matrix<float> a = random_matrix<float>(3, 4), b = random_matrix<float>(4, 2);
  CHECK(error_code([&] { (void)tilegemm::gpu_gemm(cl::CommandQueue(), a, b).eval(); }) == CL_INVALID_COMMAND_QUEUE);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(cl::CommandQueue(), a, b).eval(), MESSAGE_CONTAINS("cl::CommandQueue is null"));
}

TEST_CASE("transposes other than Transpose::no and Transpose::yes are refused", "[errors]") {
  GemmCall call;
  call.trans_a = static_cast<Transpose>(5);
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("trans_a must be Transpose::no or Transpose::yes", "5"));
  call.trans_a = Transpose::no;
  call.trans_b = static_cast<Transpose>(-1);
  CHECK_THROWS_WITH(call.run(), CONTAINS_ALL2("trans_b must be", "-1"));
}

TEST_CASE("a null event in the wait list is refused before anything is enqueued", "[errors]") {
  GemmCall call;
  call.wait = {cl::UserEvent(call.queue.getInfo<CL_QUEUE_CONTEXT>()), cl::Event()};
  static_cast<cl::UserEvent&>(call.wait[0]).setStatus(CL_COMPLETE);
  CHECK_THROWS_AS(call.run(), std::invalid_argument);
  CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("event 1 of the wait list is a null cl::Event"));
}

TEST_CASE("operands that are not read need no buffer (BLAS)", "[errors]") {
  GemmCall call;
  SECTION("m = 0: nothing is read or written") {
    call.m = 0;
    call.a = call.b = call.c = cl::Buffer();
    call.lda = call.ldc = 1;
    REQUIRE_NOTHROW(call.run().wait());
  }
  SECTION("alpha = 0: A and B are not read") {
    call.alpha = 0;
    call.a = call.b = cl::Buffer();
    REQUIRE_NOTHROW(call.run().wait());
    CHECK(compare_with_reference<float>(call.c_now(), 0, call.host_a, call.host_b, call.beta, call.host_c) == "");
  }
  SECTION("C is still needed when it is written") {
    call.c = cl::Buffer();
    CHECK_THROWS_WITH(call.run(), MESSAGE_CONTAINS("buffer C is a null cl::Buffer"));
  }
}

TEST_CASE("C sharing memory with A or B is refused, disjoint parts of one buffer are not", "[errors]") {
  const cl::CommandQueue queue = test_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  // One 10 x 12 column-major matrix: A its rows 0-4, columns 0-6; B rows 0-6 of columns 7-11 (7 x 5); C various.
  Matrix<float> whole = random_matrix<float>(10, 12);
  cl::Buffer buffer = upload(queue, whole);  // not const: createSubBuffer is not a const member
  const auto product = [&](long long c_offset, long long ldc) {
    return tilegemm::gemm<float>(queue, Transpose::no, Transpose::no, 5, 5, 7, 1.0f, buffer, 0, 10, buffer, 70, 10,
                                 0.0f, buffer, c_offset, ldc);
  };
  SECTION("C on A's columns") {
    CHECK_THROWS_AS(product(12, 10), std::invalid_argument);  // rows 2-6 of columns 1-5: inside A's columns 0-6
    CHECK_THROWS_WITH(product(12, 10), CONTAINS_ALL2("C overlaps A", "memory of its own"));
  }
  SECTION("C on B") {
    CHECK_THROWS_WITH(product(75, 10), MESSAGE_CONTAINS("C overlaps B"));  // rows 5-9 of columns 7-11
  }
  SECTION("C below A, interleaved with it column by column but disjoint") {
    // Rows 5-9 of columns 0-4: every column of C lies between two of A's (rows 0-4), none of B's.
    product(5, 10).wait();
    Matrix<float> after(10, 12);
    REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(float) * 120, after.data()) == CL_SUCCESS);
    const Matrix<float> a = whole.block(0, 0, 5, 7), b = whole.block(0, 7, 7, 5);
    CHECK(compare_with_reference<float>(after.block(5, 0, 5, 5), 1, a, b, 0, after.block(5, 0, 5, 5)) == "");
  }
  SECTION("sub-buffers of one buffer") {
    cl_buffer_region first{0, sizeof(float) * 64}, second{sizeof(float) * 32, sizeof(float) * 64};
    cl_int status = CL_SUCCESS;
    const cl::Buffer a = buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &first, &status);
    REQUIRE(status == CL_SUCCESS);
    const cl::Buffer c = buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &second, &status);
    if (status == CL_MISALIGNED_SUB_BUFFER_OFFSET) {
      WARN("this device cannot start a sub-buffer 128 bytes in; skipped");
      return;
    }
    REQUIRE(status == CL_SUCCESS);
    const cl::Buffer b = upload(queue, random_matrix<float>(4, 4));
    // A: the first 4 x 4 elements of the first sub-buffer's; C: the second sub-buffer's first 4 x 4, 8 elements on.
    CHECK_THROWS_WITH(
        tilegemm::gemm<float>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1.0f, a, 20, 4, b, 0, 4, 0.0f, c, 0, 4),
        MESSAGE_CONTAINS("C overlaps A"));
    tilegemm::gemm<float>(queue, Transpose::no, Transpose::no, 4, 4, 4, 1.0f, a, 0, 4, b, 0, 4, 0.0f, c, 16, 4).wait();
  }
}

TEST_CASE("a float product named as such takes double literals for alpha and beta", "[errors]") {
  // The scalar type is named, never taken from alpha: 1.0 and 0.5 are converted to float.
  GemmCall call;
  tilegemm::gemm<float>(call.queue, Transpose::no, Transpose::no, 5, 6, 7, 1.0, call.a, 0, 5, call.b, 0, 7, 0.5, call.c,
                        0, 5)
      .wait();
  CHECK(compare_with_reference<float>(call.c_now(), 1.0, call.host_a, call.host_b, 0.5, call.host_c) == "");
}

TEST_CASE("a device copy larger than the device's largest buffer is refused with the sizes", "[errors]") {
  tilegemm::detail::DeviceLimits limited = tilegemm::detail::CallContext::of(test_queue()).limits;
  limited.max_alloc_bytes = 1 << 20;
  limited.name = "a device with 1 MiB buffers";
  const tilegemm::detail::ScopedDeviceDescription described(limited);
  const Matrix<float> a = random_matrix<float>(600, 500), b = random_matrix<float>(500, 20);
  CHECK(error_code([&] { (void)tilegemm::gpu_gemm(test_queue(), a, b).eval(); }) == CL_INVALID_BUFFER_SIZE);
  CHECK_THROWS_WITH(tilegemm::gpu_gemm(test_queue(), a, b).eval(),
                    CONTAINS_ALL3("device copy of A (600x500)", "1200000 bytes", "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
  const Matrix<float> c = tilegemm::gpu_gemm(test_queue(), b.transpose(), b);  // 20 x 20 fits
  CHECK(compare_with_reference<float>(c, 1, b.transpose(), b, 0, c) == "");
}

TEST_CASE("a device whose driver refused a wgmma kernel more local memory stays marked for the process", "[errors]") {
  // run_gemm marks the device when AutoConfig's wgmma plan, past the local memory the device reports, fails to build
  // or launch (runtime/sm90a_local_memory.hpp); later calls read the mark with the device's limits. On a device
  // without wgmma the mark changes no plan, so marking the default device here is harmless to the other tests.
  const cl::Device device = tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>();
  const tilegemm::detail::DeviceLimits before = tilegemm::detail::device_limits(device);
  if (tilegemm::detail::has_warpgroup_mma(before)) return;  // would change this process's plans on an H100 or H200
  tilegemm::detail::note_sm90a_local_memory_refused(device);
  const tilegemm::detail::DeviceLimits after = tilegemm::detail::device_limits(device);
  CHECK(after.sm90a_local_memory_refused);
  CHECK(after.name == before.name);
  CHECK(after.local_memory_bytes == before.local_memory_bytes);
}
