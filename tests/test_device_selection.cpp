// test_device_selection: TILEGEMM_DEVICE's rule on hand-written device lists, then list_devices and queue_for here.
#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <tilegemm/tilegemm.hpp>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "reference.hpp"

// Two kinds of cases. Those tagged [unit] run detail::choose_device and its message on device lists written out
// below, with null cl::Devices: they need no OpenCL platform, and every expected choice is written by hand, so they
// fail when the rule is wrong. The [devices] cases check what needs a real device: that list_devices agrees with
// OpenCL, that find_device and default_device plug the rule onto it, and queue_for.
//
// Order dependence: default_queue() reads TILEGEMM_DEVICE once per process, on its first call. Only the test case
// "default_device and default_queue honour TILEGEMM_DEVICE" may call it (directly, or through gpu_gemm without a
// queue); every other case here passes queues explicitly, so that case sets the variable before the first read
// whatever order the cases run in.

using tilegemm::DeviceEntry;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

namespace {

// The tilegemm::Error that `body` throws; fails the case when it throws none.
template <class Body>
tilegemm::Error error_from(Body&& body) {
  try {
    body();
  } catch (const tilegemm::Error& e) {
    return e;
  }
  FAIL("no tilegemm::Error thrown");
  return tilegemm::Error(CL_SUCCESS, "");
}

// ---- Devices on this machine ----

std::string uppercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool same_device(const DeviceEntry& a, const DeviceEntry& b) { return a.device() == b.device(); }

// Whether entries[index]'s full label is sure to choose it: no device listed before it has a label that contains it,
// in any case. Of two identical GPUs (one label), only the first can be named this way.
bool label_chooses_itself(const std::vector<DeviceEntry>& entries, std::size_t index) {
  const std::string label = lowercase(entries[index].label());
  for (std::size_t earlier = 0; earlier < index; ++earlier) {
    if (lowercase(entries[earlier].label()).find(label) != std::string::npos) return false;
  }
  return true;
}

// The last device whose full label chooses it (never none: the first device's does). The last, so that where a GPU
// is listed first and other devices follow, it is not also the device an unset TILEGEMM_DEVICE gives.
std::size_t last_named_by_label(const std::vector<DeviceEntry>& entries) {
  std::size_t index = entries.size() - 1;
  while (!label_chooses_itself(entries, index)) --index;
  return index;
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

// ======== The rule, on hand-written lists: no OpenCL device needed ========

// ======== This machine's devices ========

TEST_CASE("list_devices lists every device of every platform in order, as OpenCL reports them", "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  std::vector<cl::Platform> platforms;
  REQUIRE(cl::Platform::get(&platforms) == CL_SUCCESS);
  std::size_t next = 0;
  for (const cl::Platform& platform : platforms) {
    std::string platform_name;
    REQUIRE(platform.getInfo(CL_PLATFORM_NAME, &platform_name) == CL_SUCCESS);
    std::vector<cl::Device> devices;
    const cl_int found = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (found == CL_DEVICE_NOT_FOUND) continue;  // a platform without devices
    REQUIRE(found == CL_SUCCESS);
    for (const cl::Device& device : devices) {
      REQUIRE(next < entries.size());
      const DeviceEntry& e = entries[next++];
      INFO("device " << e.label());
      CHECK(e.device() == device());
      std::string device_name;
      REQUIRE(device.getInfo(CL_DEVICE_NAME, &device_name) == CL_SUCCESS);
      // The driver's names, less only trailing padding.
      const std::string padding(" \0", 2);
      CHECK(!e.platform_name.empty());
      CHECK(!e.device_name.empty());
      CHECK(platform_name.compare(0, e.platform_name.size(), e.platform_name) == 0);
      CHECK(platform_name.find_first_not_of(padding, e.platform_name.size()) == std::string::npos);
      CHECK(device_name.compare(0, e.device_name.size(), e.device_name) == 0);
      CHECK(device_name.find_first_not_of(padding, e.device_name.size()) == std::string::npos);
      CHECK(e.label() == e.platform_name + " / " + e.device_name);
      cl_device_type type = 0;
      REQUIRE(device.getInfo(CL_DEVICE_TYPE, &type) == CL_SUCCESS);
      CHECK(e.type == type);
    }
  }
  CHECK(next == entries.size());
}

TEST_CASE("find_device with a device's full label, in any case, returns that device", "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  for (std::size_t index = 0; index < entries.size(); ++index) {
    if (!label_chooses_itself(entries, index)) continue;  // an earlier label contains it: a second identical GPU
    const DeviceEntry& expected = entries[index];
    for (const std::string& spec : {expected.label(), uppercase(expected.label()), lowercase(expected.label())}) {
      INFO("find_device(" << spec << ")");
      const DeviceEntry found = tilegemm::find_device(spec);
      CHECK(same_device(found, expected));
      CHECK(found.label() == expected.label());
      CHECK(found.type == expected.type);
    }
  }
}

TEST_CASE("find_device with text that matches nothing throws CL_DEVICE_NOT_FOUND listing this machine's devices",
          "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  const tilegemm::Error error = error_from([] { tilegemm::find_device("no-such-device-xyz"); });
  CHECK(error.code() == CL_DEVICE_NOT_FOUND);
  const std::string message = error.what();
  CHECK(message.find("TILEGEMM_DEVICE=\"no-such-device-xyz\"") != std::string::npos);
  for (const DeviceEntry& e : entries) {
    INFO("device " << e.label());
    CHECK(message.find("\n  " + e.label() + " (" + e.type_name() + ")") != std::string::npos);
  }
}

TEST_CASE("on a machine whose only device is PoCL's CPU, every spelling chooses it or lists it", "[devices][pocl]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  if (entries.size() != 1 || entries[0].platform_name != "Portable Computing Language" ||
      entries[0].type != CL_DEVICE_TYPE_CPU) {
    WARN("not a machine with PoCL's CPU as its only device; skipped");
    return;
  }
  const DeviceEntry& pocl = entries[0];
  for (const char* spec : {"", "cpu", "CPU", "portable", "PORTABLE computing LANG", "language / "}) {
    INFO("find_device(" << spec << ")");
    CHECK(same_device(tilegemm::find_device(spec), pocl));
  }
  for (const char* spec : {"gpu", "accelerator", "nvidia"}) {
    INFO("find_device(" << spec << ")");
    const tilegemm::Error error = error_from([&] { tilegemm::find_device(spec); });
    CHECK(error.code() == CL_DEVICE_NOT_FOUND);
    CHECK(std::string(error.what()).find("\n  Portable Computing Language / " + pocl.device_name + " (cpu)") !=
          std::string::npos);
  }
}

TEST_CASE("find_device with gpu:N takes this machine's N-th GPU, and without a GPU gpu:0 says there is none",
          "[devices]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  std::vector<std::size_t> gpus;  // the entries' indices, in list order
  for (std::size_t index = 0; index < entries.size(); ++index) {
    if (entries[index].type_name() == "gpu") gpus.push_back(index);
  }
  for (std::size_t number = 0; number < gpus.size(); ++number) {
    INFO("gpu:" << number);
    CHECK(same_device(tilegemm::find_device("gpu:" + std::to_string(number)), entries[gpus[number]]));
  }
  const std::string beyond = "gpu:" + std::to_string(gpus.size());
  const tilegemm::Error error = error_from([&] { tilegemm::find_device(beyond); });
  CHECK(error.code() == CL_DEVICE_NOT_FOUND);
  CHECK(std::string(error.what()).find("TILEGEMM_DEVICE=\"" + beyond + "\": there ") != std::string::npos);
  if (gpus.empty()) CHECK(std::string(error.what()).find("there is no GPU here") != std::string::npos);
  CHECK(error_from([] { tilegemm::find_device("gpu:x"); }).code() == CL_INVALID_VALUE);
  CHECK(error_from([] { tilegemm::find_device("gpu:-1"); }).code() == CL_INVALID_VALUE);
}

TEST_CASE("find_device with local-rank takes the device the rank variables name, here", "[devices][environment]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  std::vector<std::size_t> candidates;  // the GPUs, or every device where there is none (PoCL alone in CI)
  for (std::size_t index = 0; index < entries.size(); ++index) {
    if (entries[index].type_name() == "gpu") candidates.push_back(index);
  }
  if (candidates.empty()) {
    for (std::size_t index = 0; index < entries.size(); ++index) candidates.push_back(index);
  }
  ScopedEnvironment open_mpi("OMPI_COMM_WORLD_LOCAL_RANK", nullptr);
  ScopedEnvironment mpich("MPI_LOCALRANKID", nullptr);
  ScopedEnvironment slurm("SLURM_LOCALID", nullptr);
  CHECK(same_device(tilegemm::find_device("local-rank"), entries[candidates[0]]));  // no variable: rank 0
  for (std::size_t rank = 0; rank < 6; ++rank) {
    const std::string value = std::to_string(rank);
    INFO("OMPI_COMM_WORLD_LOCAL_RANK=" << value);
    open_mpi.set(value.c_str());
    CHECK(same_device(tilegemm::find_device("local-rank"), entries[candidates[rank % candidates.size()]]));
  }
  open_mpi.set("first");
  const tilegemm::Error error = error_from([] { tilegemm::find_device("local-rank"); });
  CHECK(error.code() == CL_INVALID_VALUE);
  CHECK(std::string(error.what()).find("OMPI_COMM_WORLD_LOCAL_RANK=\"first\"") != std::string::npos);
  // default_device() reads TILEGEMM_DEVICE and the rank the same way.
  open_mpi.set(nullptr);
  slurm.set("1");
  ScopedEnvironment device("TILEGEMM_DEVICE", "LOCAL-RANK");
  CHECK(same_device(tilegemm::default_device(), entries[candidates[1 % candidates.size()]]));
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
    // In order, and without profiling (a kernel's event on a profiling queue costs NVIDIA's driver about 8 us a call).
    CHECK((first.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0);
    CHECK((first.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) == 0);
    const std::vector<cl::Device> context_devices = first.getInfo<CL_QUEUE_CONTEXT>().getInfo<CL_CONTEXT_DEVICES>();
    CHECK(context_devices.size() == 1);
    CHECK(works(first) == "");
    handles.push_back(first());
  }
  // Different devices have different queues (devices listed twice by two ICDs are different devices too).
  std::sort(handles.begin(), handles.end());
  CHECK(std::adjacent_find(handles.begin(), handles.end()) == handles.end());
  // Entries listed again (new cl::Device objects for the same devices) get the same queues.
  const std::vector<DeviceEntry> listed_again = tilegemm::list_devices();
  REQUIRE(listed_again.size() == entries.size());
  for (std::size_t index = 0; index < entries.size(); ++index) {
    CHECK(tilegemm::queue_for(listed_again[index].device)() == tilegemm::queue_for(entries[index].device)());
  }
}

TEST_CASE("default_device and default_queue honour TILEGEMM_DEVICE", "[devices][environment]") {
  const std::vector<DeviceEntry> entries = tilegemm::list_devices();
  REQUIRE(!entries.empty());
  const DeviceEntry& expected = entries[last_named_by_label(entries)];
  // That device named by its full label, upper-cased.
  const std::string spec = uppercase(expected.label());
  ScopedEnvironment environment("TILEGEMM_DEVICE", spec.c_str());

  // default_device() reads the variable on every call; unset and empty are find_device("").
  CHECK(same_device(tilegemm::default_device(), expected));
  environment.set("no-such-device-xyz");
  CHECK_THROWS_AS(tilegemm::default_device(), tilegemm::Error);
  environment.set(nullptr);
  CHECK(same_device(tilegemm::default_device(), tilegemm::find_device("")));
  environment.set("");
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
