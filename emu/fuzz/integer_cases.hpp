// Integer cases for the fuzz generators (s8/u8/s4/u4 A and B, s32 C): generators.cpp hands an
// integer instruction's draws here. MPFR-free like the rest of the layer; see integer_cases.cpp
// for what each of the seven distributions means for integers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tcnum/core/instruction.hpp"

namespace tcnum::fuzz::detail {

// `count` cases (a, b: count×K; c: count), distribution number `which` (distribution_names()).
void integer_cases(const Instruction& in, int which, std::uint64_t seed, std::size_t count, std::uint32_t* a,
                   std::uint32_t* b, std::uint32_t* c);

// `tiles` whole tiles laid out as generate_tiles' (A row-major, B column-major, C row-major).
void integer_tiles(const Instruction& in, int which, std::uint64_t seed, std::size_t tiles, std::uint32_t* a,
                   std::uint32_t* b, std::uint32_t* c);

}  // namespace tcnum::fuzz::detail
