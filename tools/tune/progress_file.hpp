// tune/progress_file: what a tuning run has measured so far, kept in the cache folder line by line so that a run
// stopped by its time budget (or killed) is continued by the next: each line checked, a damaged one ignored.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tilegemm/gemm/tuned_file.hpp>
#include <tilegemm/runtime/cache_file.hpp>

namespace tune {

// Results by key ("check <candidate>", "time <shape> <candidate>"): a number of milliseconds, or "wrong: ..." / "slow".
class ProgressFile {
 public:
  ProgressFile(std::filesystem::path path, bool restart) : path_(std::move(path)) {
    std::error_code error;
    if (restart) std::filesystem::remove(path_, error);
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) {
      // "<checksum> | key | value", the checksum FNV-1a of " | key | value".
      if (line.size() < 16) continue;
      const std::string rest = line.substr(16);
      if (tilegemm::detail::tuned_file::hex16(tilegemm::detail::fnv1a(rest)) != line.substr(0, 16)) continue;
      const auto parts = tilegemm::detail::tuned_file::split(rest, " | ");
      if (parts.size() != 3 || !parts[0].empty()) continue;
      results_[std::string(parts[1])] = std::string(parts[2]);
    }
  }

  const std::string* find(const std::string& key) const {
    const auto found = results_.find(key);
    return found == results_.end() ? nullptr : &found->second;
  }
  std::size_t size() const { return results_.size(); }

  // Keeps `value` for `key`, here and on disk (appended: a line cut short by a crash fails its checksum).
  void put(const std::string& key, const std::string& value) {
    results_[key] = value;
    const std::string rest = " | " + key + " | " + value;
    if (!file_) {
      tilegemm::detail::cache_file::make_folder(path_.parent_path());
      file_ = std::fopen(path_.string().c_str(), "a");
    }
    if (file_) {
      std::fprintf(file_, "%s%s\n", tilegemm::detail::tuned_file::hex16(tilegemm::detail::fnv1a(rest)).c_str(),
                   rest.c_str());
      std::fflush(file_);
    }
  }

  // Drops the file once its precision is tuned to the end.
  void finished() {
    close();
    std::error_code error;
    std::filesystem::remove(path_, error);
  }
  ~ProgressFile() { close(); }
  ProgressFile(const ProgressFile&) = delete;
  ProgressFile& operator=(const ProgressFile&) = delete;

 private:
  void close() {
    if (file_) std::fclose(file_);
    file_ = nullptr;
  }
  std::filesystem::path path_;
  std::map<std::string, std::string> results_;
  std::FILE* file_ = nullptr;
};

}  // namespace tune
