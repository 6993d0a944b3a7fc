// kernels/copy_engine: slices of A and B copied into local memory by the copy engine (cp.async.bulk, compute
// capability 9.0), with mbarriers for work-items to wait on instead of work-group barriers: the pipeline of the
// families whose packed operands hold each slice as one contiguous block (warpgroup_mma, bulk_tensor_cores).
#pragma once

#include "program_text.hpp"

namespace tilegemm::detail {

inline constexpr char copy_engine_source[] = R"CLC(
// The family's text defines, before this: SLOTS buffers of slices in local memory, SLICE_BYTES apart from its start;
// a slice of A, SLICE_A elements, then one of B, SLICE_B elements, contiguous in global memory from slice n's start
// on (n * SLICE_A, n * SLICE_B); BARRIERS_AT, where in local memory its mbarriers lie (bytes); AHEAD, the slices
// copied before the first is multiplied.
#ifndef SLOTS
#error "kernels/copy_engine.hpp needs SLOTS, the buffers of slices in local memory, from the text before it"
#endif
#ifndef SLICE_BYTES
#error "kernels/copy_engine.hpp needs SLICE_BYTES, the bytes between buffers, from the text before it"
#endif
#ifndef SLICE_A
#error "kernels/copy_engine.hpp needs SLICE_A, the elements of a slice of A, from the text before it"
#endif
#ifndef SLICE_B
#error "kernels/copy_engine.hpp needs SLICE_B, the elements of a slice of B, from the text before it"
#endif
#ifndef BARRIERS_AT
#error "kernels/copy_engine.hpp needs BARRIERS_AT, the byte in local memory where its mbarriers lie, from the text before it"
#endif
#ifndef AHEAD
#error "kernels/copy_engine.hpp needs AHEAD, the slices copied before the first is multiplied, from the text before it"
#endif
#ifndef A_MAPPED  // operands read through tensor maps: only where the family's text says so (it then has their helpers)
#define A_MAPPED 0
#endif
#ifndef B_MAPPED
#define B_MAPPED 0
#endif

// The mbarriers of buffer `slot`: full (one arrival, from the work-item that starts the copy, and the copy's bytes)
// and empty (one arrival per warp once it is done with the buffer).
inline uint full_barrier(const uint local_base, const int slot) { return local_base + BARRIERS_AT + 8 * slot; }
inline uint empty_barrier(const uint local_base, const int slot) {
  return local_base + BARRIERS_AT + 8 * (SLOTS + slot);
}
// Waits until the mbarrier at `barrier_address` has completed its phase of this parity (phases 0, 1, 0, ...).
inline void wait_phase(const uint barrier_address, const int parity) {
  uint done = 0;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(barrier_address), "r"(parity)
                 : "memory");
  } while (!done);
}
// One arrival at the mbarrier at `barrier_address`.
inline void arrive(const uint barrier_address) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier_address) : "memory");
}
// Copies slice n of A and B into its buffer with the copy engine: a packed operand's slice as one bulk copy
// (contiguous in global memory), a mapped one's (A_MAPPED, B_MAPPED: read in place through the tensor map at a or b,
// kernels/tensor_maps.hpp) as the box of rows `rows` (A's in x, B's in y) and depth TSK at k = n TSK; A outer-contiguous
// (A_MAPPED 2) as a box of MAP_OUTER_PITCH rows from every MAP_OUTER_ROWS, one after the other.
inline void fetch_slice(const uint local_base, __global const real* a, __global const real* b, const int2 rows,
                        const int n) {
  const uint full = full_barrier(local_base, n % SLOTS), to = local_base + n % SLOTS * SLICE_BYTES;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full), "r"(SLICE_BYTES) : "memory");
#if A_MAPPED == 2
  for (int box = 0; box < TSM / MAP_OUTER_ROWS; ++box) {
    copy_mapped_box(to + box * MAP_OUTER_PITCH * TSK * (int)sizeof(real), a, rows.x + box * MAP_OUTER_ROWS, n * TSK,
                    full);
  }
#elif A_MAPPED
  copy_mapped_box(to, a, n * TSK, rows.x, full);
#else
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(to),
               "l"(a + n * SLICE_A), "r"((int)sizeof(real) * SLICE_A), "r"(full)
               : "memory");
#endif
#if B_MAPPED
  copy_mapped_box(to + (int)sizeof(real) * SLICE_A, b, n * TSK, rows.y, full);
#else
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   to + (int)sizeof(real) * SLICE_A),
               "l"(b + n * SLICE_B), "r"((int)sizeof(real) * SLICE_B), "r"(full)
               : "memory");
#endif
}
// Sets up the mbarriers and starts copying the first slices.
inline void start_slices(const uint local_base, __global const real* a, __global const real* b, const int2 rows,
                         const int count, const int tid) {
  if (tid == 0) {
    for (int i = 0; i < SLOTS; ++i) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full_barrier(local_base, i)) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(empty_barrier(local_base, i)), "r"(THREADS / 32)
                   : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid == 0) {
#if A_MAPPED
    acquire_tensor_map(a);
#endif
#if B_MAPPED
    acquire_tensor_map(b);
#endif
    for (int s = 0; s < min(AHEAD, count); ++s) fetch_slice(local_base, a, b, rows, s);
  }
}
// Waits until slice s has landed; its address in local memory.
inline uint slice_ready(const uint local_base, const int s) {
  wait_phase(full_barrier(local_base, s % SLOTS), s / SLOTS % 2);
  return local_base + s % SLOTS * SLICE_BYTES;
}
// One work-item copies slice `next` into its buffer once every warp has said it is done with the slice SLOTS before
// it there (an arrival on the buffer's empty mbarrier).
inline void refill_slot(const uint local_base, __global const real* a, __global const real* b, const int2 rows,
                        const int next, const int count, const int tid) {
  if (tid == 0 && next < count) {
    if (next >= SLOTS) wait_phase(empty_barrier(local_base, next % SLOTS), (next / SLOTS - 1) % 2);
    fetch_slice(local_base, a, b, rows, next);
  }
}
)CLC";
inline constexpr TextPiece copy_engine = piece_of<copy_engine_source>();

}  // namespace tilegemm::detail
