// Number formats of tensor-core operands and accumulators: exact decode, rounding encode.
#pragma once
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tcnum {

// e2m1 (FP4), e2m3/e3m2 (FP6): OCP MX element formats, finite only. ue8m0, ue4m3: the unsigned
// block-scale formats of MX and NVFP4 (ue8m0: powers of two, no zero; ue4m3: e4m3 without sign).
// s8/u8, s4/u4: the integer MMA operands (two's complement or unsigned, in the low bits of a
// uint32); s32: their C and D (docs/models.md §8.5). Integer formats have no exponent: decode
// gives the integer (exponent 0), encode refuses them.
// e4m3fnuz, e5m2fnuz: AMD CDNA3's fp8 and bf8 (LLVM's f8E4M3FNUZ, f8E5M2FNUZ): biases 8 and 16,
// no Inf, no -0, and one NaN, the negative-zero pattern 0x80.
enum class Format : std::uint8_t {
  fp32, fp16, bf16, tf32, e4m3, e5m2, e2m1, e2m3, e3m2, ue8m0, ue4m3, s8, u8, s4, u4, s32, e4m3fnuz, e5m2fnuz
};

enum class Rounding : std::uint8_t { nearest_even, toward_zero };

// Static description of one binary floating-point format.
struct FormatSpec {
  const char* name;      // PTX type name: f32, f16, bf16, tf32, e4m3, e5m2, e2m1, ...
  int storage_bits;      // bits in its storage (tf32: 32, the register it lives in; e2m1: 4, FP6: 6)
  int exp_bits;
  int frac_bits;         // explicit fraction bits (precision - 1)
  int bias;
  bool has_inf;          // e4m3 (OCP "fn") has none
  int hex_digits;        // width of its corpus hex field
  bool has_nan = true;   // without Inf: the all-ones pattern is NaN (e4m3, ue8m0); FP4/FP6: no NaN
  bool is_signed = true; // ue8m0/ue4m3: no sign bit (a sign given to round_pack is dropped)
  bool has_zero = true;  // ue8m0: exponent field 0 is 2^-127, not zero (and no subnormals)
  bool is_integer = false;  // s8/u8/s4/u4/s32: frac_bits = value bits below the sign, no exponent
  bool fnuz = false;     // the sign bit with all else zero is the one NaN: no -0, every other pattern finite
  int emin() const { return has_zero ? 1 - bias : -bias; }
  // Biased exponent of the largest finite value: the all-ones field holds Inf/NaN (IEEE), or
  // only the NaN pattern when there is no fraction to tell it apart (ue8m0).
  int max_biased() const {
    return has_inf || (has_nan && frac_bits == 0 && !fnuz) ? (1 << exp_bits) - 2 : (1 << exp_bits) - 1;
  }
  int emax() const { return max_biased() - bias; }
  int value_bits() const { return (is_signed ? 1 : 0) + exp_bits + frac_bits; }
};

// The layout of every Format, in enum order. FP4/FP6: OCP Microscaling Formats (MX) v1.0,
// section 5.3; ue8m0: its E8M0 scale; ue4m3: the NVFP4 scale (PTX ISA, "block scaling"), e4m3
// without a sign bit. Integers: storage bits, no exponent, the value bits below the sign as
// frac_bits, no Inf or NaN. e4m3fnuz/e5m2fnuz: AMD CDNA3 ISA, "fp8"/"bf8" (LLVM's FNUZ float
// semantics).
inline constexpr std::array<FormatSpec, 18> kFormatSpecs{{
    {"f32", 32, 8, 23, 127, true, 8},
    {"f16", 16, 5, 10, 15, true, 4},
    {"bf16", 16, 8, 7, 127, true, 4},
    {"tf32", 32, 8, 10, 127, true, 8},
    {"e4m3", 8, 4, 3, 7, false, 2},
    {"e5m2", 8, 5, 2, 15, true, 2},
    {"e2m1", 4, 2, 1, 1, false, 1, false},
    {"e2m3", 6, 2, 3, 1, false, 2, false},
    {"e3m2", 6, 3, 2, 3, false, 2, false},
    {"ue8m0", 8, 8, 0, 127, false, 2, true, false, false},
    {"ue4m3", 8, 4, 3, 7, false, 2, true, false},
    {"s8", 8, 0, 7, 0, false, 2, false, true, true, true},
    {"u8", 8, 0, 8, 0, false, 2, false, false, true, true},
    {"s4", 4, 0, 3, 0, false, 1, false, true, true, true},
    {"u4", 4, 0, 4, 0, false, 1, false, false, true, true},
    {"s32", 32, 0, 31, 0, false, 8, false, true, true, true},
    {"e4m3fnuz", 8, 4, 3, 8, false, 2, true, true, true, false, true},
    {"e5m2fnuz", 8, 5, 2, 16, false, 2, true, true, true, false, true},
}};

inline constexpr bool is_integer(Format f) {
  return f == Format::s8 || f == Format::u8 || f == Format::s4 || f == Format::u4 || f == Format::s32;
}

// spec() is on the hot path (inline, so that callers in every file fold it) and does not check
// its argument (debug builds assert). A Format cast from bad data is rejected where data enters:
// check_format, name_of, to_double, encode throw std::invalid_argument for a value outside the
// enum.
inline const FormatSpec& spec(Format f) {
  assert(static_cast<std::size_t>(f) < kFormatSpecs.size());
  return kFormatSpecs[static_cast<std::size_t>(f)];
}
void check_format(Format f);
std::optional<Format> parse_format(std::string_view name);
std::string_view name_of(Format f);

// A decoded value: finite values are exactly (-1)^sign * significand * 2^exponent.
struct Decoded {
  enum class Kind : std::uint8_t { zero, finite, inf, nan };
  Kind kind = Kind::zero;
  bool sign = false;
  std::uint64_t significand = 0;  // integer, includes the hidden bit; 0 for zero
  int exponent = 0;               // weight of significand's bit 0
  bool is_nan() const { return kind == Kind::nan; }
  bool is_inf() const { return kind == Kind::inf; }
  bool is_zero() const { return kind == Kind::zero; }
};

// Exact decode. TF32 lives in a 32-bit register whose low 13 bits the tensor
// core ignores: decode(tf32, r) == decode(tf32, r & 0xffffe000).
Decoded decode(Format f, std::uint32_t bits);
double to_double(Format f, std::uint32_t bits);  // exact for every format here

// An integer format's value of raw bits (two's complement for s8/s4/s32); for integer formats only.
std::int64_t integer_value(Format f, std::uint32_t bits);

// Rounds x into f (a floating-point format; integer formats throw std::invalid_argument). Every rounding of the core (this one, the datapath's, the epilogue's) goes
// through one routine, round_pack (emu/core/round_pack.hpp, internal: its magnitude is 128-bit).
std::uint32_t encode(Format f, double x, Rounding mode = Rounding::nearest_even,
                     bool satfinite = false);

// The pattern NVIDIA hardware writes: 0x7fffffff / 0x7fff / 0x7f (ue8m0: 0xff). FP4/FP6 have no
// NaN: cvt writes +max finite for a NaN (CUDA 13 cuda_fp4.hpp/cuda_fp6.hpp), and so does this.
std::uint32_t canonical_nan(Format f);
std::uint32_t infinity_bits(Format f, bool sign);  // e4m3/ue8m0: the NaN pattern; FP4/FP6: ±max
std::uint32_t max_finite_bits(Format f, bool sign);
std::uint32_t zero_bits(Format f, bool sign);

// Mask of the storage bits (2^storage_bits - 1); meaningful patterns are 2^value_bits() of them
// (tf32: the top 19 bits; ue4m3: the low 7).
std::uint32_t storage_mask(Format f);

}  // namespace tcnum
