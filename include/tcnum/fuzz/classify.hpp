// The class a model assigns to a case: which of its boundaries the case sits near. A mismatch's
// signature is (instruction, class), so that a campaign reports one line per kind of difference
// instead of one per case.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::fuzz {

// In the order they are tested; the first that applies is the class.
//  special       an input is NaN or Inf
//  zero          both results are ±0: they differ in the sign of zero
//  overflow      a result is ±Inf or ±max finite
//  alignment     some term has bits at or below 2^(emax - F + 1), emax the largest nominal
//                exponent of a term (a subnormal counts at its format's emin, as the datapath
//                aligns it): the model's alignment truncation (or a neighbouring F's) decides
//  underflow     a result is subnormal or ±0
//  cancellation  the result's leading bit is more than 2 binades below the largest term's
//  rounding      none of the above: rounding of the sum into D
enum class CaseClass : std::uint8_t { special, zero, overflow, alignment, underflow, cancellation, rounding };

std::string_view class_name(CaseClass c);
std::optional<CaseClass> parse_class(std::string_view name);

// `model_d` and `device_d` are the model's and the device's results for the case.
CaseClass classify(const Instruction& in, const DatapathParams& model, std::span<const std::uint32_t> a,
                   std::span<const std::uint32_t> b, std::uint32_t c, std::uint32_t model_d, std::uint32_t device_d);

// The models one parameter away from `p` (F±1, F±2, signed zeros, overflow to Inf, subnormal
// flushing, the two roundings, block size ×2 and ÷2, C's entry, no alignment floor), each named
// by its change, e.g. "frac_bits=24", in that order. A mismatch that one of them reproduces is
// filed under the first such change: one model difference, one signature. Only the neighbours
// that are valid for `in` are listed.
struct Neighbour {
  std::string change;
  DatapathParams params;
};
std::vector<Neighbour> neighbours(const DatapathParams& p, const Instruction& in);

}  // namespace tcnum::fuzz
