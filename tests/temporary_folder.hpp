// temporary_folder: a fresh folder for one test, removed with everything in it at the end, and reading and writing
// the files in it.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>
#include <vector>

namespace tilegemm_test {

namespace fs = std::filesystem;

// Named `tilegemm-<what>-<random>` in the system's temporary folder. Removed even when a test took away its owner's
// permissions.
class TemporaryFolder {
 public:
  explicit TemporaryFolder(const std::string& what = "test") {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("tilegemm-" + what + "-" + std::to_string(random()) + "-" + std::to_string(random()));
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

// The regular files under `folder`, recursively (none when it does not exist).
inline std::vector<fs::path> files_under(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::exists(folder, error)) return files;
  for (const auto& item : fs::recursive_directory_iterator(folder)) {
    if (item.is_regular_file()) files.push_back(item.path());
  }
  return files;
}

inline std::vector<unsigned char> contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string text_of(const fs::path& file) {
  const std::vector<unsigned char> bytes = contents(file);
  return std::string(bytes.begin(), bytes.end());
}

inline void overwrite(const fs::path& file, const std::vector<unsigned char>& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace tilegemm_test
