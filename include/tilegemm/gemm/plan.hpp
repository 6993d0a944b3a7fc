// gemm/plan: how a product (or a batch of them) will run, decided before anything runs by pure functions of the
// problem's shape and a description of the device: the configuration, the corner and strips, the edge mode, the
// packing of each operand, split-K, the batch and the launch sizes. The executor (executor.hpp) only carries a Plan
// out; tests assert plans directly.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "../kernels/kernel_description.hpp"
#include "../runtime/device_limits.hpp"
#include "../runtime/error.hpp"
#include "../runtime/launch_basics.hpp"
#include "../runtime/sm90a_local_memory.hpp"
#include "arguments.hpp"
#include "operand_policy.hpp"
#include "sixteen_bit_warpgroup_plan.hpp"
#include "tensor_math.hpp"

namespace tilegemm::detail {

enum class Work {
  nothing,  // C is empty
  scale_c,  // k == 0 or alpha == 0: C = beta * C, A and B unread (BLAS)
  product,
  sixteen_bit_wgmma,  // float A and B rounded to 16 bits into core tiles, wgmma m64nNk16 (the Plan's warpgroup16)
};

// Where the rows and columns of C outside a tiled corner are multiplied.
enum class StripWork {
  none,              // the tiles cover all of C
  fused,             // extra work-groups of the tiles' own launch (the configuration's product_and_strips)
  remainder_kernel,  // the remainder kernel, after the tiles
};

// How a packed copy lies: rows of the whole outer index (kernels/support.hpp's pack_operand), tiles of it each in
// padded slices (the same kernel, OperandAccess::padded_slices), or core tiles (kernels/core_tiles.hpp).
enum class CopyLayout { rows, padded_slices, core_tiles };

// How the kernel reads one operand: in place (the caller's buffer) or through a copy that the pack kernel makes,
// zero-padded to whole tiles, laid out as `layout` says. `offset`, `ld` and `stride` (from one problem of a batch to
// the next; the copies of a batch lie one after the other in one buffer) are what the kernel is given, in units of
// `unit` elements (its vector width, or 1).
struct OperandPlan {
  bool packed = false;
  // Read in place through a tensor map (kernels/tensor_maps.hpp) made from `offset` and `ld` before the product: K
  // x the outer size of the corner (m of A, n of B), in boxes of the tile's rows. Families of core tiles only.
  bool mapped = false;
  bool k_contiguous = false;  // the layout the kernel reads: K-contiguous, or outer-contiguous (m of A, n of B)
  int unit = 1;
  int offset = 0;
  int ld = 1;
  int stride = 0;
  // For a packed copy: the operand as the pack kernel reads it (outer x inner, contiguous along outer or not) and
  // the copy's padded size.
  int outer = 0;
  int inner = 0;
  bool outer_contiguous = false;
  int outer_padded = 0;
  int inner_padded = 0;
  // A copy in padded slices or core tiles: its tiles' rows (TSM or TSN) and slices' depth (TSK); in padded slices
  // the elements of each row of a slice (the tile's and the padding); in core tiles its TF32 images of each slice (2
  // in tf32x3: high and low parts).
  CopyLayout layout = CopyLayout::rows;
  int tile_outer = 0;
  int tile_inner = 0;
  int row = 0;
  int parts = 1;
};

// Why a plan has its configuration (what TILEGEMM_VERBOSE=1 prints): named by the caller's Config, the tuner's
// winner for the shape's class (gemm/tuned_configs.hpp), or the built-in model, which the tuner may have confirmed.
enum class Chosen { given, tuned, model, model_tuned };

struct Plan {
  Work work = Work::nothing;
  Chosen chosen = Chosen::given;
  KernelDescription config;
  Variant variant;
  int corner_m = 0;  // the rows and columns of C that whole tiles compute (all of C unless strips are left over)
  int corner_n = 0;
  StripWork strips = StripWork::none;
  StripGroups strip_groups;  // the strip code's work-groups
  OperandPlan a;
  OperandPlan b;
  int depth = 0;   // K as the kernel reads it: whole tiles of it where it does not check edges
  int slices = 1;  // split-K: slices of K multiplied in parallel, k_per_slice deep each, summed after
  int k_per_slice = 0;
  int batch_count = 1;  // problems of one shape, in launch dimension 2 of every kernel (global[2] of the product's)
  int c_stride = 0;     // from one problem's C to the next one's, in elements
  std::array<std::size_t, 3> global{{1, 1, 1}};  // the product kernel's launch
  std::array<std::size_t, 3> local{{1, 1, 1}};
  std::size_t tile_rows = 0;     // fused strips: rows of tile work-groups (dimension 1) before the strips' rows
  int support_tile = pack_tile;  // the pack, sum and scale kernels' work-groups: support_tile x support_tile
  Warpgroup16Plan warpgroup16;   // Work::sixteen_bit_wgmma's product (config and the fields above are unused there)
};

// Why a configuration cannot plan a product: the device cannot run it, or a copy, a workspace or an index it needs is
// too large. Returned, not thrown: the planner tries another configuration; raise() throws it for the caller who named
// this one (tilegemm::Error, or std::invalid_argument for a request past the kernels' 32-bit indices).
class Refusal {
 public:
  template <class Exception>
  explicit Refusal(Exception e) : error_(std::make_exception_ptr(std::move(e))) {}
  [[noreturn]] void raise() const { std::rethrow_exception(error_); }

 private:
  std::exception_ptr error_;
};
using MaybeRefusal = std::optional<Refusal>;  // none: the step fits

// A plan, or why there is none.
class Planned {
 public:
  Planned(Plan plan) : plan_(std::move(plan)) {}
  Planned(Refusal refusal) : refusal_(std::move(refusal)) {}
  const std::optional<Plan>& plan() const& { return plan_; }
  std::optional<Plan> plan() && { return std::move(plan_); }
  // The plan, or the refusal thrown.
  Plan value() && {
    if (!plan_) refusal_->raise();
    return std::move(*plan_);
  }

 private:
  std::optional<Plan> plan_;
  std::optional<Refusal> refusal_;
};

// A check of another layer that throws tilegemm::Error (the work-group check of runtime/launch.hpp, the tensor-core
// check of gemm/tensor_math.hpp), as a refusal.
template <class Check>
MaybeRefusal refusal_of(Check&& check) {
  try {
    check();
    return std::nullopt;
  } catch (const Error& e) {
    return Refusal(e);
  }
}

// A request past the kernels' 32-bit indices, as arguments.hpp's require() words it.
inline Refusal index_refusal(const std::string& message) {
  return Refusal(std::invalid_argument("tilegemm::gemm: " + message));
}

// What a caller may ask of the planner beyond the problem: how operands that do not fill whole tiles are read
// (tests use the other policies), a corner of C for the tiles (the rest goes to the strip code), and the math mode
// of float products (whether and how they may use tensor cores).
struct PlanOptions {
  EdgePolicy policy = EdgePolicy::by_size;
  int corner_m = -1;  // -1: all of C
  int corner_n = -1;
  MathMode math = MathMode::ieee;
  int slices = 0;  // split-K's slices of K: 0, plan_split_k's rule; else this many (as many as K has tiles at most)
  bool strips_apart = false;  // the strips by the remainder kernel even where the tiles' launch could take them
};

inline void require_fp64(const DeviceLimits& device, std::size_t scalar_size) {
  if (scalar_size == sizeof(double) && !device.fp64) {
    throw Error(CL_INVALID_OPERATION, "tilegemm: " + device.name +
                                          " does not support double precision (cl_khr_fp64). Multiply float matrices, "
                                          "or choose a device with fp64 through TILEGEMM_DEVICE or your own queue.");
  }
}

// The side of the support kernels' square work-groups on the device: the largest that fits it (kernels/support.hpp).
inline int support_tile_for(const DeviceLimits& device) {
  for (int tile : support_tiles) {
    const bool dimensions_fit =
        device.max_work_item_sizes.size() < 2 || (static_cast<std::size_t>(tile) <= device.max_work_item_sizes[0] &&
                                                  static_cast<std::size_t>(tile) <= device.max_work_item_sizes[1]);
    if (static_cast<std::size_t>(tile) * tile <= device.max_work_group_size && dimensions_fit) return tile;
  }
  return 1;
}

// Whether the device runs work-groups of threads_m x threads_n work-items.
inline bool work_items_fit(const DeviceLimits& device, std::size_t threads_m, std::size_t threads_n) {
  return threads_m * threads_n <= device.max_work_group_size && device.max_work_item_sizes.size() >= 2 &&
         threads_m <= device.max_work_item_sizes[0] && threads_n <= device.max_work_item_sizes[1];
}

// Whether a work-group of threads_m x threads_n work-items and `local_bytes` of local memory runs on the device.
inline bool work_group_fits(const DeviceLimits& device, std::size_t threads_m, std::size_t threads_n,
                            std::size_t local_bytes) {
  return work_items_fit(device, threads_m, threads_n) && local_bytes <= device.local_memory_bytes;
}

// The local memory a work-group of `config` may have on the device: what the device reports, and for the families that
// take more (warpgroup_mma, bulk_tensor_cores) on a GPU of compute capability 9.0 what NVIDIA's driver gives a kernel
// there (runtime/sm90a_local_memory.hpp).
inline std::size_t local_memory_limit(const KernelDescription& config, const DeviceLimits& device) {
  const auto reported = static_cast<std::size_t>(device.local_memory_bytes);
  const bool wider =
      config.local_memory_beyond_reported && has_warpgroup_mma(device) && !device.sm90a_local_memory_refused;
  return wider ? std::max(reported, sm90a_local_memory_bytes) : reported;
}

// Whether the plan's kernel takes more local memory than the device reports (runtime/sm90a_local_memory.hpp).
inline bool beyond_reported_local_memory(const Plan& plan, const DeviceLimits& device, std::size_t scalar_size) {
  return plan.work == Work::sixteen_bit_wgmma ||  // 200 KiB of slices (kernels/sixteen_bit_warpgroup.hpp)
         (plan.work == Work::product && plan.config.local_memory_elements * scalar_size > device.local_memory_bytes);
}

// Whether a tilegemm::Error from running such a plan is the driver refusing that memory: its program's build, or its
// launch, failed.
inline bool refuses_local_memory(const Error& e) {
  return e.code() == CL_BUILD_PROGRAM_FAILURE || e.code() == CL_INVALID_BINARY || e.code() == CL_OUT_OF_RESOURCES;
}

// Whether a work-group of `config` runs on the device, for elements of `scalar_size` bytes.
inline bool config_fits(const KernelDescription& config, const DeviceLimits& device, std::size_t scalar_size) {
  return work_items_fit(device, config.threads_m, config.threads_n) &&
         config.local_memory_elements * scalar_size <= local_memory_limit(config, device);
}

// The refusal (tilegemm::Error) of one buffer of `bytes` (what `what` names) larger than the device allows.
inline MaybeRefusal allocation_refusal(const DeviceLimits& device, unsigned long long bytes, const std::string& what,
                                       const std::string& advice) {
  if (bytes <= device.max_alloc_bytes) return std::nullopt;
  return Refusal(Error(CL_INVALID_BUFFER_SIZE, "tilegemm: " + what + " needs a buffer of " + std::to_string(bytes) +
                                                   " bytes, more than the largest " + device.name + " allows (" +
                                                   std::to_string(device.max_alloc_bytes) +
                                                   " bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE). " + advice));
}
// Throws that refusal.
inline void require_allocation(const DeviceLimits& device, unsigned long long bytes, const std::string& what,
                               const std::string& advice) {
  if (const MaybeRefusal refused = allocation_refusal(device, bytes, what, advice)) refused->raise();
}

// The caller's operand as it is, in units of `unit` elements.
inline OperandPlan in_place(const Storage& s, bool outer_contiguous, int unit) {
  OperandPlan plan;
  plan.k_contiguous = !outer_contiguous;
  plan.unit = unit;
  plan.offset = s.offset / unit;
  plan.ld = s.ld / unit;
  plan.stride = s.stride / unit;
  return plan;
}

// The elements of the copies the pack kernel makes of an outer x inner operand for each of `batch` problems, each
// zero-padded to whole outer_tile x inner_tile tiles; more than index_limit (past the kernels' 32-bit indices) is
// reported as index_limit + 1, so that nothing here overflows.
inline long long packed_elements(int outer, int inner, int outer_tile, int inner_tile, int batch) {
  const unsigned long long one = static_cast<unsigned long long>(round_up(outer, outer_tile)) *
                                 static_cast<unsigned long long>(round_up(inner, inner_tile));  // below 2^63
  if (one > static_cast<unsigned long long>(index_limit)) return index_limit + 1;
  const unsigned long long all = one * static_cast<unsigned long long>(std::max(batch, 1));  // below 2^62
  return all > static_cast<unsigned long long>(index_limit) ? index_limit + 1 : static_cast<long long>(all);
}

// The refusal of packed copies (below) past the kernels' indices.
inline MaybeRefusal packed_copy_refusal(int outer, int inner, int outer_tile, int inner_tile, int batch) {
  if (packed_elements(outer, inner, outer_tile, inner_tile, batch) <= index_limit) return std::nullopt;
  return index_refusal(batch > 1 ? "the zero-padded copies of an operand of the batch would exceed 2^31 - 1 elements "
                                   "together; multiply the batch in parts."
                                 : "an operand padded to whole tiles would exceed 2^31 - 1 elements; use a smaller "
                                   "problem.");
}

// Copies made by the pack kernel, one per problem of a batch, one after the other in one buffer: outer-contiguous,
// zero-padded to whole outer_tile x inner_tile tiles (within the kernels' indices: packed_copy_refusal).
inline OperandPlan packed_copy(int outer, int inner, bool outer_contiguous, int outer_tile, int inner_tile, int unit) {
  const int outer_padded = static_cast<int>(round_up(outer, outer_tile));
  const int inner_padded = static_cast<int>(round_up(inner, inner_tile));
  OperandPlan plan;
  plan.packed = true;
  plan.unit = unit;
  plan.ld = outer_padded / unit;
  plan.stride = outer_padded * inner_padded / unit;
  plan.outer = outer;
  plan.inner = inner;
  plan.outer_contiguous = outer_contiguous;
  plan.outer_padded = outer_padded;
  plan.inner_padded = inner_padded;
  return plan;
}

// The elements of one problem's packed copy, and the bytes of the copies of a whole batch (one buffer).
inline int copy_elements(const OperandPlan& plan) {
  const int rows = plan.layout == CopyLayout::padded_slices ? plan.outer_padded / plan.tile_outer * plan.row
                                                            : plan.outer_padded;  // of the outer index, padding in
  return rows * plan.inner_padded * plan.parts;
}
inline unsigned long long copy_bytes(const OperandPlan& plan, std::size_t scalar_size, int batch) {
  return static_cast<unsigned long long>(copy_elements(plan)) * static_cast<unsigned long long>(std::max(batch, 1)) *
         scalar_size;
}

// Whether every index the kernels that read either layout work out for an operand read in place fits in their 32-bit
// ints: they address whole slices of K (up to the tile past the operand's last k) and rows up to the last, of the
// last problem of a batch.
inline bool in_place_indices_fit(const Storage& s, int outer, int inner, bool outer_contiguous, int inner_tile,
                                 int batch) {
  const long long k_last = static_cast<long long>(round_up(inner, inner_tile)) - 1;
  const long long first = s.offset + static_cast<long long>(std::max(batch, 1) - 1) * s.stride;  // below 2^62
  const long long last = outer_contiguous ? first + k_last * s.ld + (outer - 1)
                                          : first + static_cast<long long>(outer - 1) * s.ld + k_last;
  return last <= index_limit;
}

// Whether an operand (outer x inner as the kernel sees it) fills whole tiles at whole vectors of offset, leading
// dimension and batch stride, and whether its contiguous extent, offset, leading dimension and stride are whole
// vectors.
inline bool fills_whole_tiles(const Storage& s, int outer, int inner, int outer_tile, int inner_tile, int vw) {
  return outer % outer_tile == 0 && inner % inner_tile == 0 && s.offset % vw == 0 && s.ld % vw == 0 &&
         s.stride % vw == 0;
}
inline bool whole_vectors(const Storage& s, int outer, int inner, bool outer_contiguous, int vw) {
  return s.offset % vw == 0 && s.ld % vw == 0 && s.stride % vw == 0 && (outer_contiguous ? outer : inner) % vw == 0;
}

// The refusal (tilegemm::Error) of a packed copy of the plan larger than the device's largest buffer.
inline MaybeRefusal copies_refusal(const Plan& plan, const GemmShape& s, const DeviceLimits& device,
                                   std::size_t scalar_size, const char* advice) {
  for (const auto& [name, operand] : {std::pair{"A", &plan.a}, std::pair{"B", &plan.b}}) {
    if (!operand->packed) continue;
    // The refusal's sentence is made only where there is one: every call plans, and making it took 40% of a plan.
    const unsigned long long bytes = copy_bytes(*operand, scalar_size, s.batch);
    if (bytes <= device.max_alloc_bytes) continue;
    return allocation_refusal(device, bytes,
                              std::string("the zero-padded copy of ") + name + " that " + plan.config.name() + " reads",
                              advice);
  }
  return std::nullopt;
}
inline constexpr const char* read_in_place_advice =
    "A prefetch configuration or AutoConfig reads such operands in place.";

// The families that read packed operands: in place where the caller's operand is outer-contiguous and fills whole
// tiles, else a packed copy. The kernel reads whole tiles of K.
inline MaybeRefusal plan_packed_operands(Plan& plan, const GemmShape& s, const DeviceLimits& device,
                                         std::size_t scalar_size) {
  const TileShape& t = plan.config.tile;
  const bool a_outer = !s.trans_a;  // A is M-contiguous, B N-contiguous: outer-contiguous
  const bool b_outer = s.trans_b;
  const bool a_in_place = a_outer && fills_whole_tiles(s.a, s.m, s.k, t.tsm, t.tsk, t.vw);
  const bool b_in_place = b_outer && fills_whole_tiles(s.b, s.n, s.k, t.tsn, t.tsk, t.vw);
  if (MaybeRefusal refused = a_in_place ? std::nullopt : packed_copy_refusal(s.m, s.k, t.tsm, t.tsk, s.batch)) {
    return refused;
  }
  if (MaybeRefusal refused = b_in_place ? std::nullopt : packed_copy_refusal(s.n, s.k, t.tsn, t.tsk, s.batch)) {
    return refused;
  }
  plan.a = a_in_place ? in_place(s.a, true, t.vw) : packed_copy(s.m, s.k, a_outer, t.tsm, t.tsk, t.vw);
  plan.b = b_in_place ? in_place(s.b, true, t.vw) : packed_copy(s.n, s.k, b_outer, t.tsn, t.tsk, t.vw);
  plan.depth = static_cast<int>(round_up(s.k, t.tsk));
  return copies_refusal(plan, s, device, scalar_size, read_in_place_advice);
}

// The refusal of a copy in core tiles (below) past the kernels' indices.
inline MaybeRefusal core_tile_copy_refusal(int outer, int inner, int tile_outer, int tile_inner, int parts, int batch) {
  if (packed_elements(outer, inner, tile_outer, tile_inner, batch) <= index_limit / parts) return std::nullopt;
  return index_refusal(
      "an operand in core tiles (padded to whole tiles, and in two TF32 parts in tf32x3) would exceed 2^31 - 1 "
      "elements; use a smaller problem, or multiply the batch in parts.");
}

// A copy of an operand in core tiles (kernels/core_tiles.hpp), `parts` TF32 images of each slice (within the
// kernels' indices: core_tile_copy_refusal).
inline OperandPlan core_tile_copy(int outer, int inner, bool outer_contiguous, int tile_outer, int tile_inner,
                                  int parts) {
  OperandPlan plan = packed_copy(outer, inner, outer_contiguous, tile_outer, tile_inner, 1);
  plan.layout = CopyLayout::core_tiles;
  plan.tile_outer = tile_outer;
  plan.tile_inner = tile_inner;
  plan.parts = parts;
  plan.stride = copy_elements(plan);
  return plan;
}

// The rows of an outer-contiguous A's boxes past the tile's, in every buffer (kernels/tensor_maps.hpp).
inline std::size_t outer_map_local_elements(const TileShape& t) {
  return static_cast<std::size_t>(t.stages) * (t.tsm / tensor_map_outer_rows) *
         (tensor_map_outer_pitch - tensor_map_outer_rows) * t.tsk;
}
// The local memory of a configuration's kernels that read tensor maps: tensor_map_slices_alignment bytes more, the
// work-group's maps (tensor_map_local_bytes), and where A is outer-contiguous (`outer_a`) its boxes' extra rows.
inline std::size_t mapped_local_memory_bytes(const KernelDescription& config, std::size_t scalar_size,
                                             bool outer_a = false) {
  return (config.local_memory_elements + (outer_a ? outer_map_local_elements(config.tile) : 0)) * scalar_size +
         tensor_map_slices_alignment + tensor_map_local_bytes;
}
// Whether a family of core tiles reads an operand in place through a tensor map rather than packed: in tf32 (the
// copies round to TF32 and zero the edges as the pack kernel does) with slices one box deep, a single product, the
// operand K-contiguous in the caller's layout, or outer-contiguous where the kernel reads it so (`outer_maps`: A, whose
// fragments wgmma takes from registers; B it reads from local memory, K-major only), from a 16-byte aligned start with
// a leading dimension of whole 16 bytes, where the device has not failed to make a map and the kernel's local memory
// fits with the mapped slices' alignment (and A's boxes). It spares the pack kernel's pass over the operand and its
// launch: on an H200 that pass was 12-30% of a tf32 call (benchmarks/README.md, "wgmma: 64 x 256 a step"); an
// M-contiguous A so read made the product kernel no slower than on packed operands ("A's fragments from registers").
inline bool maps_operand(const Plan& plan, const GemmShape& s, const DeviceLimits& device, const Storage& stored,
                         bool k_contiguous, bool outer_maps) {
  return plan.config.reads_tensor_maps && !device.tensor_maps_refused && plan.variant.mma == MmaKind::tf32 &&
         plan.config.tile.tsk == tensor_map_depth && s.batch == 1 && (k_contiguous || outer_maps) &&
         stored.offset % tensor_map_alignment == 0 && stored.ld % tensor_map_alignment == 0 &&
         mapped_local_memory_bytes(plan.config, sizeof(float), !k_contiguous) <=
             local_memory_limit(plan.config, device);
}
inline OperandPlan mapped_operand(const Storage& stored, bool k_contiguous) {
  OperandPlan plan = in_place(stored, !k_contiguous, 1);
  plan.mapped = true;
  return plan;
}
// Whether the plan reads an operand through a tensor map, which each work-group of its kernel then makes.
inline bool reads_through_maps(const Plan& plan) { return plan.a.mapped || plan.b.mapped; }

// The warpgroup_mma family: each operand copied into core tiles, or read through a tensor map where maps_operand
// says; whole tiles of K.
inline MaybeRefusal plan_core_tile_operands(Plan& plan, const GemmShape& s, const DeviceLimits& device,
                                            std::size_t scalar_size) {
  const TileShape& t = plan.config.tile;
  const int parts = plan.variant.mma == MmaKind::tf32x3 ? 2 : 1;
  const bool map_b = maps_operand(plan, s, device, s.b, !s.trans_b, false);
  const bool map_a = maps_operand(plan, s, device, s.a, s.trans_a, true);
  if (!map_a) {
    if (MaybeRefusal refused = core_tile_copy_refusal(s.m, s.k, t.tsm, t.tsk, parts, s.batch)) return refused;
  }
  if (!map_b) {
    if (MaybeRefusal refused = core_tile_copy_refusal(s.n, s.k, t.tsn, t.tsk, parts, s.batch)) return refused;
  }
  plan.a = map_a ? mapped_operand(s.a, s.trans_a) : core_tile_copy(s.m, s.k, !s.trans_a, t.tsm, t.tsk, parts);
  plan.b = map_b ? mapped_operand(s.b, true) : core_tile_copy(s.n, s.k, s.trans_b, t.tsn, t.tsk, parts);
  plan.variant.flag_a = map_a;
  plan.variant.flag_b = map_b;
  plan.variant.outer_a = map_a && !s.trans_a;
  plan.depth = static_cast<int>(round_up(s.k, t.tsk));
  return copies_refusal(plan, s, device, scalar_size, read_in_place_advice);
}

// The refusal of a copy in padded slices (below) past the kernels' indices.
inline MaybeRefusal padded_slice_copy_refusal(int outer, int inner, int tile_outer, int tile_inner, int row,
                                              int batch) {
  const long long rows = (static_cast<long long>(outer) + tile_outer - 1) / tile_outer * row;  // padding in
  if (rows <= index_limit && packed_elements(static_cast<int>(rows), inner, 1, tile_inner, batch) <= index_limit) {
    return std::nullopt;
  }
  return index_refusal(batch > 1 ? "the copies of an operand of the batch in padded slices would exceed 2^31 - 1 "
                                   "elements together; multiply the batch in parts."
                                 : "an operand in padded slices (whole tiles, each row padded) would exceed 2^31 - 1 "
                                   "elements; use a smaller problem.");
}

// A copy of an operand in padded slices (kernels/support.hpp) for each of `batch` problems: tiles of tile_outer rows,
// each its slices of tile_inner rows of `row` elements one after the other; offsets, leading dimension and stride in
// units of `unit`. Throws padded_slice_copy_refusal's std::invalid_argument past the kernels' indices.
inline OperandPlan padded_slice_copy(int outer, int inner, bool outer_contiguous, int tile_outer, int tile_inner,
                                     int row, int unit, int batch) {
  if (MaybeRefusal refused = padded_slice_copy_refusal(outer, inner, tile_outer, tile_inner, row, batch)) {
    refused->raise();
  }
  OperandPlan plan = packed_copy(outer, inner, outer_contiguous, tile_outer, tile_inner, unit);
  plan.layout = CopyLayout::padded_slices;
  plan.tile_outer = tile_outer;
  plan.tile_inner = tile_inner;
  plan.row = row;
  plan.ld = row / unit;
  plan.stride = copy_elements(plan) / unit;
  return plan;
}

// The bulk_tensor_cores family: both operands copied into padded slices, whatever their layout; whole tiles of K.
inline MaybeRefusal plan_padded_slice_operands(Plan& plan, const GemmShape& s, const DeviceLimits& device,
                                               std::size_t scalar_size) {
  const TileShape& t = plan.config.tile;
  if (MaybeRefusal refused = padded_slice_copy_refusal(s.m, s.k, t.tsm, t.tsk, padded_row(t.tsm), s.batch)) {
    return refused;
  }
  if (MaybeRefusal refused = padded_slice_copy_refusal(s.n, s.k, t.tsn, t.tsk, padded_row(t.tsn), s.batch)) {
    return refused;
  }
  plan.a = padded_slice_copy(s.m, s.k, !s.trans_a, t.tsm, t.tsk, padded_row(t.tsm), t.vw, s.batch);
  plan.b = padded_slice_copy(s.n, s.k, s.trans_b, t.tsn, t.tsk, padded_row(t.tsn), t.vw, s.batch);
  plan.depth = static_cast<int>(round_up(s.k, t.tsk));
  return copies_refusal(plan, s, device, scalar_size, read_in_place_advice);
}

// The families that read either layout (prefetch, split-K): each operand in place or packed, and the edge mode to
// match (see operand_policy.hpp and kernels/prefetch.hpp). Operands whose indices would not fit the kernel's ints
// in place are packed; copies larger than the device's largest buffer, or than the kernels' indices reach (a large
// batch of them), are not made: such operands are read in place an element at a time.
inline MaybeRefusal plan_either_layout_operands(Plan& plan, const GemmShape& s, EdgePolicy policy,
                                                const DeviceLimits& device, std::size_t scalar_size) {
  const TileShape& t = plan.config.tile;
  const bool a_outer = !s.trans_a;
  const bool b_outer = s.trans_b;
  const bool a_fits = in_place_indices_fit(s.a, s.m, s.k, a_outer, t.tsk, s.batch);
  const bool b_fits = in_place_indices_fit(s.b, s.n, s.k, b_outer, t.tsk, s.batch);
  const bool a_whole = fills_whole_tiles(s.a, s.m, s.k, t.tsm, t.tsk, t.vw);
  const bool b_whole = fills_whole_tiles(s.b, s.n, s.k, t.tsn, t.tsk, t.vw);
  const bool a_vectors = whole_vectors(s.a, s.m, s.k, a_outer, t.vw);
  const bool b_vectors = whole_vectors(s.b, s.n, s.k, b_outer, t.vw);
  const bool small = static_cast<double>(s.m) * s.n * s.k <= edges_in_place_up_to;
  bool elements = a_fits && b_fits &&
                  (policy == EdgePolicy::elements ||
                   (policy == EdgePolicy::by_size && !(a_whole && b_whole) && !(a_vectors && b_vectors) && small));
  if (!elements) {
    // In place where whole tiles, or whole vectors unless the policy says pack; but a K-contiguous operand reused
    // over many rows (B) or columns (A) of C is packed, since the kernel reads an outer-contiguous one faster.
    const bool vectors_ok = policy != EdgePolicy::pack;
    const bool a_in_place =
        a_fits && (a_whole || (vectors_ok && a_vectors)) && (a_outer || s.n < pack_k_contiguous_from);
    const bool b_in_place =
        b_fits && (b_whole || (vectors_ok && b_vectors)) && (b_outer || s.m < pack_k_contiguous_from);
    const auto copy_too_large = [&](int outer, int outer_tile) {
      const long long copies = packed_elements(outer, s.k, outer_tile, t.tsk, s.batch);
      return copies > index_limit || static_cast<unsigned long long>(copies) * scalar_size > device.max_alloc_bytes;
    };
    if (((!a_in_place && copy_too_large(s.m, t.tsm)) || (!b_in_place && copy_too_large(s.n, t.tsn))) && a_fits &&
        b_fits) {
      elements = true;
    } else {
      if (MaybeRefusal refused = a_in_place ? std::nullopt : packed_copy_refusal(s.m, s.k, t.tsm, t.tsk, s.batch)) {
        return refused;
      }
      if (MaybeRefusal refused = b_in_place ? std::nullopt : packed_copy_refusal(s.n, s.k, t.tsn, t.tsk, s.batch)) {
        return refused;
      }
      plan.a = a_in_place ? in_place(s.a, a_outer, t.vw) : packed_copy(s.m, s.k, a_outer, t.tsm, t.tsk, t.vw);
      plan.b = b_in_place ? in_place(s.b, b_outer, t.vw) : packed_copy(s.n, s.k, b_outer, t.tsn, t.tsk, t.vw);
      if (MaybeRefusal refused = copies_refusal(
              plan, s, device, scalar_size,
              "Its offset and leading dimension are too large for the kernels' 32-bit indices in place.")) {
        return refused;
      }
      const bool edges = (a_in_place && !a_whole) || (b_in_place && !b_whole);
      plan.variant.edges = edges ? EdgeMode::vectors : EdgeMode::whole_tiles;
    }
  }
  if (elements) {
    plan.variant.edges = EdgeMode::elements;
    plan.a = in_place(s.a, a_outer, 1);
    plan.b = in_place(s.b, b_outer, 1);
  }
  plan.variant.flag_a = plan.a.k_contiguous;
  plan.variant.flag_b = plan.b.k_contiguous;
  // The kernel reads K as it is where it checks edges, and whole tiles of it otherwise (packed copies are padded).
  plan.depth = plan.variant.edges == EdgeMode::whole_tiles ? static_cast<int>(round_up(s.k, t.tsk)) : s.k;
  return std::nullopt;
}

// Split-K: `wanted` slices of K (0: enough to give the device two work-groups per compute unit, each slice at least
// four tiles deep), each a multiple of the tile depth.
inline MaybeRefusal plan_split_k(Plan& plan, const DeviceLimits& device, std::size_t scalar_size, int wanted) {
  const unsigned compute_units = device.compute_units > 0 ? device.compute_units : 1;
  const TileShape& t = plan.config.tile;
  const long long tiles = static_cast<long long>(plan.global[0] / plan.local[0]) * (plan.global[1] / plan.local[1]);
  const int k_tiles = std::max(1, (plan.depth + t.tsk - 1) / t.tsk);
  const int slices = wanted > 0
                         ? std::min(wanted, k_tiles)
                         : static_cast<int>(std::max(
                               1LL, std::min<long long>((2LL * compute_units + tiles - 1) / tiles, k_tiles / 4)));
  const int tiles_per_slice = (k_tiles + slices - 1) / slices;
  plan.slices = (k_tiles + tiles_per_slice - 1) / tiles_per_slice;
  plan.k_per_slice = tiles_per_slice * t.tsk;
  const long long slice_stride =
      static_cast<long long>(round_up(plan.corner_m, t.tsm)) * static_cast<long long>(round_up(plan.corner_n, t.tsn));
  if (plan.slices * slice_stride > INT_MAX)
    return index_refusal("the split-K workspace would exceed 2^31 - 1 elements; use a smaller C.");
  plan.global[2] = static_cast<std::size_t>(plan.slices);
  return allocation_refusal(device, static_cast<unsigned long long>(plan.slices * slice_stride) * scalar_size,
                            "split-K's workspace", "Use a configuration of another family for this product.");
}

// Whether the configuration's launch can multiply the strips outside a corner too: it has such an entry point and
// the device's local memory has room for the strip code's stage beside its tiles (or in them, where they share it).
inline bool fuses_strips_on(const KernelDescription& config, const DeviceLimits& device, std::size_t scalar_size) {
  const std::size_t elements = config.strips_share_local_memory
                                   ? std::max<std::size_t>(config.local_memory_elements, strip_stage)
                                   : config.local_memory_elements + strip_stage;
  return config.fuses_strips && elements * scalar_size <= local_memory_limit(config, device);
}

// Whether the strips outside a tiled corner can be multiplied on the device: in the configuration's own launch, or
// by the remainder kernel (kernels/remainder.hpp), whose work-groups must fit.
inline bool strips_run_on(const KernelDescription& config, const DeviceLimits& device, std::size_t scalar_size) {
  return fuses_strips_on(config, device, scalar_size) ||
         work_group_fits(device, static_cast<std::size_t>(remainder_panel) * remainder_lanes, 1,
                         static_cast<std::size_t>(strip_stage) * scalar_size);
}

// A batch of more than one problem runs in launch dimension 2 of the product's entry point, which split-K's takes
// for its slices; and it is tiled whole, since the strip code multiplies the strips of one product only.
inline MaybeRefusal batch_refusal(const KernelDescription& config, const GemmShape& s, const PlanOptions& options) {
  if (s.batch <= 1) return std::nullopt;
  if (!config.takes_batches) {
    return Refusal(std::invalid_argument("tilegemm: " + config.name() +
                                         " cannot multiply a batch: its launch dimension 2 holds its slices of K. "
                                         "Choose a configuration of another family, or AutoConfig."));
  }
  if ((options.corner_m >= 0 && options.corner_m < s.m) || (options.corner_n >= 0 && options.corner_n < s.n)) {
    return Refusal(
        std::invalid_argument("tilegemm: a batch is tiled whole; a corner with strips is for single products."));
  }
  return std::nullopt;
}

// The plan of a product, or of a batch of products of one shape, with one configuration; or why the device cannot run
// it so (a Refusal).
inline Planned planned_product(const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                               std::size_t scalar_size, const PlanOptions& options = {}) {
  MmaKind mma = MmaKind::none;
  if (MaybeRefusal refused =
          refusal_of([&] { mma = require_implementable(config, device, scalar_size, options.math); })) {
    return *refused;
  }
  if (MaybeRefusal refused = refusal_of([&] {
        check_work_group(
            device, [&] { return config.name(); }, config.threads_m, config.threads_n,
            config.local_memory_elements * scalar_size, local_memory_limit(config, device));
      })) {
    return *refused;
  }
  if (MaybeRefusal refused = batch_refusal(config, s, options)) return *refused;
  Plan plan;
  plan.work = Work::product;
  plan.config = config;
  plan.variant.mma = mma;
  plan.support_tile = support_tile_for(device);
  plan.batch_count = s.batch;
  plan.c_stride = s.c.stride;
  plan.corner_m = options.corner_m < 0 ? s.m : options.corner_m;
  plan.corner_n = options.corner_n < 0 ? s.n : options.corner_n;
  if (plan.corner_m < s.m || plan.corner_n < s.n) {
    if (!strips_run_on(config, device, scalar_size)) {
      return Refusal(Error(CL_INVALID_WORK_GROUP_SIZE, "tilegemm: " + device.name +
                                                           " cannot run the strip code's work-groups for the rows and "
                                                           "columns outside a tiled corner; plan all of C instead."));
    }
    const bool fused = !options.strips_apart && fuses_strips_on(config, device, scalar_size);
    plan.strips = fused ? StripWork::fused : StripWork::remainder_kernel;
    plan.strip_groups =
        strip_groups(s.m, s.n, plan.corner_m, plan.corner_n, fused ? fused_strip_panel : remainder_panel);
  }
  GemmShape corner = s;  // the corner starts at C's first element: same offsets, fewer rows and columns
  corner.m = plan.corner_m;
  corner.n = plan.corner_n;
  const TileShape& t = config.tile;
  plan.global = {round_up(corner.m, t.tsm) / t.wptm, round_up(corner.n, t.tsn) / t.wptn,
                 static_cast<std::size_t>(s.batch)};
  plan.local = {static_cast<std::size_t>(config.threads_m), static_cast<std::size_t>(config.threads_n), 1};
  MaybeRefusal refused;
  switch (config.access) {
    case OperandAccess::caller_layout:
      plan.variant.flag_a = s.trans_a;
      plan.variant.flag_b = s.trans_b;
      plan.a = in_place(s.a, !s.trans_a, 1);
      plan.b = in_place(s.b, s.trans_b, 1);
      plan.depth = s.k;
      break;
    case OperandAccess::packed:
      refused = plan_packed_operands(plan, corner, device, scalar_size);
      break;
    case OperandAccess::either_layout:
      refused = plan_either_layout_operands(plan, corner, options.policy, device, scalar_size);
      break;
    case OperandAccess::core_tiles:
      refused = plan_core_tile_operands(plan, corner, device, scalar_size);
      break;
    case OperandAccess::padded_slices:
      refused = plan_padded_slice_operands(plan, corner, device, scalar_size);
      break;
  }
  if (!refused && config.splits_k) refused = plan_split_k(plan, device, scalar_size, options.slices);
  if (refused) return *refused;
  if (plan.strips == StripWork::fused) {  // the strips' work-groups: rows of them past the tiles' in dimension 1
    plan.variant.strips = true;
    const std::size_t tile_columns = plan.global[0] / plan.local[0];
    plan.tile_rows = plan.global[1] / plan.local[1];
    plan.global[1] += (plan.strip_groups.total() + tile_columns - 1) / tile_columns * plan.local[1];
  }
  return plan;
}

// That plan where the device runs it, else none (for the planner, which then takes another configuration).
inline std::optional<Plan> plan_if_fits(const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                                        std::size_t scalar_size, const PlanOptions& options = {}) {
  return planned_product(config, s, device, scalar_size, options).plan();
}

// Split-K on a family that takes batches (split_k's own kernel takes its slices in launch dimension 2 instead): K in
// `slices` slices of K / slices (`slices` divides K) planned as a batch whose problems are the slices, A and B stepping
// K / slices along K from one problem to the next and each problem's C its slice of a dense workspace (M rows); the
// executor multiplies them with alpha 1 and beta 0 and sums the slices into C (run_split_k). None where the batch or
// its workspace does not fit the kernels' 32-bit indices or the device.
inline std::optional<Plan> plan_slices_as_batch(const KernelDescription& config, const GemmShape& s,
                                                const DeviceLimits& device, std::size_t scalar_size, int slices,
                                                MathMode math = MathMode::ieee) {
  if (!config.takes_batches || config.splits_k || s.batch > 1 || slices < 2 || s.k % slices != 0) return std::nullopt;
  GemmShape batch = s;
  batch.k = s.k / slices;
  batch.batch = slices;
  // op(A)(m, k + 1) lies lda past op(A)(m, k) where A is not transposed, the next element where it is; op(B) the other
  // way round.
  const long long a_stride = static_cast<long long>(s.trans_a ? 1 : s.a.ld) * batch.k;
  const long long b_stride = static_cast<long long>(s.trans_b ? s.b.ld : 1) * batch.k;
  const long long slice_stride = static_cast<long long>(s.m) * s.n;
  if (a_stride > INT_MAX || b_stride > INT_MAX || slice_stride * slices > INT_MAX) return std::nullopt;
  batch.a.stride = static_cast<int>(a_stride);
  batch.b.stride = static_cast<int>(b_stride);
  batch.c = {0, s.m, static_cast<int>(slice_stride)};
  PlanOptions options;
  options.math = math;
  std::optional<Plan> plan = plan_if_fits(config, batch, device, scalar_size, options);
  if (!plan || allocation_refusal(device, static_cast<unsigned long long>(slice_stride * slices) * scalar_size,
                                  "split-K's workspace", "")) {
    return std::nullopt;
  }
  plan->slices = slices;
  plan->k_per_slice = batch.k;
  return plan;
}

// That plan; throws the refusal (tilegemm::Error where the device cannot run it, std::invalid_argument past the
// kernels' indices) for a caller who named the configuration.
inline Plan plan_product(const KernelDescription& config, const GemmShape& s, const DeviceLimits& device,
                         std::size_t scalar_size, const PlanOptions& options = {}) {
  return planned_product(config, s, device, scalar_size, options).value();
}

// A plan that does no product: an empty C (or batch), or C = beta * C for each problem of the batch.
inline Plan plan_without_product(Work work, const GemmShape& s, const DeviceLimits& device) {
  Plan plan;
  plan.work = work;
  plan.support_tile = support_tile_for(device);
  plan.batch_count = s.batch;
  plan.c_stride = s.c.stride;
  return plan;
}

}  // namespace tilegemm::detail
