// runtime/device_list: the devices TILEGEMM_DEVICES names for one product over several devices ("all" or "0,2").
#pragma once

#include <cstddef>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../config/linkage.hpp"
#include "device.hpp"
#include "error.hpp"
#include "opencl.hpp"
#include "queue.hpp"

namespace tilegemm {
namespace detail {

// The positions in `entries` (list_devices' order) that TILEGEMM_DEVICES=`spec` names: "all" is every GPU, or every
// device where there is no GPU (so that CI runs on PoCL); "0,2" are indices among those same devices (the N-th GPU in
// list_devices' order, as TILEGEMM_DEVICE=gpu:N counts them; with no GPU, over all devices). Spaces around the
// entries are ignored. Throws std::invalid_argument naming the variable for an empty entry, a non-number, an index past
// the end or a duplicate. The rule alone: it reads only types, so it runs on hand-written entries without OpenCL.
inline std::vector<std::size_t> parse_device_list(const std::vector<DeviceEntry>& entries, std::string_view spec) {
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].type & CL_DEVICE_TYPE_GPU) candidates.push_back(i);
  }
  const bool gpus = !candidates.empty();
  if (!gpus) {
    for (std::size_t i = 0; i < entries.size(); ++i) candidates.push_back(i);
  }
  const std::string what = gpus ? "GPU" : "device";
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("tilegemm: TILEGEMM_DEVICES=\"" + std::string(spec) + "\": " + why +
                                ". Expected \"all\" or indices of " + what + "s separated by commas, e.g. \"0,1\" (" +
                                std::to_string(candidates.size()) + " " + what + (candidates.size() == 1 ? "" : "s") +
                                " here, numbered from 0 in list_devices' order).");
  };
  const auto strip = [](std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
  };
  if (candidates.empty()) refuse("there is no OpenCL device");
  if (lowercase(strip(spec)) == "all") return candidates;
  std::vector<std::size_t> chosen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = spec.find(',', start);
    const std::string_view entry =
        strip(spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
    if (entry.empty()) refuse("an empty entry");
    std::size_t index = 0;
    for (const char c : entry) {
      if (c < '0' || c > '9') refuse("\"" + std::string(entry) + "\" is not an index");
      if (index > candidates.size()) break;  // past the end already: no overflow on long numbers
      index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    if (index >= candidates.size())
      refuse(what + " " + std::string(entry) + " does not exist (the last is " + std::to_string(candidates.size() - 1) +
             ")");
    for (const std::size_t seen : chosen) {
      if (seen == candidates[index]) refuse(what + " " + std::string(entry) + " is named twice");
    }
    chosen.push_back(candidates[index]);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return chosen;
}

}  // namespace detail

// The queues of the devices TILEGEMM_DEVICES names (detail::parse_device_list), one per device (queue_for's), read
// once per process; empty when it is unset or empty (calls without a queue then use default_queue()). Throws what the
// parser throws for nonsense, on every call.
TILEGEMM_ENTRY std::vector<cl::CommandQueue> default_queues();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY std::vector<cl::CommandQueue> default_queues() {
  struct Chosen {
    std::vector<cl::CommandQueue> queues;
    std::exception_ptr failure;
  };
  // Leaked on purpose, like the queues (queue.hpp): released at exit, they might outlive the driver.
  static const Chosen* chosen = [] {
    auto* result = new Chosen;
    const char* spec = std::getenv("TILEGEMM_DEVICES");
    if (spec == nullptr || *spec == '\0') return result;
    try {
      const std::vector<DeviceEntry> entries = list_devices();
      for (const std::size_t index : detail::parse_device_list(entries, spec))
        result->queues.push_back(queue_for(entries[index].device));
    } catch (...) {
      result->failure = std::current_exception();
    }
    return result;
  }();
  if (chosen->failure) std::rethrow_exception(chosen->failure);
  return chosen->queues;
}
#endif

}  // namespace tilegemm
