// Exact fixed-point accumulators for the aligned terms of one block.
#pragma once
#include <array>
#include <cstdint>

namespace tcnum::detail {

int bit_length_u128(unsigned __int128 x);

// A sum's magnitude cut to at most 128 bits: value = magnitude * 2^shift (+ sticky).
struct Magnitude {
  bool negative = false;
  unsigned __int128 bits = 0;
  int shift = 0;
  bool sticky = false;
};

// Fast path: enough for F up to ~100.
class NarrowAccumulator {
 public:
  static constexpr int kMaxShift = 100;
  void add(std::uint64_t mag, int shift, bool negative) {
    const __int128 v = static_cast<__int128>(static_cast<unsigned __int128>(mag) << shift);
    sum_ += negative ? -v : v;
  }
  bool is_zero() const { return sum_ == 0; }
  Magnitude magnitude() const {
    Magnitude m;
    m.negative = sum_ < 0;
    m.bits = m.negative ? static_cast<unsigned __int128>(-sum_) : static_cast<unsigned __int128>(sum_);
    return m;
  }

 private:
  __int128 sum_ = 0;
};

// Wide path: two's complement over kLimbs 64-bit limbs, for the exact model.
class WideAccumulator {
 public:
  static constexpr int kLimbs = 12;
  static constexpr int kMaxShift = kLimbs * 64 - 80;
  void add(std::uint64_t mag, int shift, bool negative);
  bool is_zero() const;
  Magnitude magnitude() const;

 private:
  std::array<std::uint64_t, kLimbs> limbs_{};
};

}  // namespace tcnum::detail
