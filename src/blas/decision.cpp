// blas/decision: the per-call rule; a product only reaches the device's description (and so OpenCL) once it is past
// the mode and the size pre-filter.
#include "decision.hpp"

#include <atomic>
#include <string>

#include "after_fork.hpp"
#include "arguments.hpp"
#include "calibration.hpp"
#include "call_log.hpp"
#include "cost_model.hpp"
#include "device_facts.hpp"
#include "offload_mode.hpp"

namespace tilegemm::detail::blas {

namespace {
std::atomic<bool> said_no_device{false};
}

template <class Scalar>
Route choose(const Product<Scalar>& p, const CpuBlas* cpu) {
  if (in_forked_child()) return {false, "after-fork"};
  if (cpu == nullptr) return {true, "no-cpu-blas"};
  const tilegemm_blas_offload mode = offload_mode();
  if (mode == TILEGEMM_BLAS_NEVER) return {false, "forced"};
  if (beyond_tilegemm_indices(p.m, p.n, p.k)) return {false, "refused"};
  if (mode == TILEGEMM_BLAS_AUTO && product_flops(p.m, p.n, p.k) < small_product_flops) return {false, "small"};
  const DeviceFacts& device = device_facts();
  if (!device.usable) {
    say_once(said_no_device,
             "tilegemm-blas: tilegemm has no device (" + device.problem + "); every ?gemm call runs on the CPU BLAS");
    return {false, "no-device"};
  }
  if (sizeof(Scalar) == sizeof(double) && !device.fp64) return {false, "refused"};
  if (mode == TILEGEMM_BLAS_ALWAYS) return {true, "forced"};
  if (device.cpu) return {false, "cpu-device"};
  const CostModel* model = calibrated_model<Scalar>(device, *cpu);
  if (model == nullptr) return {false, "no-model"};
  return {gpu_is_faster(*model, p.m, p.n, p.k, sizeof(Scalar)), "model"};
}

template Route choose<float>(const Product<float>&, const CpuBlas*);
template Route choose<double>(const Product<double>&, const CpuBlas*);

}  // namespace tilegemm::detail::blas
