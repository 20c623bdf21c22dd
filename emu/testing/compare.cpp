// Element-wise comparison of two matrices with a report (tcnum/testing/compare.hpp).
#include "tcnum/testing/compare.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tcnum {
namespace {

// Position of a pattern on the number line: sign-magnitude to a signed integer (tf32: the
// 19 meaningful bits). +0 and -0 both map to 0.
std::int64_t ordinal(Format f, std::uint32_t bits) {
  const FormatSpec& s = spec(f);
  const int width = 1 + s.exp_bits + s.frac_bits;
  const std::uint32_t idx = (bits >> (s.storage_bits - width)) & ((width >= 32) ? 0xffffffffu : (1u << width) - 1u);
  const std::int64_t magnitude = idx & ((1u << (width - 1)) - 1u);
  return (idx >> (width - 1)) ? -magnitude : magnitude;
}

std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  std::ostringstream os;
  os << std::setprecision(9) << x;
  return os.str();
}

std::string hex_bits(Format f, std::uint32_t bits) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(spec(f).storage_bits / 4) << std::setfill('0') << bits;
  return os.str();
}

// "1.5 [0x3fc0]": a value and its bits.
std::string cell(Format f, double value, std::uint32_t bits) {
  std::ostringstream os;
  os << number(value) << " [" << hex_bits(f, bits) << ']';
  return os.str();
}

}  // namespace

std::uint64_t ulp_distance(Format f, std::uint32_t x, std::uint32_t y) {
  const std::int64_t a = ordinal(f, x), b = ordinal(f, y);
  return static_cast<std::uint64_t>(a > b ? a - b : b - a);
}

std::string Tolerance::to_string() const {
  std::string s = max_ulps == 0 ? "bit-exact" : "≤ " + std::to_string(max_ulps) + " ULP";
  if (any_nan) s += ", any NaN";
  if (any_zero_sign) s += ", ±0 equal";
  return s;
}

CompareReport compare(const AnyView& expected, const AnyView& actual, const Tolerance& tolerance,
                      std::size_t max_listed) {
  if (expected.rows != actual.rows || expected.cols != actual.cols)
    throw std::invalid_argument("tcnum::compare: expected is " + std::to_string(expected.rows) + "×" +
                                std::to_string(expected.cols) + ", actual " + std::to_string(actual.rows) + "×" +
                                std::to_string(actual.cols));
  if (expected.format != actual.format)
    throw std::invalid_argument("tcnum::compare: expected holds " + std::string(name_of(expected.format)) +
                                ", actual " + std::string(name_of(actual.format)) + " (compare values of one format)");
  const Format f = expected.format;
  CompareReport r;
  r.format = f, r.rows = expected.rows, r.cols = expected.cols, r.tolerance = tolerance;
  auto count_class = [&](ValueClasses& c, const Decoded& v) {
    c.nan += v.is_nan();
    c.inf += v.is_inf();
    c.negative_zero += v.is_zero() && v.sign;
  };
  for (int i = 0; i < r.rows; ++i)
    for (int j = 0; j < r.cols; ++j) {
      const std::uint32_t eb = expected.load(i, j), ab = actual.load(i, j);
      const Decoded e = decode(f, eb), a = decode(f, ab);
      count_class(r.expected_classes, e);
      count_class(r.actual_classes, a);
      if (eb == ab) continue;
      ++r.not_identical;
      ElementDifference d{i, j, eb, ab, to_double(f, eb), to_double(f, ab), std::nullopt};
      bool within = false;
      // A ULP distance exists unless a NaN is involved or exactly one side is infinite.
      const bool same_class = !e.is_nan() && !a.is_nan() && e.is_inf() == a.is_inf();
      if (e.is_nan() != a.is_nan() || e.is_inf() != a.is_inf() || (e.is_zero() && a.is_zero()))
        ++r.class_mismatches;  // (both zero with different bits: the sign of zero)
      if (e.is_nan() && a.is_nan()) {
        within = tolerance.any_nan;
      } else if (same_class) {
        d.ulps = ulp_distance(f, eb, ab);
        r.max_ulps = std::max(r.max_ulps, *d.ulps);
        if (e.is_zero() && a.is_zero())
          within = tolerance.any_zero_sign;
        else
          within = !e.is_inf() && *d.ulps <= tolerance.max_ulps;
        const double rel = d.expected == 0 || std::isinf(d.expected)
                               ? std::numeric_limits<double>::infinity()
                               : std::fabs(d.actual - d.expected) / std::fabs(d.expected);
        if (!(e.is_zero() && a.is_zero())) r.max_relative_error = std::max(r.max_relative_error, rel);
      } else {
        r.max_relative_error = std::numeric_limits<double>::infinity();
      }
      if (within) continue;
      ++r.differing;
      if (r.first.size() < max_listed) r.first.push_back(d);
    }
  return r;
}

std::string CompareReport::to_string() const {
  std::ostringstream os;
  const std::size_t total = std::size_t(rows) * std::size_t(cols);
  os << name_of(format) << ' ' << rows << "×" << cols << ": " << differing << " of " << total
     << " elements differ (" << tolerance.to_string() << ")";
  if (not_identical != differing) os << ", " << not_identical << " not bit-identical";
  os << "\n  max ULP distance " << max_ulps << ", max relative error " << number(max_relative_error);
  if (class_mismatches > 0) os << ", " << class_mismatches << " NaN/Inf/zero class mismatches";
  os << '\n';
  if (!first.empty()) {
    os << "  " << std::left << std::setw(14) << "(row, col)" << std::setw(28) << "expected" << std::setw(28)
       << "actual" << "ULPs\n";
    for (const ElementDifference& d : first) {
      std::ostringstream at;
      at << '(' << d.row << ", " << d.col << ')';
      os << "  " << std::setw(14) << at.str() << std::setw(28) << cell(format, d.expected, d.expected_bits) << std::setw(28)
         << cell(format, d.actual, d.actual_bits)
         << (d.ulps ? std::to_string(*d.ulps) : std::string("-")) << '\n';
    }
    if (differing > first.size()) os << "  ... and " << differing - first.size() << " more\n";
  }
  auto classes = [&](const ValueClasses& c) {
    return std::to_string(c.nan) + " NaN, " + std::to_string(c.inf) + " Inf, " + std::to_string(c.negative_zero) + " -0";
  };
  os << "  classes: expected " << classes(expected_classes) << "; actual " << classes(actual_classes) << '\n';
  return os.str();
}

}  // namespace tcnum
