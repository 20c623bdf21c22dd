#include "accumulator.hpp"

namespace tcnum::detail {

int bit_length_u128(unsigned __int128 x) {
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  if (hi) return 128 - __builtin_clzll(hi);
  const auto lo = static_cast<std::uint64_t>(x);
  return lo ? 64 - __builtin_clzll(lo) : 0;
}

void WideAccumulator::add(std::uint64_t mag, int shift, bool negative) {
  if (mag == 0) return;
  const int limb = shift / 64;
  const unsigned __int128 v = static_cast<unsigned __int128>(mag) << (shift % 64);
  std::uint64_t parts[2] = {static_cast<std::uint64_t>(v), static_cast<std::uint64_t>(v >> 64)};
  if (!negative) {
    unsigned __int128 carry = 0;
    for (int i = limb; i < kLimbs; ++i) {
      const std::uint64_t add = i - limb < 2 ? parts[i - limb] : 0;
      const unsigned __int128 s = static_cast<unsigned __int128>(limbs_[i]) + add + carry;
      limbs_[i] = static_cast<std::uint64_t>(s);
      carry = s >> 64;
      if (i - limb >= 1 && carry == 0) break;
    }
  } else {
    std::uint64_t borrow = 0;
    for (int i = limb; i < kLimbs; ++i) {
      const std::uint64_t sub = i - limb < 2 ? parts[i - limb] : 0;
      const std::uint64_t before = limbs_[i];
      const std::uint64_t r = before - sub - borrow;
      borrow = (before < sub || (before - sub) < borrow) ? 1 : 0;
      limbs_[i] = r;
      if (i - limb >= 1 && borrow == 0) break;
    }
  }
}

bool WideAccumulator::is_zero() const {
  for (auto l : limbs_)
    if (l) return false;
  return true;
}

Magnitude WideAccumulator::magnitude() const {
  Magnitude m;
  std::array<std::uint64_t, kLimbs> v = limbs_;
  m.negative = (v[kLimbs - 1] >> 63) != 0;
  if (m.negative) {  // two's complement negate
    std::uint64_t carry = 1;
    for (auto& l : v) {
      l = ~l + carry;
      carry = (carry && l == 0) ? 1 : 0;
    }
  }
  int top = kLimbs - 1;
  while (top > 0 && v[top] == 0) --top;
  if (top <= 1) {
    m.bits = (static_cast<unsigned __int128>(v[1]) << 64) | v[0];
    return m;
  }
  // Keep the 128 bits below the leading bit's limb boundary plus one limb; the rest is sticky.
  const int lead_bits = 64 - __builtin_clzll(v[top]);
  const int low_bit = (top * 64 + lead_bits) - 128;  // index of the lowest kept bit
  auto bit_at = [&](int i) -> unsigned { return (v[i / 64] >> (i % 64)) & 1u; };
  unsigned __int128 bits = 0;
  for (int i = top * 64 + lead_bits - 1; i >= low_bit; --i) bits = (bits << 1) | bit_at(i);
  bool sticky = false;
  for (int i = 0; i < low_bit / 64; ++i) sticky = sticky || v[i] != 0;
  if (low_bit % 64) sticky = sticky || (v[low_bit / 64] & ((1ull << (low_bit % 64)) - 1)) != 0;
  m.bits = bits;
  m.shift = low_bit;
  m.sticky = sticky;
  return m;
}

}  // namespace tcnum::detail
