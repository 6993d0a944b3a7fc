// test_program_cache: how many OpenCL programs tilegemm compiles or loads from its disk cache (programs_made) per
// configuration, scalar and context; TILEGEMM_SHOW_KERNELS and the text of a failed build written to files.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "programs_made.hpp"
#include "reference.hpp"
#include "temporary_folder.hpp"

// Each test case uses configurations no other test case in this executable uses, so that its counts do not depend on
// the order the cases run in. Only "packed families ..." runs packed families (register_blocking, wide_types), since
// the first of them per scalar also builds the shared support program; AutoConfig is never used here, since it picks
// a packed family.

using Eigen::Index;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::poison;
using tilegemm_test::random_matrix;
using tilegemm_test::random_scalar;

namespace {

// How many programs `body` compiled or loaded.
template <class Body>
std::size_t programs_made_by(Body&& body) {
  const std::size_t before = tilegemm_test::programs_made();
  body();
  return tilegemm_test::programs_made() - before;
}

template <class Config, class S, class DA, class DB>
std::string multiply_and_compare(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a,
                                 const Eigen::MatrixBase<DB>& b) {
  const Matrix<S> c0 = random_matrix<S>(a.rows(), b.cols());
  Matrix<S> c = c0;
  const S alpha = random_scalar<S>(), beta = random_scalar<S>();
  tilegemm::gpu_gemm<Config>(queue, a, b, c, alpha, beta);
  const std::string in_place = compare_with_reference<S>(c, alpha, a, b, beta, c0);
  if (!in_place.empty()) return "in place: " + in_place;
  c.setConstant(poison<S>());
  tilegemm::gpu_gemm<Config>(queue, a, b, c, alpha, S(0));
  const std::string overwritten = compare_with_reference<S>(c, alpha, a, b, 0, c0);
  return overwritten.empty() ? "" : "beta = 0: " + overwritten;
}

// One product op(A) * op(B) of odd shapes (13 x 9 times 9 x 11) with Config on `queue`; "" when it is right.
template <class Config, class S>
std::string multiply(bool trans_a, bool trans_b, const cl::CommandQueue& queue = tilegemm::default_queue()) {
  const Index m = 13, n = 11, k = 9;
  const Matrix<S> a = trans_a ? random_matrix<S>(k, m) : random_matrix<S>(m, k);
  const Matrix<S> b = trans_b ? random_matrix<S>(n, k) : random_matrix<S>(k, n);
  if (trans_a && trans_b) return multiply_and_compare<Config, S>(queue, a.transpose(), b.transpose());
  if (trans_a) return multiply_and_compare<Config, S>(queue, a.transpose(), b);
  if (trans_b) return multiply_and_compare<Config, S>(queue, a, b.transpose());
  return multiply_and_compare<Config, S>(queue, a, b);
}

namespace fs = std::filesystem;
using tilegemm_test::TemporaryFolder;

// TILEGEMM_SHOW_KERNELS set to `folder` (unset for an empty one) for the lifetime of this object, then unset.
class ShowKernels {
 public:
  explicit ShowKernels(const fs::path& folder) {
    if (folder.empty()) {
      unsetenv("TILEGEMM_SHOW_KERNELS");
    } else {
      setenv("TILEGEMM_SHOW_KERNELS", folder.c_str(), 1);
    }
  }
  ~ShowKernels() { unsetenv("TILEGEMM_SHOW_KERNELS"); }
  ShowKernels(const ShowKernels&) = delete;
  ShowKernels& operator=(const ShowKernels&) = delete;
};

std::vector<fs::path> files_in(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(folder)) files.push_back(item.path());
  return files;
}

// A program of three pieces, unique to this run (so that no cache has it), that compiles or not.
tilegemm::detail::ProgramText three_pieces(const std::string& unique, bool compiles, std::string& storage) {
  storage = "#define TILEGEMM_TEST_VALUE 3.0f\n// " + unique + "\n" +
            "__kernel void pieces(__global float* x) { x[0] = " + (compiles ? "TILEGEMM_TEST_VALUE" : "undeclared") +
            "; }\n";
  const std::size_t first = storage.find('\n') + 1, second = storage.find('\n', first) + 1;
  const std::string_view text(storage);
  return tilegemm::detail::program_text("pieces", {tilegemm::detail::piece(text.substr(0, first)),
                                                   tilegemm::detail::piece(text.substr(first, second - first)),
                                                   tilegemm::detail::piece(text.substr(second))});
}

std::string unique_name() {
  std::random_device random;
  return "run " + std::to_string(random()) + "-" + std::to_string(random());
}

}  // namespace

TEST_CASE("a direct family (Naive<3, 5> float) builds one program per transpose combination, once", "[cache]") {
  using Config = tilegemm::Naive<3, 5>;
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(false, false) == ""); }) == 0);
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(true, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(false, true) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(true, true) == ""); }) == 1);
  CHECK(programs_made_by([] {
          for (int combination = 0; combination < 4; ++combination) {
            CHECK(multiply<Config, float>(combination & 1, combination & 2) == "");
          }
        }) == 0);
  // The eager form reuses the program of the in-place form.
  CHECK(programs_made_by([] {
          const Matrix<float> a = random_matrix<float>(7, 6), b = random_matrix<float>(6, 8);
          const Matrix<float> c = tilegemm::gpu_gemm<Config>(a, b);
          CHECK(compare_with_reference<float>(c, 1, a, b, 0, c) == "");
        }) == 0);
}

TEST_CASE("float and double are separate programs (LocalTiles<4>)", "[cache]") {
  using Config = tilegemm::LocalTiles<4>;
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Config, double>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] {
          CHECK(multiply<Config, float>(false, false) == "");
          CHECK(multiply<Config, double>(false, false) == "");
        }) == 0);
  CHECK(programs_made_by([] { CHECK(multiply<Config, double>(true, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(true, false) == ""); }) == 1);
}

TEST_CASE("a different TileConfig is a different program", "[cache]") {
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::Naive<4, 2>, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::Naive<2, 4>, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::LocalTiles<8>, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::MoreWorkPerThread<8, 2>, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::MoreWorkPerThread<8, 4>, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] {
          CHECK(multiply<tilegemm::Naive<4, 2>, float>(false, false) == "");
          CHECK(multiply<tilegemm::Naive<2, 4>, float>(false, false) == "");
          CHECK(multiply<tilegemm::LocalTiles<8>, float>(false, false) == "");
          CHECK(multiply<tilegemm::MoreWorkPerThread<8, 2>, float>(false, false) == "");
          CHECK(multiply<tilegemm::MoreWorkPerThread<8, 4>, float>(false, false) == "");
        }) == 0);
}

TEST_CASE("packed families build one program per scalar, plus the support program on first use per scalar", "[cache]") {
  // B is not transposed, so it is packed: the first packed product of a scalar also builds the support program.
  using Blocking = tilegemm::RegisterBlocking<16, 16, 8, 2, 2>;
  using Wide = tilegemm::WideTypes<8, 2>;
  using Vectors = tilegemm::VectorLoads<16, 16, 8, 2, 2, 2>;
  CHECK(programs_made_by([] { CHECK(multiply<Blocking, float>(false, false) == ""); }) == 2);
  CHECK(programs_made_by([] { CHECK(multiply<Blocking, float>(false, false) == ""); }) == 0);
  // Packed kernels read packed copies whatever the transposes: the same program serves all four.
  CHECK(programs_made_by([] {
          CHECK(multiply<Blocking, float>(true, false) == "");
          CHECK(multiply<Blocking, float>(false, true) == "");
          CHECK(multiply<Blocking, float>(true, true) == "");
        }) == 0);
  CHECK(programs_made_by([] { CHECK(multiply<Wide, float>(false, false) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Vectors, float>(true, true) == ""); }) == 1);
  CHECK(programs_made_by([] { CHECK(multiply<Blocking, double>(false, false) == ""); }) == 2);
  CHECK(programs_made_by([] { CHECK(multiply<Wide, double>(false, true) == ""); }) == 1);
  CHECK(programs_made_by([] {
          for (int combination = 0; combination < 4; ++combination) {
            CHECK(multiply<Blocking, double>(combination & 1, combination & 2) == "");
            CHECK(multiply<Wide, double>(combination & 1, combination & 2) == "");
            CHECK(multiply<Wide, float>(combination & 1, combination & 2) == "");
            CHECK(multiply<Vectors, float>(combination & 1, combination & 2) == "");
          }
        }) == 0);
}

TEST_CASE("each OpenCL context has its own programs (Naive<7, 3>)", "[cache]") {
  using Config = tilegemm::Naive<7, 3>;
  const tilegemm::DeviceEntry entry = tilegemm::find_device("");
  const cl::CommandQueue ours = tilegemm::queue_for(entry.device);
  cl_int status = CL_SUCCESS;
  const cl::Context context(entry.device, nullptr, nullptr, nullptr, &status);
  REQUIRE(status == CL_SUCCESS);
  const cl::CommandQueue users(context, entry.device, 0, &status);
  REQUIRE(status == CL_SUCCESS);
  CHECK(programs_made_by([&] { CHECK(multiply<Config, float>(false, false, ours) == ""); }) == 1);
  CHECK(programs_made_by([&] { CHECK(multiply<Config, float>(false, false, users) == ""); }) == 1);
  CHECK(programs_made_by([&] {
          CHECK(multiply<Config, float>(false, false, ours) == "");
          CHECK(multiply<Config, float>(false, false, users) == "");
        }) == 0);
}

TEST_CASE("alpha = 0, k = 0 and empty products compile nothing (Naive<5, 7>)", "[cache]") {
  using Config = tilegemm::Naive<5, 7>;
  CHECK(programs_made_by([] {
          const Matrix<float> a = random_matrix<float>(6, 4), b = random_matrix<float>(4, 5),
                              c0 = random_matrix<float>(6, 5);
          Matrix<float> c = c0;
          const float beta = random_scalar<float>();
          tilegemm::gpu_gemm<Config>(a, b, c, 0.0f, beta);
          CHECK(compare_with_reference<float>(c, 0, a, b, beta, c0) == "");

          const Matrix<float> a0 = random_matrix<float>(6, 0), b0 = random_matrix<float>(0, 5);
          c = c0;
          tilegemm::gpu_gemm<Config>(a0, b0, c, 1.0f, beta);
          CHECK(compare_with_reference<float>(c, 1, a0, b0, beta, c0) == "");

          const Matrix<float> empty = tilegemm::gpu_gemm<Config>(random_matrix<float>(0, 4), b);
          CHECK(empty.size() == 0);
        }) == 0);
  // The first real product with this configuration still builds its program.
  CHECK(programs_made_by([] { CHECK(multiply<Config, float>(false, false) == ""); }) == 1);
}

TEST_CASE("TILEGEMM_SHOW_KERNELS=DIR writes each program's whole text to DIR as it is made, named by its key",
          "[cache]") {
  const TemporaryFolder folder("show-kernels-test");
  const ShowKernels show(folder.path());
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  std::string storage;
  const tilegemm::detail::ProgramText text = three_pieces(unique_name(), true, storage);
  REQUIRE(text.count == 3);
  CHECK(programs_made_by([&] { tilegemm::ProgramCache::instance().program(context, device, text); }) == 1);
  const fs::path file = folder.path() / (tilegemm::detail::hex64(text.key) + ".cl");
  CHECK(files_in(folder.path()) == std::vector<fs::path>{file});
  CHECK(tilegemm_test::text_of(file) == storage);  // all three pieces, in order
  fs::remove(file);
  tilegemm::ProgramCache::instance().program(context, device, text);  // in memory: not made, not written
  CHECK(files_in(folder.path()).empty());

  // A product's programs (Naive<6, 5>, which no other case here uses): one file each, with the kernel in it.
  CHECK(programs_made_by([] { CHECK(multiply<tilegemm::Naive<6, 5>, float>(false, false) == ""); }) == 1);
  const std::vector<fs::path> files = files_in(folder.path());
  REQUIRE(files.size() == 1);
  CHECK(files[0].extension() == ".cl");
  const std::string kernel = tilegemm_test::text_of(files[0]);
  CHECK(kernel.find("#define") != std::string::npos);
  CHECK(kernel.find("__kernel") != std::string::npos);
}

TEST_CASE("a failed build's error names the file that holds the program's whole text", "[cache]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  const auto failure = [&](const tilegemm::detail::ProgramText& text) -> std::string {
    try {
      tilegemm::ProgramCache::instance().program(context, device, text);
    } catch (const tilegemm::Error& e) {
      CHECK(e.code() == CL_BUILD_PROGRAM_FAILURE);
      return e.what();
    }
    FAIL("the build did not fail");
    return "";
  };
  std::string storage;
  {
    INFO("with TILEGEMM_SHOW_KERNELS: in its folder");
    const TemporaryFolder folder("show-kernels-test");
    const ShowKernels show(folder.path());
    const tilegemm::detail::ProgramText text = three_pieces(unique_name(), false, storage);
    const fs::path file = folder.path() / (tilegemm::detail::hex64(text.key) + ".cl");
    const std::string message = failure(text);
    CHECK(message.find("Its whole text is in " + file.string() + ".") != std::string::npos);
    CHECK(message.find("undeclared") != std::string::npos);  // the build log
    CHECK(tilegemm_test::text_of(file) == storage);
  }
  {
    INFO("without: in the temporary folder");
    const ShowKernels show{fs::path()};
    const tilegemm::detail::ProgramText text = three_pieces(unique_name(), false, storage);
    const fs::path file = fs::temp_directory_path() / "tilegemm-kernels" / (tilegemm::detail::hex64(text.key) + ".cl");
    const std::string message = failure(text);
    CHECK(message.find("Its whole text is in " + file.string() + ".") != std::string::npos);
    CHECK(tilegemm_test::text_of(file) == storage);
    fs::remove(file);
  }
}
