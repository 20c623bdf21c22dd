// The library corpus's input generator "tcnum-irwin12-v1" (docs/library-corpus.md §1), in C++:
// the same values, bit for bit, as python/tcnum/libraries/inputs.py and the GPU capture kernel.
//
// Counter-based: element e of operand `id` (A = 1, B = 2, bias = 3; e = the row-major index in
// the logical matrix) is a pure function of (seed, id, e).
//   normal  x = (sum of the twelve 16-bit fields of draws d = 0, 1, 2 − 393210) / 65536
//   wide    x = normal · 2^t, t = (draw d = 3) mod (2E + 1) − E
// x is a float32 exactly (for 0 <= E <= 100); library_input_bits rounds it to nearest even into
// the operand's format (fp32 and tf32: the float32 bits unchanged; a tf32 kernel rounds them).
#pragma once
#include <cstdint>
#include <vector>

#include "tcnum/core/format.hpp"

namespace tcnum {

enum class InputDist : std::uint8_t { normal, wide };

// The 64-bit draw d (0..3) of element e of operand `id` (arithmetic modulo 2^64).
std::uint64_t library_input_draw(std::uint64_t seed, std::uint64_t id, std::uint64_t e, unsigned d);
// Element e's value. Throws std::invalid_argument unless 0 <= E <= 100.
float library_input_value(std::uint64_t seed, std::uint64_t id, std::uint64_t e, InputDist dist, int E);
// The rows×cols matrix of operand `id`, row-major, as raw bits of `f` (RNE; fp32/tf32: the
// float32 bits). Throws std::invalid_argument on negative sizes or E outside 0..100.
std::vector<std::uint32_t> library_input_bits(Format f, std::uint64_t seed, std::uint64_t id, int rows, int cols,
                                              InputDist dist, int E);
// The E of "wide" for an operand format (inputs.WIDE_E: no value overflows it): f32/tf32 and bf16
// 16, f16 and e5m2 8, e4m3 4; the FP6/FP4 formats, whose range is too small to scale, 0.
int library_wide_exponent(Format f);

}  // namespace tcnum
