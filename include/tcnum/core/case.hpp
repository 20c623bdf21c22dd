// The vocabulary of evaluation: the inputs of one output element of an instruction (a Case),
// and a Case with the D that a black box (the emulator, the exact reference, a GPU) returned
// for it (an Observation). Generators, feature recipes, the probes, fuzz campaigns and corpus
// lines all speak it.
#pragma once
#include <cstdint>
#include <vector>

namespace tcnum {

struct Case {
  std::vector<std::uint32_t> a, b;  // K raw elements: one row of A (in.a_type), one column of B (in.b_type)
  std::uint32_t c = 0;              // raw C (in.c_type)
  // Block-scaled instructions: the in.scales_per_row() scales of A's row and of B's column
  // (raw in.scale_type bits); empty otherwise.
  std::vector<std::uint32_t> scale_a, scale_b;
  // Sparse instructions (Instruction::sparse): `a` holds the K/2 stored elements of A's row and
  // `meta` its metadata, one 4-bit value per group (tcnum/core/sparse.hpp); empty otherwise.
  std::vector<std::uint8_t> meta;
};

struct Observation : Case {
  std::uint32_t d = 0;  // raw D (in.d_type)
};

}  // namespace tcnum
