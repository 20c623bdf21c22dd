// Integer MMA (mma.sync .s32.{s8,u8}.{s8,u8}.s32 on sm_80+, tcgen05.mma .kind::i8 on sm_100a): the
// whole model. Products of 8-bit integers and their sums are exact (|a·b| <= 2^16, K <= 64 products
// stay below 2^22), so the only rounding-like step is how C + Σ a_k·b_k enters the 32-bit D: modulo
// 2^32 (two's-complement wrap, PTX's default) or clamped to [INT32_MIN, INT32_MAX] (.satfinite;
// tcgen05: the instruction descriptor's saturate bit). Literature-only, as PTX defines it; tcnum's
// formats are floating point, so these instructions are not in the catalog (docs/models.md §8.5).
#pragma once
#include <cstdint>
#include <span>

namespace tcnum {

enum class IntegerOverflow : std::uint8_t { wrap, saturate };

// a, b: K raw bytes (low 8 bits of each uint32), read as signed (s8) or unsigned (u8); c: the s32 addend
// as raw bits. Returns D's raw bits. Throws std::invalid_argument when a and b differ in length.
std::uint32_t integer_mma_element(std::span<const std::uint32_t> a, bool a_signed, std::span<const std::uint32_t> b,
                                  bool b_signed, std::uint32_t c, IntegerOverflow overflow);

}  // namespace tcnum
