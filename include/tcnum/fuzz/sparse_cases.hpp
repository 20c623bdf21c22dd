// Sparse cases for record, check and tcnum_sparse_record: the fuzz generators' draws for the
// selected products (the dense selected form, K/2), random valid metadata per case, and B's dropped
// rows from a second draw of the same distribution (a dropped row of B is not read, but it is
// recorded as the device got it). MPFR-free, so the GPU hosts draw the same cases.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::fuzz {

// `count` cases of a sparse instruction: Case::a holds the K/2 stored elements, Case::b all K,
// Case::meta sparse_meta_count(in) values. Throws std::invalid_argument for a dense instruction
// or an unknown distribution.
std::vector<Case> sparse_cases(const Instruction& in, const DatapathParams& params, std::string_view dist,
                               std::uint64_t seed, std::size_t count);

}  // namespace tcnum::fuzz
