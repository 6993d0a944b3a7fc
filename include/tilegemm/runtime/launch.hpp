// launch: creating a kernel from a cached program, checking it against the device, setting arguments, enqueueing.
#pragma once

#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "../kernels/program_text.hpp"
#include "call_context.hpp"
#include "device_limits.hpp"
#include "disk_cache.hpp"
#include "error.hpp"
#include "opencl.hpp"
#include "program_cache.hpp"
#include "store_after_run.hpp"

namespace tilegemm::detail {

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Throws tilegemm::Error before anything is built when a work-group of the given shape cannot run on the device,
// which gives a work-group of this kernel `local_limit` bytes of local memory. `what` names the kernel in the
// message: text, or a function that returns it (worked out only for a message).
template <class What>
void check_work_group(const DeviceLimits& device, const What& what_names, std::size_t threads_m, std::size_t threads_n,
                      std::size_t local_bytes, std::size_t local_limit) {
  const auto what = [&]() -> std::string {
    if constexpr (std::is_invocable_v<What>) {
      return what_names();
    } else {
      return what_names;
    }
  };
  const std::size_t threads = threads_m * threads_n;
  if (threads > device.max_work_group_size || device.max_work_item_sizes.size() < 2 ||
      threads_m > device.max_work_item_sizes[0] || threads_n > device.max_work_item_sizes[1]) {
    throw Error(CL_INVALID_WORK_GROUP_SIZE,
                "tilegemm: " + what() + " needs work-groups of " + std::to_string(threads_m) + " x " +
                    std::to_string(threads_n) + " work-items, more than " + device.name + " allows (" +
                    std::to_string(device.max_work_group_size) +
                    " in all). Choose a TileConfig with fewer work-items (larger WPTM/WPTN or smaller tiles).");
  }
  if (local_bytes > local_limit) {
    throw Error(CL_OUT_OF_RESOURCES, "tilegemm: " + what() + " needs " + std::to_string(local_bytes) +
                                         " bytes of local memory per work-group but " + device.name + " has " +
                                         std::to_string(local_limit) +
                                         ". Choose a TileConfig with smaller TSK, TSM or TSN.");
  }
}

// A kernel object for one call, lent by the program cache (kernel objects are reused across calls but never shared
// between threads at once), checked against the work-items its configuration needs.
inline KernelLease make_kernel(const CallContext& call, const ProgramText& text, std::size_t threads) {
  KernelLease kernel = ProgramCache::instance().kernel(call.context, call.device, text);
  if (threads > kernel.work_group_size()) {
    throw Error(CL_INVALID_WORK_GROUP_SIZE, std::string("tilegemm: the compiled kernel ") + text.kernel_name +
                                                " runs at most " + std::to_string(kernel.work_group_size()) +
                                                " work-items per group on " + call.limits.name +
                                                ", but its configuration needs " + std::to_string(threads) +
                                                ". Choose a TileConfig with fewer work-items.");
  }
  return kernel;
}

// A kernel argument of the product's scalar type, float or double (held as a double, which holds any float exactly):
// alpha and beta, so that the code that runs a product is the same for both types.
struct ScalarValue {
  double value = 0;
  bool is_double = false;
};
template <class Scalar>
ScalarValue scalar_value(Scalar value) {
  return {static_cast<double>(value), std::is_same_v<Scalar, double>};
}

template <class T>
cl_int set_arg(cl::Kernel& kernel, cl_uint index, const T& value) {
  return kernel.setArg(index, value);
}
inline cl_int set_arg(cl::Kernel& kernel, cl_uint index, const ScalarValue& value) {
  return value.is_double ? kernel.setArg(index, value.value) : kernel.setArg(index, static_cast<float>(value.value));
}

// Sets the kernel's arguments from index `first` on; returns the index after the last one set.
template <class... Args>
cl_uint set_args_from(cl::Kernel& kernel, cl_uint first, const Args&... args) {
  cl_uint index = first;
  (check(set_arg(kernel, index++, args), "clSetKernelArg"), ...);
  return index;
}
template <class... Args>
cl_uint set_args(cl::Kernel& kernel, const Args&... args) {
  return set_args_from(kernel, 0, args...);
}
template <class... Args>
cl_uint set_args(KernelLease& kernel, const Args&... args) {
  return set_args_from(kernel.get(), 0, args...);
}
template <class... Args>
cl_uint set_args_from(KernelLease& kernel, cl_uint first, const Args&... args) {
  return set_args_from(kernel.get(), first, args...);
}

// Enqueues the kernel. On PoCL alone, programs compiled earlier that have run are stored first, and the launch goes
// through StoreAfterRun's gate (store_after_run.hpp says why); elsewhere it takes no lock.
inline cl::Event enqueue(const cl::CommandQueue& queue, KernelLease& kernel, const cl::NDRange& global,
                         const cl::NDRange& local, const std::vector<cl::Event>& wait) {
  const auto launch = [&] {
    cl::Event done;
    check(queue.enqueueNDRangeKernel(kernel.get(), cl::NullRange, global, local, wait.empty() ? nullptr : &wait, &done),
          "clEnqueueNDRangeKernel");
    return done;
  };
  if (!kernel.store_after_run()) return launch();
  DiskCache::instance().store_ran();
  StoreAfterRun& after_run = StoreAfterRun::instance();
  const std::shared_lock<std::shared_mutex> launching = after_run.launching();
  cl::Event done = launch();
  after_run.launched(kernel.get(), done);
  return done;
}

}  // namespace tilegemm::detail
