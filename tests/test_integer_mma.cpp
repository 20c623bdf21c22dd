// Integer MMA (tcnum/core/integer_mma.hpp): exact products and sums, then one wrap (mod 2^32) or
// saturation into s32. Laws over random bytes and addends, the result computed independently in
// double (every value here is an integer below 2^53, so double arithmetic is exact).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tcnum/core/integer_mma.hpp"

namespace {

using namespace tcnum;

double exact(const std::vector<std::uint32_t>& a, bool as, const std::vector<std::uint32_t>& b, bool bs, std::uint32_t c) {
  double s = static_cast<double>(static_cast<std::int32_t>(c));
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double x = as ? static_cast<double>(static_cast<std::int8_t>(a[k] & 0xff)) : static_cast<double>(a[k] & 0xff);
    const double y = bs ? static_cast<double>(static_cast<std::int8_t>(b[k] & 0xff)) : static_cast<double>(b[k] & 0xff);
    s += x * y;
  }
  return s;
}

RC_GTEST_PROP(IntegerMma, WrapIsTheExactSumModulo2To32AndSaturateClamps, ()) {
  const int k = *rc::gen::element(16, 32, 64);
  const bool as = *rc::gen::arbitrary<bool>(), bs = *rc::gen::arbitrary<bool>();
  const auto a = *rc::gen::container<std::vector<std::uint32_t>>(k, rc::gen::inRange<std::uint32_t>(0, 256));
  const auto b = *rc::gen::container<std::vector<std::uint32_t>>(k, rc::gen::inRange<std::uint32_t>(0, 256));
  // C anywhere, near the ends of the s32 range half of the time (where wrap and saturate differ).
  const std::uint32_t c = *rc::gen::oneOf(rc::gen::arbitrary<std::uint32_t>(),
                                          rc::gen::map(rc::gen::inRange<std::int32_t>(-3000000, 3000000), [](std::int32_t d) {
                                            return static_cast<std::uint32_t>((d < 0 ? std::numeric_limits<std::int32_t>::min()
                                                                                      : std::numeric_limits<std::int32_t>::max()) -
                                                                              d);
                                          }));
  const double want = exact(a, as, b, bs, c);
  const std::uint32_t wrapped = integer_mma_element(a, as, b, bs, c, IntegerOverflow::wrap);
  const std::uint32_t saturated = integer_mma_element(a, as, b, bs, c, IntegerOverflow::saturate);
  // wrap: congruent to the exact sum modulo 2^32
  const double diff = want - static_cast<double>(static_cast<std::int32_t>(wrapped));
  RC_ASSERT(std::fmod(diff, 4294967296.0) == 0.0);
  // saturate: the exact sum clamped to s32
  const double clamped = std::clamp(want, -2147483648.0, 2147483647.0);
  RC_ASSERT(static_cast<double>(static_cast<std::int32_t>(saturated)) == clamped);
  if (want == clamped) RC_ASSERT(wrapped == saturated);
}

RC_GTEST_PROP(IntegerMma, TheOrderOfTheProductsDoesNotMatter, ()) {
  const auto a = *rc::gen::container<std::vector<std::uint32_t>>(32, rc::gen::inRange<std::uint32_t>(0, 256));
  const auto b = *rc::gen::container<std::vector<std::uint32_t>>(32, rc::gen::inRange<std::uint32_t>(0, 256));
  const std::uint32_t c = *rc::gen::arbitrary<std::uint32_t>();
  std::vector<std::size_t> order(32);
  for (std::size_t i = 0; i < 32; ++i) order[i] = i;
  std::vector<std::uint32_t> pa(32), pb(32);
  const auto perm = *rc::gen::container<std::vector<int>>(32, rc::gen::inRange(0, 1 << 20));
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return perm[x] < perm[y] || (perm[x] == perm[y] && x < y); });
  for (std::size_t i = 0; i < 32; ++i) pa[i] = a[order[i]], pb[i] = b[order[i]];
  for (IntegerOverflow o : {IntegerOverflow::wrap, IntegerOverflow::saturate})
    RC_ASSERT(integer_mma_element(a, true, b, false, c, o) == integer_mma_element(pa, true, pb, false, c, o));
}

TEST(IntegerMma, EdgesOfTheS32Range) {
  const std::vector<std::uint32_t> one{1}, minus_one{0xff};
  const std::uint32_t max = 0x7fffffffu, min = 0x80000000u;
  EXPECT_EQ(integer_mma_element(one, true, one, true, max, IntegerOverflow::wrap), min);
  EXPECT_EQ(integer_mma_element(one, true, one, true, max, IntegerOverflow::saturate), max);
  EXPECT_EQ(integer_mma_element(minus_one, true, one, true, min, IntegerOverflow::wrap), max);
  EXPECT_EQ(integer_mma_element(minus_one, true, one, true, min, IntegerOverflow::saturate), min);
  // 0xff is -1 as s8 and 255 as u8
  EXPECT_EQ(integer_mma_element(minus_one, false, minus_one, false, 0, IntegerOverflow::wrap), 65025u);
  EXPECT_EQ(integer_mma_element(minus_one, true, minus_one, true, 0, IntegerOverflow::wrap), 1u);
  // u8·u8 over K = 64: 64 · 255² = 4161600, exact
  const std::vector<std::uint32_t> full(64, 0xff);
  EXPECT_EQ(integer_mma_element(full, false, full, false, 0, IntegerOverflow::saturate), 4161600u);
  EXPECT_THROW(integer_mma_element(one, true, full, true, 0, IntegerOverflow::wrap), std::invalid_argument);
}

}  // namespace
