// The input generators: fast, MPFR-free and reproducible everywhere. Tests, tools and fuzz
// campaigns draw from them (the reference layer's frozen corpus generators,
// tcnum/reference/frozen_corpus_generators.hpp, are kept only so that the recorded corpora can
// be redrawn from their seeds).
//
// A campaign draws millions of cases per second on every core, on GPU hosts that have no
// MPFR, so these generators use only integer arithmetic, IEEE multiplications (exactly
// specified) and the core's rounding; their output depends only on (the instruction's types
// and K, the model parameters for `boundary`, the distribution, the seed, the count). The
// stream is xoshiro256** seeded through splitmix64. The frozen corpus generators' distributions
// carry the same names and intent, but not the same bits.
//
//  normal    a, b, c ~ approximately N(0,1) (an Irwin–Hall sum of four 16-bit uniforms, scaled
//            to unit variance: bounded tails at ±3.46) rounded to nearest even into their formats.
//  randbits  every element a uniform random finite pattern (subnormals, ±0; tf32 random low bits).
//  spread    one lead term (C with p = 1/4, else a product) near the top of the range every term
//            and D can hold; every other term 2^-5..2^-30 below it: alignment truncation.
//  cancel    products in pairs a_j = -a_i, b_j = b_i, each nudged by ±1 ulp with p = 1/4;
//            C = -(exact sum) rounded into C's format, nudged by ±1 ulp with p = 1/2.
//  special   normal, each element replaced with p = 1/8 by ±0, ±Inf, NaN, ±max, ±min subnormal,
//            ±min normal.
//  subnorm   subnormal or tiny factors, products near the bottom of D's range, tiny C.
//  boundary  built from the model under test: the exact sum sits on one of its boundaries —
//            the alignment truncation point 2^(emax-F) (and F±1, F±2: the neighbouring models),
//            a rounding midpoint or ulp of D, D's overflow threshold, D's smallest normal /
//            subnormal, or exactly zero (signed-zero rules).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::fuzz {

std::vector<std::string> distribution_names();  // the seven above, in that order
std::string_view distribution_description(std::string_view dist);  // throws std::invalid_argument

// Fills `count` cases: a and b hold count×K raw elements (case t at t·K), c holds count.
// `model` is the model under test (only `boundary` reads it). Throws std::invalid_argument
// for an unknown distribution (listing the valid ones).
void generate(const Instruction& in, const DatapathParams& model, std::string_view dist, std::uint64_t seed,
              std::size_t count, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c);

// The same, as `count` Cases (a row of A, a column of B and C each).
std::vector<Case> generate_cases(const Instruction& in, const DatapathParams& model, std::string_view dist,
                                 std::size_t count, std::uint64_t seed);

// The same distributions over whole tiles of the instruction, where every output element (i, j)
// is a case: a holds tiles × M×K (row-major), b tiles × K×N column-major (column j of B at j·K),
// c tiles × M×N (row-major), as mma_tiles and the probes take them. Rows and columns are shared, so each
// distribution puts its structure on what they share (see generators.cpp): normal, randbits and
// special draw every element as above; spread, cancel and subnorm fix the slot structure (lead
// exponents, cancelling pairs, which factor is tiny) per tile; boundary either gives every row
// of A its own alignment or rounding case on B's fixed factors (p = 2/5), or draws one boundary
// case of any kind per tile and spreads it by a sign and a power of two per row and per column
// (C scaled by both).
void generate_tiles(const Instruction& in, const DatapathParams& model, std::string_view dist, std::uint64_t seed,
                    std::size_t tiles, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c);

// The seed of one batch of a campaign: the same (seed, instruction, distribution, batch) gives
// the same cases, whichever shard or thread draws them.
std::uint64_t batch_seed(std::uint64_t seed, std::string_view instruction, std::string_view dist,
                         std::uint64_t batch);

}  // namespace tcnum::fuzz
