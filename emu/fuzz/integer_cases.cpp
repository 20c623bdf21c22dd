// Integer fuzz cases (integer_cases.hpp). An integer MMA is exact, so the only outputs worth
// aiming at are the ends of s32, where wrap and .satfinite part, and the operands' own extremes
// (−128·−128, 255·255, the sign of u8 against s8). The seven distributions, read for integers:
//   normal    a, b ~ N(0, (range/8)²) rounded and clamped (u8, u4 about range/2); C ~ N(0,1)·2^31,
//             clamped to s32 (so a third of them at an end)
//   randbits  every pattern uniform (C any 32 bits)
//   spread    a, b uniform; C within 2^20 of INT32_MIN or INT32_MAX
//   cancel    pairs a_{k+1} = −a_k, b_{k+1} = b_k (or B negated where only B is signed); C = −Σ ± 1
//   special   normal, each element with p = 1/8 min, max, 0 or −1 (1 unsigned); C with p = 1/4 one
//             of INT32_MIN, INT32_MAX, 0, −1
//   subnorm   |a|, |b| <= 2, C in [−8, 8]: the smallest sums
//   boundary  C chosen so that C + Σ is INT32_MAX or INT32_MIN + {−1, 0, +1} (exactly at, just
//             past, just inside the range: where wrap and saturation decide), the end Σ heads for
#include "integer_cases.hpp"

#include <algorithm>
#include <cstdint>

#include "tcnum/core/format.hpp"
#include "splitmix.hpp"

namespace tcnum::fuzz::detail {
namespace {

constexpr std::int64_t kMin = -(std::int64_t{1} << 31), kMax = (std::int64_t{1} << 31) - 1;

class Rng {  // splitmix64: small, fully specified, the same stream everywhere
 public:
  explicit Rng(std::uint64_t seed) : x_(seed) {}
  std::uint64_t bits() {
    return splitmix64(x_);
  }
  std::int64_t range(std::int64_t lo, std::int64_t hi) {  // [lo, hi]; the modulo bias is immaterial here
    return lo + static_cast<std::int64_t>(bits() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int num, int den) { return static_cast<int>(bits() % static_cast<std::uint64_t>(den)) < num; }
  double normal() {  // Irwin–Hall of four 16-bit uniforms, unit variance
    const std::uint64_t r = bits();
    const double s = double((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48)) - 2.0 * 0xffff;
    return s * (1.7320508075688772 / 65536.0);
  }

 private:
  std::uint64_t x_;
};

std::int64_t lo_of(Format f) { return spec(f).is_signed ? -(std::int64_t{1} << (spec(f).storage_bits - 1)) : 0; }
std::int64_t hi_of(Format f) {
  const int w = spec(f).storage_bits;
  return spec(f).is_signed ? (std::int64_t{1} << (w - 1)) - 1 : (std::int64_t{1} << w) - 1;
}
std::uint32_t bits_of(Format f, std::int64_t v) {
  const std::uint64_t mask = spec(f).storage_bits >= 32 ? 0xffffffffull : (std::uint64_t{1} << spec(f).storage_bits) - 1;
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::clamp(v, lo_of(f), hi_of(f))) & mask);
}
std::int64_t value_of(Format f, std::uint32_t bits) { return static_cast<std::int64_t>(integer_value(f, bits)); }

std::int64_t special(Format f, Rng& rng) {
  switch (rng.range(0, 3)) {
    case 0: return lo_of(f);
    case 1: return hi_of(f);
    case 2: return 0;
    default: return spec(f).is_signed ? -1 : 1;
  }
}

std::uint32_t operand(Format f, int which, Rng& rng) {
  switch (which) {
    case 1:
    case 2: return static_cast<std::uint32_t>(rng.bits()) & (spec(f).storage_bits >= 32 ? ~0u : (1u << spec(f).storage_bits) - 1);
    case 5: return bits_of(f, rng.range(spec(f).is_signed ? -2 : 0, 2));
    case 4:
      if (rng.chance(1, 8)) return bits_of(f, special(f, rng));
      [[fallthrough]];
    default: {
      const double sigma = static_cast<double>(hi_of(f) - lo_of(f)) / 8;
      const double centre = spec(f).is_signed ? 0.0 : static_cast<double>(hi_of(f)) / 2;
      const double value = centre + rng.normal() * sigma;  // two draws, in this order (see generators.cpp)
      return bits_of(f, static_cast<std::int64_t>(value + (rng.normal() > 0 ? 0.5 : -0.5)));
    }
  }
}

// C for the exact sum of the element's products.
std::uint32_t addend(int which, std::int64_t sum, Rng& rng) {
  const Format s32 = Format::s32;
  switch (which) {
    case 1: return static_cast<std::uint32_t>(rng.bits());
    case 2: return bits_of(s32, rng.chance(1, 2) ? kMax - rng.range(0, 1 << 20) : kMin + rng.range(0, 1 << 20));
    case 3: return bits_of(s32, -sum + rng.range(-1, 1));
    case 4:
      if (rng.chance(1, 4)) return bits_of(s32, special(s32, rng));
      [[fallthrough]];
    case 0: return bits_of(s32, static_cast<std::int64_t>(rng.normal() * 65536.0 * 65536.0 / 2));
    case 5: return bits_of(s32, rng.range(-8, 8));
    default: {  // the end the products head for (C itself must stay in range): C + Σ = end + r
      const std::int64_t end = sum > 0 || (sum == 0 && rng.chance(1, 2)) ? kMax : kMin;
      return bits_of(s32, end - sum + (sum == 0 ? 0 : rng.range(-1, 1)));
    }
  }
}

// cancel: v[k+1] = v[k], or its negation, for every pair (k, k+1).
void pair_up(Format f, std::uint32_t* v, int k_count, bool negate) {
  for (int k = 0; k + 1 < k_count; k += 2) v[k + 1] = negate ? bits_of(f, -value_of(f, v[k])) : v[k];
}

// Negates through whichever operand is signed, so that a_{k+1}·b_{k+1} = −a_k·b_k (both unsigned:
// no pair cancels, and C = −Σ ± 1 alone puts D near zero).
void cancel_pairs(const Instruction& in, std::uint32_t* a, std::uint32_t* b) {
  const bool a_neg = spec(in.a_type).is_signed, b_neg = !a_neg && spec(in.b_type).is_signed;
  if (!a_neg && !b_neg) return;
  pair_up(in.a_type, a, in.k, a_neg);
  pair_up(in.b_type, b, in.k, b_neg);
}

std::int64_t dot(const Instruction& in, const std::uint32_t* a, const std::uint32_t* b) {
  std::int64_t s = 0;
  for (int k = 0; k < in.k; ++k) s += value_of(in.a_type, a[k]) * value_of(in.b_type, b[k]);
  return s;
}

}  // namespace

void integer_cases(const Instruction& in, int which, std::uint64_t seed, std::size_t count, std::uint32_t* a,
                   std::uint32_t* b, std::uint32_t* c) {
  Rng rng(seed);
  const auto K = static_cast<std::size_t>(in.k);
  for (std::size_t t = 0; t < count; ++t) {
    std::uint32_t *x = a + t * K, *y = b + t * K;
    for (std::size_t k = 0; k < K; ++k) x[k] = operand(in.a_type, which, rng), y[k] = operand(in.b_type, which, rng);
    if (which == 3) cancel_pairs(in, x, y);
    c[t] = addend(which, dot(in, x, y), rng);
  }
}

// In a tile the pairs of `cancel` sit in A's rows and B's columns alike, so every element cancels.
void integer_tiles(const Instruction& in, int which, std::uint64_t seed, std::size_t tiles, std::uint32_t* a,
                   std::uint32_t* b, std::uint32_t* c) {
  Rng rng(seed);
  const auto M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n), K = static_cast<std::size_t>(in.k);
  for (std::size_t t = 0; t < tiles; ++t) {
    std::uint32_t *ta = a + t * M * K, *tb = b + t * N * K, *tc = c + t * M * N;
    for (std::size_t i = 0; i < M * K; ++i) ta[i] = operand(in.a_type, which, rng);
    for (std::size_t i = 0; i < N * K; ++i) tb[i] = operand(in.b_type, which, rng);
    if (which == 3) {  // rows of A and columns of B paired alike: every element cancels
      const bool a_neg = spec(in.a_type).is_signed, b_neg = !a_neg && spec(in.b_type).is_signed;
      for (std::size_t i = 0; i < M && (a_neg || b_neg); ++i) pair_up(in.a_type, ta + i * K, in.k, a_neg);
      for (std::size_t j = 0; j < N && (a_neg || b_neg); ++j) pair_up(in.b_type, tb + j * K, in.k, b_neg);
    }
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) tc[i * N + j] = addend(which, dot(in, ta + i * K, tb + j * K), rng);
  }
}

}  // namespace tcnum::fuzz::detail
