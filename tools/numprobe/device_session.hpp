// Shared by the commands that talk to a GPU: which instructions to probe, and running
// generated cases on the device in bounded batches.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tcnum/reference/frozen_corpus_generators.hpp"
#include "tcnum/core/instruction.hpp"

namespace numprobe {

// Which generated cases a device command runs (record, check): --instr, --dist, --cases and
// --wgmma-n, declared once (add_case_options) and resolved by the two functions below.
struct CaseSelection {
  std::string instr = "all", dist = "all";
  std::size_t cases = 0;  // per instruction and distribution
  std::vector<int> wgmma_n{8, 64, 256};
};
void add_case_options(CLI::App* cmd, CaseSelection& s);

// What --instr selects (instr_option.hpp); "all" is every mma.sync of the arch plus wgmma at the
// N values given; "sparse" (and sparse names) the mma.sp forms and wgmma.mma_async.sp at the N
// values given that have a probe kernel (8, 64, 256).
std::vector<tcnum::Instruction> device_instructions(const std::string& which, int sm, const std::vector<int>& wgmma_n);
std::vector<std::string> select_distributions(const std::string& which);

// Seed of one (instruction, distribution) stream: same seed, same inputs.
std::uint64_t stream_seed(std::uint64_t seed, const std::string& instr, const std::string& dist);

// The cases of one stream: the frozen corpus generators (tcnum/reference/frozen_corpus_generators.hpp) for a dense
// instruction; for a sparse one the fuzz layer's selected-product draws with random valid
// metadata (tcnum/fuzz/sparse_cases.hpp), as tcnum_sparse_record draws them.
std::vector<tcnum::Case> draw_cases(const tcnum::Instruction& in, const std::string& dist, std::size_t count,
                                    std::uint64_t seed);

// Runs cases on the GPU (throws tcnum::device::DeviceError, or std::runtime_error when
// numprobe was built without CUDA). For wgmma with `both_a_sources`, runs A from shared
// memory and from registers and throws if the two ever differ. With TCNUM_SIMULATED_DEVICE set
// (simulated_device.hpp, for fault tests), the emulator plays the GPU in all three functions.
std::vector<std::uint32_t> run_on_device(const tcnum::Instruction& in, const std::vector<tcnum::Case>& cases,
                                         bool both_a_sources);

std::string device_description();  // name, sm, driver, runtime; or why there is none
// The GPU's architecture (90 for Hopper); throws std::runtime_error if there is none or tcnum
// does not know its architecture (no catalog, no model: nothing it recorded could be checked).
int device_sm();

}  // namespace numprobe
