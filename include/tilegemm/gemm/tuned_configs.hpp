// gemm/tuned_configs: the tuner's winners file (tilegemm-tune), read once per process from the disk cache's folder,
// and the winners it holds for a device and precision; TILEGEMM_TUNED=off ignores it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../config/math_mode.hpp"
#include "../runtime/cache_location.hpp"
#include "../runtime/device.hpp"
#include "../runtime/device_limits.hpp"
#include "tuned_choices.hpp"
#include "tuned_file.hpp"

namespace tilegemm::detail {

// TILEGEMM_TUNED's rule on its value (nullptr when unset): off, 0, false or no (any case) ignore the tuned file.
inline bool tuned_switched_off(const char* value) {
  const std::string text = value ? lowercase(value) : "";
  return text == "off" || text == "0" || text == "false" || text == "no";
}

// How the file names a device, and a precision (float's math mode with it: its winners differ).
inline std::string device_label(const DeviceLimits& device) { return device.platform + " / " + device.name; }
inline std::string precision_name(std::size_t scalar_size, MathMode math) {
  if (scalar_size == sizeof(double)) return "double";
  return math == MathMode::ieee ? "float" : "float-" + std::string(math_mode_name(math));
}

// The winners among `entries` for a device, driver and precision (the last line of each class wins), described at
// run time. Entries of other devices, drivers or precisions are not looked at.
inline TunedChoices choices_from(const std::vector<TunedEntry>& entries, const std::string& device,
                                 const std::string& driver, const std::string& precision) {
  TunedChoices choices;
  for (const TunedEntry& e : entries) {
    if (e.device != tuned_file::field_text(device) || e.driver != tuned_file::field_text(driver) ||
        e.precision != precision) {
      continue;
    }
    TunedChoice& choice = choices[static_cast<std::size_t>(e.shape_class)];
    if (e.model) {
      choice = TunedChoice{true, true, {}};
    } else if (std::optional<KernelDescription> config = describe_at_run_time(e.family, e.tile)) {
      choice = TunedChoice{true, false, *config};
    }
  }
  return choices;
}

// The file where the environment puts it: `tuned.txt` in the disk cache's folder; none when TILEGEMM_TUNED is off,
// the disk cache is off, or no folder can be named.
inline std::optional<std::filesystem::path> tuned_file_from_environment() {
  if (tuned_switched_off(std::getenv("TILEGEMM_TUNED"))) return std::nullopt;
  const CacheLocation where = cache_location_from_environment();
  if (!where.enabled) return std::nullopt;
  return where.directory / std::string(tuned_file::name);
}

// The whole file's text, or "" when it is missing, unreadable or too large (then nothing of it is used).
inline std::string tuned_file_text(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) ||
      std::filesystem::file_size(path, error) > tuned_file::largest_file || error) {
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : "";
}

// The winners this process uses: the file is read on first use (once), each device's and precision's winners
// described once.
class TunedConfigs {
 public:
  static TunedConfigs& shared() {
    static auto* configs = new TunedConfigs;  // leaked on purpose, like the other process-wide tables
    return *configs;
  }

  // The winners for `device` in a precision, or null where there are none (no file, none for this device and
  // driver, a hand-written device description).
  const TunedChoices* find(const DeviceLimits& device, std::size_t scalar_size, MathMode math) {
    if (device.driver.empty()) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!loaded_) {
      const std::optional<std::filesystem::path> path = path_ ? path_ : tuned_file_from_environment();
      entries_ = path ? tuned_file::parse(tuned_file_text(*path)) : std::vector<TunedEntry>{};
      loaded_ = true;
    }
    if (entries_.empty()) return nullptr;
    const std::string precision = precision_name(scalar_size, math);
    const std::string key = device_label(device) + "\n" + device.driver + "\n" + precision;
    auto found = by_key_.find(key);
    if (found == by_key_.end()) {
      auto choices =
          std::make_unique<TunedChoices>(choices_from(entries_, device_label(device), device.driver, precision));
      found = by_key_.emplace(key, std::move(choices)).first;
    }
    for (const TunedChoice& choice : *found->second) {
      if (choice.present) return found->second.get();
    }
    return nullptr;
  }

  // Reads `path` from the next call on, or the environment's file again (nullopt): for tests and the tuner. Winners
  // handed out before stay valid (they are kept).
  void use_file(std::optional<std::filesystem::path> path) {
    std::lock_guard<std::mutex> lock(mutex_);
    path_ = std::move(path);
    loaded_ = false;
    entries_.clear();
    for (auto& [key, choices] : by_key_) retired_.push_back(std::move(choices));
    by_key_.clear();
  }

 private:
  std::mutex mutex_;
  bool loaded_ = false;
  std::optional<std::filesystem::path> path_;
  std::vector<TunedEntry> entries_;
  std::map<std::string, std::unique_ptr<TunedChoices>> by_key_;
  std::vector<std::unique_ptr<TunedChoices>> retired_;
};

}  // namespace tilegemm::detail
