// Number formats of tensor-core operands and accumulators: exact decode, rounding encode.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tcnum {

enum class Format : std::uint8_t { fp32, fp16, bf16, tf32, e4m3, e5m2 };

enum class Rounding : std::uint8_t { nearest_even, toward_zero };

// Static description of one binary floating-point format.
struct FormatSpec {
  const char* name;      // PTX type name: f32, f16, bf16, tf32, e4m3, e5m2
  int storage_bits;      // bits in its storage (tf32: 32, the register it lives in)
  int exp_bits;
  int frac_bits;         // explicit fraction bits (precision - 1)
  int bias;
  bool has_inf;          // e4m3 (OCP "fn") has none
  int hex_digits;        // width of its corpus hex field
  int emin() const { return 1 - bias; }
  int emax() const { return has_inf ? (1 << exp_bits) - 2 - bias : (1 << exp_bits) - 1 - bias; }
};

const FormatSpec& spec(Format f);
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

// The one rounding routine every operation funnels into: rounds
// (-1)^sign * (magnitude + sticky·ε) * 2^exponent into f. `sticky` says that
// nonzero bits below magnitude's bit 0 were dropped. With satfinite, overflow
// gives ±max finite instead of ±Inf (e4m3: always, since it has no Inf).
std::uint32_t round_pack(Format f, bool sign, unsigned __int128 magnitude, int exponent,
                         bool sticky, Rounding mode, bool satfinite = false);

std::uint32_t encode(Format f, double x, Rounding mode = Rounding::nearest_even,
                     bool satfinite = false);

std::uint32_t canonical_nan(Format f);   // the pattern NVIDIA hardware writes: 0x7fffffff / 0x7fff / 0x7fff
std::uint32_t infinity_bits(Format f, bool sign);  // e4m3: the NaN pattern
std::uint32_t max_finite_bits(Format f, bool sign);
std::uint32_t zero_bits(Format f, bool sign);

// Number of distinct storage patterns worth enumerating (2^storage_bits, tf32: 2^19 meaningful).
std::uint32_t storage_mask(Format f);

}  // namespace tcnum
