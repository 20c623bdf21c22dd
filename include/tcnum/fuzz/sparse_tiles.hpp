// Sparse instructions in fuzz campaigns: whole tiles with A held as its logical rows.
//
// A campaign's buffers hold A as tiles × M×K logical elements: a sparse instruction's rows keep
// the +0 of the elements its metadata drops. Each row's metadata is the canonical one of its
// pattern (tcnum/core/sparse.hpp: compress_sparse_a: the non-zero elements, then the
// lowest-placed zeros), derived the same way by the emulator here and by the device runner
// (tcnum::device::run_tiles), so both compute the same selected products.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum::fuzz {

// The distribution's tiles of the selected form (K/2: the products' structure as for a dense
// instruction), placed by random metadata, one per tile (all its rows select the same rows of B,
// so every product keeps its structure); B's dropped rows are drawn from the distribution too.
// a: tiles × M×K logical, b: tiles × N×K ([n][k]), c: tiles × M×N.
void generate_sparse_tiles(const Instruction& in, const DatapathParams& params, std::string_view dist,
                           std::uint64_t seed, std::size_t tiles, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c);

// Every element of `tiles` sparse tiles (layout as above) through `selected_plan`, the plan of
// selected_form(in): each row compressed (throws std::invalid_argument if it is not 2:4 / 1:2
// sparse), each column gathered by the row's metadata.
void sparse_mma_tiles(const MmaPlan& selected_plan, const Instruction& in, std::size_t tiles, const std::uint32_t* a,
                      const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d);

}  // namespace tcnum::fuzz
