// Sparse A (PTX mma.sp::ordered_metadata, wgmma.mma_async.sp): the metadata that places A's
// stored elements in its logical row, and what the datapath is given.
//
// A sparse instruction of logical K stores K/2 elements per row of A. Its metadata has one 4-bit
// value per group of logical elements, as the PTX ISA's metadata operand holds it ("sparse
// matrix storage"): f16/bf16/fp8 (2:4), a group of 4 elements, two 2-bit indices i0 | i1 << 2
// with i0 < i1 (0x4, 0x8, 0x9, 0xc, 0xd, 0xe); tf32 (1:2), a group of 2 elements, 0x4 (the
// first) or 0xe (the second); s4/u4 (4:8 in pairs), a group of 8 elements, the same values
// indexing its 4 pairs (0x9: elements 2, 3, 4, 5). Stored element s of A sits at logical position
// selected_positions(in, meta)[s]; B holds all K and only the selected rows of B meet A.
//
// The datapath of a sparse instruction is the dense datapath over its K/2 selected products, in
// logical order (selected_form: the same types, K/2), with the parameters of the model's rule
// for the sparse instruction (ModelRule::sparse; docs/models.md "Sparse MMA").
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// Logical elements per metadata value: 4 (2:4), 2 (tf32, 1:2) or 8 (s4/u4, 4:8 in pairs). Throws
// for a dense instruction.
int sparse_group(const Instruction& in);
// Metadata values per row of A: in.k / sparse_group(in).
int sparse_meta_count(const Instruction& in);
// Whether `v` is a metadata value the PTX ISA gives a meaning for this instruction.
bool valid_sparse_meta(const Instruction& in, std::uint32_t v);
// "metadata value 3 (group 2) is not a valid 2:4 pattern; valid: 4, 8, 9, c, d, e".
std::string invalid_sparse_meta_message(const Instruction& in, std::uint32_t v, int group);
// The logical k of each stored element of A (K/2 ascending positions). Throws
// std::invalid_argument naming the first invalid value ("metadata value 3 (group 2) is not a
// valid 2:4 pattern ...") or a wrong count.
std::vector<int> selected_positions(const Instruction& in, std::span<const std::uint8_t> meta);
// The dense instruction the datapath runs for a sparse one: the same types and shape, K/2.
Instruction selected_form(const Instruction& sparse);
// B's selected elements: b_sel[s] = b[selected_positions[s]].
std::vector<std::uint32_t> gather_selected(const Instruction& in, std::span<const std::uint8_t> meta,
                                           std::span<const std::uint32_t> b);
// A's logical row: the stored elements at their positions, +0 elsewhere.
std::vector<std::uint32_t> expand_sparse_a(const Instruction& in, std::span<const std::uint32_t> a_stored,
                                           std::span<const std::uint8_t> meta);

// A logical row of A with its 2:4 (tf32: 1:2) pattern checked, as a stored row and metadata.
struct CompressedRow {
  std::vector<std::uint32_t> a;     // K/2 stored elements
  std::vector<std::uint8_t> meta;   // sparse_meta_count values
};
// Each group keeps its non-zero elements (±0 counts as zero), then its lowest-placed zeros until
// it holds K/2 / groups; throws std::invalid_argument naming the row's group that has too many
// non-zero elements ("group 3 (k = 12..15) has 3 non-zero elements; 2:4 sparsity allows 2").
CompressedRow compress_sparse_a(const Instruction& in, std::span<const std::uint32_t> a_logical);

// One element of a sparse instruction under `p`: the dense datapath of selected_form(in) over
// the selected products (a: K/2 stored elements, b: K, meta: sparse_meta_count values).
std::uint32_t sparse_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                             std::span<const std::uint32_t> b, std::uint32_t c, std::span<const std::uint8_t> meta);

// Metadata as a corpus line writes it: one lowercase hex digit per value, group 0 first.
std::string sparse_meta_hex(std::span<const std::uint8_t> meta);

}  // namespace tcnum
