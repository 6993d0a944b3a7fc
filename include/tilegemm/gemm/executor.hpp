// gemm/executor: carries a Plan out on a queue: packs operands, launches the kernels, and returns the last event.
// It decides nothing; every choice is the plan's (plan.hpp).
#pragma once

#include <algorithm>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../kernels/kernel_description.hpp"
#include "../runtime/call_context.hpp"
#include "../runtime/error.hpp"
#include "../runtime/launch.hpp"
#include "../runtime/scratch_pool.hpp"
#include "../runtime/side_queues.hpp"
#include "arguments.hpp"
#include "plan.hpp"
#include "set_arguments.hpp"
#include "sixteen_bit_warpgroup.hpp"

namespace tilegemm::detail {

// An operand as the kernel is given it: the caller's buffer, or a pooled packed copy given back after its last use.
struct KernelOperand {
  cl::Buffer buffer;
  int offset = 0;
  int ld = 1;
  int stride = 0;  // from one problem of a batch to the next
  std::unique_ptr<ScratchBuffer> copy;

  void done_after(const cl::Event& last_use) {
    if (copy) copy->give_back_after(last_use);
  }
};

// The operand the plan says, without packing it: the caller's buffer, or a pooled buffer for its packed copies (one
// per problem of a batch of `batch`).
inline KernelOperand operand_for(const CallContext& call, const OperandPlan& plan, const cl::Buffer& source,
                                 std::size_t scalar_size, int batch) {
  KernelOperand operand;
  operand.offset = plan.offset;
  operand.ld = plan.ld;
  operand.stride = plan.stride;
  if (!plan.packed) {
    operand.buffer = source;
    return operand;
  }
  operand.copy = std::make_unique<ScratchBuffer>(
      call, scalar_size * static_cast<std::size_t>(copy_elements(plan)) * static_cast<std::size_t>(batch));
  operand.buffer = operand.copy->buffer();
  return operand;
}

// An operand for the core tiles' pack kernel: as the plan packs it, from `source` (stored as `storage`) into `copy`.
struct CoreTilesOperand {
  const OperandPlan& plan;
  const cl::Buffer& source;
  const Storage& storage;
  const cl::Buffer& copy;
};

// Enqueues the packing of a (and b, where given) into core tiles (kernels/core_tiles.hpp) in one launch after `wait`,
// for every problem of a batch of `batch`; its event is appended to `events` where later commands need it
// (enqueue_step). Work-groups of core_block x core_block elements, 4 of k (core_columns) per work-item.
inline void pack_core_tiles(const CallContext& call, const CoreTilesOperand& a, const CoreTilesOperand* b, int batch,
                            const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  constexpr int block = core_block, items = core_block / core_columns;
  KernelLease kernel = make_kernel(call, core_tiles_program(), block * items);
  const CoreTilesOperand& second = b != nullptr ? *b : a;  // an absent b: a's arguments, and no work-groups
  const int a_blocks = static_cast<int>(round_up(a.plan.outer_padded, block) / block);
  const int b_blocks = b != nullptr ? static_cast<int>(round_up(b->plan.outer_padded, block) / block) : 0;
  const int inner_padded = std::max(a.plan.inner_padded, b != nullptr ? b->plan.inner_padded : 0);
  // One operand's arguments in the table's order; the buffers by reference (a copy retains and releases them).
  const auto arguments = [](const CoreTilesOperand& x) {
    return std::tuple<int, int, int, const cl::Buffer&, int, int, int, int, int, int, int, const cl::Buffer&, int, int>(
        x.plan.outer, x.plan.inner, static_cast<int>(x.plan.outer_contiguous), x.source, x.storage.offset, x.storage.ld,
        x.plan.outer_padded, x.plan.inner_padded, x.plan.tile_outer, x.plan.tile_inner, x.plan.parts, x.copy,
        x.storage.stride, copy_elements(x.plan));
  };
  std::apply([&](const auto&... values) { set_arguments<pack_core_tiles_arguments>(kernel, 0, values...); },
             std::tuple_cat(arguments(a), arguments(second), std::make_tuple(a_blocks)));
  enqueue_step(call, kernel,
               batch_range(static_cast<std::size_t>(a_blocks + b_blocks) * block,
                           round_up(inner_padded, block) / block * items, static_cast<std::size_t>(batch)),
               batch_range(block, items, 1), wait, events);
}

// The operand the plan says: the caller's, or packed copies (one per problem of a batch of `batch`, in one buffer)
// enqueued after `wait` by one launch of the pack kernel (support_tile `tile` for pack_operand), its event appended
// to `events` where later commands need it (enqueue_step).
inline KernelOperand kernel_operand(const CallContext& call, const OperandPlan& plan, const cl::Buffer& source,
                                    const Storage& storage, std::size_t scalar_size, int tile, int batch,
                                    const std::vector<cl::Event>& wait, std::vector<cl::Event>& events) {
  KernelOperand operand = operand_for(call, plan, source, scalar_size, batch);
  if (!plan.packed) return operand;
  if (plan.layout == CopyLayout::core_tiles) {
    pack_core_tiles(call, {plan, source, storage, operand.buffer}, nullptr, batch, wait, events);
    return operand;
  }
  // pack_operand: the whole outer index as one tile of unpadded rows, or padded slices; work-groups of tile x tile
  // work-items of an element each.
  KernelLease kernel =
      make_kernel(call, support_program(scalar_size == sizeof(double), tile, pack_kernel_name), tile * tile);
  const bool padded = plan.layout == CopyLayout::padded_slices;
  set_arguments<pack_operand_arguments>(
      kernel, 0, plan.outer, plan.inner, static_cast<int>(plan.outer_contiguous), source, storage.offset, storage.ld,
      plan.outer_padded, plan.inner_padded, padded ? plan.tile_outer : plan.outer_padded,
      padded ? plan.row : plan.outer_padded, operand.buffer, storage.stride, copy_elements(plan));
  enqueue_step(call, kernel,
               batch_range(round_up(plan.outer_padded, tile), round_up(plan.inner_padded, tile),
                           static_cast<std::size_t>(batch)),
               batch_range(tile, tile, 1), wait, events);
  return operand;
}

// The driver's refusal to build a product kernel that makes its own tensor maps (kernels/tensor_maps.hpp): run_gemm
// then plans the product again with its operands packed.
class TensorMapsFailed : public Error {
 public:
  explicit TensorMapsFailed(const Error& e) : Error(e) {}
};

// A and B as the kernel is given them, packed where the plan says after `wait` (events appended to `ready` where the
// product needs them): in one launch where both go into core tiles; as stored where it reads one through a map.
inline std::pair<KernelOperand, KernelOperand> kernel_operands(const CallContext& call, const Plan& plan,
                                                               const GemmProblem& p, const std::vector<cl::Event>& wait,
                                                               std::vector<cl::Event>& ready) {
  const GemmShape& s = p.shape;
  const auto core_tiles = [](const OperandPlan& x) { return x.packed && x.layout == CopyLayout::core_tiles; };
  if (core_tiles(plan.a) && core_tiles(plan.b)) {
    KernelOperand a = operand_for(call, plan.a, p.a, p.scalar_size(), plan.batch_count);
    KernelOperand b = operand_for(call, plan.b, p.b, p.scalar_size(), plan.batch_count);
    const CoreTilesOperand b_pack{plan.b, p.b, s.b, b.buffer};
    pack_core_tiles(call, {plan.a, p.a, s.a, a.buffer}, &b_pack, plan.batch_count, wait, ready);
    return {std::move(a), std::move(b)};
  }
  KernelOperand a =
      kernel_operand(call, plan.a, p.a, s.a, p.scalar_size(), plan.support_tile, plan.batch_count, wait, ready);
  KernelOperand b =
      kernel_operand(call, plan.b, p.b, s.b, p.scalar_size(), plan.support_tile, plan.batch_count, wait, ready);
  return {std::move(a), std::move(b)};
}

// The arguments every GEMM entry point starts with (gemm_arguments, kernels/kernel_arguments.hpp); returns the index
// of the next one.
inline cl_uint set_gemm_arguments(KernelLease& kernel, int m, int n, int k, ScalarValue alpha, ScalarValue beta,
                                  const KernelOperand& a, const KernelOperand& b, const cl::Buffer& c, int c_offset,
                                  int ldc) {
  return set_arguments<gemm_arguments>(kernel, 0, m, n, k, alpha, beta, a.buffer, a.offset, a.ld, b.buffer, b.offset,
                                       b.ld, c, c_offset, ldc);
}

// The batch strides an entry point that takes batches ends with (batch_arguments), from index `first` on, in the units
// of the operands' offsets.
inline cl_uint set_batch_arguments(KernelLease& kernel, cl_uint first, const KernelOperand& a, const KernelOperand& b,
                                   int c_stride) {
  return set_arguments<batch_arguments>(kernel, first, a.stride, b.stride, c_stride);
}

// C = beta * C (each problem's, in one launch), for k == 0 or alpha == 0, where A and B are not read (BLAS
// semantics).
inline cl::Event scale_c(const CallContext& call, const Plan& plan, const GemmProblem& p,
                         const std::vector<cl::Event>& wait) {
  const int tile = plan.support_tile;
  KernelLease kernel = make_kernel(call, support_program(p.is_double(), tile, scale_kernel_name), tile * tile);
  set_arguments<scale_c_arguments>(kernel, 0, p.shape.m, p.shape.n, p.beta, p.c, p.shape.c.offset, p.shape.c.ld,
                                   plan.c_stride);
  return enqueue(
      call.queue, kernel,
      batch_range(round_up(p.shape.m, tile), round_up(p.shape.n, tile), static_cast<std::size_t>(plan.batch_count)),
      batch_range(tile, tile, 1), wait);
}

// The two passes of split-K: partial products of the slices into a pooled workspace, then their sum into C. The
// split_k family's kernel writes whole tiles of each slice; a family that takes batches multiplies the slices as the
// problems of a batch (plan_slices_as_batch), each into its dense slice of M rows, with alpha 1 and beta 0.
inline cl::Event run_split_k(const CallContext& call, const Plan& plan, const GemmProblem& p, const KernelOperand& a,
                             const KernelOperand& b, const std::vector<cl::Event>& ready) {
  const bool is_double = p.is_double();
  const TileShape& t = plan.config.tile;
  const bool own_kernel = plan.config.splits_k;
  const int ldw = own_kernel ? static_cast<int>(round_up(plan.corner_m, t.tsm)) : plan.corner_m;
  const int slice_stride = own_kernel ? ldw * static_cast<int>(round_up(plan.corner_n, t.tsn)) : plan.c_stride;
  ScratchBuffer workspace(call, p.scalar_size() * static_cast<std::size_t>(plan.slices) * slice_stride);
  KernelLease slices = make_kernel(call, gemm_program(plan.config, is_double, plan.variant), plan.config.threads());
  if (own_kernel) {
    set_arguments<split_k_arguments>(slices, 0, plan.corner_m, plan.corner_n, plan.depth, a.buffer, a.offset, a.ld,
                                     b.buffer, b.offset, b.ld, workspace.buffer(), slice_stride, ldw, plan.k_per_slice);
  } else {
    const cl_uint next = set_gemm_arguments(slices, plan.corner_m, plan.corner_n, plan.depth, ScalarValue{1, is_double},
                                            ScalarValue{0, is_double}, a, b, workspace.buffer(), 0, ldw);
    set_batch_arguments(slices, next, a, b, slice_stride);
  }
  std::vector<cl::Event> partial;  // what the sum waits for: the first pass, where the queue does not order them
  enqueue_step(call, slices, cl::NDRange(plan.global[0], plan.global[1], plan.global[2]),
               cl::NDRange(plan.local[0], plan.local[1], plan.local[2]), ready, partial);
  const int tile = plan.support_tile;
  KernelLease sum = make_kernel(call, support_program(is_double, tile, sum_slices_kernel_name), tile * tile);
  set_arguments<sum_slices_arguments>(sum, 0, plan.corner_m, plan.corner_n, plan.slices, p.alpha, p.beta,
                                      workspace.buffer(), slice_stride, ldw, p.c, p.shape.c.offset, p.shape.c.ld);
  const cl::Event done =
      enqueue(call.queue, sum, cl::NDRange(round_up(plan.corner_m, tile), round_up(plan.corner_n, tile)),
              cl::NDRange(tile, tile), partial);
  workspace.give_back_after(done);
  return done;
}

// The elements of C outside the plan's corner, by the remainder kernel (kernels/remainder.hpp).
inline cl::Event run_remainder(const CallContext& call, const Plan& plan, const GemmProblem& p,
                               const std::vector<cl::Event>& wait) {
  constexpr std::size_t threads = remainder_panel * remainder_lanes;
  const GemmShape& s = p.shape;
  KernelLease kernel = make_kernel(call, remainder_program(p.is_double(), s.trans_a, s.trans_b), threads);
  set_arguments<remainder_arguments>(kernel, 0, s.m, s.n, s.k, plan.corner_m, plan.corner_n, p.alpha, p.beta, p.a,
                                     s.a.offset, s.a.ld, p.b, s.b.offset, s.b.ld, p.c, s.c.offset, s.c.ld,
                                     static_cast<int>(plan.strip_groups.right),
                                     static_cast<int>(plan.strip_groups.total()));
  return enqueue(call.queue, kernel, cl::NDRange(plan.strip_groups.total() * threads), cl::NDRange(threads), wait);
}

// Where the remainder kernel runs beside the tiles: on an in-order queue, the strips go to its side queue
// (runtime/side_queues.hpp) once the tiles are enqueued, after a marker put in the queue before them, so that they wait
// for `wait` and every command the caller put in the queue before but not for the tiles. They write other elements of
// C and read A and B as stored, so they run on compute units the tiles leave idle (double 1025^3 on an H200: 63.5 us
// against 69.9 after the tiles). An out-of-order queue's caller orders commands by events: the strips follow the tiles.
inline bool remainder_beside(const CallContext& call, const Plan& plan) {
  return plan.strips == StripWork::remainder_kernel && call.in_order;
}
inline cl::Event remainder_on_side_queue(const CallContext& call, const Plan& plan, const GemmProblem& p,
                                         const cl::Event& start) {
  CallContext side = call;
  side.queue = SideQueues::instance().of(call);
  const cl::Event strips = run_remainder(side, plan, p, {start});
  check(side.queue.flush(), "clFlush (a side queue)");
  return strips;
}

// The product's kernel. Where it makes tensor maps, a failure to build it is TensorMapsFailed: the maps' instructions
// are what a driver may lack, so they are given up first (the packed plan's kernel may then meet the local memory's
// refusal, which run_gemm answers in turn).
inline KernelLease product_kernel(const CallContext& call, const Plan& plan, const GemmProblem& p) {
  try {
    return make_kernel(call, gemm_program(plan.config, p.is_double(), plan.variant), plan.config.threads());
  } catch (const Error& e) {
    if (!reads_through_maps(plan)) throw;
    throw TensorMapsFailed(e);
  }
}

// The product the plan describes: packed copies where it says, the kernel on the corner (with the strips in the
// same launch where fused) or on every problem of a batch, split-K's second pass, the remainder kernel (beside the
// tiles where remainder_beside). The event completes with all of C.
inline cl::Event run_product(const CallContext& call, const Plan& plan, const GemmProblem& p,
                             const std::vector<cl::Event>& wait) {
  const GemmShape& s = p.shape;
  cl::Event start;  // before the packs and the tiles: what the strips beside them wait for
  const bool beside = remainder_beside(call, plan);
  if (beside) {
    check(call.queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &start), "clEnqueueMarkerWithWaitList");
  }
  std::vector<cl::Event> ready = wait;
  auto [a, b] = kernel_operands(call, plan, p, wait, ready);
  cl::Event done;
  if (plan.config.splits_k || plan.slices > 1) {
    done = run_split_k(call, plan, p, a, b, ready);
  } else {
    KernelLease kernel = product_kernel(call, plan, p);
    cl_uint next = set_gemm_arguments(kernel, plan.corner_m, plan.corner_n, plan.depth, p.alpha, p.beta, a, b, p.c,
                                      s.c.offset, s.c.ld);
    if (plan.variant.strips) {  // the whole product, for the work-groups that multiply its strips
      next = set_arguments<strip_arguments>(kernel, next, s.m, s.n, s.k, transposes_argument(s.trans_a, s.trans_b), p.a,
                                            s.a.offset, s.a.ld, p.b, s.b.offset, s.b.ld,
                                            static_cast<int>(plan.tile_rows), static_cast<int>(plan.strip_groups.right),
                                            static_cast<int>(plan.strip_groups.total()));
    } else if (plan.config.takes_batches) {
      next = set_batch_arguments(kernel, next, a, b, plan.c_stride);
    }
    std::unique_ptr<ScratchBuffer> maps;  // where each work-group makes its tensor maps
    if (reads_through_maps(plan)) {
      const std::size_t groups =
          plan.global[0] / plan.local[0] * (plan.global[1] / plan.local[1]) * (plan.global[2] / plan.local[2]);
      maps = std::make_unique<ScratchBuffer>(call, groups * tensor_map_local_bytes);
      set_arguments<tensor_map_arguments>(kernel, next, maps->buffer(), s.k);
    }
    done = enqueue(call.queue, kernel, range_of(plan.global), range_of(plan.local), ready);
    if (maps) maps->give_back_after(done);
  }
  a.done_after(done);
  b.done_after(done);
  if (beside) {  // the queue's later commands, and the returned event, follow the tiles and the strips
    const std::vector<cl::Event> strips = {remainder_on_side_queue(call, plan, p, start)};
    check(call.queue.enqueueBarrierWithWaitList(&strips, &done), "clEnqueueBarrierWithWaitList");
  } else if (plan.strips == StripWork::remainder_kernel) {
    done = run_remainder(call, plan, p, {done});
  }
  return done;
}

// Carries out `plan` for problem p after `wait`; the returned event completes with C.
inline cl::Event execute(const CallContext& call, const Plan& plan, const GemmProblem& p,
                         const std::vector<cl::Event>& wait) {
  switch (plan.work) {
    case Work::nothing: {
      cl::Event done;
      check(call.queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done), "clEnqueueMarkerWithWaitList");
      return done;
    }
    case Work::scale_c:
      return scale_c(call, plan, p, wait);
    case Work::sixteen_bit_wgmma:
      return run_warpgroup16(call, p, true, plan.warpgroup16, wait);
    default:
      return run_product(call, plan, p, wait);
  }
}

}  // namespace tilegemm::detail
