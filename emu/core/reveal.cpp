// Reveal: candidate schedules tried against a black-box GEMM (tcnum/core/reveal.hpp).
#include "tcnum/core/reveal.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/library_inputs.hpp"

namespace tcnum {
namespace {

[[noreturn]] void fail(const std::string& why) { throw std::invalid_argument("tcnum reveal: " + why); }

constexpr int kMaxSplit = 256;
constexpr int kMaxInputSets = 16;
constexpr long long kMaxWork = 1LL << 34;  // M·N·K: reveal runs hundreds of GEMMs of this size

// One point of the search space.
struct Choice {
  int split = 1;
  SliceRule rule = SliceRule::balanced_steps;
  int tile = 0;  // the k-tile (in.k: the default)
  PartialTile partial = PartialTile::last;
  bool pairwise = false;
  Tf32Operands tf32 = Tf32Operands::truncate;
};

int changes(const Choice& c, int ik) {
  return (c.split != 1) + (c.rule != SliceRule::balanced_steps) + (c.tile != ik) + (c.partial != PartialTile::last) +
         c.pairwise + (c.tf32 != Tf32Operands::truncate);
}

// The k-tiles tried: in.k and those of {16, 32, 64, 128} that are multiples of it.
std::vector<int> tiles_for(const Instruction& in) {
  std::vector<int> tiles{in.k};
  for (const int t : {16, 32, 64, 128})
    if (t > in.k && t % in.k == 0) tiles.push_back(t);
  return tiles;
}

std::vector<Tf32Operands> tf32_modes(const Instruction& in) {
  if (in.a_type != Format::tf32 && in.b_type != Format::tf32) return {Tf32Operands::truncate};
  return {Tf32Operands::truncate, Tf32Operands::nearest_even, Tf32Operands::nearest_away};
}

std::vector<Choice> choices(const Instruction& in, int max_split) {
  std::vector<Choice> out;
  for (int split = 1; split <= max_split; ++split)
    for (const SliceRule rule : {SliceRule::balanced_steps, SliceRule::whole_tiles, SliceRule::interleaved_tiles})
      for (const int tile : tiles_for(in))
        for (const PartialTile partial : {PartialTile::last, PartialTile::first})
          for (const bool pairwise : {false, true})
            for (const Tf32Operands tf32 : tf32_modes(in)) {
              if (split == 1 && (rule != SliceRule::balanced_steps || pairwise)) continue;  // one slice: no rule, no tree
              out.push_back({split, rule, tile, partial, pairwise, tf32});
            }
  std::stable_sort(out.begin(), out.end(),
                   [&](const Choice& x, const Choice& y) { return changes(x, in.k) < changes(y, in.k); });
  return out;
}

// Postfix program of the pairwise tree over slices [0, count): neighbours added level by level,
// an odd last node going up alone (tl.sum's tree; python/tcnum/libraries/trees.py's pairwise).
std::vector<int> pairwise_program(int count) {
  std::vector<std::vector<int>> nodes;
  for (int s = 0; s < count; ++s) nodes.push_back({s});
  while (nodes.size() > 1) {
    std::vector<std::vector<int>> up;
    for (std::size_t i = 0; i < nodes.size(); i += 2) {
      up.push_back(nodes[i]);
      if (i + 1 == nodes.size()) continue;
      up.back().insert(up.back().end(), nodes[i + 1].begin(), nodes[i + 1].end());
      up.back().push_back(-1);
    }
    nodes = std::move(up);
  }
  return nodes.front();
}

// The choice as a schedule for K, or nothing when it does not resolve (split_k above the step
// count, ...). The pairwise tree is laid over the slices the rule really makes.
std::optional<Schedule> schedule_of(const Choice& c, const Instruction& in, int k) {
  Schedule s;
  s.split_k = c.split;
  s.slice_rule = c.rule;
  s.tile_k = c.tile == in.k ? 0 : c.tile;
  s.partial = c.partial;
  s.tf32_operands = c.tf32;
  try {
    const auto slices = static_cast<int>(resolve_schedule(s, in, k).slices.size());
    if (c.pairwise && slices < 3) return std::nullopt;  // two slices: the sequential sum
    if (c.pairwise) s.reduction_tree = pairwise_program(slices);
    return s;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// A 128-bit digest of a sequence of ints (two independent 64-bit hashes): candidates are told
// apart by it in memory independent of K. A collision would drop a candidate (reveal would then
// say "none fits" where one does), with a chance of about 2^-128 per pair.
struct Digest {
  std::uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x9E3779B97F4A7C15ULL;
  void add(int v) {
    const auto x = static_cast<std::uint64_t>(static_cast<std::uint32_t>(v));
    h1 = (h1 ^ x) * 0x100000001b3ULL;  // FNV-1a over whole ints
    h2 = (h2 + x + 1) * 0xBF58476D1CE4E5B9ULL;
    h2 ^= h2 >> 31;
  }
  auto key() const { return std::pair(h1, h2); }
};

// What a schedule computes for K: every slice's k-steps in order, the reduction, the tf32 rounding.
std::pair<std::uint64_t, std::uint64_t> behaviour(const Schedule& s, const Instruction& in, int k) {
  const ResolvedSchedule r = resolve_schedule(s, in, k);
  Digest d;
  d.add(static_cast<int>(s.tf32_operands));
  for (const auto& slice : r.slices) {
    d.add(-1);
    for (const KStep& step : slice) d.add(step.begin), d.add(step.length);
  }
  d.add(-2);
  for (const int op : r.reduction_program) d.add(op);
  return d.key();
}

// One input set and the black box's answer on it.
struct Trial {
  std::vector<std::uint32_t> a, b, want;
};

void check_call(const Instruction& in, int m, int n, int k, const RevealOptions& opt) {
  check_formats(in);
  if (m < 1 || n < 1 || k < 1)
    fail("M, N and K must be at least 1, got " + std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k));
  if (static_cast<long long>(m) * n * k > kMaxWork) fail("M·N·K above 2^34: too large to search");
  if (in.block_scaled()) fail(in.name + " is block-scaled: reveal takes no scale tensors");
  if (opt.max_split < 1 || opt.max_split > kMaxSplit) fail("max_split must be within 1..256");
  if (opt.input_sets < 1 || opt.input_sets > kMaxInputSets) fail("input_sets must be within 1..16");
}

std::vector<Trial> run_black_box(const GemmBlackBox& box, const Instruction& in, int m, int n, int k,
                                 const RevealOptions& opt) {
  const int wide_e = std::min(library_wide_exponent(in.a_type), library_wide_exponent(in.b_type));
  std::vector<Trial> trials;
  for (int i = 0; i < opt.input_sets; ++i)
    for (const InputDist dist : {InputDist::normal, InputDist::wide}) {
      const int E = dist == InputDist::wide ? wide_e : 0;
      Trial t{library_input_bits(in.a_type, opt.seed + i, 1, m, k, dist, E),
              library_input_bits(in.b_type, opt.seed + i, 2, k, n, dist, E), {}};
      t.want = box(t.a, t.b);
      if (t.want.size() != static_cast<std::size_t>(m) * static_cast<std::size_t>(n))
        fail("the black box returned " + std::to_string(t.want.size()) + " values, expected M·N = " +
             std::to_string(static_cast<long long>(m) * n));
      trials.push_back(std::move(t));
    }
  return trials;
}

// The call every candidate is run as.
struct Search {
  const Model& model;
  const Instruction& in;
  int m, n, k;
  std::vector<std::uint32_t> c;  // +0 in C's format
  int threads;
};

// Output elements of the trials that `s` reproduces; stops early (returning a count <= floor)
// once it cannot beat `floor`.
std::size_t matches(const Search& q, const Schedule& s, const std::vector<Trial>& trials, std::size_t floor) {
  GemmOptions opt;
  opt.schedule = s;
  opt.threads = q.threads;
  const std::size_t per = q.c.size();
  std::size_t matched = 0, left = per * trials.size();
  for (const Trial& t : trials) {
    const auto got = gemm(q.model, q.in, q.m, q.n, q.k, t.a, t.b, q.c, opt);
    for (std::size_t e = 0; e < per; ++e) matched += got[e] == t.want[e];
    left -= per;
    if (matched + left <= floor) return matched;
  }
  return matched;
}

}  // namespace

std::vector<Schedule> reveal_candidates(const Instruction& in, int k, int max_split) {
  if (k < 1) fail("K must be at least 1, got " + std::to_string(k));
  if (max_split < 1 || max_split > kMaxSplit) fail("max_split must be within 1..256");
  std::vector<Schedule> out;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (const Choice& c : choices(in, max_split)) {
    const auto s = schedule_of(c, in, k);
    if (s && seen.insert(behaviour(*s, in, k)).second) out.push_back(*s);
  }
  return out;
}

RevealResult reveal_schedule(const Model& model, const GemmBlackBox& black_box, const Instruction& in, int m, int n,
                             int k, const RevealOptions& opt) {
  check_call(in, m, n, k, opt);
  const std::vector<Trial> trials = run_black_box(black_box, in, m, n, k, opt);
  const Search q{model, in, m, n, k,
                 std::vector<std::uint32_t>(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), zero_bits(in.c_type, false)),
                 opt.threads};
  const std::vector<Schedule> cands = reveal_candidates(in, k, opt.max_split);
  RevealResult r;
  r.candidates = cands.size();
  r.total = q.c.size() * trials.size();
  for (const Schedule& s : cands) {
    ++r.tried;
    const std::size_t got = matches(q, s, trials, r.best_matched);
    if (got > r.best_matched || r.tried == 1) r.best = s, r.best_matched = std::max(got, r.best_matched);
    if (got == r.total) {
      r.schedule = s;
      break;
    }
  }
  return r;
}

}  // namespace tcnum
