// Integer MMA (mma.sync .s32.{s8,u8}.{s8,u8}.s32 and .s32.{s4,u4}.{s4,u4}.s32 on sm_75/sm_80+,
// tcgen05.mma .kind::i8 on sm_100a): the whole model. Products of 8-bit (or 4-bit) integers and
// their sums are exact (|a·b| <= 2^16, K <= 64 products stay below 2^22), so the only
// rounding-like step is how C + Σ a_k·b_k enters the 32-bit D: modulo 2^32 (two's-complement
// wrap, PTX's default) or clamped to [INT32_MIN, INT32_MAX] (.satfinite; tcgen05: the instruction
// descriptor's saturate bit). The catalog's integer instructions (Instruction::integer()) take
// this path in compile_plan, mma_element, mma_tiles, replay and gemm (docs/models.md §8.5);
// confirmed on an H100 (corpora/h100-int).
#pragma once
#include <cstdint>
#include <span>

#include "tcnum/core/format.hpp"

namespace tcnum {

struct Instruction;

enum class IntegerOverflow : std::uint8_t { wrap, saturate };

// a, b: K raw elements of a_type/b_type (s8, u8, s4 or u4: the low 8 or 4 bits of each uint32);
// c: the s32 addend as raw bits. Returns D's raw bits. Throws std::invalid_argument when a and b
// differ in length or a format is not an integer operand format.
std::uint32_t integer_mma_element(std::span<const std::uint32_t> a, Format a_type, std::span<const std::uint32_t> b,
                                  Format b_type, std::uint32_t c, IntegerOverflow overflow);

// The same for a catalog instruction: its formats and its .satfinite (in.saturate).
std::uint32_t integer_mma_element(const Instruction& in, std::span<const std::uint32_t> a,
                                  std::span<const std::uint32_t> b, std::uint32_t c);

// 8-bit operands read as signed (s8) or unsigned (u8).
inline std::uint32_t integer_mma_element(std::span<const std::uint32_t> a, bool a_signed,
                                         std::span<const std::uint32_t> b, bool b_signed, std::uint32_t c,
                                         IntegerOverflow overflow) {
  return integer_mma_element(a, a_signed ? Format::s8 : Format::u8, b, b_signed ? Format::s8 : Format::u8, c, overflow);
}

}  // namespace tcnum
