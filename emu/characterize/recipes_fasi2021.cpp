// Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330
// (2021): the vectors of their test suite, sections A (subnormals), B (accuracy of the dot
// products), C (rounding modes), D (features of the accumulator).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "recipe_rig.hpp"

namespace tcnum::recipes {
using namespace detail;

RecipeVerdict fasi_subnormal_inputs(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_inputs", sources::fasi2021_suite_a, [](Rig& r, RecipeVerdict& v) {
    // fp16: 2^-24 * 4 = 2^-22; bf16: 2^-133 * 2^7 = 2^-126; tf32: 2^-136 * 2^10 = 2^-126.
    const Format fa = r.in().a_type;
    const int sub = min_subnormal_exp(fa);
    const int scale = fa == Format::fp16 ? 2 : spec(fa).frac_bits;
    const double want = p2(sub + scale);
    const double d = r.run("a0 = min subnormal 2^" + std::to_string(sub) + ", b0 = 2^" + std::to_string(scale),
                           {{0, p2(sub), p2(scale)}}, 0.0, want);
    v.passed = d == want;
    v.verdict = v.passed ? "supported" : d == 0 ? "flushed" : "other";
  });
}

RecipeVerdict fasi_subnormal_c(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_c", sources::fasi2021_suite_a, [](Rig& r, RecipeVerdict& v) {
    if (r.in().c_type != Format::fp32) throw NotApplicable{"needs an fp32 C"};
    r.need_d(Format::fp32);
    const double c = p2(-149);
    const double d = r.run("A = B = 0, c = 2^-149", {}, c, c);
    v.passed = d == c;
    v.verdict = v.passed ? "supported" : d == 0 ? "flushed" : "other";
  });
}

RecipeVerdict fasi_subnormal_outputs(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_outputs", sources::fasi2021_suite_a, [](Rig& r, RecipeVerdict& v) {
    const Format fa = r.in().a_type;
    if (fa == Format::fp16) {
      // binary16 inputs, either D: 2^-14 * 2^-1 and 2^-14 * 1 - 2^-15 (a binary16 subnormal).
      const double want = p2(-15);
      const double d1 = r.run("a0 = 2^-14, b0 = 2^-1", {{0, p2(-14), 0.5}}, 0.0, want);
      const double d2 = r.run("a0 = 2^-14, b0 = 1, c = -2^-15", {{0, p2(-14), 1.0}}, -p2(-15), want);
      v.passed = d1 != 0 && d2 != 0;  // the authors' rule: a nonzero result
      v.verdict = d1 == want && d2 == want ? "supported" : (d1 == 0 || d2 == 0) ? "flushed" : "other";
    } else if (fa == Format::bf16 || fa == Format::tf32) {
      r.need_d(Format::fp32);
      const double want = p2(-127);
      const double d1 = r.run("a0 = 2^-126, b0 = 2^-1", {{0, p2(-126), 0.5}}, 0.0, want);
      const double d2 = r.run("a0 = 2^-126, b0 = 1, c = -2^-127", {{0, p2(-126), 1.0}}, -p2(-127), want);
      v.passed = d1 == want && d2 == want;
      v.verdict = v.passed ? "supported" : (d1 == 0 || d2 == 0) ? "flushed" : "other";
    } else {
      throw NotApplicable{"no published vectors for fp8 inputs"};
    }
  });
}

RecipeVerdict fasi_exact_products(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.B.exact_products", sources::fasi2021_suite_b, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    const double x = 1.0 - p2(-precision(r.in().a_type));  // largest value below one
    const double sq = x * x;                                // exact in double
    const double d1 = r.run("a0 = b0 = 1 - u", {{0, x, x}}, 0.0, sq);
    const double d4 = r.run("a[0..3] = b[0..3] = 1 - u", {{0, x, x}, {1, x, x}, {2, x, x}, {3, x, x}}, 0.0, 4 * sq);
    v.passed = d1 == sq && d4 == 4 * sq;
    v.verdict = v.passed ? "exact" : "rounded";
  });
}

RecipeVerdict fasi_exact_products_fp16_out(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.B.exact_products_fp16_out", sources::fasi2021_suite_b, [](Rig& r, RecipeVerdict& v) {
    r.need_inputs({Format::fp16});
    r.need_d(Format::fp16);
    const double x = 1.0 - p2(-11);
    const double want = 1.0 - p2(-11);  // (1-2^-10+2^-22) + (2^-11-2^-22)
    const double d = r.run("a = [1-2^-11, 1-2^-11], b = [1-2^-11, 2^-11]", {{0, x, x}, {1, x, p2(-11)}}, 0.0, want);
    v.passed = d == want;
    v.verdict = v.passed ? "exact" : "rounded";
  });
}

RecipeVerdict fasi_accumulation_width(const BlackBox& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.B.accumulated_in_binary32", sources::fasi2021_suite_b, [var](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    const double a = var == FasiVariant::volta ? 1.0 : 0.5;
    std::vector<Term> t;
    for (int k = 0; k < 4; ++k) t.push_back({k, a, p2(-24)});
    const double d = r.run(var == FasiVariant::volta ? "a = 1, b = 2^-24 (x4), c = 1" : "a = 0.5, b = 2^-24 (x4), c = 1",
                           t, 1.0, 1.0);
    v.passed = d == 1.0;
    v.verdict = v.passed ? "binary32" : d > 1.0 ? "wider" : "other";
  });
}

RecipeVerdict fasi_sum_from_largest(const BlackBox& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.B.sum_starts_from_largest", sources::fasi2021_suite_b, [var](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    const double small_a = var == FasiVariant::volta ? 1.0 : 0.5;
    v.passed = true;
    for (int j = 0; j < 4; ++j) {
      std::vector<Term> t;
      for (int k = 0; k < 4; ++k) t.push_back(k == j ? Term{k, 1.0, 1.0} : Term{k, small_a, p2(-24)});
      const double d = r.run("a[j]*b[j] = 1 at j = " + std::to_string(j) + ", others tiny, c = 2^-24", t, p2(-24), 1.0);
      v.passed = v.passed && d == 1.0;
    }
    v.verdict = v.passed ? "aligned_to_largest" : "other";
  });
}

RecipeVerdict fasi_rounding_fp32_out(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.C.rounding_fp32_out", sources::fasi2021_suite_c, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(2);
    const double tiny = p2(-23) + p2(-24);
    const double pos = r.run("a = 1, b = [2, 2^-23 + 2^-24]", {{0, 1.0, 2.0}, {1, 1.0, tiny}}, 0.0, 2.0);
    const double neg = r.run("a = 1, b = [-2, -(2^-23 + 2^-24)]", {{0, 1.0, -2.0}, {1, 1.0, -tiny}}, 0.0, -2.0);
    v.passed = pos == 2.0 && neg == -2.0;  // round-down for positive, round-up for negative values
    if (v.passed) v.verdict = "toward_zero";
    else if (pos == 2.0) v.verdict = "down";
    else if (neg == -2.0) v.verdict = "up";
    else v.verdict = "nearest_or_away";
  });
}

RecipeVerdict fasi_rounding_fp16_out(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.C.rounding_fp16_out", sources::fasi2021_suite_c, [](Rig& r, RecipeVerdict& v) {
    r.need_inputs({Format::fp16});
    r.need_d(Format::fp16);
    // 2^-25 + 2^-26 = 0.75 * 2^-24: to nearest gives 2^-24, truncation 0.
    const double d = r.run("a = [2^-24, 2^-24], b = [2^-1, 2^-2]", {{0, p2(-24), 0.5}, {1, p2(-24), 0.25}}, 0.0,
                           p2(-24));
    v.passed = d == p2(-24);
    v.verdict = v.passed ? "nearest" : d == 0 ? "toward_zero" : "other";
  });
}

RecipeVerdict fasi_extra_alignment_bits(const BlackBox& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D1.extra_alignment_bits", sources::fasi2021_suite_d, [var](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    // 1*1 - (1 - 2^-24): no extra bit truncates c to 1 - 2^-23 and gives 2^-23.
    const double d = r.run("a0 = b0 = 1, c = -(1 - 2^-24)", {{0, 1.0, 1.0}}, -(1.0 - p2(-24)));
    if (d == p2(-23)) {
      v.verdict = "none";
      v.value = 0;
    } else if (d == p2(-24)) {
      v.verdict = "at_least_one";
      v.value = 1;
      v.lower_bound = true;
    } else {
      v.verdict = "other";
    }
    v.passed = var == FasiVariant::volta ? d == p2(-23) : d == p2(-24);
    v.probes.back().expected = r.bits(Format::fp32, var == FasiVariant::volta ? p2(-23) : p2(-24), "expected D");
  });
}

RecipeVerdict fasi_normalization_addition(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.D2.normalization_in_addition", sources::fasi2021_suite_d, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    std::vector<Term> t;
    for (int k = 0; k < 4; ++k) t.push_back({k, 1.0, p2(-24)});
    const double want = 1.0 + p2(-23);
    const double d = r.run("a = 1, b = 2^-24 (x4), c = 1 - 2^-24", t, 1.0 - p2(-24), want);
    v.passed = d == want;
    v.verdict = v.passed ? "not_normalised_between_terms" : "other";
  });
}

RecipeVerdict fasi_normalization_subtraction(const BlackBox& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D3.normalization_in_subtraction", sources::fasi2021_suite_d, [var](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(2);
    const double d = r.run("a = [1, 1], b = [1, -2^-24], c = -1 + 2^-24", {{0, 1.0, 1.0}, {1, 1.0, -p2(-24)}},
                           -1.0 + p2(-24));
    const double want = var == FasiVariant::volta ? p2(-23) : 0.0;
    v.probes.back().expected = r.bits(Format::fp32, want, "expected D");
    v.passed = d == want;
    v.verdict = d == p2(-23) ? "two_pow_minus_23" : d == 0 ? "zero" : "other";
  });
}

RecipeVerdict fasi_carry_out_bits(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.D4.carry_out_bits", sources::fasi2021_suite_d, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    bool ok = true;
    const double c1 = 1.0 + p2(-22) + p2(-23);
    for (int i = 0; i < 4; ++i) {
      std::vector<Term> t;
      for (int k = 0; k < 4; ++k) t.push_back({k, 1.0, k == i ? p2(-23) : 1.0});
      ok = r.run("b = 1 except b[" + std::to_string(i) + "] = 2^-23, c = 1 + 2^-22 + 2^-23", t, c1,
                 4.0 + p2(-21)) == 4.0 + p2(-21) && ok;
    }
    ok = r.run("b = [1, 1.5, 1.75, 1.875], c = 1.875 (third carry bit)",
               {{0, 1.0, 1.0}, {1, 1.0, 1.5}, {2, 1.0, 1.75}, {3, 1.0, 1.875}}, 1.875, 8.0) == 8.0 && ok;
    std::vector<Term> ones, minus;
    for (int k = 0; k < 4; ++k) ones.push_back({k, 1.0, 1.0}), minus.push_back({k, 1.0, -1.0});
    ok = r.run("a = b = 1 (x4), c = 1 + 2^-22 + 2^-23 (round-down in normalisation)", ones, c1, 5.0) == 5.0 && ok;
    ok = r.run("a = 1, b = -1 (x4), c = -(1 + 2^-22 + 2^-23)", minus, -c1, -5.0) == -5.0 && ok;
    v.passed = ok;
    v.verdict = ok ? "three_carry_bits" : "other";
  });
}

RecipeVerdict fasi_monotonicity(const BlackBox& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D5.monotonicity", sources::fasi2021_suite_d, [var](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(4);
    std::vector<Term> t;
    for (int k = 0; k < 4; ++k) {
      if (var == FasiVariant::volta) t.push_back({k, 1.0, p2(-24)});
      else t.push_back({k, 0.5, k < 3 ? p2(-24) : p2(-23) + p2(-24)});
    }
    const double partial = r.run("c = 1 - 2^-24", t, 1.0 - p2(-24));
    const double larger_c = r.run("c = 1 (larger)", t, 1.0);
    v.passed = larger_c < partial;  // the authors' suite passes when it shows non-monotonicity
    v.verdict = v.passed ? "non_monotonic" : "monotonic_here";
  });
}

FasiVariant fasi_variant(const Instruction& in) {
  return in.family == Family::mma && in.m == 8 && in.k == 4 ? FasiVariant::volta : FasiVariant::turing_ampere;
}

}  // namespace tcnum::recipes
