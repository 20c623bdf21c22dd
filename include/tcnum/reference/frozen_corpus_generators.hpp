// The frozen corpus generators (stream v1): kept, unchanged, only so that the corpora recorded
// with them stay reproducible: `numprobe record` and `check` draw from them, and so were
// corpora/h100 (`--seed 1`) and corpora/h100-int (`--seed 26`) drawn (corpora/README.md); every
// case of those files can be redrawn from its (instruction, distribution, seed). The profile
// (Sun et al.'s N(0,1) inputs) draws its normals here too. tests/test_frozen_generator_stream.cpp
// pins their bits: never change what they produce. Everything else draws from tcnum's
// generators, tcnum/fuzz/generators.hpp (MPFR-free).
//
// Reproducibility: the output depends only on (the instruction's a/b/c/d types and K,
// the distribution, count, seed) — never on the platform, compiler or standard library.
// The only randomness is std::mt19937_64 (whose output sequence the C++ standard fixes)
// seeded with `seed`; every distribution is built from it with integer arithmetic and
// exact rejection sampling, no std::*_distribution. Normals come from a Marsaglia–Tsang
// ziggurat whose tables, wedge and tail tests (exp, log) are computed by MPFR, which
// rounds correctly and so gives the same bits everywhere; its fast path is an integer
// comparison and one IEEE multiplication. Draws happen in a fixed order, and case i only uses
// draws made after case i-1's, so generate(in, d, n, s) is a prefix of
// generate(in, d, m, s) for n <= m.
//
// All values are valid raw patterns of their format: only its storage bits are set
// (fp16 in the low 16 bits of the uint32, ...), tf32 registers have their low 13 bits
// zero except under `randbits`. Special values (NaN, Inf) appear only under `special`.
//
// Distributions:
//  normal   a_k, b_k ~ N(0,1) rounded to nearest even into A's and B's formats; C ~ N(0,1)
//           rounded into C's format (the setup of Sun et al., §8). Each normal is drawn
//           as a double (53-bit ziggurat sample), then rounded into the format.
//  randbits Every element a uniformly random finite bit pattern of its format (all
//           exponents, subnormals and ±0 included: NaN and Inf patterns are redrawn);
//           tf32 registers also get random low 13 bits, which the hardware ignores.
//  spread   Exponents spread so that alignment truncation matters: one lead term (C with
//           probability 1/4, else a random product) has exponent L near the top of the
//           range all terms and D can hold; every other product and C has exponent
//           L - d with d uniform in [5, 30]. Products are split into factors with
//           random exponents (subnormal factors only where needed); significands and
//           signs are uniform.
//  cancel   Near-cancelling sums: a and b normal as above, then the K products are paired
//           at random (pair i, j) with a_j = -a_i and b_j = b_i, each then nudged by one
//           ulp up or down with probability 1/4 each, so a_i b_i ≈ -a_j b_j; C is -sum
//           of the products rounded into C's format, nudged by ±1 ulp with probability 1/2.
//  special  As `normal`, but every element (each a_k, b_k and C) is, with probability 1/8,
//           replaced by one of ±0, ±Inf (not in e4m3, which has none), NaN (random sign
//           and payload), ±max finite, ±min subnormal, ±min normal, chosen uniformly.
//  subnorm  The bottom of the range. Half of the products have one factor subnormal (or
//           within 4 binades above the smallest normal) and the other aimed so the
//           product lands near the bottom of D's range (from 2 binades below D's smallest
//           subnormal to 2 above its smallest normal), or tiny too where that aim is out
//           of reach; the other half have both factors tiny. C is tiny (subnormal or
//           within 4 binades of the smallest normal), ±0 with probability 1/8.
//
// Block-scaled instructions also get their scale vectors, drawn after A, B and C: scales
// 2^e with e uniform in [-4, 4] (ue4m3: a uniform significand too); under `cancel` one scale
// for the whole row of A and one for the column of B (the pairs still cancel); under
// `randbits` any non-NaN pattern of the scale format; under `special` each scale is replaced
// with probability 1/8 by NaN, the largest, the smallest (ue8m0: 2^-127) or zero (ue4m3; ue8m0
// has none, its 0x00 is 2^-127).
//
// Integer instructions (s8/u8/s4/u4 A and B, s32 C) read the same names for integers:
// normal: operands N(0,1)·(range/8) rounded and clamped, C N(0,1)·2^16; randbits: uniform
// patterns; spread: C within 2^20 of INT32_MIN or INT32_MAX (where wrap and .satfinite differ);
// cancel: products in pairs (k, k+1) with one operand negated where its format allows, C = -sum
// ± 1; special: normal with each operand p = 1/8 one of min, max, 0, -1 (unsigned: 1), C with
// p = 1/4 one of INT32_MIN, INT32_MAX, 0, -1; subnorm: operands in [-2, 2] (clamped), C in [-8, 8].
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::reference::frozen_v1 {

// The names above, in that order.
std::vector<std::string> distribution_names();

// One line describing a distribution; std::invalid_argument for an unknown name.
std::string_view distribution_description(std::string_view dist);

// `count` cases of `in` from distribution `dist` with `seed`. Throws std::invalid_argument
// (listing the valid names) for an unknown distribution.
std::vector<Case> generate(const Instruction& in, std::string_view dist, std::size_t count, std::uint64_t seed);

}  // namespace tcnum::reference::frozen_v1
