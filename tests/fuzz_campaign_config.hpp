// A small emulator campaign for the fuzz tests: every distribution, two threads, the given
// instructions, seed, case count and batch, written to `dir` (callers set the rest).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/fuzz/campaign.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace tcnum::test {

inline fuzz::CampaignConfig small_campaign(const std::filesystem::path& dir, std::vector<Instruction> instructions,
                                           std::uint64_t cases, std::uint64_t seed, std::size_t batch) {
  fuzz::CampaignConfig c;
  c.instructions = std::move(instructions);
  c.distributions = fuzz::distribution_names();
  c.seed = seed;
  c.cases = cases;
  c.out_dir = dir.string();
  c.threads = 2;
  c.batch = batch;
  return c;
}

// The named instructions of sm_90.
inline std::vector<Instruction> sm90_instructions(const std::vector<std::string>& names) {
  std::vector<Instruction> out;
  for (const auto& n : names) out.push_back(find_instruction(n, 90));
  return out;
}

}  // namespace tcnum::test
