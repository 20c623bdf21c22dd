// Internal: the designed inputs of the sparse datapath study (docs/models.md, "Sparse MMA").
#pragma once
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::device {

// FPRev-style block probes: for each stored position p, one large product 2^E at p and a small
// product s = 0.875·2^(E-F-... ) (below the F-bit truncation point of E, F = params.frac_bits) at
// every other stored position, C = 0, random valid metadata. Products that share the large
// term's block are truncated away; products in other blocks are summed apart and reach D (five
// or more of them move D by at least one f32 ulp). D as a function of p gives the blocks in
// stored-product positions: one block of K/2 (the selected products fused as one dense
// instruction of K/2) or blocks of the dense block_size counted in logical K (half as many
// products). Then three operand checks: B = +Inf / NaN in every dropped row (does a dropped row
// reach the datapath?), and a zero stored A facing +Inf in B (0·Inf = NaN if it is multiplied).
// Empty when no such E and s exist in the operand formats, or for f16 D (whose ulp hides s).
std::vector<Case> designed_cases(const Instruction& in, const DatapathParams& params);

}  // namespace tcnum::device
