// Published probe recipes (Fasi et al. 2021; Khattak & Mikaitis 2025) and tcnum's
// generalisations, each a set of input vectors plus a verdict rule over a black-box ElementFn.
#include "tcnum/characterize/recipes.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"

namespace tcnum {

ElementFn element_fn(const DatapathParams& p, const Instruction& in) {
  return [p, in](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::uint32_t c) {
    return mma_element(p, in, a, b, c);
  };
}

ElementFn element_fn(const Model& m, const Instruction& in) { return element_fn(m.params_for(in), in); }

namespace recipes {
namespace {

const char* kFasiA = "Fasi et al. 2021 (PeerJ CS 7:e330), test suite A: support for subnormal numbers";
const char* kFasiB = "Fasi et al. 2021 (PeerJ CS 7:e330), test suite B: accuracy of the dot products";
const char* kFasiC = "Fasi et al. 2021 (PeerJ CS 7:e330), test suite C: rounding modes";
const char* kFasiD = "Fasi et al. 2021 (PeerJ CS 7:e330), test suite D: features of the accumulator";
const char* kKM = "Khattak & Mikaitis, IEEE HPEC 2025 (generalized test vectors; nvidia-tests.cu)";
const char* kTcnum = "tcnum generalisation (scaled vectors; not a published recipe)";

// Thrown inside a recipe when the instruction cannot carry its inputs.
struct NotApplicable {
  std::string why;
};

double p2(int e) { return std::ldexp(1.0, e); }

std::string fmt_value(double x) {
  if (std::isnan(x)) return "NaN";
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  std::ostringstream os;
  os.precision(17);
  os << x;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);
  if (m == 0.5) os << " (=" << (x < 0 ? "-" : "") << "2^" << e - 1 << ")";
  return os.str();
}

// The exact encoding of x in f, if any.
std::optional<std::uint32_t> exact_bits(Format f, double x) {
  const std::uint32_t bits = encode(f, x, Rounding::nearest_even);
  const double back = to_double(f, bits);
  if (back != x || std::signbit(back) != std::signbit(x)) return std::nullopt;
  return bits;
}

bool representable(Format f, double x) { return exact_bits(f, x).has_value(); }

// One product a*b placed at position k.
struct Term {
  int k;
  double a, b;
};

// Builds inputs, runs the black box, records probes.
class Rig {
 public:
  Rig(const ElementFn& f, const Instruction& in, RecipeVerdict& v) : f_(f), in_(in), v_(v) {}

  void need_k(int n) const {
    if (in_.k < n) throw NotApplicable{"needs K >= " + std::to_string(n) + ", " + in_.name + " has K = " +
                                       std::to_string(in_.k)};
  }
  void need_d(Format d) const {
    if (in_.d_type != d)
      throw NotApplicable{"needs D in " + std::string(name_of(d)) + ", " + in_.name + " writes " +
                          std::string(name_of(in_.d_type))};
  }
  void need_inputs(std::initializer_list<Format> fs) const {
    for (Format f : fs)
      if (in_.a_type == f && in_.b_type == f) return;
    throw NotApplicable{"the published vectors are for other input formats than " + std::string(name_of(in_.a_type))};
  }
  const Instruction& in() const { return in_; }

  std::uint32_t bits(Format f, double x, const char* role) const {
    auto b = exact_bits(f, x);
    if (!b)
      throw NotApplicable{std::string(role) + " value " + fmt_value(x) + " is not representable in " +
                          std::string(name_of(f))};
    return *b;
  }

  // Runs one evaluation; returns D's value (NaN for NaN).
  double run(const std::string& what, const std::vector<Term>& terms, double c,
             std::optional<double> expected = std::nullopt) {
    std::vector<std::uint32_t> a(in_.k, zero_bits(in_.a_type, false)), b(in_.k, zero_bits(in_.b_type, false));
    for (const Term& t : terms) {
      if (t.k < 0 || t.k >= in_.k) throw NotApplicable{"needs position " + std::to_string(t.k) + " < K"};
      a[t.k] = bits(in_.a_type, t.a, "A");
      b[t.k] = bits(in_.b_type, t.b, "B");
    }
    const std::uint32_t cb = bits(in_.c_type, c, "C");
    Probe p;
    p.what = what;
    p.c = cb;
    if (expected) p.expected = bits(in_.d_type, *expected, "expected D");
    p.d = f_(a, b, cb);
    p.a = std::move(a);
    p.b = std::move(b);
    const double d = to_double(in_.d_type, p.d);
    v_.probes.push_back(std::move(p));
    return d;
  }

 private:
  const ElementFn& f_;
  const Instruction& in_;
  RecipeVerdict& v_;
};

template <class Body>
RecipeVerdict guarded(const ElementFn& f, const Instruction& in, const char* id, const char* source, Body body) {
  RecipeVerdict v;
  v.recipe = id;
  v.source = source;
  try {
    Rig rig(f, in, v);
    body(rig, v);
  } catch (const NotApplicable& na) {
    v.applicable = false;
    v.passed = false;
    v.verdict = "not_applicable";
    v.note = na.why;
  }
  return v;
}

// Precision (with the hidden bit) of a format.
int precision(Format f) { return spec(f).frac_bits + 1; }

// Largest exponent e such that 2^e is a normal value of f.
int max_normal_exp(Format f) { return spec(f).emax(); }
int min_normal_exp(Format f) { return spec(f).emin(); }
int min_subnormal_exp(Format f) { return spec(f).emin() - spec(f).frac_bits; }

// Splits 2^e into a*b, a in fa and b in fb, preferring normal factors; nullopt if impossible.
std::optional<std::pair<double, double>> split_pow2(Format fa, Format fb, int e, bool normal_only) {
  const int lo = normal_only ? min_normal_exp(fa) : min_subnormal_exp(fa);
  for (int x = max_normal_exp(fa); x >= lo; --x) {
    const int y = e - x;
    const bool ya = normal_only ? (y >= min_normal_exp(fb) && y <= max_normal_exp(fb))
                                : (y >= min_subnormal_exp(fb) && y <= max_normal_exp(fb));
    if (ya && representable(fa, p2(x)) && representable(fb, p2(y))) return std::make_pair(p2(x), p2(y));
  }
  return std::nullopt;
}

std::optional<std::pair<double, double>> split_any(Format fa, Format fb, int e) {
  if (auto s = split_pow2(fa, fb, e, true)) return s;
  return split_pow2(fa, fb, e, false);
}

// Classifies a (positive, negative) pair of results against RZ / RNE candidates.
std::string classify_rounding(double pos, double neg, double trunc, double up) {
  if (pos == trunc && neg == -trunc) return "toward_zero";
  if (pos == up && neg == -up) return "nearest_even";
  if (pos == up && neg == -trunc) return "up";
  if (pos == trunc && neg == -up) return "down";
  return "unknown";
}

}  // namespace

// ===================================== Fasi et al. 2021 =====================================

RecipeVerdict fasi_subnormal_inputs(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_inputs", kFasiA, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_subnormal_c(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_c", kFasiA, [](Rig& r, RecipeVerdict& v) {
    if (r.in().c_type != Format::fp32) throw NotApplicable{"needs an fp32 C"};
    r.need_d(Format::fp32);
    const double c = p2(-149);
    const double d = r.run("A = B = 0, c = 2^-149", {}, c, c);
    v.passed = d == c;
    v.verdict = v.passed ? "supported" : d == 0 ? "flushed" : "other";
  });
}

RecipeVerdict fasi_subnormal_outputs(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.A.subnormal_outputs", kFasiA, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_exact_products(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.B.exact_products", kFasiB, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_exact_products_fp16_out(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.B.exact_products_fp16_out", kFasiB, [](Rig& r, RecipeVerdict& v) {
    r.need_inputs({Format::fp16});
    r.need_d(Format::fp16);
    const double x = 1.0 - p2(-11);
    const double want = 1.0 - p2(-11);  // (1-2^-10+2^-22) + (2^-11-2^-22)
    const double d = r.run("a = [1-2^-11, 1-2^-11], b = [1-2^-11, 2^-11]", {{0, x, x}, {1, x, p2(-11)}}, 0.0, want);
    v.passed = d == want;
    v.verdict = v.passed ? "exact" : "rounded";
  });
}

RecipeVerdict fasi_accumulation_width(const ElementFn& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.B.accumulated_in_binary32", kFasiB, [var](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_sum_from_largest(const ElementFn& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.B.sum_starts_from_largest", kFasiB, [var](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_rounding_fp32_out(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.C.rounding_fp32_out", kFasiC, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_rounding_fp16_out(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.C.rounding_fp16_out", kFasiC, [](Rig& r, RecipeVerdict& v) {
    r.need_inputs({Format::fp16});
    r.need_d(Format::fp16);
    // 2^-25 + 2^-26 = 0.75 * 2^-24: to nearest gives 2^-24, truncation 0.
    const double d = r.run("a = [2^-24, 2^-24], b = [2^-1, 2^-2]", {{0, p2(-24), 0.5}, {1, p2(-24), 0.25}}, 0.0,
                           p2(-24));
    v.passed = d == p2(-24);
    v.verdict = v.passed ? "nearest" : d == 0 ? "toward_zero" : "other";
  });
}

RecipeVerdict fasi_extra_alignment_bits(const ElementFn& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D1.extra_alignment_bits", kFasiD, [var](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_normalization_addition(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.D2.normalization_in_addition", kFasiD, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_normalization_subtraction(const ElementFn& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D3.normalization_in_subtraction", kFasiD, [var](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_carry_out_bits(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "fasi2021.D4.carry_out_bits", kFasiD, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict fasi_monotonicity(const ElementFn& f, const Instruction& in, FasiVariant var) {
  return guarded(f, in, "fasi2021.D5.monotonicity", kFasiD, [var](Rig& r, RecipeVerdict& v) {
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

// ================================ Khattak & Mikaitis, HPEC 2025 ================================

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

RecipeVerdict km_extra_alignment_bits(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "km2025.F1.extra_alignment_bits", kKM, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict km_fma_size(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "km2025.F3.fma_size", kKM, [](Rig& r, RecipeVerdict& v) {
    const FmaScan s = km_fma_scan(r);
    v.value = s.nfma;
    v.lower_bound = s.lower_bound;
    v.passed = true;
    v.verdict = std::to_string(s.nfma) + (s.lower_bound ? "+" : "");
    if (s.lower_bound) v.note = "no block boundary within K = " + std::to_string(r.in().k);
  });
}

RecipeVerdict km_extra_carry_bits(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "km2025.F2.extra_carry_bits", kKM, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict km_normalisation_pattern(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "km2025.F4.normalisation_pattern", kKM, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict km_output_rounding(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "km2025.F5F6.output_rounding", kKM, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict km_alignment_rounding(const ElementFn& f, const Instruction& in, int neab) {
  return guarded(f, in, "km2025.F7.alignment_rounding", kKM, [neab](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict km_multi_block_rounding(const ElementFn& f, const Instruction& in, int fma_size) {
  return guarded(f, in, "km2025.F8.multi_block_rounding", kKM, [fma_size](Rig& r, RecipeVerdict& v) {
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

// ====================================== tcnum probes ======================================

RecipeVerdict probe_kept_fraction_bits(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "tcnum.kept_fraction_bits", kTcnum, [](Rig& r, RecipeVerdict& v) {
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

RecipeVerdict probe_block_size(const ElementFn& f, const Instruction& in) {
  return guarded(f, in, "tcnum.block_size", kTcnum, [](Rig& r, RecipeVerdict& v) {
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

std::vector<RecipeVerdict> run_all(const ElementFn& f, const Instruction& in, FasiVariant var) {
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

}  // namespace recipes
}  // namespace tcnum
