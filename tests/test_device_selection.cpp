// test_device_selection: list_devices, find_device's rules, queue_for's shared queues and TILEGEMM_DEVICE.
#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

// Order dependence: default_queue() reads TILEGEMM_DEVICE once per process, on its first call. Only the test case
// "default_device and default_queue honour TILEGEMM_DEVICE" may call it (directly, or through gpu_gemm without a
// queue); every other case here passes queues explicitly, so that case sets the variable before the first read
// whatever order the cases run in.

using tilegemm::DeviceEntry;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

namespace {

std::string uppercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool same_device(const DeviceEntry& a, const DeviceEntry& b) { return a.device() == b.device(); }

// The first entry matching `matches`, or nullptr.
template <class Matches>
const DeviceEntry* first_where(const std::vector<DeviceEntry>& entries, Matches&& matches) {
  const auto found = std::find_if(entries.begin(), entries.end(), matches);
  return found == entries.end() ? nullptr : &*found;
}

const DeviceEntry* first_of_type(const std::vector<DeviceEntry>& entries, cl_device_type type) {
  return first_where(entries, [&](const DeviceEntry& e) { return (e.type & type) != 0; });
}

// "" when `queue` computes a small product right.
std::string works(const cl::CommandQueue& queue) {
  const Matrix<float> a = random_matrix<float>(9, 7), b = random_matrix<float>(7, 5);
  const Matrix<float> c = tilegemm::gpu_gemm(queue, a, b);
  return compare_with_reference<float>(c, 1, a, b, 0, c);
}

// Sets (or, for nullptr, unsets) an environment variable for the lifetime of this object, then restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_value_ = true;
      old_value_ = old;
    }
    set(value);
  }
  ~ScopedEnvironment() { set(had_value_ ? old_value_.c_str() : nullptr); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  void set(const char* value) {
    if (value) {
      setenv(name_.c_str(), value, 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  bool had_value_ = false;
  std::string old_value_;
};

}  // namespace

TEST_CASE("list_devices lists every device, labelled \"platform / device\"", "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  for (const DeviceEntry& e : entries) {
    INFO("device " << e.label());
    CHECK(!e.platform_name.empty());
    CHECK(!e.device_name.empty());
    CHECK(e.label() == e.platform_name + " / " + e.device_name);
    std::string name;
    REQUIRE(e.device.getInfo(CL_DEVICE_NAME, &name) == CL_SUCCESS);
    CHECK(name.find(e.device_name) == 0);  // the driver's name, less any padding
    cl_platform_id platform_id = nullptr;
    REQUIRE(e.device.getInfo(CL_DEVICE_PLATFORM, &platform_id) == CL_SUCCESS);
    std::string platform_name;
    REQUIRE(cl::Platform(platform_id, true).getInfo(CL_PLATFORM_NAME, &platform_name) == CL_SUCCESS);
    CHECK(platform_name.find(e.platform_name) == 0);
    cl_device_type type = 0;
    REQUIRE(e.device.getInfo(CL_DEVICE_TYPE, &type) == CL_SUCCESS);
    CHECK(e.type == type);
    const std::string type_name = e.type_name();
    if (type & CL_DEVICE_TYPE_GPU) {
      CHECK(type_name == "gpu");
    } else if (type & CL_DEVICE_TYPE_CPU) {
      CHECK(type_name == "cpu");
    } else if (type & CL_DEVICE_TYPE_ACCELERATOR) {
      CHECK(type_name == "accelerator");
    } else {
      CHECK(type_name == "other");
    }
  }
}

TEST_CASE("find_device(\"\") returns the first GPU, or else the first device", "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  const DeviceEntry* gpu = first_of_type(entries, CL_DEVICE_TYPE_GPU);
  const DeviceEntry& expected = gpu ? *gpu : entries.front();
  const DeviceEntry found = tilegemm::find_device("");
  CHECK(same_device(found, expected));
  CHECK(found.label() == expected.label());
}

TEST_CASE("find_device(\"cpu\"), \"gpu\" and \"accelerator\" pick the first device of that type, in any case",
          "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  const struct {
    const char* spec;
    cl_device_type type;
  } kinds[] = {{"cpu", CL_DEVICE_TYPE_CPU},
               {"CPU", CL_DEVICE_TYPE_CPU},
               {"Cpu", CL_DEVICE_TYPE_CPU},
               {"gpu", CL_DEVICE_TYPE_GPU},
               {"GPU", CL_DEVICE_TYPE_GPU},
               {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
               {"Accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (const auto& kind : kinds) {
    INFO("find_device(\"" << kind.spec << "\")");
    // A GPU that also reports another type bit is a "gpu", not that type.
    const DeviceEntry* expected =
        first_where(entries, [&](const DeviceEntry& e) { return e.type_name() == lowercase(kind.spec); });
    if (expected) {
      const DeviceEntry found = tilegemm::find_device(kind.spec);
      CHECK(same_device(found, *expected));
      CHECK((found.type & kind.type) != 0);
    } else {
      // None of that type here (e.g. no GPU on a machine with only PoCL): an Error that lists the devices there are.
      CHECK_THROWS_AS(tilegemm::find_device(kind.spec), tilegemm::Error);
      for (const DeviceEntry& e : entries) {
        INFO("listing " << e.label());
#if TILEGEMM_CATCH2_V3
        CHECK_THROWS_WITH(tilegemm::find_device(kind.spec), Catch::Matchers::ContainsSubstring(e.label()));
#else
        CHECK_THROWS_WITH(tilegemm::find_device(kind.spec), Catch::Contains(e.label()));
#endif
      }
    }
  }
}

TEST_CASE("this machine's PoCL CPU device is found as \"cpu\"", "[devices][pocl]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  const DeviceEntry* pocl = first_where(entries, [](const DeviceEntry& e) {
    return lowercase(e.platform_name).find("portable computing language") != std::string::npos;
  });
  if (!pocl) {
    WARN("no PoCL platform here; skipped");
    return;
  }
  const DeviceEntry cpu = tilegemm::find_device("CPU");
  CHECK((cpu.type & CL_DEVICE_TYPE_CPU) != 0);
  // The PoCL platform's name, partly upper-cased, selects a PoCL device.
  const DeviceEntry by_platform = tilegemm::find_device("PORTABLE computing LANG");
  CHECK(lowercase(by_platform.platform_name).find("portable computing language") != std::string::npos);
}

TEST_CASE("find_device with a substring of the platform or device name, in any case, picks the first match",
          "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  for (const DeviceEntry& e : entries) {
    const std::string name_parts[] = {e.platform_name, e.device_name, e.label()};
    for (const std::string& name : name_parts) {
      // The middle of the name (at least 5 characters, so never "cpu" or "gpu"), upper-cased and lower-cased.
      const std::size_t length = std::max<std::size_t>(5, name.size() / 2);
      if (name.size() < length) continue;
      const std::string part = name.substr((name.size() - length) / 2, length);
      for (const std::string& spec : {uppercase(part), lowercase(part), part}) {
        INFO("find_device(\"" << spec << "\") for " << e.label());
        const DeviceEntry* expected = first_where(entries, [&](const DeviceEntry& x) {
          return lowercase(x.label()).find(lowercase(spec)) != std::string::npos;
        });
        REQUIRE(expected != nullptr);  // e itself matches
        const DeviceEntry found = tilegemm::find_device(spec);
        CHECK(same_device(found, *expected));
        CHECK(lowercase(found.label()).find(lowercase(spec)) != std::string::npos);
      }
    }
  }
}

TEST_CASE("queue_for returns one working queue per device, the same on every call", "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  std::vector<cl_command_queue> handles;
  for (const DeviceEntry& e : entries) {
    INFO("device " << e.label());
    const cl::CommandQueue first = tilegemm::queue_for(e.device);
    const cl::CommandQueue second = tilegemm::queue_for(e.device);
    CHECK(first() != nullptr);
    CHECK(first() == second());
    CHECK(first.getInfo<CL_QUEUE_DEVICE>()() == e.device());
    CHECK((first.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0);
    const std::vector<cl::Device> context_devices = first.getInfo<CL_QUEUE_CONTEXT>().getInfo<CL_CONTEXT_DEVICES>();
    CHECK(context_devices.size() == 1);
    CHECK(works(first) == "");
    handles.push_back(first());
  }
  // Different devices have different queues (devices listed twice by two ICDs are different devices too).
  std::sort(handles.begin(), handles.end());
  CHECK(std::adjacent_find(handles.begin(), handles.end()) == handles.end());
  // The queue of find_device("")'s device is the one queue_for gives.
  CHECK(tilegemm::queue_for(tilegemm::find_device("").device)() ==
        tilegemm::queue_for(tilegemm::find_device("").device)());
}

TEST_CASE("default_device and default_queue honour TILEGEMM_DEVICE", "[devices][environment]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  // The last device (on a machine with several, not the one an unset variable gives), named by its upper-cased label.
  const std::string spec = uppercase(entries.back().label());
  const DeviceEntry expected = tilegemm::find_device(spec);
  ScopedEnvironment environment("TILEGEMM_DEVICE", spec.c_str());

  // default_device() reads the variable on every call.
  CHECK(same_device(tilegemm::default_device(), expected));
  environment.set("no-such-device-xyz");
  CHECK_THROWS_AS(tilegemm::default_device(), tilegemm::Error);
  environment.set(nullptr);
  CHECK(same_device(tilegemm::default_device(), tilegemm::find_device("")));

  // default_queue() reads it once, on its first successful call: these must be the first calls in this process (see
  // the top). A name that matches nothing makes it throw (and a static whose initialisation threw is retried), which
  // shows that it reads the variable even where there is a single device.
  environment.set("no-such-device-xyz");
  CHECK_THROWS_AS(tilegemm::default_queue(), tilegemm::Error);
  environment.set(spec.c_str());
  const cl::CommandQueue queue = tilegemm::default_queue();
  CHECK(queue.getInfo<CL_QUEUE_DEVICE>()() == expected.device());
  CHECK(queue() == tilegemm::queue_for(expected.device)());
  environment.set("no-such-device-xyz");  // too late to matter
  CHECK(tilegemm::default_queue()() == queue());
  // gpu_gemm without a queue runs on it.
  const Matrix<double> a = random_matrix<double>(8, 6), b = random_matrix<double>(6, 4);
  if (tilegemm::detail::device_limits(expected.device).fp64) {
    const Matrix<double> c = tilegemm::gpu_gemm(a, b);
    CHECK(compare_with_reference<double>(c, 1, a, b, 0, c) == "");
  }
  const Matrix<float> af = a.cast<float>(), bf = b.cast<float>();
  const Matrix<float> cf = tilegemm::gpu_gemm(af, bf);
  CHECK(compare_with_reference<float>(cf, 1, af, bf, 0, cf) == "");
}
