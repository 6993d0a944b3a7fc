// program_text_file: a program's whole OpenCL C written to a file, for TILEGEMM_SHOW_KERNELS and for failed builds.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "../kernels/program_text.hpp"
#include "cache_file.hpp"

namespace tilegemm::detail {

// The program's whole text: its pieces in the order they are compiled.
inline std::string whole_text(const ProgramText& text) {
  std::string whole;
  for (std::size_t i = 0; i < text.count; ++i) whole += text.sources[i];
  return whole;
}

// TILEGEMM_SHOW_KERNELS's folder, or empty when it is unset (read at each build: builds are rare).
inline std::filesystem::path show_kernels_folder() {
  const char* folder = std::getenv("TILEGEMM_SHOW_KERNELS");
  return folder != nullptr ? std::filesystem::path(folder) : std::filesystem::path();
}

// Where a program's text goes in `folder`: one file per program, named by its key (the key the caches use).
inline std::filesystem::path text_file(const std::filesystem::path& folder, const ProgramText& text) {
  return folder / (hex64(text.key) + ".cl");
}

// Writes the program's whole text to `file` (whole or not at all); returns "" on success, else why not.
inline std::string write_text(const std::filesystem::path& file, const ProgramText& text) {
  try {
    const std::string whole = whole_text(text);
    return cache_file::write_atomically(file, std::vector<unsigned char>(whole.begin(), whole.end()));
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Before a program is built or loaded from disk: with TILEGEMM_SHOW_KERNELS=DIR, its text goes to DIR (a failure to
// write is said on stderr: it does not stop the product).
inline void show_kernel(const ProgramText& text) {
  const std::filesystem::path folder = show_kernels_folder();
  if (folder.empty()) return;
  const std::string problem = write_text(text_file(folder, text), text);
  if (!problem.empty()) std::fprintf(stderr, "tilegemm: TILEGEMM_SHOW_KERNELS: %s\n", problem.c_str());
}

// After a failed build: the program's text in TILEGEMM_SHOW_KERNELS's folder when it is set, else in
// <temporary folder>/tilegemm-kernels; the sentence that says where, for the error's message.
inline std::string text_of_failed_build(const ProgramText& text) {
  std::filesystem::path folder = show_kernels_folder();
  if (folder.empty()) {
    std::error_code error;
    const std::filesystem::path temporary = std::filesystem::temp_directory_path(error);
    if (error) return "Its whole text could not be written: no temporary folder (" + error.message() + ").";
    folder = temporary / "tilegemm-kernels";
  }
  const std::filesystem::path file = text_file(folder, text);
  const std::string problem = write_text(file, text);
  if (!problem.empty()) return "Its whole text could not be written to " + file.string() + ": " + problem + ".";
  return "Its whole text is in " + file.string() + ".";
}

}  // namespace tilegemm::detail
