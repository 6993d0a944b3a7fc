// gemm: the BLAS-style product on cl::Buffers, C = alpha * op(A) * op(B) + beta * C, column-major.
#pragma once

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config/scalar.hpp"
#include "../config/tile_config.hpp"
#include "../kernels/program_text.hpp"
#include "../runtime/device_limits.hpp"
#include "../runtime/error.hpp"
#include "../runtime/launch.hpp"
#include "../runtime/scratch_pool.hpp"
#include "arguments.hpp"
#include "default_config.hpp"
#include "operand_policy.hpp"
#include "packing.hpp"

namespace tilegemm {
namespace detail {

// The program for a configuration, its two layout flags, its EDGES mode and whether it multiplies strips (see
// gemm_preamble), at run time.
template <class Config, class Scalar, bool FlagA, bool FlagB, bool Strips>
ProgramText program_text_for(int edges) {
  if (edges == 2) return gemm_program_text<Config, Scalar, FlagA, FlagB, 2, Strips>();
  if (edges == 1) return gemm_program_text<Config, Scalar, FlagA, FlagB, 1, Strips>();
  return gemm_program_text<Config, Scalar, FlagA, FlagB, 0, Strips>();
}
template <class Config, class Scalar, bool Strips = false>
ProgramText program_text(bool flag_a, bool flag_b, int edges) {
  if (flag_a) {
    return flag_b ? program_text_for<Config, Scalar, true, true, Strips>(edges)
                  : program_text_for<Config, Scalar, true, false, Strips>(edges);
  }
  return flag_b ? program_text_for<Config, Scalar, false, true, Strips>(edges)
                : program_text_for<Config, Scalar, false, false, Strips>(edges);
}

// Work-groups of the strip code (kernels/strip.hpp) for the strips of an m x n C outside its corner
// [0, corner_m) x [0, corner_n): `panel` rows each of the right strip, `panel` columns each of the bottom one.
inline std::size_t strip_groups(int m, int n, int corner_m, int corner_n, int panel) {
  return (corner_n < n ? round_up(m, panel) / panel : 0) + (corner_m < m ? round_up(corner_n, panel) / panel : 0);
}

// Split-K: how many slices of K to multiply in parallel, and how deep each is (a multiple of the tile depth).
struct SplitPlan {
  int slices;
  int k_per_slice;
};

// Enough slices to give the device two work-groups per compute unit, each slice at least four tiles deep.
inline SplitPlan plan_split_k(int m, int n, int k, int tsm, int tsn, int tsk, unsigned compute_units) {
  const long long tiles = static_cast<long long>((m + tsm - 1) / tsm) * ((n + tsn - 1) / tsn);
  const int k_tiles = (k + tsk - 1) / tsk;
  const long long wanted = (2LL * compute_units + tiles - 1) / tiles;
  const int slices = static_cast<int>(std::max(1LL, std::min<long long>(wanted, k_tiles / 4)));
  const int tiles_per_slice = (k_tiles + slices - 1) / slices;
  return {(k_tiles + tiles_per_slice - 1) / tiles_per_slice, tiles_per_slice * tsk};
}

// The two passes of split-K: partial products of the slices into a workspace, then their sum into C. `depth` is the
// K the first pass reads (see run_either_layout).
template <class Config, class Scalar>
cl::Event run_split_k(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, PackedOperand& a, PackedOperand& b,
                      int edges, int depth, const std::vector<cl::Event>& ready) {
  const SplitPlan plan = plan_split_k(p.m, p.n, depth, Config::TSM, Config::TSN, Config::TSK,
                                      device_limits(queue.getInfo<CL_QUEUE_DEVICE>()).compute_units);
  const long long mp = static_cast<long long>(round_up(p.m, Config::TSM));
  const long long np = static_cast<long long>(round_up(p.n, Config::TSN));
  require(plan.slices * mp * np <= INT_MAX, "the split-K workspace would exceed 2^31 - 1 elements; use a smaller C.");
  ScratchBuffer pooled(queue, sizeof(Scalar) * plan.slices * mp * np);
  const cl::Buffer& workspace = pooled.buffer();
  cl::Kernel slices =
      make_kernel(queue, program_text<Config, Scalar>(a.k_contiguous, b.k_contiguous, edges), Config::threads);
  set_args(slices, p.m, p.n, depth, p.alpha, p.beta, a.buffer, a.offset, a.ld, b.buffer, b.offset, b.ld, workspace,
           static_cast<int>(mp * np), static_cast<int>(mp), plan.k_per_slice);
  const cl::Event partial = enqueue(queue, slices, cl::NDRange(mp / Config::WPTM, np / Config::WPTN, plan.slices),
                                    cl::NDRange(Config::threads_m, Config::threads_n, 1), ready);
  cl::Kernel sum = make_kernel(queue, support_program_text<Scalar>(sum_slices_kernel_name), pack_tile * pack_tile);
  set_args(sum, p.m, p.n, plan.slices, p.alpha, p.beta, workspace, static_cast<int>(mp * np), static_cast<int>(mp),
           p.c.buffer, p.c.offset, p.c.ld);
  const cl::Event done = enqueue(queue, sum, cl::NDRange(round_up(p.m, pack_tile), round_up(p.n, pack_tile)),
                                 cl::NDRange(pack_tile, pack_tile), {partial});
  pooled.give_back_after(done);
  return done;
}

// The families that read either layout (prefetch, split-K): each operand in place, or through a packed copy, and
// the kernel's EDGES mode to match (see kernels/prefetch.hpp and operand_policy.hpp).
// With `whole`, p is its corner and the launch multiplies the strips outside it too (STRIPS, prefetch only).
template <class Config, class Scalar>
cl::Event run_either_layout(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, const cl::NDRange& global,
                            const cl::NDRange& local, const std::vector<cl::Event>& wait, EdgePolicy policy,
                            const GemmProblem<Scalar>* whole) {
  constexpr int VW = Config::VW;
  const bool a_outer = !p.trans_a;  // A is M-contiguous, B N-contiguous: outer-contiguous
  const bool b_outer = p.trans_b;
  const bool a_whole = readable_in_place(p.a, p.m, p.k, a_outer, Config::TSM, Config::TSK, true, VW);
  const bool b_whole = readable_in_place(p.b, p.n, p.k, b_outer, Config::TSN, Config::TSK, true, VW);
  const bool a_vectors = vector_aligned(p.a, p.m, p.k, a_outer, VW);
  const bool b_vectors = vector_aligned(p.b, p.n, p.k, b_outer, VW);
  const bool small = static_cast<double>(p.m) * p.n * p.k <= edges_in_place_up_to;
  std::vector<cl::Event> ready = wait;
  int edges = 0;
  PackedOperand a, b;
  if (policy == EdgePolicy::elements ||
      (policy == EdgePolicy::by_size && !(a_whole && b_whole) && !(a_vectors && b_vectors) && small)) {
    edges = 2;
    a = as_it_is(p.a, a_outer, 1);
    b = as_it_is(p.b, b_outer, 1);
  } else {
    // In place where whole tiles, or whole vectors unless the policy says pack; but a K-contiguous operand reused
    // over many rows (B) or columns (A) of C is packed, since the kernel reads an outer-contiguous one faster.
    const bool vectors_ok = policy != EdgePolicy::pack;
    const bool a_in_place = (a_whole || (vectors_ok && a_vectors)) && (a_outer || p.n < pack_k_contiguous_from);
    const bool b_in_place = (b_whole || (vectors_ok && b_vectors)) && (b_outer || p.m < pack_k_contiguous_from);
    a = a_in_place ? as_it_is(p.a, a_outer, VW)
                   : packed_copy<Scalar, VW>(queue, p.a, p.m, p.k, a_outer, Config::TSM, Config::TSK, wait, ready);
    b = b_in_place ? as_it_is(p.b, b_outer, VW)
                   : packed_copy<Scalar, VW>(queue, p.b, p.n, p.k, b_outer, Config::TSN, Config::TSK, wait, ready);
    edges = (a_in_place && !a_whole) || (b_in_place && !b_whole) ? 1 : 0;
  }
  // The kernel reads K as it is where it checks edges, and whole tiles of it otherwise (packed copies are padded).
  const int depth = edges ? p.k : static_cast<int>(round_up(p.k, Config::TSK));
  cl::Event done;
  if constexpr (Config::family == Family::split_k) {
    done = run_split_k<Config>(queue, p, a, b, edges, depth, ready);
  } else {
    const ProgramText text = whole == nullptr
                                 ? program_text<Config, Scalar>(a.k_contiguous, b.k_contiguous, edges)
                                 : program_text<Config, Scalar, true>(a.k_contiguous, b.k_contiguous, edges);
    cl::Kernel kernel = make_kernel(queue, text, Config::threads);
    const cl_uint strip_arguments = set_args(kernel, p.m, p.n, depth, p.alpha, p.beta, a.buffer, a.offset, a.ld,
                                             b.buffer, b.offset, b.ld, p.c.buffer, p.c.offset, p.c.ld);
    cl::NDRange launch = global;
    if (whole != nullptr) {  // the strips' work-groups: rows of them past the tiles' in dimension 1
      const std::size_t tile_columns = global[0] / Config::threads_m;
      const std::size_t tile_rows = global[1] / Config::threads_n;
      const std::size_t strip_rows =
          (strip_groups(whole->m, whole->n, p.m, p.n, fused_strip_panel) + tile_columns - 1) / tile_columns;
      set_args_from(kernel, strip_arguments, whole->m, whole->n, whole->k,
                    (whole->trans_a ? 1 : 0) | (whole->trans_b ? 2 : 0), whole->a.buffer, whole->a.offset, whole->a.ld,
                    whole->b.buffer, whole->b.offset, whole->b.ld, static_cast<int>(tile_rows));
      launch = cl::NDRange(global[0], global[1] + strip_rows * Config::threads_n);
    }
    done = enqueue(queue, kernel, launch, local, ready);
  }
  a.done_after(done);
  b.done_after(done);
  return done;
}

// Runs one configuration: packs the operands first where its family needs that, then the GEMM kernel. `policy`
// says how the families that read either layout take operands that do not fill whole tiles.
template <class Config, class Scalar>
cl::Event run_config(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, const std::vector<cl::Event>& wait,
                     EdgePolicy policy = EdgePolicy::by_size, const GemmProblem<Scalar>* whole = nullptr) {
  check_work_group(device_limits(queue.getInfo<CL_QUEUE_DEVICE>()), Config::name(), Config::threads_m,
                   Config::threads_n, Config::local_memory_elements * sizeof(Scalar));
  const cl::NDRange global(round_up(p.m, Config::TSM) / Config::WPTM, round_up(p.n, Config::TSN) / Config::WPTN);
  const cl::NDRange local(Config::threads_m, Config::threads_n);
  if constexpr (Config::reads_either_layout) {
    return run_either_layout<Config, Scalar>(queue, p, global, local, wait, policy, whole);
  } else if constexpr (Config::packed_operands) {
    std::vector<cl::Event> ready = wait;
    PackedOperand a =
        pack_operand<Scalar, Config::VW>(queue, p.a, p.m, p.k, !p.trans_a, Config::TSM, Config::TSK, wait, ready);
    PackedOperand b =
        pack_operand<Scalar, Config::VW>(queue, p.b, p.n, p.k, p.trans_b, Config::TSN, Config::TSK, wait, ready);
    cl::Kernel kernel = make_kernel(queue, program_text<Config, Scalar>(false, false, 0), Config::threads);
    set_args(kernel, p.m, p.n, static_cast<int>(round_up(p.k, Config::TSK)), p.alpha, p.beta, a.buffer, a.offset, a.ld,
             b.buffer, b.offset, b.ld, p.c.buffer, p.c.offset, p.c.ld);
    const cl::Event done = enqueue(queue, kernel, global, local, ready);
    a.done_after(done);
    b.done_after(done);
    return done;
  } else {
    cl::Kernel kernel = make_kernel(queue, program_text<Config, Scalar>(p.trans_a, p.trans_b, 0), Config::threads);
    set_args(kernel, p.m, p.n, p.k, p.alpha, p.beta, p.a.buffer, p.a.offset, p.a.ld, p.b.buffer, p.b.offset, p.b.ld,
             p.c.buffer, p.c.offset, p.c.ld);
    return enqueue(queue, kernel, global, local, wait);
  }
}

// The rows [row, row + rows) and columns [col, col + cols) of C as a product of its own: the matching rows of
// op(A) and columns of op(B), all of K.
template <class Scalar>
GemmProblem<Scalar> sub_problem(const GemmProblem<Scalar>& p, int row, int rows, int col, int cols) {
  GemmProblem<Scalar> sub = p;
  sub.m = rows;
  sub.n = cols;
  sub.a.offset += p.trans_a ? row * p.a.ld : row;
  sub.b.offset += p.trans_b ? col : col * p.b.ld;
  sub.c.offset += row + col * p.c.ld;
  return sub;
}

// The remainder kernel's program for the transposes, chosen at run time.
template <class Scalar>
ProgramText remainder_text(bool trans_a, bool trans_b) {
  if (trans_a) {
    return trans_b ? remainder_program_text<Scalar, true, true>() : remainder_program_text<Scalar, true, false>();
  }
  return trans_b ? remainder_program_text<Scalar, false, true>() : remainder_program_text<Scalar, false, false>();
}

// The elements of C outside the corner [0, corner_m) x [0, corner_n), by the remainder kernel.
template <class Scalar>
cl::Event run_remainder(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, int corner_m, int corner_n,
                        const std::vector<cl::Event>& wait) {
  constexpr std::size_t threads = remainder_panel * remainder_lanes;
  const std::size_t groups = strip_groups(p.m, p.n, corner_m, corner_n, remainder_panel);
  cl::Kernel kernel = make_kernel(queue, remainder_text<Scalar>(p.trans_a, p.trans_b), threads);
  set_args(kernel, p.m, p.n, p.k, corner_m, corner_n, p.alpha, p.beta, p.a.buffer, p.a.offset, p.a.ld, p.b.buffer,
           p.b.offset, p.b.ld, p.c.buffer, p.c.offset, p.c.ld);
  return enqueue(queue, kernel, cl::NDRange(groups * threads), cl::NDRange(threads), wait);
}

// Whether Config's launches can multiply the strips too: a prefetch one whose work-groups the strip code can split
// (fused_strip_panel x at most 8 lanes, whose partial sums fill the stage) and whose local memory leaves room for
// the stage on the device.
template <class Config, class Scalar>
bool multiplies_strips(const DeviceLimits& device) {
  return Config::family == Family::prefetch && Config::threads % fused_strip_panel == 0 &&
         Config::threads / fused_strip_panel <= 8 &&
         (Config::local_memory_elements + strip_stage) * sizeof(Scalar) <= device.local_memory_bytes;
}

// Config on the corner [0, corner_m) x [0, corner_n) of C, and the strip code (kernels/strip.hpp) on the thin rows
// and columns left outside it: so that a size just past a multiple of the tiles does not pay for a whole row and
// column of nearly empty tiles (a round of work-groups more on a GPU). The strips take extra work-groups of the
// corner's launch where Config can have them (1025 cubed: 8% faster than a launch of their own on an H100), and
// the remainder kernel after it otherwise. The returned event completes with all of C.
template <class Config, class Scalar>
cl::Event run_with_remainder(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, int corner_m, int corner_n,
                             const std::vector<cl::Event>& wait) {
  if (corner_m == p.m && corner_n == p.n) return run_config<Config, Scalar>(queue, p, wait);
  const GemmProblem<Scalar> corner = sub_problem(p, 0, corner_m, 0, corner_n);
  if (multiplies_strips<Config, Scalar>(device_limits(queue.getInfo<CL_QUEUE_DEVICE>()))) {
    return run_config<Config, Scalar>(queue, corner, wait, EdgePolicy::by_size, &p);
  }
  const cl::Event done = run_config<Config, Scalar>(queue, corner, wait);
  return run_remainder(queue, p, corner_m, corner_n, {done});
}

template <class Scalar, std::size_t... I>
cl::Event run_default_config(const DefaultPlan& plan, const cl::CommandQueue& queue, const GemmProblem<Scalar>& p,
                             const std::vector<cl::Event>& wait, std::index_sequence<I...>) {
  cl::Event done;
  ((plan.choice == I ? (void)(done = run_with_remainder<std::tuple_element_t<I, DefaultCandidates>, Scalar>(
                                  queue, p, plan.corner_m, plan.corner_n, wait))
                     : (void)0),
   ...);
  return done;
}

// C = beta * C, for k == 0 or alpha == 0, where A and B are not read (BLAS semantics).
template <class Scalar>
cl::Event scale_c(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p, const std::vector<cl::Event>& wait) {
  cl::Kernel kernel = make_kernel(queue, support_program_text<Scalar>(scale_kernel_name), pack_tile * pack_tile);
  set_args(kernel, p.m, p.n, p.beta, p.c.buffer, p.c.offset, p.c.ld);
  return enqueue(queue, kernel, cl::NDRange(round_up(p.m, pack_tile), round_up(p.n, pack_tile)),
                 cl::NDRange(pack_tile, pack_tile), wait);
}

template <class Config, class Scalar>
cl::Event gemm_checked(const cl::CommandQueue& queue, const GemmProblem<Scalar>& p,
                       const std::vector<cl::Event>& wait) {
  const DeviceLimits device = device_limits(queue.getInfo<CL_QUEUE_DEVICE>());
  if (std::is_same_v<Scalar, double> && !device.fp64) {
    throw Error(CL_INVALID_OPERATION, "tilegemm: " + device.name +
                                          " does not support double precision (cl_khr_fp64). Multiply float matrices, "
                                          "or choose a device with fp64 through TILEGEMM_DEVICE or your own queue.");
  }
  if (p.m == 0 || p.n == 0) {
    cl::Event done;
    check(queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done), "clEnqueueMarkerWithWaitList");
    return done;
  }
  if (p.k == 0 || p.alpha == Scalar(0)) return scale_c(queue, p, wait);
  if constexpr (std::is_same_v<Config, AutoConfig>) {
    return run_default_config(plan_default(device, sizeof(Scalar), p.m, p.n, p.k), queue, p, wait,
                              std::make_index_sequence<std::tuple_size_v<DefaultCandidates>>{});
  } else {
    static_assert(
        is_tile_config<Config>::value,
        "tilegemm: the Config template argument must be a tilegemm::TileConfig<...> or tilegemm::AutoConfig.");
    return run_config<Config, Scalar>(queue, p, wait);
  }
}

}  // namespace detail

// C = alpha * op(A) * op(B) + beta * C on the queue's device, with op(A) m x k, op(B) k x n and C m x n stored
// column-major at the given offsets (in elements) with leading dimensions lda, ldb, ldc, as in BLAS. Waits for
// `wait`, returns without waiting for the result; the returned event completes with it. C must not overlap A or
// B. When beta is zero, C is not read. Bad arguments throw std::invalid_argument, OpenCL failures tilegemm::Error.
template <class Config = AutoConfig, class Scalar>
cl::Event gemm(const cl::CommandQueue& queue, Transpose trans_a, Transpose trans_b, long long m, long long n,
               long long k, Scalar alpha, const cl::Buffer& a, long long a_offset, long long lda, const cl::Buffer& b,
               long long b_offset, long long ldb, std::common_type_t<Scalar> beta, const cl::Buffer& c,
               long long c_offset, long long ldc, const std::vector<cl::Event>& wait = {}) {
  detail::require_supported_scalar<Scalar>();
  return detail::translate_cl_errors([&] {
    const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
    const detail::GemmProblem<Scalar> problem = detail::check_arguments<Scalar>(
        context, trans_a, trans_b, m, n, k, alpha, a, a_offset, lda, b, b_offset, ldb, beta, c, c_offset, ldc);
    return detail::gemm_checked<Config>(queue, problem, wait);
  });
}

}  // namespace tilegemm
