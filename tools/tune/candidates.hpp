// tune/candidates: the configurations tilegemm-tune times, a compile-time list of families and tile sizes (the
// built-in table's among them), each checked against TileConfig's and its family's rules when this file compiles.
#pragma once

#include <array>
#include <cstddef>
#include <tilegemm/gemm/builtin_configs.hpp>
#include <tilegemm/kernels/runtime_description.hpp>

namespace tune {

using tilegemm::Family;
using tilegemm::detail::TileShape;

struct Candidate {
  Family family;
  TileShape tile;
};

// Prefetch kernels (the GPU default's family): tiles of 32 to 128 along M and N, slices 8 to 32 deep, blocks of 2 x 2
// to 8 x 8 per work-item, vectors of 2 or 4, with 64 to 256 work-items per group and at most 48 KiB of local memory
// in double (what every GPU that runs double has); no tile more than twice as long as it is wide.
constexpr bool prefetch_worth_timing(const TileShape& t) {
  const int threads = (t.tsm / t.wptm) * (t.tsn / t.wptn);
  const std::size_t local_bytes = tilegemm::detail::double_buffered_local_elements(t) * 8;
  return tilegemm::detail::rule_broken(Family::prefetch, t) == nullptr && threads >= 64 && threads <= 256 &&
         local_bytes <= 48 * 1024 && t.tsm <= 2 * t.tsn && t.tsn <= 2 * t.tsm && t.wptm * t.wptn <= 64 &&
         t.wptm * t.wptn >= 8;
}
inline constexpr std::size_t prefetch_count = [] {
  std::size_t count = 0;
  for (int tsm : {32, 64, 128})
    for (int tsn : {32, 64, 128})
      for (int tsk : {8, 16, 32})
        for (int wptm : {2, 4, 8})
          for (int wptn : {2, 4, 8})
            for (int vw : {2, 4}) count += prefetch_worth_timing({tsm, tsn, tsk, wptm, wptn, vw, 1}) ? 1 : 0;
  return count;
}();
inline constexpr std::array<Candidate, prefetch_count> prefetch_candidates = [] {
  std::array<Candidate, prefetch_count> list{};
  std::size_t at = 0;
  for (int tsm : {32, 64, 128})
    for (int tsn : {32, 64, 128})
      for (int tsk : {8, 16, 32})
        for (int wptm : {2, 4, 8})
          for (int wptn : {2, 4, 8})
            for (int vw : {2, 4}) {
              const TileShape t{tsm, tsn, tsk, wptm, wptn, vw, 1};
              if (prefetch_worth_timing(t)) list[at++] = {Family::prefetch, t};
            }
  return list;
}();

// The other families, besides the built-in table's configurations (gemm/builtin_configs.hpp), which are timed too:
// split-K for long K, the packed families (register blocking with vector loads, wide types) and the caller-layout ones
// for processors and small devices, and the tensor cores where the device and the math mode allow them (double; float
// in tf32x3 or tf32).
inline constexpr std::array<Candidate, 35> other_candidates = {{
    {Family::split_k, {64, 64, 32, 4, 4, 4, 1}},
    {Family::split_k, {32, 32, 16, 2, 2, 2, 1}},
    {Family::split_k, {64, 32, 16, 4, 2, 2, 1}},
    {Family::split_k, {128, 64, 8, 8, 8, 4, 1}},
    {Family::split_k, {128, 128, 8, 8, 8, 4, 1}},
    {Family::split_k, {64, 128, 16, 4, 8, 4, 1}},
    {Family::split_k, {32, 64, 16, 2, 4, 2, 1}},
    {Family::register_blocking, {64, 64, 16, 4, 4, 4, 1}},
    {Family::register_blocking, {128, 128, 16, 8, 8, 4, 1}},
    {Family::register_blocking, {128, 64, 16, 8, 4, 4, 1}},
    {Family::register_blocking, {64, 64, 8, 4, 4, 2, 1}},
    {Family::register_blocking, {32, 32, 16, 2, 2, 2, 1}},
    {Family::register_blocking, {64, 64, 16, 8, 8, 1, 1}},
    {Family::wide_types, {16, 16, 16, 16, 1, 16, 1}},
    {Family::wide_types, {32, 32, 32, 8, 1, 8, 1}},
    {Family::wide_types, {32, 32, 32, 4, 1, 4, 1}},
    {Family::wide_types, {16, 16, 16, 8, 1, 8, 1}},
    {Family::wide_types, {64, 64, 64, 16, 1, 16, 1}},
    {Family::local_tiles, {16, 16, 16, 1, 4, 1, 1}},
    {Family::local_tiles, {32, 32, 32, 1, 8, 1, 1}},
    {Family::local_tiles, {16, 16, 16, 1, 1, 1, 1}},
    {Family::local_tiles, {8, 8, 8, 1, 8, 1, 1}},
    {Family::tensor_cores, {128, 128, 16, 8, 16, 4, 2}},      // warps of 64 x 64: TensorCores<128, 128, 16, 64, 64, 2>
    {Family::tensor_cores, {128, 128, 8, 8, 16, 4, 3}},       // <128, 128, 8, 64, 64, 3>
    {Family::tensor_cores, {128, 128, 16, 8, 16, 4, 3}},      // <128, 128, 16, 64, 64, 3>
    {Family::tensor_cores, {128, 64, 8, 8, 8, 4, 3}},         // <128, 64, 8, 64, 32, 3>
    {Family::tensor_cores, {128, 64, 8, 8, 8, 4, 4}},         // <128, 64, 8, 64, 32, 4>
    {Family::tensor_cores, {128, 64, 16, 8, 8, 4, 2}},        // <128, 64, 16, 64, 32, 2>
    {Family::tensor_cores, {64, 128, 8, 8, 8, 4, 3}},         // <64, 128, 8, 64, 32, 3>... warps of 64 x 32
    {Family::tensor_cores, {128, 128, 16, 4, 8, 4, 2}},       // <128, 128, 16, 32, 32, 2>
    {Family::tensor_cores, {64, 64, 16, 4, 8, 4, 2}},         // <64, 64, 16, 32, 32, 2>
    {Family::tensor_cores, {128, 128, 32, 8, 16, 4, 2}},      // <128, 128, 32, 64, 64, 2>
    {Family::tensor_cores, {64, 64, 32, 4, 8, 4, 2}},         // <64, 64, 32, 32, 32, 2>
    {Family::tensor_cores, {128, 64, 32, 8, 8, 4, 2}},        // <128, 64, 32, 64, 32, 2>
    {Family::bulk_tensor_cores, {128, 128, 16, 8, 8, 4, 4}},  // BulkTensorCores<128, 128, 16, 64, 32, 4>
}};

constexpr bool all_valid() {
  for (const Candidate& c : other_candidates) {
    if (tilegemm::detail::rule_broken(c.family, c.tile) != nullptr) return false;
  }
  return true;
}
static_assert(all_valid(), "tilegemm-tune: every candidate must obey TileConfig's and its family's rules.");

constexpr bool same_candidate(const Candidate& a, const Candidate& b) {
  return a.family == b.family && a.tile.tsm == b.tile.tsm && a.tile.tsn == b.tile.tsn && a.tile.tsk == b.tile.tsk &&
         a.tile.wptm == b.tile.wptm && a.tile.wptn == b.tile.wptn && a.tile.vw == b.tile.vw &&
         a.tile.stages == b.tile.stages;
}
constexpr Candidate candidate_of(const tilegemm::detail::BuiltinConfig& entry) {
  return {entry.config.family, entry.config.tile};
}
// Whether a built-in configuration is in the lists above already.
constexpr bool listed(const Candidate& c) {
  for (const Candidate& p : prefetch_candidates) {
    if (same_candidate(p, c)) return true;
  }
  for (const Candidate& o : other_candidates) {
    if (same_candidate(o, c)) return true;
  }
  return false;
}
inline constexpr std::size_t builtin_count = [] {
  std::size_t count = 0;
  for (const auto& entry : tilegemm::detail::builtin_configs) count += listed(candidate_of(entry)) ? 0 : 1;
  return count;
}();

inline constexpr std::size_t candidate_count = prefetch_count + other_candidates.size() + builtin_count;
static_assert(candidate_count >= 100, "tilegemm-tune: the issue asks for at least 100 candidates.");

// The prefetch kernels, the other families, then the built-in configurations not among them.
inline constexpr std::array<Candidate, candidate_count> candidates = [] {
  std::array<Candidate, candidate_count> list{};
  std::size_t at = 0;
  for (const Candidate& c : prefetch_candidates) list[at++] = c;
  for (const Candidate& c : other_candidates) list[at++] = c;
  for (const auto& entry : tilegemm::detail::builtin_configs) {
    if (!listed(candidate_of(entry))) list[at++] = candidate_of(entry);
  }
  return list;
}();

}  // namespace tune
