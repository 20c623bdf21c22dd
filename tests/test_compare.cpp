// tcnum::compare and EXPECT_TCNUM_EQ (tcnum/testing/compare.hpp, gtest.hpp): planted
// differences are found, with their coordinates, both values and bits, and ULP distances
// counted by hand; tolerance modes accept exactly what they say.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tcnum/testing/compare.hpp"
#include "tcnum/testing/gtest.hpp"

namespace tcnum {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<bfloat16_t> ramp(int rows, int cols) {
  std::vector<bfloat16_t> v(std::size_t(rows) * cols);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = bfloat16_t(0.25 * double(i) - 3.0);
  return v;
}

TEST(UlpDistance, CountsRepresentableValues) {
  EXPECT_EQ(ulp_distance(Format::bf16, 0x3f80, 0x3f81), 1u);           // 1 and its successor
  EXPECT_EQ(ulp_distance(Format::bf16, 0x3f81, 0x3f80), 1u);
  EXPECT_EQ(ulp_distance(Format::bf16, 0x0000, 0x8000), 0u);           // +0 and -0
  EXPECT_EQ(ulp_distance(Format::bf16, 0x0001, 0x8001), 2u);           // ±smallest subnormal, across zero
  EXPECT_EQ(ulp_distance(Format::bf16, 0x7f7f, 0x7f80), 1u);           // max finite and Inf
  EXPECT_EQ(ulp_distance(Format::fp32, 0x3f800000, 0x40000000), 1u << 23);  // 1 to 2: 2^23 fp32 values
  EXPECT_EQ(ulp_distance(Format::e4m3, 0x7e, 0xfe), 2u * 0x7e);        // ±448
  EXPECT_EQ(ulp_distance(Format::tf32, 0x3f800000, 0x3f802000), 1u);   // tf32 ULP is bit 13
}

TEST(Compare, IdenticalMatricesMatch) {
  const auto e = ramp(4, 5);
  const CompareReport r = compare(row_major(e, 4, 5), row_major(e, 4, 5));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.differing, 0u);
  EXPECT_TRUE(contains(r.to_string(), "0 of 20 elements differ (bit-exact)")) << r.to_string();
}

TEST(Compare, PlantedDifferenceIsReportedWithCoordinatesValuesAndUlps) {
  const auto e = ramp(4, 5);
  auto a = e;
  a[2 * 5 + 3] = bfloat16_t::bitcast(e[2 * 5 + 3].raw() + 3);  // 3 ULPs up at (2, 3)
  const CompareReport r = compare(row_major(e, 4, 5), row_major(a, 4, 5));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.differing, 1u);
  ASSERT_EQ(r.first.size(), 1u);
  EXPECT_EQ(r.first[0].row, 2);
  EXPECT_EQ(r.first[0].col, 3);
  EXPECT_EQ(r.first[0].expected, 0.25 * 13 - 3.0);  // element 13 of the ramp: 0.25
  EXPECT_EQ(r.first[0].expected_bits, 0x3e80u);
  EXPECT_EQ(r.first[0].actual_bits, 0x3e83u);
  EXPECT_EQ(r.first[0].actual, 0.25 * (1 + 3.0 / 128));
  EXPECT_EQ(*r.first[0].ulps, 3u);
  EXPECT_EQ(r.max_ulps, 3u);
  EXPECT_DOUBLE_EQ(r.max_relative_error, 3.0 / 128);
  const std::string text = r.to_string();
  EXPECT_TRUE(contains(text, "1 of 20 elements differ")) << text;
  EXPECT_TRUE(contains(text, "(2, 3)")) << text;
  EXPECT_TRUE(contains(text, "0.25 [0x3e80]")) << text;
  EXPECT_TRUE(contains(text, "0.255859375 [0x3e83]")) << text;
  EXPECT_TRUE(contains(text, "max ULP distance 3")) << text;
}

TEST(Compare, ListsTheFirstDifferencesRowByRowAndCountsTheRest) {
  const auto e = ramp(6, 6);
  auto a = e;
  for (int i : {35, 7, 20, 1}) a[std::size_t(i)] = bfloat16_t::bitcast(e[std::size_t(i)].raw() ^ 1);
  const CompareReport r = compare(row_major(e, 6, 6), row_major(a, 6, 6), {}, 2);
  EXPECT_EQ(r.differing, 4u);
  ASSERT_EQ(r.first.size(), 2u);
  EXPECT_EQ(r.first[0].row * 6 + r.first[0].col, 1);
  EXPECT_EQ(r.first[1].row * 6 + r.first[1].col, 7);
  EXPECT_TRUE(contains(r.to_string(), "... and 2 more")) << r.to_string();
}

TEST(Compare, LayoutsAreComparedByCoordinates) {
  // The same matrix stored row-major and column-major: equal.
  const auto rm = ramp(3, 4);
  std::vector<bfloat16_t> cm(rm.size());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) cm[std::size_t(j) * 3 + i] = rm[std::size_t(i) * 4 + j];
  EXPECT_TRUE(compare(row_major(rm, 3, 4), col_major(cm, 3, 4)).ok());
  EXPECT_FALSE(compare(row_major(rm, 3, 4), row_major(cm, 3, 4)).ok());
}

TEST(Compare, ToleranceModes) {
  const std::uint32_t nan_a = 0x7fffffffu, nan_b = 0x7fc00001u, one = 0x3f800000u;
  const std::vector<std::uint32_t> e = {one, nan_a, 0x00000000u, 0x40000000u};
  const std::vector<std::uint32_t> a = {one + 2, nan_b, 0x80000000u, 0x40000000u};
  auto E = row_major(Format::fp32, e, 2, 2), A = row_major(Format::fp32, a, 2, 2);
  const CompareReport exact = compare(E, A);
  EXPECT_EQ(exact.differing, 3u);
  EXPECT_EQ(exact.class_mismatches, 1u);  // the sign of zero (both NaN: same class)
  EXPECT_EQ(compare(E, A, Tolerance::ulps(2)).differing, 2u);
  EXPECT_EQ(compare(E, A, Tolerance::ulps(1)).differing, 3u);
  EXPECT_EQ(compare(E, A, Tolerance::ulps(2).nan_payload_agnostic()).differing, 1u);
  const CompareReport loose = compare(E, A, Tolerance::ulps(2).nan_payload_agnostic().zero_sign_agnostic());
  EXPECT_TRUE(loose.ok());
  EXPECT_EQ(loose.not_identical, 3u);
  EXPECT_TRUE(contains(loose.to_string(), "3 not bit-identical")) << loose.to_string();
}

TEST(Compare, NanAndInfinityNeverWithinAnUlpTolerance) {
  const std::vector<std::uint32_t> e = {0x7f7fffffu, 0x3f800000u}, a = {0x7f800000u, 0x7fffffffu};
  const CompareReport r = compare(row_major(Format::fp32, e, 1, 2), row_major(Format::fp32, a, 1, 2),
                                  Tolerance::ulps(1000));
  EXPECT_EQ(r.differing, 2u);
  EXPECT_EQ(r.class_mismatches, 2u);
  EXPECT_FALSE(r.first[1].ulps.has_value());
  EXPECT_EQ(r.max_relative_error, std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.actual_classes.nan, 1u);
  EXPECT_EQ(r.actual_classes.inf, 1u);
  EXPECT_EQ(r.expected_classes.nan, 0u);
}

TEST(Compare, ShapeOrFormatMismatchIsAnError) {
  const auto e = ramp(2, 3);
  std::vector<half_t> h(6);
  EXPECT_THROW(compare(row_major(e, 2, 3), row_major(e, 3, 2)), std::invalid_argument);
  EXPECT_THROW(compare(row_major(e, 2, 3), row_major(h, 2, 3)), std::invalid_argument);
}

// The assertion fails on a planted difference, and its message is the report.
TEST(ExpectTcnumEq, FailsOnAPlantedDifferenceAndPrintsTheReport) {
  const auto expected = ramp(8, 8);
  auto actual = expected;
  actual[5 * 8 + 6] = bfloat16_t::bitcast(expected[5 * 8 + 6].raw() + 1);
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    EXPECT_TCNUM_EQ(row_major(actual, 8, 8), row_major(expected, 8, 8));
  }
  ASSERT_EQ(failures.size(), 1);
  const std::string message = failures.GetTestPartResult(0).message();
  EXPECT_TRUE(failures.GetTestPartResult(0).nonfatally_failed());
  EXPECT_TRUE(contains(message, "1 of 64 elements differ (bit-exact)")) << message;
  EXPECT_TRUE(contains(message, "(5, 6)")) << message;
  EXPECT_TRUE(contains(message, "max ULP distance 1")) << message;
  EXPECT_TRUE(contains(message, "row_major(actual, 8, 8) does not match row_major(expected, 8, 8)")) << message;
}

TEST(ExpectTcnumEq, SpiMacrosSeeTheCoordinates) {
  const auto expected = ramp(4, 4);
  auto actual = expected;
  actual[1 * 4 + 2] = bfloat16_t::bitcast(expected[1 * 4 + 2].raw() + 2);
  EXPECT_NONFATAL_FAILURE(EXPECT_TCNUM_EQ(row_major(actual, 4, 4), row_major(expected, 4, 4)), "(1, 2)");
  EXPECT_NONFATAL_FAILURE(EXPECT_TCNUM_NEAR(row_major(actual, 4, 4), row_major(expected, 4, 4), Tolerance::ulps(1)),
                          "max ULP distance 2");
}

TEST(ExpectTcnumEq, PassesWhenEqualOrWithinTolerance) {
  const auto expected = ramp(4, 4);
  auto actual = expected;
  EXPECT_TCNUM_EQ(row_major(actual, 4, 4), row_major(expected, 4, 4));
  actual[3] = bfloat16_t::bitcast(expected[3].raw() + 1);
  EXPECT_TCNUM_NEAR(row_major(actual, 4, 4), row_major(expected, 4, 4), Tolerance::ulps(1));
}

}  // namespace
}  // namespace tcnum
