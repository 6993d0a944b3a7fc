// disk_cache_helpers: what test_disk_cache and unit/disk_cache share: the disk cache pointed at a test's folder, the
// programs a call compiled and loaded, and disk_cache_worker run as a second process.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "temporary_folder.hpp"

extern char** environ;

namespace tilegemm_test {

// Points this process's disk cache at `folder` for the lifetime of this object, with nothing held in memory before or
// after (release_resources also stores what waits to be stored, so that goes to the folder it was made for).
class CacheAt {
 public:
  explicit CacheAt(const fs::path& folder) {
    tilegemm::release_resources();
    before_ = tilegemm::detail::DiskCache::instance().use_location(tilegemm::detail::CacheLocation{true, folder, ""});
  }
  ~CacheAt() {
    tilegemm::release_resources();
    tilegemm::detail::DiskCache::instance().use_location(before_);
  }
  CacheAt(const CacheAt&) = delete;
  CacheAt& operator=(const CacheAt&) = delete;

 private:
  tilegemm::detail::CacheLocation before_;
};

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
    finished.out = text_of(out_);
    finished.err = text_of(err_);
    return finished;
  }

 private:
  static inline int count_ = 0;
  fs::path out_, err_;
  pid_t pid_ = 0;
  bool ended_ = false;
  int status_ = 0;
};

}  // namespace tilegemm_test
