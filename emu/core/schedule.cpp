// Schedules made explicit for one call (tcnum/core/schedule.hpp): slices, k-steps, the reduction.
#include "tcnum/core/schedule.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "tcnum/core/gemm.hpp"

namespace tcnum {
namespace {

[[noreturn]] void fail(const std::string& why) { throw std::invalid_argument("tcnum schedule: " + why); }

std::string str(long long v) { return std::to_string(v); }

// Instruction steps of in.k covering [begin, end) from `begin`, the last one short.
void append_steps(std::vector<KStep>& out, int begin, int end, int ik) {
  for (long long k = begin; k < end; k += ik)  // long long: k + ik may pass INT_MAX
    out.push_back({static_cast<int>(k), static_cast<int>(std::min<long long>(ik, end - k))});
}

// One slice [begin, end) cut into k-tiles of `tile` (the partial tile first or last), each tile
// into instruction steps.
std::vector<KStep> tile_slice(int begin, int end, int tile, int ik, PartialTile partial) {
  std::vector<KStep> steps;
  const int r = (end - begin) % tile;
  if (partial == PartialTile::first && r != 0) {
    append_steps(steps, begin, begin + r, ik);
    begin += r;
  }
  append_steps(steps, begin, end, ik);  // whole tiles are whole steps; a last partial tile is cut likewise
  return steps;
}

// Slice boundaries in k for the whole-tile rule: ceil(granules / S) granules of `tile` a slice,
// the last short.
std::vector<int> whole_tile_bounds(int k, int tile, int split) {
  const long long tiles = (static_cast<long long>(k) + tile - 1) / tile, per = (tiles + split - 1) / split;
  std::vector<int> bounds{0};
  while (bounds.back() < k) bounds.push_back(static_cast<int>(std::min<long long>(k, bounds.back() + per * tile)));
  return bounds;
}

void check_bounds(const std::vector<int>& b, int k) {
  if (b.size() < 2) fail("slice_bounds needs at least [0, K]");
  if (b.front() != 0) fail("slice_bounds must start at 0, got " + str(b.front()));
  if (b.back() != k) fail("slice_bounds must end at K = " + str(k) + ", got " + str(b.back()));
  for (std::size_t i = 1; i < b.size(); ++i)
    if (b[i] <= b[i - 1])
      fail("slice_bounds must increase strictly: [" + str(static_cast<long long>(i) - 1) + "] = " + str(b[i - 1]) +
           ", [" + str(static_cast<long long>(i)) + "] = " + str(b[i]));
}

// The sequential program (((p0 + p1) + p2) + ...), or the given tree checked: a binary tree
// that takes every slice exactly once.
std::vector<int> reduction_program(const std::vector<int>& tree, std::size_t slices) {
  if (tree.empty()) {
    std::vector<int> seq{0};
    for (std::size_t s = 1; s < slices; ++s) seq.insert(seq.end(), {static_cast<int>(s), -1});
    return seq;
  }
  std::vector<bool> seen(slices, false);
  long long depth = 0;
  for (const int op : tree) {
    if (op == -1) {
      if (depth < 2) fail("reduction_tree adds with fewer than two values on the stack");
      --depth;
      continue;
    }
    if (op < 0 || static_cast<std::size_t>(op) >= slices)
      fail("reduction_tree names slice " + str(op) + ", but there are " + str(static_cast<long long>(slices)) + " slices");
    if (seen[static_cast<std::size_t>(op)]) fail("reduction_tree takes slice " + str(op) + " twice");
    seen[static_cast<std::size_t>(op)] = true;
    ++depth;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end())
    fail("reduction_tree leaves out a slice (every one of the " + str(static_cast<long long>(slices)) + " must appear)");
  if (depth != 1) fail("reduction_tree leaves " + str(depth) + " values, not one sum");
  return tree;
}

// The k_order permutation checked (its size against the step count, computed, not built).
void check_k_order(const std::vector<int>& order, long long steps) {
  if (order.size() != static_cast<std::size_t>(steps))
    fail("k_order has " + str(static_cast<long long>(order.size())) + " entries, expected one per k-step: " + str(steps));
  std::vector<bool> seen(order.size(), false);
  for (std::size_t t = 0; t < order.size(); ++t) {
    const int s = order[t];
    if (s < 0 || s >= steps)
      fail("k_order[" + str(static_cast<long long>(t)) + "] = " + str(s) + " is not a k-step index 0.." + str(steps - 1));
    if (seen[static_cast<std::size_t>(s)]) fail("k_order is not a permutation: step " + str(s) + " appears twice");
    seen[static_cast<std::size_t>(s)] = true;
  }
}

// Every check of resolve_schedule, in arithmetic only (nothing sized by K is built); returns
// the slice count.
std::size_t check_schedule(const Schedule& s, const Instruction& in, int k, int tile) {
  if (!s.slice_bounds.empty()) {
    check_bounds(s.slice_bounds, k);
    if (s.split_k != 1 && static_cast<std::size_t>(s.split_k) + 1 != s.slice_bounds.size())
      fail("split_k = " + str(s.split_k) + " disagrees with slice_bounds' " +
           str(static_cast<long long>(s.slice_bounds.size()) - 1) + " slices");
    if (!s.k_order.empty()) fail("k_order cannot be combined with slice_bounds");
    if (in.block_scaled())
      for (const int b : s.slice_bounds)
        if (b % in.k != 0) fail("a block-scaled instruction needs slice bounds on whole k-steps; " + str(b) + " is not");
    return s.slice_bounds.size() - 1;
  }
  if (s.slice_rule == SliceRule::interleaved_tiles) {
    if (!s.k_order.empty()) fail("k_order cannot be combined with slice_rule interleaved_tiles");
    const long long tiles = (static_cast<long long>(k) + tile - 1) / tile;
    return static_cast<std::size_t>(std::min<long long>(tiles, s.split_k));
  }
  if (s.slice_rule == SliceRule::whole_tiles) {
    if (!s.k_order.empty()) fail("k_order cannot be combined with slice_rule whole_tiles");
    const long long g = s.slice_align == 0 ? tile : s.slice_align;
    if (in.block_scaled() && g % in.k != 0)
      fail("a block-scaled instruction needs slices on whole k-steps; slice_align = " + str(s.slice_align) + " is not");
    const long long granules = (static_cast<long long>(k) + g - 1) / g, per = (granules + s.split_k - 1) / s.split_k;
    return static_cast<std::size_t>((granules + per - 1) / per);
  }
  // balanced_steps over a tiling whose partial tile is cut into steps of in.k from its start.
  const long long r = static_cast<long long>(k) % tile;
  const long long steps = (static_cast<long long>(k) - r) / in.k + (r + in.k - 1) / in.k;
  if (!s.k_order.empty()) check_k_order(s.k_order, steps);
  if (s.split_k > steps)
    fail("split_k = " + str(s.split_k) + " must be in 1..steps, steps = " + str(steps) + " (K = " + str(k) +
         ", in.k = " + str(in.k) + ")");
  return static_cast<std::size_t>(s.split_k);
}

// Tiles of `tile` from k = 0 (the last one partial) dealt round robin over `split` slices.
std::vector<std::vector<KStep>> interleaved_slices(int k, int tile, int ik, int split) {
  const long long tiles = (static_cast<long long>(k) + tile - 1) / tile;
  std::vector<std::vector<KStep>> slices(static_cast<std::size_t>(std::min<long long>(tiles, split)));
  for (long long t = 0; t < tiles; ++t) {
    const auto begin = static_cast<int>(t * tile), end = static_cast<int>(std::min<long long>(k, (t + 1) * tile));
    append_steps(slices[static_cast<std::size_t>(t % static_cast<long long>(slices.size()))], begin, end, ik);
  }
  return slices;
}

std::vector<std::vector<KStep>> build_slices(const Schedule& s, const Instruction& in, int k, int tile) {
  if (s.slice_bounds.empty() && s.slice_rule == SliceRule::interleaved_tiles)
    return interleaved_slices(k, tile, in.k, s.split_k);
  std::vector<int> bounds = s.slice_bounds;
  if (bounds.empty() && s.slice_rule == SliceRule::whole_tiles)
    bounds = whole_tile_bounds(k, s.slice_align == 0 ? tile : s.slice_align, s.split_k);
  std::vector<std::vector<KStep>> slices;
  if (!bounds.empty()) {
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i)
      slices.push_back(tile_slice(bounds[i], bounds[i + 1], tile, in.k, s.partial));
    return slices;
  }
  // balanced_steps: the k-steps of the whole of K (in k_order), cut into split_k groups.
  std::vector<KStep> steps = tile_slice(0, k, tile, in.k, s.partial);
  if (!s.k_order.empty()) {
    std::vector<KStep> ordered;
    for (const int t : s.k_order) ordered.push_back(steps[static_cast<std::size_t>(t)]);
    steps = std::move(ordered);
  }
  const auto n = static_cast<long long>(steps.size());
  std::size_t t = 0;
  for (int i = 0; i < s.split_k; ++i) {
    const auto len = static_cast<std::size_t>(n / s.split_k + (i < n % s.split_k ? 1 : 0));
    slices.emplace_back(steps.begin() + static_cast<std::ptrdiff_t>(t), steps.begin() + static_cast<std::ptrdiff_t>(t + len));
    t += len;
  }
  return slices;
}

// tile_k_order checked: a permutation of the tile's k offsets, over a K of whole tiles.
void check_tile_k_order(const std::vector<int>& order, const Instruction& in, int k, int tile) {
  if (order.empty()) return;
  if (static_cast<long long>(order.size()) != tile)
    fail("tile_k_order has " + str(static_cast<long long>(order.size())) + " entries, expected one per k of a tile: tile_k = " +
         str(tile));
  std::vector<bool> seen(order.size());
  for (const int o : order) {
    if (o < 0 || o >= tile) fail("tile_k_order entry " + str(o) + " is not a k offset 0.." + str(tile - 1));
    if (seen[static_cast<std::size_t>(o)]) fail("tile_k_order is not a permutation: " + str(o) + " appears twice");
    seen[static_cast<std::size_t>(o)] = true;
  }
  if (k % tile != 0) fail("tile_k_order needs K to be a multiple of tile_k = " + str(tile) + " (K = " + str(k) + ")");
  if (in.block_scaled()) fail("tile_k_order: a block-scaled instruction's scales are laid along K in order");
}

int checked_tile(const Schedule& s, const Instruction& in, int k) {
  if (in.k <= 0) fail("instruction " + in.name + " has k = " + str(in.k));
  if (k <= 0) fail("K must be positive (K = " + str(k) + ")");
  if (s.split_k < 1) fail("split_k = " + str(s.split_k) + " must be in 1..steps (at least 1)");
  const int tile = s.tile_k == 0 ? in.k : s.tile_k;
  if (tile < 0 || tile % in.k != 0)
    fail("tile_k = " + str(s.tile_k) + " must be a positive multiple of the instruction's k = " + str(in.k) + " (or 0: in.k)");
  if (!s.k_order.empty() && tile != in.k) fail("k_order permutes instruction steps: it needs tile_k = 0 or in.k");
  if (s.slice_align < 0) fail("slice_align = " + str(s.slice_align) + " must be 0 (tile_k) or a positive count of k");
  if (s.serial && !s.reduction_tree.empty()) fail("serial split-K adds in slice order: it takes no reduction_tree");
  if (s.promotion < 0) fail("promotion = " + str(s.promotion) + " must be 0 (none) or a count of k-steps");
  return tile;
}

// K as the slices see it: padded with zeros to k_padded where the schedule says so.
int padded_k(const Schedule& s, const Instruction& in, int k) {
  if (s.k_padded == 0) return k;
  if (s.k_padded < k) fail("k_padded = " + str(s.k_padded) + " is shorter than K = " + str(k));
  if (in.block_scaled()) fail("k_padded: a block-scaled instruction has no scales past K");
  return s.k_padded;
}

// k-steps cut from the padded K read zeros past K: each is clipped there (one wholly past K
// becomes a step of padding only, which the chain still runs).
void clip_to_k(std::vector<std::vector<KStep>>& slices, int k) {
  for (auto& slice : slices)
    for (KStep& step : slice) step = step.begin >= k ? KStep{k, 0} : KStep{step.begin, std::min(step.length, k - step.begin)};
}

}  // namespace

Schedule schedule_from_options(const GemmOptions& opt) {
  Schedule s;
  s.split_k = opt.split_k;
  s.k_order = opt.k_order;
  return s;
}

void check_schedule(const Schedule& s, const Instruction& in, int k) {
  const int kp = padded_k(s, in, k), tile = checked_tile(s, in, kp);
  check_tile_k_order(s.tile_k_order, in, k, tile);
  reduction_program(s.reduction_tree, check_schedule(s, in, kp, tile));
}

ResolvedSchedule resolve_schedule(const Schedule& s, const Instruction& in, int k) {
  const int kp = padded_k(s, in, k), tile = checked_tile(s, in, kp);
  check_tile_k_order(s.tile_k_order, in, k, tile);
  ResolvedSchedule r;
  r.reduction_program = reduction_program(s.reduction_tree, check_schedule(s, in, kp, tile));
  r.slices = build_slices(s, in, kp, tile);
  if (kp != k) clip_to_k(r.slices, k);
  r.source = s;
  return r;
}

std::uint32_t round_tf32(std::uint32_t bits) {
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;  // NaN and Inf unchanged
  const std::uint32_t lsb = (bits >> 13) & 1u;
  // A carry into the exponent is right: it rounds up to the next binade (or to Inf).
  return (bits + 0x0fffu + lsb) & ~0x1fffu;
}

std::uint32_t round_tf32_away(std::uint32_t bits) {
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;  // NaN and Inf unchanged
  // Sign and magnitude: adding half an ulp to the magnitude rounds a tie away from zero.
  return (bits + 0x1000u) & ~0x1fffu;
}

}  // namespace tcnum
