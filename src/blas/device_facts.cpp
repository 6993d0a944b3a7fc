// blas/device_facts: tilegemm's default queue and its device's description, looked up once.
#include "device_facts.hpp"

#include <exception>
#include <mutex>
#include <tilegemm/core.hpp>

namespace tilegemm::detail::blas {

const DeviceFacts& device_facts() {
  static std::once_flag flag;
  static DeviceFacts* facts = nullptr;  // leaked on purpose, like tilegemm's own tables
  std::call_once(flag, [] {
    auto* found = new DeviceFacts;
    try {
      const cl::CommandQueue queue = default_queue();
      const DeviceLimits limits = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
      found->usable = true;
      found->cpu = (limits.type & CL_DEVICE_TYPE_CPU) != 0;
      found->fp64 = limits.fp64;
      found->key = limits.name + "|" + limits.driver + "|" + limits.platform;
    } catch (const std::exception& error) {
      found->problem = error.what();
    } catch (...) {
      found->problem = "an unknown exception";
    }
    facts = found;
  });
  return *facts;
}

}  // namespace tilegemm::detail::blas
