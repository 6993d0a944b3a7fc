// launch: creating a kernel from a cached program, checking it against the device, setting arguments, enqueueing.
#pragma once

#include <array>
#include <cstddef>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "../kernels/program_text.hpp"
#include "call_context.hpp"
#include "device_limits.hpp"
#include "disk_cache.hpp"
#include "error.hpp"
#include "launch_basics.hpp"
#include "opencl.hpp"
#include "program_cache.hpp"
#include "store_after_run.hpp"

namespace tilegemm::detail {

// A launch of x by y, in two dimensions, or three when it is a batch of more than one problem (dimension 2).
inline cl::NDRange batch_range(std::size_t x, std::size_t y, std::size_t problems) {
  return problems > 1 ? cl::NDRange(x, y, problems) : cl::NDRange(x, y);
}
inline cl::NDRange range_of(const std::array<std::size_t, 3>& sizes) {
  return batch_range(sizes[0], sizes[1], sizes[2]);
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

// Enqueues a kernel that only later commands of the same call wait for. On an in-order queue they follow it anyway, so
// it gets no event: on NVIDIA's driver a launch took 6.6 us of host time without one and 8.9 us with one (H200,
// 2026-11-28), and small products are bound by that time. Elsewhere (an out-of-order queue, or a program stored after
// its first run) its event is appended to `events`, for the later commands to wait on.
inline void enqueue_step(const CallContext& call, KernelLease& kernel, const cl::NDRange& global,
                         const cl::NDRange& local, const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  if (!call.in_order || kernel.store_after_run()) {
    events.push_back(enqueue(call.queue, kernel, global, local, wait));
    return;
  }
  check(call.queue.enqueueNDRangeKernel(kernel.get(), cl::NullRange, global, local, wait.empty() ? nullptr : &wait),
        "clEnqueueNDRangeKernel");
}

}  // namespace tilegemm::detail
