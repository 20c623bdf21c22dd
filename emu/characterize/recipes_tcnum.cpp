// tcnum's generalisations of the published vectors (kept bits, block size over any input
// format), and run_all, every recipe in a stable order.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "recipe_rig.hpp"

namespace tcnum::recipes {
using namespace detail;

RecipeVerdict probe_kept_fraction_bits(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "tcnum.kept_fraction_bits", sources::tcnum_generalisation, [](Rig& r, RecipeVerdict& v) {
    r.need_d(Format::fp32);
    r.need_k(2);
    const Format fa = r.in().a_type, fb = r.in().b_type;
    const int e1 = std::min(30, max_normal_exp(fa) + max_normal_exp(fb));
    const auto big = split_pow2(fa, fb, e1, true);
    if (!big) throw NotApplicable{"no normal split of the large product"};
    for (int t = 1; t <= 64; ++t) {
      const auto small = split_any(fa, fb, e1 - t);
      if (!small) {
        v.value = t - 1;
        v.lower_bound = true;
        v.verdict = ">=" + std::to_string(t - 1);
        v.note = "the formats cannot form a product 2^" + std::to_string(t) + " below the largest";
        v.passed = true;
        return;
      }
      const double d = r.run("a*b = [2^" + std::to_string(e1) + ", -2^" + std::to_string(e1 - t) + "]",
                             {{0, big->first, big->second}, {1, -small->first, small->second}}, 0.0);
      if (d == p2(e1)) {  // the small product was truncated away
        v.value = t - 1;
        v.verdict = std::to_string(t - 1);
        v.passed = true;
        return;
      }
    }
    v.value = 64;
    v.lower_bound = true;
    v.verdict = ">=64";
    v.passed = true;
  });
}

RecipeVerdict probe_block_size(const BlackBox& f, const Instruction& in) {
  return guarded(f, in, "tcnum.block_size", sources::tcnum_generalisation, [](Rig& r, RecipeVerdict& v) {
    r.need_k(2);
    const Instruction& ins = r.in();
    const Format fa = ins.a_type, fb = ins.b_type;
    // The largest power of two that is a normal product and a value of C and D.
    int e = std::min({30, max_normal_exp(fa) + max_normal_exp(fb), max_normal_exp(ins.c_type),
                      max_normal_exp(ins.d_type)});
    std::optional<std::pair<double, double>> big;
    for (; e > -100 && !(big = split_pow2(fa, fb, e, true)); --e) {
    }
    if (!big) throw NotApplicable{"no normal split of the large product"};
    // The smallest power of two that is a product and survives into D on its own.
    const int d_min = min_subnormal_exp(ins.d_type);
    int small_e = d_min;
    std::optional<std::pair<double, double>> small;
    for (; small_e < e && !(small = split_any(fa, fb, small_e)); ++small_e) {
    }
    if (!small) throw NotApplicable{"no small product"};
    const int s = e - small_e;
    v.note = "gap s = " + std::to_string(s) + " bits (the probe assumes F < s)";
    for (int j = 1; j < ins.k; ++j) {
      const double d = r.run("c = -2^" + std::to_string(e) + ", a0*b0 = 2^" + std::to_string(e) + ", a" +
                                 std::to_string(j) + "*b" + std::to_string(j) + " = 2^" + std::to_string(small_e),
                             {{0, big->first, big->second}, {j, small->first, small->second}}, -p2(e));
      if (d != 0) {
        v.value = j;
        v.verdict = std::to_string(j);
        v.passed = true;
        return;
      }
    }
    v.value = ins.k;
    v.lower_bound = true;
    v.verdict = std::to_string(ins.k) + "+";
    v.passed = true;
  });
}

std::vector<RecipeVerdict> run_all(const BlackBox& f, const Instruction& in, FasiVariant var) {
  std::vector<RecipeVerdict> out;
  out.push_back(fasi_subnormal_inputs(f, in));
  out.push_back(fasi_subnormal_c(f, in));
  out.push_back(fasi_subnormal_outputs(f, in));
  out.push_back(fasi_exact_products(f, in));
  out.push_back(fasi_exact_products_fp16_out(f, in));
  out.push_back(fasi_accumulation_width(f, in, var));
  out.push_back(fasi_sum_from_largest(f, in, var));
  out.push_back(fasi_rounding_fp32_out(f, in));
  out.push_back(fasi_rounding_fp16_out(f, in));
  out.push_back(fasi_extra_alignment_bits(f, in, var));
  out.push_back(fasi_normalization_addition(f, in));
  out.push_back(fasi_normalization_subtraction(f, in, var));
  out.push_back(fasi_carry_out_bits(f, in));
  out.push_back(fasi_monotonicity(f, in, var));
  const RecipeVerdict eab = km_extra_alignment_bits(f, in);
  out.push_back(eab);
  const RecipeVerdict fma = km_fma_size(f, in);
  out.push_back(fma);
  out.push_back(km_extra_carry_bits(f, in));
  out.push_back(km_normalisation_pattern(f, in));
  out.push_back(km_output_rounding(f, in));
  out.push_back(km_alignment_rounding(f, in, eab.applicable ? eab.value : -1));
  out.push_back(km_multi_block_rounding(f, in, fma.applicable && !fma.lower_bound ? fma.value : -1));
  out.push_back(probe_kept_fraction_bits(f, in));
  out.push_back(probe_block_size(f, in));
  return out;
}

}  // namespace tcnum::recipes
