// Internal pieces shared by runner.cpp, self_check.cpp and small_ints.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tcnum/probes/device.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::device::detail {

// run_tiles without the layout self-check; max_blocks <= 0 means "as many as useful".
// A small max_blocks makes every warp loop over several tiles (the self-check uses that).
std::vector<std::uint32_t> run_tiles_unchecked(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                               const std::vector<std::uint32_t>& b,
                                               const std::vector<std::uint32_t>& c, const RunOptions& opt,
                                               int max_blocks = 0);

// Runs self_check once per (instruction, device, A source) in this process and caches the
// verdict; throws DeviceError when the layout check failed.
void ensure_layout_checked(const Instruction& in, const RunOptions& opt);

// A tiny codec independent of the emulator (so the ground truth is not checked by the code
// it is meant to check): exact encodings of small integers, and decoding for reports.
std::uint32_t small_int_bits(Format f, int v);  // throws std::logic_error when not exact
double bits_value(Format f, std::uint32_t bits);  // NaN/Inf as such; tf32 as its fp32 register

}  // namespace tcnum::device::detail
