// What every published recipe uses: a Rig builds exact inputs for one instruction, runs the
// black box and records each probe; guarded() turns "the instruction cannot carry these inputs"
// into a not-applicable verdict. The recipes: recipes_fasi2021.cpp, recipes_khattak_mikaitis2025.cpp,
// recipes_tcnum.cpp.
#pragma once
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tcnum/characterize/recipes.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/sources.hpp"

namespace tcnum::recipes::detail {

// Thrown inside a recipe when the instruction cannot carry its inputs.
struct NotApplicable {
  std::string why;
};

inline double p2(int e) { return std::ldexp(1.0, e); }

inline std::string fmt_value(double x) {
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
inline std::optional<std::uint32_t> exact_bits(Format f, double x) {
  const std::uint32_t bits = encode(f, x, Rounding::nearest_even);
  const double back = to_double(f, bits);
  if (back != x || std::signbit(back) != std::signbit(x)) return std::nullopt;
  return bits;
}

inline bool representable(Format f, double x) { return exact_bits(f, x).has_value(); }

// One product a*b placed at position k.
struct Term {
  int k;
  double a, b;
};

// Builds inputs, runs the black box, records probes.
class Rig {
 public:
  Rig(const BlackBox& f, const Instruction& in, RecipeVerdict& v) : f_(f), in_(in), v_(v) {}

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
    p.d = evaluate(f_, in_, Case{a, b, cb, {}, {}});
    p.a = std::move(a);
    p.b = std::move(b);
    const double d = to_double(in_.d_type, p.d);
    v_.probes.push_back(std::move(p));
    return d;
  }

 private:
  const BlackBox& f_;
  const Instruction& in_;
  RecipeVerdict& v_;
};

template <class Body>
RecipeVerdict guarded(const BlackBox& f, const Instruction& in, const char* id, const char* source, Body body) {
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
inline int precision(Format f) { return spec(f).frac_bits + 1; }

// Largest exponent e such that 2^e is a normal value of f.
inline int max_normal_exp(Format f) { return spec(f).emax(); }
inline int min_normal_exp(Format f) { return spec(f).emin(); }
inline int min_subnormal_exp(Format f) { return spec(f).emin() - spec(f).frac_bits; }

// Splits 2^e into a*b, a in fa and b in fb, preferring normal factors; nullopt if impossible.
inline std::optional<std::pair<double, double>> split_pow2(Format fa, Format fb, int e, bool normal_only) {
  const int lo = normal_only ? min_normal_exp(fa) : min_subnormal_exp(fa);
  for (int x = max_normal_exp(fa); x >= lo; --x) {
    const int y = e - x;
    const bool ya = normal_only ? (y >= min_normal_exp(fb) && y <= max_normal_exp(fb))
                                : (y >= min_subnormal_exp(fb) && y <= max_normal_exp(fb));
    if (ya && representable(fa, p2(x)) && representable(fb, p2(y))) return std::make_pair(p2(x), p2(y));
  }
  return std::nullopt;
}

inline std::optional<std::pair<double, double>> split_any(Format fa, Format fb, int e) {
  if (auto s = split_pow2(fa, fb, e, true)) return s;
  return split_pow2(fa, fb, e, false);
}

// Classifies a (positive, negative) pair of results against RZ / RNE candidates.
inline std::string classify_rounding(double pos, double neg, double trunc, double up) {
  if (pos == trunc && neg == -trunc) return "toward_zero";
  if (pos == up && neg == -up) return "nearest_even";
  if (pos == up && neg == -trunc) return "up";
  if (pos == trunc && neg == -up) return "down";
  return "unknown";
}


}  // namespace tcnum::recipes::detail
