// Reveal (tcnum/core/reveal.hpp) and its inputs (tcnum/core/library_inputs.hpp):
//   * the C++ generator gives the fixed vectors of docs/library-corpus.md §1 (shared with
//     python/tests/test_library_inputs.py);
//   * the candidates start with the default schedule and are distinct for the K;
//   * the law: for a hidden schedule drawn at random from the language (seeded), reveal finds a
//     schedule that gives the same bits as the hidden one on fresh inputs (other seeds, other
//     M and N; the spelling may differ);
//   * a black box outside the language (partials added in a random order per output element) is
//     reported as not fitting, with the best candidate's count below the total;
//   * bad calls are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <random>
#include <string>

#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/library_inputs.hpp"
#include "tcnum/core/reveal.hpp"
#include "tcnum/core/schedule.hpp"

namespace tcnum {
namespace {

const Model& sm90() { return builtin_model(90); }

std::vector<std::uint32_t> zeros(const Instruction& in, int m, int n) {
  return std::vector<std::uint32_t>(static_cast<std::size_t>(m * n), zero_bits(in.c_type, false));
}

GemmBlackBox hidden_box(const Instruction& in, int m, int n, int k, const Schedule& hidden) {
  GemmOptions opt;
  opt.schedule = hidden;
  opt.threads = 1;
  return [=](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    return gemm(sm90(), in, m, n, k, a, b, zeros(in, m, n), opt);
  };
}

TEST(LibraryInputs, FixedVectors) {
  EXPECT_EQ(library_input_draw(1, 1, 0, 0), 0x1EA59F2878E51FB5ULL);
  EXPECT_EQ(library_input_draw(1, 1, 0, 1), 0xB2F683D11FA164F5ULL);
  EXPECT_EQ(library_input_draw(123456789, 2, 1000, 3), 0x36D3251FE25246FEULL);
  EXPECT_EQ(library_input_draw(0, 3, 0, 0), 0x18330D235A79896CULL);
  EXPECT_EQ(library_input_draw(~0ULL, 2, 1000000000000ULL, 2), 0x63B9376B2FBE1B9CULL);
  EXPECT_EQ(library_input_value(7, 1, 5, InputDist::normal, 0), -2.03594970703125f);
  EXPECT_EQ(library_input_value(7, 1, 5, InputDist::wide, 4), -8.143798828125f);
  EXPECT_EQ(library_input_value(7, 1, 5, InputDist::wide, 16), -4169.625f);
  EXPECT_EQ(library_input_value(7, 2, 0, InputDist::normal, 0), 0.2697296142578125f);
  EXPECT_EQ(library_input_value(7, 2, 0, InputDist::wide, 4), 0.03371620178222656f);
  EXPECT_EQ(library_input_value(42, 3, 17, InputDist::normal, 0), 0.3248748779296875f);
  EXPECT_EQ(library_input_value(42, 3, 17, InputDist::wide, 16), 2.5989990234375f);
}

TEST(LibraryInputs, MatrixIsRowMajorAndRoundedToNearestEven) {
  const auto f32 = library_input_bits(Format::fp32, 11, 1, 3, 5, InputDist::wide, 8);
  const auto bf16 = library_input_bits(Format::bf16, 11, 1, 3, 5, InputDist::wide, 8);
  ASSERT_EQ(f32.size(), 15u);
  for (std::size_t e = 0; e < 15; ++e) {
    EXPECT_EQ(f32[e], std::bit_cast<std::uint32_t>(library_input_value(11, 1, e, InputDist::wide, 8)));
    EXPECT_EQ(bf16[e], encode(Format::bf16, std::bit_cast<float>(f32[e])));
  }
  EXPECT_THROW(library_input_bits(Format::bf16, 1, 1, 2, 2, InputDist::wide, 101), std::invalid_argument);
}

TEST(Reveal, CandidatesStartWithTheDefaultAndAreDistinct) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.tf32.tf32.f32", 90);
  const auto cands = reveal_candidates(in, 300, 6);
  ASSERT_FALSE(cands.empty());
  EXPECT_EQ(cands.front(), Schedule{});
  std::vector<std::string> seen;
  for (const Schedule& s : cands) {
    EXPECT_NO_THROW(resolve_schedule(s, in, 300));
    seen.push_back(schedule_to_json(s));
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  EXPECT_THROW(reveal_candidates(in, 0, 6), std::invalid_argument);
  EXPECT_THROW(reveal_candidates(in, 300, 0), std::invalid_argument);
}

// A schedule of the language, drawn independently of reveal's enumeration (the tree through JSON).
Schedule draw_hidden(std::mt19937_64& rng, const Instruction& in, int k) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  std::vector<int> tiles{0};
  for (int t = 2 * in.k; t <= 128; t *= 2) tiles.push_back(t);
  std::string json = "{\"split_k\": " + std::to_string(1 + pick(6)) + ", \"slice_rule\": \"" +
                     std::vector<std::string>{"balanced_steps", "whole_tiles", "interleaved_tiles"}[pick(3)] +
                     "\", \"tile_k\": " + std::to_string(tiles[pick(static_cast<int>(tiles.size()))]) +
                     ", \"partial_tile\": \"" + (pick(2) ? "first" : "last") + "\"";
  if (in.a_type == Format::tf32)
    json += std::string(", \"tf32_operands\": \"") + std::vector<std::string>{"truncate", "nearest_even", "nearest_away"}[pick(3)] + "\"";
  Schedule s = parse_schedule(json + "}");
  std::size_t slices = 0;
  try {
    slices = resolve_schedule(s, in, k).slices.size();
  } catch (const std::invalid_argument&) {  // more slices than k-steps: draw again
    return draw_hidden(rng, in, k);
  }
  if (slices >= 3 && pick(2)) {  // a pairwise tree, as nested JSON pairs
    std::vector<std::string> nodes;
    for (std::size_t i = 0; i < slices; ++i) nodes.push_back(std::to_string(i));
    while (nodes.size() > 1) {
      std::vector<std::string> up;
      for (std::size_t i = 0; i < nodes.size(); i += 2)
        up.push_back(i + 1 < nodes.size() ? "[" + nodes[i] + ", " + nodes[i + 1] + "]" : nodes[i]);
      nodes = up;
    }
    s.reduction_tree = parse_schedule("{\"reduction_tree\": " + nodes.front() + "}").reduction_tree;
  }
  return s;
}

// gemm under `a` and under `b` on fresh inputs (seeds 1000.., both distributions, other M and N).
void expect_same_bits(const Instruction& in, int k, const Schedule& a, const Schedule& b, const std::string& what) {
  const int m = 5, n = 7;
  for (std::uint64_t seed = 1000; seed < 1002; ++seed)
    for (const InputDist dist : {InputDist::normal, InputDist::wide}) {
      const int E = dist == InputDist::wide ? std::min(library_wide_exponent(in.a_type), library_wide_exponent(in.b_type)) : 0;
      const auto A = library_input_bits(in.a_type, seed, 1, m, k, dist, E);
      const auto B = library_input_bits(in.b_type, seed, 2, k, n, dist, E);
      EXPECT_EQ(hidden_box(in, m, n, k, a)(A, B), hidden_box(in, m, n, k, b)(A, B)) << what << ", seed " << seed;
    }
}

TEST(Reveal, RecoversRandomHiddenSchedules) {
  const char* names[] = {"mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k8.f32.tf32.tf32.f32", "wgmma.m64n8k32.f32.e4m3.e4m3",
                         "mma.m16n8k16.f16.f16.f16.f16", "mma.m16n8k8.f32.bf16.bf16.f32"};
  std::mt19937_64 rng(21);
  int split_found = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Instruction in = find_instruction(names[trial % 5], 90);
    const int k = in.k + static_cast<int>(rng() % 1200);
    const Schedule hidden = draw_hidden(rng, in, k);
    const std::string what = in.name + " K = " + std::to_string(k) + " hidden " + schedule_to_json(hidden);
    RevealOptions opt;
    opt.max_split = 6;
    opt.seed = trial;
    const RevealResult r = reveal_schedule(sm90(), hidden_box(in, 8, 8, k, hidden), in, 8, 8, k, opt);
    ASSERT_TRUE(r.schedule.has_value()) << what << ": best " << r.best_matched << " of " << r.total;
    EXPECT_EQ(r.best_matched, r.total) << what;
    EXPECT_EQ(r.total, 8u * 8u * 4u);
    expect_same_bits(in, k, hidden, *r.schedule, what + ", found " + schedule_to_json(*r.schedule));
    split_found += resolve_schedule(*r.schedule, in, k).slices.size() > 1;
  }
  EXPECT_GE(split_found, 20);  // the draws are not mostly the default
}

TEST(Reveal, TheDefaultIsTheFirstCandidate) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const RevealResult r = reveal_schedule(sm90(), hidden_box(in, 4, 4, 100, Schedule{}), in, 4, 4, 100);
  ASSERT_TRUE(r.schedule.has_value());
  EXPECT_EQ(*r.schedule, Schedule{});
  EXPECT_EQ(r.tried, 1u);
}

// Four slices of whole k-steps, each gemm'd alone from +0, the partials added in fp32 in an order
// drawn per output element: no static schedule says that.
GemmBlackBox random_order_box(const Instruction& in, int m, int n, int k) {
  std::mt19937_64 rng(7);
  std::vector<std::array<int, 4>> orders(static_cast<std::size_t>(m * n));
  for (auto& o : orders) {
    std::iota(o.begin(), o.end(), 0);
    std::shuffle(o.begin(), o.end(), rng);
  }
  return [=](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    const int steps = (k + in.k - 1) / in.k;
    std::vector<std::vector<std::uint32_t>> partials;
    for (int s = 0; s < 4; ++s) {
      const int k0 = std::min(k, steps * s / 4 * in.k), k1 = std::min(k, steps * (s + 1) / 4 * in.k);
      std::vector<std::uint32_t> as, bs(b.begin() + static_cast<std::ptrdiff_t>(k0) * n, b.begin() + static_cast<std::ptrdiff_t>(k1) * n);
      for (int i = 0; i < m; ++i) as.insert(as.end(), a.begin() + i * k + k0, a.begin() + i * k + k1);
      partials.push_back(gemm(sm90(), in, m, n, k1 - k0, as, bs, zeros(in, m, n)));
    }
    std::vector<std::uint32_t> d(static_cast<std::size_t>(m * n));
    for (std::size_t e = 0; e < d.size(); ++e) {
      float sum = 0.0f;
      for (const int s : orders[e]) sum += std::bit_cast<float>(partials[static_cast<std::size_t>(s)][e]);
      d[e] = std::bit_cast<std::uint32_t>(sum);
    }
    return d;
  };
}

TEST(Reveal, ABlackBoxOutsideTheLanguageDoesNotFit) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  RevealOptions opt;
  opt.max_split = 6;
  const RevealResult r = reveal_schedule(sm90(), random_order_box(in, 8, 8, 256), in, 8, 8, 256, opt);
  EXPECT_FALSE(r.schedule.has_value()) << schedule_to_json(*r.schedule);
  EXPECT_EQ(r.tried, r.candidates);
  EXPECT_LT(r.best_matched, r.total);
  EXPECT_GT(r.best_matched, 0u);  // the sequential order is right for some elements
}

TEST(Reveal, BadCallsAreErrors) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const GemmBlackBox box = hidden_box(in, 4, 4, 64, Schedule{});
  EXPECT_THROW(reveal_schedule(sm90(), box, in, 0, 4, 64), std::invalid_argument);
  EXPECT_THROW(reveal_schedule(sm90(), box, in, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(reveal_schedule(sm90(), box, in, 1 << 20, 1 << 20, 1 << 10), std::invalid_argument);
  RevealOptions opt;
  opt.input_sets = 0;
  EXPECT_THROW(reveal_schedule(sm90(), box, in, 4, 4, 64, opt), std::invalid_argument);
  const GemmBlackBox short_box = [](const std::vector<std::uint32_t>&, const std::vector<std::uint32_t>&) {
    return std::vector<std::uint32_t>(3);
  };
  EXPECT_THROW(reveal_schedule(sm90(), short_box, in, 4, 4, 64), std::invalid_argument);
  const Instruction scaled =
      find_instruction("mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 120);
  EXPECT_THROW(reveal_schedule(builtin_model(120), box, scaled, 4, 4, 64), std::invalid_argument);
}

}  // namespace
}  // namespace tcnum
