// Shared by the fuzz generator tests (single cases and tiles): boundary inputs must tell a model
// from its neighbours (one kept bit fewer; signed zero results) far more often than random bits.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tcnum/core/plan.hpp"

namespace tcnum::test {

// evaluate(plan, dist) returns the results of one fixed draw of `dist` under `plan`.
template <class Evaluate>
void expect_boundary_separates_neighbours(const Instruction& in, Evaluate&& evaluate) {
  const DatapathParams p = builtin_model(90).params_for(in);
  DatapathParams fewer_bits = p, signed_zeros = p;
  fewer_bits.frac_bits = p.frac_bits - 1;
  signed_zeros.negative_zero_results = !p.negative_zero_results;
  for (const DatapathParams& q : {fewer_bits, signed_zeros}) {
    const MmaPlan pp = compile_plan(p, in), pq = compile_plan(q, in);
    const auto differing = [&](const std::string& dist) {
      const std::vector<std::uint32_t> dp = evaluate(pp, dist), dq = evaluate(pq, dist);
      std::size_t diff = 0;
      for (std::size_t i = 0; i < dp.size(); ++i) diff += dp[i] != dq[i];
      return static_cast<double>(diff) / static_cast<double>(dp.size());
    };
    const double boundary = differing("boundary"), randbits = differing("randbits");
    EXPECT_GT(boundary, 0.002);
    EXPECT_GT(boundary, 5 * randbits) << "boundary " << boundary << ", randbits " << randbits;
  }
}

}  // namespace tcnum::test
