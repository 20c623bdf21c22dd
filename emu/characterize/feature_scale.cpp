// Feature test "scale": how a block-scaled instruction's scales enter the fused sum.
// docs/numprobe.md describes the recipe, its verdict rule and its sources.
#include <cmath>
#include <algorithm>
#include <string>
#include <vector>

#include "features_internal.hpp"

namespace tcnum::features::detail {
namespace {

// A and B all zero, C = 2^-j for j = -2E..80, under unit scales and under large scales (2^E each).
// If each scaled product is a term of its own (scale_group 1), zero products are no terms and C
// alone is the sum: it survives at every j. If groups of products are summed and then scaled, a
// zero group still takes part in the alignment with the scales' exponent (MMA-Sim's mxf4 rule): C
// survives down to 2^-F under unit scales and down to 2^(2E - F) under the large ones, the
// threshold moving by exactly 2E.
FeatureReport recipe_scale(Ctx& ctx) {
  const Instruction& in = ctx.in;
  if (!in.block_scaled()) return not_applicable(ctx, "scale", "not a block-scaled instruction");
  FeatureReport r = start(ctx, "scale");
  const Planner& P = ctx.P;
  const int e = in.scale_type == Format::ue8m0 ? 20 : 8;  // ue4m3 stops at 448 = 1.75·2^8
  constexpr int kMaxJ = 80;
  const int min_j = -2 * e, count = kMaxJ - min_j + 1;
  std::vector<Case> cs;
  for (const double scale : {1.0, std::ldexp(1.0, e)})
    for (int j = min_j; j <= kMaxJ; ++j) {
      Case g = P.blank();
      g.c = *P.c_bits(std::ldexp(1.0, -j));
      g.scale_a.assign(static_cast<std::size_t>(in.scales_per_row()), encode(in.scale_type, scale));
      g.scale_b = g.scale_a;
      cs.push_back(std::move(g));
    }
  const auto out = ctx.eval(cs);
  // The smallest 2^-j that survives, per scale setting; -1 if some j breaks the kept/dropped step.
  int last[2] = {min_j - 1, min_j - 1};
  bool step[2] = {true, true};
  for (int s = 0; s < 2; ++s) {
    bool dropping = false;
    for (int j = min_j; j <= kMaxJ; ++j) {
      const std::uint32_t d = out[static_cast<std::size_t>(s * count + (j - min_j))];
      const bool kept = P.d_is(d, std::ldexp(1.0, -j)), zero = P.d_is(d, 0);
      if (kept && !dropping) last[s] = j;
      else if (zero) dropping = true;
      else step[s] = false;
    }
  }
  for (int s = 0; s < 2; ++s) {
    const int j = std::min(kMaxJ, last[s] + 1);
    const std::size_t at = static_cast<std::size_t>(s * count + (j - min_j));
    ctx.row(r, std::string("A = B = 0, scales ") + (s ? "2^" + std::to_string(e) : std::string("1")) + ", C = 2^" +
                   std::to_string(-j),
            cs[at], out[at], last[s] == kMaxJ ? "kept (every C down to 2^-80)" : "first C truncated");
  }
  if (!step[0] || !step[1] || last[0] < min_j || last[1] < min_j) {
    r.anomalies.push_back("C alone does not come back as kept-then-truncated from an all-zero block-scaled product");
    return r;
  }
  const bool per_product = last[0] == kMaxJ && last[1] == kMaxJ;
  const bool grouped = last[0] - last[1] == 2 * e;
  if (!per_product && !grouped) {
    r.anomalies.push_back("the truncation of C moves by " + std::to_string(last[0] - last[1]) + " binades, not 0 or " +
                          std::to_string(2 * e) + " (the scales' exponent)");
    return r;
  }
  const int group = per_product ? 1 : std::min(16, in.scale_block);
  ctx.m.scale_group = group;
  r.facts.push_back({"scaled_terms", std::string(per_product ? "per product" : "per group")});
  r.facts.push_back({"scale_group", static_cast<std::int64_t>(group)});
  if (grouped) {
    // An all-zero block aligns at 2^0 under unit scales: C's last kept bit is 2^-F.
    r.facts.push_back({"frac_bits_seen_by_zero_groups", static_cast<std::int64_t>(last[0])});
  }
  r.verdict = per_product
                  ? "Each scaled product a·b·sa·sb is a term of its own: an all-zero block, however large its scales, "
                    "adds no term and does not move the alignment (scale_group 1)."
                  : "Products are summed in groups and each group sum is scaled: an all-zero group still takes part in "
                    "the alignment with its scales' exponent (C survives down to 2^" + std::to_string(-last[0]) +
                        " under unit scales, 2^" + std::to_string(-last[1]) + " under scales 2^" + std::to_string(e) +
                        " each). scale_group > 1; the group size inside a scale block is not measured, " +
                        std::to_string(group) + " assumed, as MMA-Sim's.";
  return r;
}

}  // namespace

const FeatureTest& scale_test() {
  static const FeatureTest test{"scale", {sources::mma_sim2025}, {}, {}, recipe_scale, nullptr};
  return test;
}

}  // namespace tcnum::features::detail
