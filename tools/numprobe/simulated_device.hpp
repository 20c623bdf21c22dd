// A GPU played by the emulator, to test what numprobe does when the device side misbehaves
// (docs/robustness.md, "Faults"). TCNUM_SIMULATED_DEVICE=sm_NN[,kill_after=N] in the
// environment makes the device session answer as a GPU of architecture sm_NN (known or not),
// computing with built-in model sm_NN; with kill_after=N the process kills itself (SIGKILL) when
// its batch N + 1 starts, as an operator, a scheduler or the OOM killer would. Its results are
// the model's, never hardware data: the device description says SIMULATED.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"

namespace numprobe {

struct SimulatedDevice {
  int sm = 0;
  int kill_after = 0;  // batches; 0: never
  std::string setting;  // the variable's value, for the description
};

// From the environment; std::nullopt when unset. Throws std::invalid_argument for a bad value.
std::optional<SimulatedDevice> simulated_device();

std::vector<std::uint32_t> run_simulated(const SimulatedDevice& dev, const tcnum::Instruction& in,
                                         const std::vector<tcnum::Case>& cases);

}  // namespace numprobe
