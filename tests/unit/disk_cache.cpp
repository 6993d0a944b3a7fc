// unit/disk_cache: the cases of test_disk_cache that need no OpenCL device (the unit tier, built by unit_tests).

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
using tilegemm::detail::CacheLocation;
using tilegemm_test::Child;
using tilegemm_test::contents;
using tilegemm_test::files_under;
using tilegemm_test::Finished;
using tilegemm_test::overwrite;
using tilegemm_test::TemporaryFolder;
namespace cache_file = tilegemm::detail::cache_file;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// ======== Where the cache is: the rule on hand-written values, no OpenCL ========

TEST_CASE("the cache folder is TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm, else ~/.cache/tilegemm", "[unit]") {
  using tilegemm::detail::cache_location;
  CHECK(cache_location(nullptr, "/c", "/x", "/h").directory == fs::path("/c"));
  CHECK(cache_location(nullptr, nullptr, "/x", "/h").directory == fs::path("/x/tilegemm"));
  CHECK(cache_location(nullptr, "", "/x", "/h").directory == fs::path("/x/tilegemm"));
  CHECK(cache_location(nullptr, nullptr, nullptr, "/h").directory == fs::path("/h/.cache/tilegemm"));
  CHECK(cache_location(nullptr, nullptr, "", "/h").directory == fs::path("/h/.cache/tilegemm"));
  // A relative XDG_CACHE_HOME is invalid by the XDG rules and ignored.
  CHECK(cache_location(nullptr, nullptr, "relative", "/h").directory == fs::path("/h/.cache/tilegemm"));
  for (const char* on : {static_cast<const char*>(nullptr), "", "on", "1", "yes"}) {
    const CacheLocation location = cache_location(on, "/c", nullptr, "/h");
    CHECK(location.enabled);
    CHECK(location.problem.empty());
  }
}

TEST_CASE("TILEGEMM_CACHE=off (or 0, false, no, in any case) turns the disk cache off without a problem", "[unit]") {
  for (const char* off : {"off", "OFF", "Off", "0", "false", "no"}) {
    const CacheLocation location = tilegemm::detail::cache_location(off, "/c", "/x", "/h");
    CHECK_FALSE(location.enabled);
    CHECK(location.problem.empty());
  }
}

TEST_CASE("with no folder to name, the disk cache is off and says why", "[unit]") {
  const CacheLocation location = tilegemm::detail::cache_location(nullptr, nullptr, nullptr, nullptr);
  CHECK_FALSE(location.enabled);
  CHECK(location.problem.find("HOME") != std::string::npos);
}

TEST_CASE("a cache file gives back its key and binary, and nothing for any damage", "[unit]") {
  std::mt19937 random(tilegemm_test::run_seed());
  CacheEntry entry{"tilegemm test key\nprogram: 0123", std::vector<unsigned char>(3001)};
  for (unsigned char& byte : entry.binary) byte = static_cast<unsigned char>(random());
  const std::vector<unsigned char> file = cache_file::encode(entry);
  REQUIRE(file.size() == cache_file::header_bytes + entry.key.size() + entry.binary.size());
  const std::optional<CacheEntry> back = cache_file::decode(file);
  REQUIRE(back);
  CHECK(back->key == entry.key);
  CHECK(back->binary == entry.binary);

  CHECK_FALSE(cache_file::decode({}));
  for (std::size_t length : {std::size_t{1}, cache_file::header_bytes - 1, cache_file::header_bytes,
                             cache_file::header_bytes + entry.key.size(), file.size() - 1}) {
    INFO("truncated to " << length << " bytes");
    CHECK_FALSE(cache_file::decode(std::vector<unsigned char>(file.begin(), file.begin() + length)));
  }
  std::vector<unsigned char> longer = file;
  longer.push_back(0);
  CHECK_FALSE(cache_file::decode(longer));
  // One changed byte anywhere: in the magic, the format, the lengths, the checksum, the key or the binary.
  std::vector<std::size_t> positions{0, 8, 12, 16, 24, cache_file::header_bytes, file.size() - 1};
  for (int i = 0; i < 20; ++i)
    positions.push_back(std::uniform_int_distribution<std::size_t>(0, file.size() - 1)(random));
  for (std::size_t position : positions) {
    INFO("byte " << position << " changed");
    std::vector<unsigned char> changed = file;
    changed[position] ^= static_cast<unsigned char>(1 + random() % 255);
    CHECK_FALSE(cache_file::decode(changed));
  }
}

TEST_CASE("write_atomically creates the folder, replaces the file and leaves no temporary file", "[unit]") {
  const TemporaryFolder folder("disk-cache-test");
  const fs::path file = folder.path() / "a" / "b" / "entry.bin";
  const std::vector<unsigned char> first = cache_file::encode({"first", {1, 2, 3}});
  const std::vector<unsigned char> second = cache_file::encode({"second", std::vector<unsigned char>(500, 7)});
  CHECK(cache_file::write_atomically(file, first) == "");
  CHECK(contents(file) == first);
  CHECK(cache_file::write_atomically(file, second) == "");
  CHECK(contents(file) == second);
  CHECK(files_under(folder.path()) == std::vector<fs::path>{file});
  CHECK(cache_file::read(file) == second);
  CHECK_FALSE(cache_file::read(folder.path() / "missing.bin"));
}

TEST_CASE("write_atomically into a folder that cannot exist says why", "[unit]") {
  const TemporaryFolder folder("disk-cache-test");
  overwrite(folder.path() / "plain-file", {1});
  const std::string problem = cache_file::write_atomically(folder.path() / "plain-file" / "sub" / "entry.bin", {1, 2});
  CHECK(contains(problem, "cannot create"));
  CHECK(files_under(folder.path()).size() == 1);
}

TEST_CASE("two processes rewriting one file at once: every read sees a whole entry of one of them", "[unit]") {
  const TemporaryFolder folder("disk-cache-test");
  const fs::path file = folder.path() / "cache" / "entry.bin";
  const std::string writes = "1000";
  Child one({"write", file.string(), "1", writes}, {}, folder.path());
  Child two({"write", file.string(), "2", writes}, {}, folder.path());
  // Once the file exists it is always there (each write renames a whole file over it): every read must succeed.
  int reads = 0, whole = 0;
  while (one.running() || two.running()) {
    std::error_code ignored;
    if (!fs::exists(file, ignored)) continue;
    ++reads;
    const std::optional<std::vector<unsigned char>> bytes = cache_file::read(file);
    const std::optional<CacheEntry> entry = bytes ? cache_file::decode(*bytes) : std::nullopt;
    if (entry && (entry->key == "writer 1" || entry->key == "writer 2")) ++whole;
  }
  const Finished first = one.wait(), second = two.wait();
  INFO(first.err << second.err);
  CHECK(first.status == 0);
  CHECK(second.status == 0);
  INFO(reads << " reads while they wrote");
  CHECK(reads > 0);
  CHECK(whole == reads);
  // Afterwards: the one file, whole, and no temporary files left.
  CHECK(files_under(folder.path() / "cache") == std::vector<fs::path>{file});
  CHECK(cache_file::decode(contents(file)));
}
// ======== A program's text in a file (TILEGEMM_SHOW_KERNELS, failed builds), no OpenCL ========

TEST_CASE("a program's text file holds its pieces in order and is named by its key, a failure to write says why",
          "[unit]") {
  namespace detail = tilegemm::detail;
  const std::string first = "#define A 1\n", second = "// middle\n", third = "__kernel void k() {}\n";
  const detail::ProgramText text =
      detail::program_text("k", {detail::piece(first), detail::piece(second), detail::piece(third)});
  CHECK(detail::whole_text(text) == first + second + third);
  const TemporaryFolder folder("disk-cache-test");
  const fs::path file = detail::text_file(folder.path() / "shown", text);
  CHECK(file == folder.path() / "shown" / (detail::hex64(text.key) + ".cl"));
  CHECK(detail::write_text(file, text) == "");
  const std::vector<unsigned char> written = contents(file);
  CHECK(std::string(written.begin(), written.end()) == first + second + third);
  CHECK(files_under(folder.path()) == std::vector<fs::path>{file});  // no temporary file left

  // TILEGEMM_SHOW_KERNELS naming a folder that cannot exist: the failed build's sentence says so.
  overwrite(folder.path() / "plain-file", {1});
  setenv("TILEGEMM_SHOW_KERNELS", (folder.path() / "plain-file" / "sub").c_str(), 1);
  const std::string sentence = detail::text_of_failed_build(text);
  unsetenv("TILEGEMM_SHOW_KERNELS");
  CHECK(contains(sentence, "could not be written to " + (folder.path() / "plain-file" / "sub").string()));
  CHECK(contains(sentence, "cannot create"));
}
