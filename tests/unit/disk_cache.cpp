// unit/disk_cache: the cases of test_disk_cache that need no OpenCL device (the unit tier, built by unit_tests).
// in a second process), bad files ignored and replaced, an unwritable folder, TILEGEMM_CACHE=off, concurrent writers.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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
#include "reference.hpp"

extern char** environ;

namespace fs = std::filesystem;
using tilegemm::detail::CacheEntry;
using tilegemm::detail::CacheLocation;
using tilegemm::detail::DiskCache;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;
namespace cache_file = tilegemm::detail::cache_file;

namespace {

// A fresh folder for one test, removed with everything in it at the end.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("tilegemm-disk-cache-test-" + std::to_string(random()) + "-" + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Points this process's disk cache at `folder` for the lifetime of this object, with nothing held in memory before or
// after (release_resources also stores what waits to be stored, so that goes to the folder it was made for).
class CacheAt {
 public:
  explicit CacheAt(const fs::path& folder) {
    tilegemm::release_resources();
    before_ = DiskCache::instance().use_location(CacheLocation{true, folder, ""});
  }
  ~CacheAt() {
    tilegemm::release_resources();
    DiskCache::instance().use_location(before_);
  }
  CacheAt(const CacheAt&) = delete;
  CacheAt& operator=(const CacheAt&) = delete;

 private:
  CacheLocation before_;
};

// The regular files under `folder`, recursively (none when it does not exist).
std::vector<fs::path> files_under(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::exists(folder, error)) return files;
  for (const auto& item : fs::recursive_directory_iterator(folder)) {
    if (item.is_regular_file()) files.push_back(item.path());
  }
  return files;
}

std::vector<unsigned char> contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void overwrite(const fs::path& file, const std::vector<unsigned char>& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// How many programs `body` compiled and loaded from disk.
struct Made {
  std::size_t built = 0, loaded = 0;
};
template <class Body>
Made programs_made_by(Body&& body) {
  const Made before{tilegemm::programs_built(), tilegemm::programs_loaded_from_disk()};
  body();
  return {tilegemm::programs_built() - before.built, tilegemm::programs_loaded_from_disk() - before.loaded};
}

// What a child process did.
struct Finished {
  int status = -1;  // exit status, or -1 when it did not exit normally
  std::string out, err;
};

// A child process running the worker (disk_cache_worker) with `args`, its environment this one's with `changes`
// (a value of nullptr unsets the variable), its output captured in files of `folder`.
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::map<std::string, const char*>& changes, const fs::path& folder)
      : out_(folder / ("out-" + std::to_string(count_) + ".txt")),
        err_(folder / ("err-" + std::to_string(count_) + ".txt")) {
    ++count_;
    std::vector<std::string> environment;
    for (char** variable = environ; *variable != nullptr; ++variable) {
      const std::string entry = *variable;
      if (changes.count(entry.substr(0, entry.find('='))) == 0) environment.push_back(entry);
    }
    for (const auto& change : changes) {
      if (change.second != nullptr) environment.push_back(change.first + "=" + change.second);
    }
    std::vector<std::string> argv_strings{TILEGEMM_DISK_CACHE_WORKER};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv_pointers, env_pointers;
    for (std::string& arg : argv_strings) argv_pointers.push_back(arg.data());
    argv_pointers.push_back(nullptr);
    for (std::string& entry : environment) env_pointers.push_back(entry.data());
    env_pointers.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int spawned =
        posix_spawn(&pid_, argv_pointers[0], &actions, nullptr, argv_pointers.data(), env_pointers.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(spawned == 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Whether it is still running (once it has ended, wait() returns at once).
  bool running() {
    if (ended_) return false;
    const pid_t ended = waitpid(pid_, &status_, WNOHANG);
    REQUIRE(ended >= 0);
    ended_ = ended == pid_;
    return !ended_;
  }

  Finished wait() {
    if (!ended_) REQUIRE(waitpid(pid_, &status_, 0) == pid_);
    ended_ = true;
    Finished finished;
    finished.status = WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
    const auto text = [](const fs::path& file) {
      const std::vector<unsigned char> bytes = contents(file);
      return std::string(bytes.begin(), bytes.end());
    };
    finished.out = text(out_);
    finished.err = text(err_);
    return finished;
  }

 private:
  static inline int count_ = 0;
  fs::path out_, err_;
  pid_t pid_ = 0;
  bool ended_ = false;
  int status_ = 0;
};

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
  const TemporaryFolder folder;
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
  const TemporaryFolder folder;
  overwrite(folder.path() / "plain-file", {1});
  const std::string problem = cache_file::write_atomically(folder.path() / "plain-file" / "sub" / "entry.bin", {1, 2});
  CHECK(contains(problem, "cannot create"));
  CHECK(files_under(folder.path()).size() == 1);
}

TEST_CASE("two processes rewriting one file at once: every read sees a whole entry of one of them", "[unit]") {
  const TemporaryFolder folder;
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

TEST_CASE("a program's text file holds its pieces in order and is named by its key; a failure to write says why",
          "[unit]") {
  namespace detail = tilegemm::detail;
  const std::string first = "#define A 1\n", second = "// middle\n", third = "__kernel void k() {}\n";
  const detail::ProgramText text =
      detail::program_text("k", {detail::piece(first), detail::piece(second), detail::piece(third)});
  CHECK(detail::whole_text(text) == first + second + third);
  const TemporaryFolder folder;
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
