// GoogleTest assertions on matrices, printing tcnum::compare's report on failure:
//
//   EXPECT_TCNUM_EQ(actual_view, expected_view);                       // bit-exact
//   EXPECT_TCNUM_NEAR(actual_view, expected_view, tcnum::Tolerance::ulps(2).nan_payload_agnostic());
//   ASSERT_TCNUM_EQ / ASSERT_TCNUM_NEAR: the same, fatal.
//
// Views: tcnum/core/matrix_view.hpp (tcnum::row_major(vec, rows, cols), ...). Header-only; link
// GoogleTest yourself (GTest::gtest_main) next to tcnum::tcnum.
#pragma once
#include <gtest/gtest.h>

#include "tcnum/testing/compare.hpp"

namespace tcnum::gtest {

template <class TA, class TE>
::testing::AssertionResult matrices_match(const char* actual_expr, const char* expected_expr, const char*,
                                          MatrixView<TA> actual, MatrixView<TE> expected, const Tolerance& tolerance) {
  const CompareReport r = compare(expected, actual, tolerance);
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << actual_expr << " does not match " << expected_expr << "\n" << r.to_string();
}

}  // namespace tcnum::gtest

#define EXPECT_TCNUM_NEAR(actual, expected, tolerance) \
  EXPECT_PRED_FORMAT3(::tcnum::gtest::matrices_match, actual, expected, tolerance)
#define ASSERT_TCNUM_NEAR(actual, expected, tolerance) \
  ASSERT_PRED_FORMAT3(::tcnum::gtest::matrices_match, actual, expected, tolerance)
#define EXPECT_TCNUM_EQ(actual, expected) EXPECT_TCNUM_NEAR(actual, expected, ::tcnum::Tolerance{})
#define ASSERT_TCNUM_EQ(actual, expected) ASSERT_TCNUM_NEAR(actual, expected, ::tcnum::Tolerance{})
