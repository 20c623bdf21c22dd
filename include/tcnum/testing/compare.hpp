// Comparing a kernel's result with the oracle's, element by element: a report of what differs,
// where, and by how much (ULPs, relative error, NaN/Inf/-0 classes). Bit-exact by default.
//
//   const tcnum::CompareReport r = tcnum::compare(tcnum::row_major(expected, M, N), tcnum::row_major(actual, M, N));
//   if (!r.ok()) std::puts(r.to_string().c_str());
//
// GoogleTest users: tcnum/testing/gtest.hpp (EXPECT_TCNUM_EQ) prints this report on failure.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/matrix_view.hpp"

namespace tcnum {

// When two elements count as equal. The default is bit-exact: same bits, NaN payloads and the
// sign of zero included.
struct Tolerance {
  std::uint64_t max_ulps = 0;  // finite values (and equal infinities) at most this many ULPs apart
  bool any_nan = false;        // every NaN matches every NaN (payload and sign ignored)
  bool any_zero_sign = false;  // +0 matches -0

  static Tolerance bit_exact() { return {}; }
  static Tolerance ulps(std::uint64_t n) { return {n, false, false}; }
  Tolerance nan_payload_agnostic() const { Tolerance t = *this; t.any_nan = true; return t; }
  Tolerance zero_sign_agnostic() const { Tolerance t = *this; t.any_zero_sign = true; return t; }
  std::string to_string() const;  // "bit-exact", "≤ 2 ULP, any NaN, ±0", ...
};

struct ElementDifference {
  int row = 0, col = 0;
  std::uint32_t expected_bits = 0, actual_bits = 0;
  double expected = 0, actual = 0;  // exact values (NaN, ±Inf as such)
  std::optional<std::uint64_t> ulps;  // none when exactly one side is NaN, or Inf against finite
};

struct ValueClasses {
  std::size_t nan = 0, inf = 0, negative_zero = 0;
};

struct CompareReport {
  Format format = Format::fp32;
  int rows = 0, cols = 0;
  Tolerance tolerance;
  std::size_t differing = 0;      // elements outside the tolerance
  std::size_t not_identical = 0;  // elements whose bits differ (within the tolerance or not)
  std::vector<ElementDifference> first;  // the first differing elements, row by row
  std::uint64_t max_ulps = 0;     // over pairs with a ULP distance
  double max_relative_error = 0;  // |actual - expected| / |expected|; expected 0 (or Inf) and actual not: Inf
  std::size_t class_mismatches = 0;  // one side NaN/Inf/±0 and the other not in that class
  ValueClasses expected_classes, actual_classes;

  bool ok() const { return differing == 0; }
  std::string to_string() const;
};

// ULP distance between two non-NaN patterns of f: how many representable values apart they
// are (+0 and -0 are 0 apart; the largest finite value and Inf are 1 apart).
std::uint64_t ulp_distance(Format f, std::uint32_t x, std::uint32_t y);

CompareReport compare(const AnyView& expected, const AnyView& actual, const Tolerance& tolerance = {},
                      std::size_t max_listed = 10);

// Views of the same shape and format (a float view is fp32). Throws std::invalid_argument otherwise.
template <class TE, class TA>
CompareReport compare(MatrixView<TE> expected, MatrixView<TA> actual, const Tolerance& tolerance = {},
                      std::size_t max_listed = 10) {
  return compare(erase(expected), erase(actual), tolerance, max_listed);
}

}  // namespace tcnum
