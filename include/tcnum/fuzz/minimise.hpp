// Shrinking a mismatch, delta-debugging style: the smallest case that still disagrees.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "tcnum/core/plan.hpp"

namespace tcnum::fuzz {

// Runs `count` cases (a, b: count×K raw elements; c: count) on the device or its stand-in.
using DeviceEval = std::function<void(const Instruction& in, std::size_t count, const std::uint32_t* a,
                                      const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d)>;

struct FuzzCase {
  std::vector<std::uint32_t> a, b;
  std::uint32_t c = 0;
  std::uint32_t device_d = 0, model_d = 0;
};

// How simple a case is, compared lexicographically: nonzero terms (products and C), fraction
// bits set, distance of the exponents from 1.0's, sign bits set. Smaller is simpler.
struct Complexity {
  int terms = 0, fraction_bits = 0, exponent_distance = 0, signs = 0;
  auto operator<=>(const Complexity&) const = default;
};
Complexity complexity(const Instruction& in, const FuzzCase& x);

// Greedy shrinking of a case on which `device` and `model` disagree: each round proposes every
// one-step simplification (C = +0, one product zeroed, two equal products merged or two opposite
// ones zeroed, an element set to 1.0, a sign or a
// fraction bit cleared, an exponent moved toward 1.0's), runs them all on the device in one
// batch, and keeps the first (in that order) that is simpler and still disagrees; it stops when
// none is left or after `max_rounds`. The result disagrees, as `x` did.
FuzzCase minimise(const MmaPlan& model, const DeviceEval& device, FuzzCase x, int max_rounds = 400);

}  // namespace tcnum::fuzz
