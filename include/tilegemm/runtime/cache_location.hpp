// cache_location: where compiled programs are kept on disk, and whether they are (TILEGEMM_CACHE, TILEGEMM_CACHE_DIR).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "device.hpp"

namespace tilegemm::detail {

// The on-disk program cache as the environment asks for it.
struct CacheLocation {
  bool enabled = false;             // false for TILEGEMM_CACHE=off, and when no directory can be named
  std::filesystem::path directory;  // the cache's folder (each library version keeps its files in a subfolder)
  std::string problem;              // why there is no directory although the cache is on; empty otherwise
};

// The rule alone, on the variables' values (nullptr or "" for unset), so that it runs without touching the
// environment: TILEGEMM_CACHE=off (or 0, false, no; any case) turns the cache off; else the folder is
// TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm (an absolute XDG_CACHE_HOME only, as the XDG rules say), else
// $HOME/.cache/tilegemm.
inline CacheLocation cache_location(const char* cache, const char* cache_dir, const char* xdg_cache_home,
                                    const char* home) {
  const auto set = [](const char* value) { return value != nullptr && *value != '\0'; };
  CacheLocation location;
  const std::string switch_value = set(cache) ? lowercase(cache) : "";
  if (switch_value == "off" || switch_value == "0" || switch_value == "false" || switch_value == "no") return location;
  location.enabled = true;
  if (set(cache_dir)) {
    location.directory = cache_dir;
  } else if (set(xdg_cache_home) && std::filesystem::path(xdg_cache_home).is_absolute()) {
    location.directory = std::filesystem::path(xdg_cache_home) / "tilegemm";
  } else if (set(home)) {
    location.directory = std::filesystem::path(home) / ".cache" / "tilegemm";
  } else {
    location.enabled = false;
    location.problem = "none of TILEGEMM_CACHE_DIR, XDG_CACHE_HOME and HOME is set";
  }
  return location;
}

// The location this process's environment asks for.
inline CacheLocation cache_location_from_environment() {
  return cache_location(std::getenv("TILEGEMM_CACHE"), std::getenv("TILEGEMM_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"),
                        std::getenv("HOME"));
}

}  // namespace tilegemm::detail
