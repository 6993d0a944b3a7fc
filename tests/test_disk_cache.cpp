// test_disk_cache: compiled programs kept on disk: where, the file format, loading instead of compiling (in this and
// in a second process), bad files ignored and replaced, an unwritable folder, TILEGEMM_CACHE=off, concurrent writers.

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "disk_cache_helpers.hpp"
#include "reference.hpp"
#include "temporary_folder.hpp"

namespace fs = std::filesystem;
using tilegemm::detail::CacheEntry;
using tilegemm::detail::DiskCache;
using tilegemm_test::CacheAt;
using tilegemm_test::Child;
using tilegemm_test::compare_with_reference;
using tilegemm_test::contents;
using tilegemm_test::files_under;
using tilegemm_test::Finished;
using tilegemm_test::Made;
using tilegemm_test::Matrix;
using tilegemm_test::overwrite;
using tilegemm_test::programs_made_by;
using tilegemm_test::random_matrix;
using tilegemm_test::TemporaryFolder;
namespace cache_file = tilegemm::detail::cache_file;

namespace {

// One product with Naive<3, 5> (a configuration test_program_cache and disk_cache_worker build too: one program),
// poisoned output, checked against the reference; "" when right.
std::string naive_product() {
  const Matrix<float> a = random_matrix<float>(13, 9), b = random_matrix<float>(9, 11);
  Matrix<float> c = Matrix<float>::Constant(13, 11, tilegemm_test::poison<float>());
  tilegemm::gpu_gemm<tilegemm::Naive<3, 5>>(a, b, c, 1.0f, 0.0f);
  return compare_with_reference<float>(c, 1, a, b, 0, c);
}

// The environment changes for a worker with its disk cache in `folder`, whatever this process's TILEGEMM_CACHE says.
std::map<std::string, const char*> cache_on(const std::string& folder) {
  return {{"TILEGEMM_CACHE_DIR", folder.c_str()}, {"TILEGEMM_CACHE", nullptr}};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether `device` is PoCL's, whose programs are stored after their first run (store_after_run.hpp).
bool on_pocl(const cl::Device& device) {
  return cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>() ==
         "Portable Computing Language";
}

Finished run_worker(const std::vector<std::string>& args, const std::map<std::string, const char*>& changes,
                    const fs::path& folder) {
  return Child(args, changes, folder).wait();
}

}  // namespace

// ======== Where the cache is: the rule on hand-written values, no OpenCL ========

// ======== The file format, no OpenCL ========

// ======== On the device ========

TEST_CASE("a program's key names the library version, the device, the driver and the program", "[disk_cache]") {
  const tilegemm::DeviceEntry entry = tilegemm::default_device();
  const tilegemm::detail::ProgramText text =
      tilegemm::detail::program_text("some_kernel", {tilegemm::detail::piece("__kernel void some_kernel() {}")});
  const std::optional<std::string> key = DiskCache::key_of(entry.device, text);
  REQUIRE(key);
  CHECK(contains(*key, std::string("tilegemm ") + tilegemm::library_version));
  CHECK(contains(*key, entry.platform_name));
  CHECK(contains(*key, entry.device_name));
  CHECK(contains(*key, entry.device.getInfo<CL_DRIVER_VERSION>().c_str()));
  CHECK(contains(*key, tilegemm::detail::hex64(text.key)));
  const tilegemm::detail::ProgramText other =
      tilegemm::detail::program_text("some_kernel", {tilegemm::detail::piece("__kernel void some_kernel() { }")});
  CHECK(DiskCache::key_of(entry.device, other) != key);
}

TEST_CASE("gpu_gemm stores what it compiled, after release_resources, programs come from disk", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const CacheAt cache(folder.path());
  Made made = programs_made_by([] { CHECK(naive_product() == ""); });
  CHECK(made.built == 1);
  CHECK(made.loaded == 0);
  const std::vector<fs::path> files = files_under(folder.path());  // stored once gpu_gemm had its result
  REQUIRE(files.size() == 1);
  CHECK(files[0].parent_path() == folder.path() / tilegemm::library_version);
  CHECK(cache_file::decode(contents(files[0])));

  tilegemm::release_resources();
  made = programs_made_by([] { CHECK(naive_product() == ""); });
  CHECK(made.built == 0);
  CHECK(made.loaded == 1);
  made = programs_made_by([] { CHECK(naive_product() == ""); });  // and then it is in memory
  CHECK(made.built == 0);
  CHECK(made.loaded == 0);
}

TEST_CASE("a program is stored right after its build, except on PoCL: there once a kernel of it has run",
          "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const CacheAt cache(folder.path());
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl::Device device = queue.getInfo<CL_QUEUE_DEVICE>();
  const bool pocl = on_pocl(device);
  CHECK(tilegemm::detail::StoreAfterRun::needed(device) == pocl);
  const tilegemm::detail::ProgramText text = tilegemm::detail::program_text(
      "store_test", {tilegemm::detail::piece("__kernel void store_test(__global float* x) { x[0] = 2.0f; }")});
  Made made = programs_made_by([&] { tilegemm::ProgramCache::instance().program(context, device, text); });
  CHECK(made.built == 1);
  CHECK(files_under(folder.path()).size() == (pocl ? 0U : 1U));
  tilegemm::KernelLease kernel = tilegemm::ProgramCache::instance().kernel(context, device, text);
  CHECK(kernel.store_after_run() == pocl);  // only PoCL's launches take the store's lock
  const cl::Buffer x(context, CL_MEM_READ_WRITE, sizeof(float));
  tilegemm::detail::set_args(kernel, x);
  REQUIRE(tilegemm::detail::enqueue(queue, kernel, cl::NDRange(1), cl::NullRange, {}).wait() == CL_SUCCESS);
  float value = 0;
  REQUIRE(queue.enqueueReadBuffer(x, CL_TRUE, 0, sizeof value, &value) == CL_SUCCESS);
  CHECK(value == 2.0f);
  tilegemm::detail::DiskCache::instance().store_ran();  // as gpu_gemm does once it has its result
  CHECK(files_under(folder.path()).size() == 1);
  tilegemm::release_resources();
  made = programs_made_by([&] { tilegemm::ProgramCache::instance().program(context, device, text); });
  CHECK(made.built == 0);
  CHECK(made.loaded == 1);
}

TEST_CASE(
    "on PoCL no program is stored while a kernel waits to run, release_resources then lets it go unstored, and "
    "stores it when idle",
    "[disk_cache]") {
  // Asking PoCL for a binary while a kernel of that program runs can abort the process: stores wait for idle.
  if (!on_pocl(tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>())) {
    SUCCEED("not PoCL: programs are stored right after their build");
    return;
  }
  const TemporaryFolder folder("disk-cache-test");
  const CacheAt cache(folder.path());
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const Matrix<float> a = random_matrix<float>(13, 9), b = random_matrix<float>(9, 11);
  const auto device_copy = [&](const Matrix<float>& m) {
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * m.size(),
                      const_cast<float*>(m.data()));
  };
  const Matrix<float> nans = Matrix<float>::Constant(13, 11, tilegemm_test::poison<float>());
  const cl::Buffer c = device_copy(nans);
  cl::UserEvent gate(context);
  Made made = programs_made_by([&] {
    cl::Event done = tilegemm::gemm<float, tilegemm::Naive<3, 5>>(
        queue, tilegemm::Transpose::no, tilegemm::Transpose::no, 13, 11, 9, 1.0f, device_copy(a), 0, 13, device_copy(b),
        0, 9, 0.0f, c, 0, 13, {gate});
    tilegemm::release_resources();  // the product waits for the gate: its program must not be stored now
    CHECK(files_under(folder.path()).empty());
    gate.setStatus(CL_COMPLETE);
    REQUIRE(done.wait() == CL_SUCCESS);
  });
  CHECK(made.built == 1);
  Matrix<float> result(13, 11);
  REQUIRE(queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(float) * result.size(), result.data()) == CL_SUCCESS);
  CHECK(compare_with_reference<float>(result, 1, a, b, 0, nans) == "");
  // It was let go of unstored: the next product compiles it again; waited for, it is stored when let go of (gemm on
  // buffers stores nothing at its end, as gpu_gemm does: it does not wait).
  made = programs_made_by([&] {
    cl::Event done =
        tilegemm::gemm<float, tilegemm::Naive<3, 5>>(queue, tilegemm::Transpose::no, tilegemm::Transpose::no, 13, 11, 9,
                                                     1.0f, device_copy(a), 0, 13, device_copy(b), 0, 9, 0.0f, c, 0, 13);
    REQUIRE(done.wait() == CL_SUCCESS);
  });
  CHECK(made.built == 1);
  CHECK(files_under(folder.path()).empty());
  tilegemm::release_resources();
  CHECK(files_under(folder.path()).size() == 1);
}

TEST_CASE("a second process loads the programs the first one stored, and compiles none", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const std::string cache = (folder.path() / "cache").string();
  const Finished first = run_worker({"products", "2"}, cache_on(cache), folder.path());
  INFO(first.err);
  CHECK(first.status == 0);
  CHECK(first.out == "built=2 loaded=0\n");
  CHECK(files_under(cache).size() == 2);  // each stored once its product had its result
  const Finished second = run_worker({"products", "2"}, cache_on(cache), folder.path());
  INFO(second.err);
  CHECK(second.status == 0);
  CHECK(second.out == "built=0 loaded=2\n");
  CHECK(second.err == "");
}

TEST_CASE("a damaged, foreign or stale cache file is ignored and replaced", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const CacheAt cache(folder.path());
  CHECK(naive_product() == "");
  tilegemm::release_resources();
  const std::vector<fs::path> files = files_under(folder.path());
  REQUIRE(files.size() == 1);
  const fs::path file = files[0];
  const std::vector<unsigned char> good = contents(file);
  const std::optional<CacheEntry> entry = cache_file::decode(good);
  REQUIRE(entry);

  // A whole entry under another key: the file of another program or device, or of another tilegemm version.
  const auto with_key = [&](std::string key) { return cache_file::encode({std::move(key), entry->binary}); };
  std::string foreign = entry->key, stale = entry->key;
  const std::size_t program_at = foreign.rfind("program: ") + 9, version_at = stale.find(tilegemm::library_version);
  REQUIRE(program_at < foreign.size());
  REQUIRE(version_at != std::string::npos);
  foreign[program_at] = foreign[program_at] == '0' ? '1' : '0';
  stale.replace(version_at, std::string(tilegemm::library_version).size(), "0.9.9");

  std::vector<unsigned char> corrupt = good;
  corrupt[good.size() / 2] ^= 0x40;
  // Right key and checksum, but bytes the driver cannot use as a program.
  std::vector<unsigned char> nonsense(entry->binary.size(), 0);
  for (std::size_t i = 0; i < nonsense.size(); ++i) nonsense[i] = static_cast<unsigned char>(i * 31 + 7);
  const std::map<std::string, std::vector<unsigned char>> bad_files{
      {"empty", {}},
      {"truncated", std::vector<unsigned char>(good.begin(), good.end() - 100)},
      {"header only", std::vector<unsigned char>(good.begin(), good.begin() + cache_file::header_bytes)},
      {"corrupt", corrupt},
      {"foreign key", with_key(foreign)},
      {"stale library version", with_key(stale)},
      {"binary the driver refuses", cache_file::encode({entry->key, nonsense})},
  };
  for (const auto& bad : bad_files) {
    INFO("the file: " << bad.first);
    overwrite(file, bad.second);
    Made made = programs_made_by([] { CHECK(naive_product() == ""); });
    CHECK(made.built == 1);  // ignored: compiled instead
    CHECK(made.loaded == 0);
    tilegemm::release_resources();  // gpu_gemm stored the program compiled instead, over the bad file
    const std::optional<CacheEntry> replaced = cache_file::decode(contents(file));
    REQUIRE(replaced);
    CHECK(replaced->key == entry->key);
    made = programs_made_by([] { CHECK(naive_product() == ""); });
    CHECK(made.built == 0);  // and the replacement loads
    CHECK(made.loaded == 1);
    tilegemm::release_resources();
  }
  CHECK(files_under(folder.path()) == std::vector<fs::path>{file});
}

TEST_CASE("an unwritable cache folder: one warning line, and the products are still right", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  overwrite(folder.path() / "plain-file", {1});
  const std::string cache = (folder.path() / "plain-file" / "cache").string();  // cannot be created, even by root
  const Finished run = run_worker({"products", "3"}, cache_on(cache), folder.path());
  CHECK(run.status == 0);
  CHECK(run.out == "built=3 loaded=0\n");
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  CHECK(run.err.rfind("tilegemm: compiled programs are not kept on disk in this process: cannot create " + cache, 0) ==
        0);
}

TEST_CASE("TILEGEMM_CACHE=off writes nothing and loads nothing", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const fs::path cache = folder.path() / "cache";
  const std::string cache_text = cache.string();
  const std::map<std::string, const char*> off{{"TILEGEMM_CACHE", "off"}, {"TILEGEMM_CACHE_DIR", cache_text.c_str()}};
  const Finished first = run_worker({"products", "1"}, off, folder.path());
  CHECK(first.status == 0);
  CHECK(first.out == "built=1 loaded=0\n");
  CHECK(first.err == "");
  CHECK_FALSE(fs::exists(cache));
  // Nor does it read a cache that is there: fill it, then run with the cache off again.
  const Finished filling = run_worker({"products", "1"}, cache_on(cache_text), folder.path());
  CHECK(filling.out == "built=1 loaded=0\n");
  REQUIRE(files_under(cache).size() == 1);
  const Finished second = run_worker({"products", "1"}, off, folder.path());
  CHECK(second.out == "built=1 loaded=0\n");
}

TEST_CASE("two processes storing the same program at once both succeed and leave one whole file", "[disk_cache]") {
  const TemporaryFolder folder("disk-cache-test");
  const std::string cache = (folder.path() / "cache").string();
  Child one({"products", "1"}, cache_on(cache), folder.path());
  Child two({"products", "1"}, cache_on(cache), folder.path());
  const Finished first = one.wait(), second = two.wait();
  INFO(first.err << second.err);
  CHECK(first.status == 0);
  CHECK(second.status == 0);
  CHECK(first.err == "");
  CHECK(second.err == "");
  const std::vector<fs::path> files = files_under(cache);
  REQUIRE(files.size() == 1);  // no temporary files left
  CHECK(cache_file::decode(contents(files[0])));
  const Finished third = run_worker({"products", "1"}, cache_on(cache), folder.path());
  CHECK(third.out == "built=0 loaded=1\n");
}
