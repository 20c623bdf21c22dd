// Khattak & Mikaitis, IEEE HPEC 2025: the generalized test vectors of features 1-8
// (nvidia-tests.cu).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "recipe_rig.hpp"

namespace tcnum::recipes {
using namespace detail;

namespace {

constexpr int kPout = 24;  // fp32 D

// The smallest j >= 0 (the paper's free exponent shift) at which every listed value times 2^j
// is representable; NotApplicable if none up to 40.
int pick_shift(const Rig& r, const std::vector<double>& a_vals, const std::vector<double>& b_vals) {
  for (int j = 0; j <= 40; ++j) {
    bool ok = true;
    for (double x : a_vals) ok = ok && representable(r.in().a_type, std::ldexp(x, j));
    for (double x : b_vals) ok = ok && representable(r.in().b_type, x);
    if (ok) return j;
  }
  throw NotApplicable{"no exponent shift makes the vectors representable in " + std::string(name_of(r.in().a_type))};
}

// Feature 2/3 loop: returns {fma size, last passing k, reached K without a failure}.
struct FmaScan {
  int nfma = 0;
  int last_pass_k = 0;
  bool lower_bound = false;
};

FmaScan km_fma_scan(Rig& r) {
  r.need_d(Format::fp32);
  if (r.in().c_type != Format::fp32) throw NotApplicable{"needs an fp32 C"};
  const int j = pick_shift(r, {1.0, p2(-kPout + 1)}, {1.0});
  const double s = p2(j);
  const double want = s * (2.0 + p2(-kPout + 2));
  FmaScan scan;
  for (int k = 2; k <= r.in().k; ++k) {
    const std::string at = "a[0] = b[0] = 1, a[" + std::to_string(k - 1) + "] = 2^-23, c = 1 + 2^-23 (x 2^" +
                           std::to_string(j) + ")";
    const double dp = r.run(at, {{0, s, 1.0}, {k - 1, s * p2(-kPout + 1), 1.0}}, s * (1.0 + p2(-kPout + 1)), want);
    const double dn =
        r.run("negated: " + at, {{0, -s, 1.0}, {k - 1, -s * p2(-kPout + 1), 1.0}}, -s * (1.0 + p2(-kPout + 1)), -want);
    if (dp != want && std::fabs(dn) != want) {
      scan.nfma = k - 1;
      return scan;
    }
    scan.last_pass_k = k;
  }
  scan.nfma = r.in().k;
  scan.lower_bound = true;
  return scan;
}

}  // namespace

RecipeVerdict km_extra_alignment_bits(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "km2025.F1.extra_alignment_bits", sources::khattak_mikaitis2025_vectors, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    if (r.in().c_type != Format::fp32) throw NotApplicable{"needs an fp32 C"};
    r.need_k(3);
    const int j = pick_shift(r, {p2(-kPout)}, {1.0, 0.5});
    const double c = p2(j), u = p2(j - kPout), want = c + 2 * u;
    const double d1 = r.run("one bit: c = 2^j, a = [2^(j-24)] x2, b = [1, 1]", {{0, u, 1.0}, {1, u, 1.0}}, c, want);
    const double d2 = r.run("two bits: c = 2^j, a = [2^(j-24)] x3, b = [1, 0.5, 0.5]",
                            {{0, u, 1.0}, {1, u, 0.5}, {2, u, 0.5}}, c, want);
    v.value = d2 == want ? 2 : d1 == want ? 1 : 0;
    v.lower_bound = v.value == 2;
    v.verdict = v.value == 2 ? "at_least_two" : v.value == 1 ? "one" : "none";
    v.passed = true;
    v.note = "exponent shift j = " + std::to_string(j);
  });
}

RecipeVerdict km_fma_size(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "km2025.F3.fma_size", sources::khattak_mikaitis2025_vectors, [](Rig& r, RecipeVerdict& v) {
    const FmaScan s = km_fma_scan(r);
    v.value = s.nfma;
    v.lower_bound = s.lower_bound;
    v.passed = true;
    v.verdict = std::to_string(s.nfma) + (s.lower_bound ? "+" : "");
    if (s.lower_bound) v.note = "no block boundary within K = " + std::to_string(r.in().k);
  });
}

RecipeVerdict km_extra_carry_bits(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "km2025.F2.extra_carry_bits", sources::khattak_mikaitis2025_vectors, [](Rig& r, RecipeVerdict& v) {
    const FmaScan s = km_fma_scan(r);
    if (s.last_pass_k == 0) {
      v.verdict = "undetermined";
      v.note = "the first block boundary came at k = 2";
      return;
    }
    // The paper's rule: the bits needed for the largest sum of the last passing k products.
    const int pin = precision(r.in().a_type);
    v.value = static_cast<int>(std::floor(std::log2(s.last_pass_k * (2.0 - p2(1 - pin)))));
    v.lower_bound = s.lower_bound;
    v.passed = true;
    v.verdict = std::to_string(v.value) + (s.lower_bound ? "+" : "");
  });
}

RecipeVerdict km_normalisation_pattern(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "km2025.F4.normalisation_pattern", sources::khattak_mikaitis2025_vectors, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(2);
    const int t = 3;
    const double a = p2(-kPout + t) + p2(-kPout);
    const double d = r.run("a = [2^-21 + 2^-24] x2, b = [1, 1], c = 1 - 2^-21", {{0, a, 1.0}, {1, a, 1.0}},
                           1.0 - p2(-kPout + t), 1.0 + p2(-kPout + t) + p2(-kPout + 1));
    v.passed = true;
    if (d == 1.0 + p2(-kPout + t) + p2(-kPout + 1)) v.verdict = "late";
    else if (d == 1.0 + p2(-kPout + t)) v.verdict = "immediate_rz_rd_rn";
    else if (d == 1.0 + p2(-kPout + t) + p2(-kPout + 2)) v.verdict = "immediate_ru";
    else v.verdict = "unknown", v.passed = false;
  });
}

RecipeVerdict km_output_rounding(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "km2025.F5F6.output_rounding", sources::khattak_mikaitis2025_vectors, [](Rig& r, RecipeVerdict& v) {
    r.need_k(3);
    const Format d = r.in().d_type;
    if (d != Format::fp32 && d != Format::fp16) throw NotApplicable{"needs fp32 or fp16 D"};
    const int pout = d == Format::fp32 ? kPout : 11;
    const double c = 1.0 + p2(-pout + 1) + p2(-pout + 2);
    const double trunc = 4.0, up = 4.0 + p2(-pout + 3);
    const double pos = r.run("c = 1 + 2^(1-p) + 2^(2-p), a = b = 1 (x3)", {{0, 1.0, 1.0}, {1, 1.0, 1.0}, {2, 1.0, 1.0}},
                             c);
    const double neg = r.run("negated", {{0, -1.0, 1.0}, {1, -1.0, 1.0}, {2, -1.0, 1.0}}, -c);
    v.verdict = classify_rounding(pos, neg, trunc, up);
    v.passed = v.verdict != "unknown";
    v.note = d == Format::fp32 ? "feature 5 (fp32 D)" : "feature 6 (fp16 D)";
  });
}

RecipeVerdict km_alignment_rounding(const BlackBox& f, const Instruction& in, int neab) {
  return guarded(f, in, "km2025.F7.alignment_rounding", sources::khattak_mikaitis2025_vectors, [neab](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(2);
    if (neab < 0 || neab > 2) throw NotApplicable{"needs neab in 0..2 (feature 1)"};
    const double b = p2(-neab) + p2(-neab - 1);
    const double u = p2(-kPout);
    const double pos = r.run("c = 1, a = [2^-24] x2, b = [1.5 * 2^-neab] x2", {{0, u, b}, {1, u, b}}, 1.0);
    const double neg = r.run("negated", {{0, -u, b}, {1, -u, b}}, -1.0);
    v.verdict = classify_rounding(pos, neg, 1.0, 1.0 + p2(-kPout + 2 - neab));
    v.passed = v.verdict != "unknown";
    v.note = "neab = " + std::to_string(neab);
  });
}

RecipeVerdict km_multi_block_rounding(const BlackBox& f, const Instruction& in, int fma_size) {
  return guarded(f, in, "km2025.F8.multi_block_rounding", sources::khattak_mikaitis2025_vectors, [fma_size](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    if (fma_size < 1 || fma_size >= r.in().k)
      throw NotApplicable{"needs a block boundary inside K (FMA size " + std::to_string(fma_size) + ")"};
    const double c = 1.0 + p2(-kPout + 1);
    const double pos = r.run("c = 1 + 2^-23, a[n] = 2^-24, b[n] = 1.5 with n = FMA size",
                             {{fma_size, p2(-kPout), 1.5}}, c);
    const double neg = r.run("negated", {{fma_size, -p2(-kPout), 1.5}}, -c);
    v.verdict = classify_rounding(pos, neg, 1.0 + p2(-kPout + 1), 1.0 + p2(-kPout + 2));
    v.passed = v.verdict != "unknown";
  });
}

}  // namespace tcnum::recipes
