// The options numprobe's commands share, declared and resolved in one place: which model answers
// (--arch, --model), where the answers come from (--backend, --devices), reproducibility
// (--seed), and output (--json: JSON, and only JSON, on stdout; text then goes to stderr; the
// progress line of long runs on stderr, progress_line.hpp).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "progress_line.hpp"
#include "tcnum/core/model.hpp"

namespace numprobe {

// The architecture every command assumes when none is given: sm_90, whose model is validated on
// hardware (docs/models.md). Other models are literature values until a corpus confirms them.
inline constexpr const char* kDefaultArch = "sm_90";

// The exit status of the command that ran, set by its callback; main returns it.
struct Status {
  int code = 0;
};

// --arch (default kDefaultArch), --model FILE, --json, --seed, on one command.
CLI::Option* add_arch_option(CLI::App* cmd, std::string& arch, const std::string& context = "");
CLI::Option* add_model_option(CLI::App* cmd, std::string& model_file, const std::string& what);
CLI::Option* add_json_flag(CLI::App* cmd, bool& json, const std::string& what = "JSON on stdout (text on stderr)");
CLI::Option* add_seed_option(CLI::App* cmd, std::uint64_t& seed, const std::string& what);
// --devices 0,1,..: the CUDA devices (ordinals) the command drives; default: what `devices` holds.
// Each must be >= 0 and appear once (checked after parsing: check_devices).
CLI::Option* add_devices_option(CLI::App* cmd, std::vector<int>& devices);
void check_devices(const std::vector<int>& devices);  // throws std::invalid_argument

// The architecture an --arch value names ("" means kDefaultArch).
int arch_or_default(const std::string& arch);

// The model that answers for an architecture: the built-in one, or a model file.
struct ModelChoice {
  int sm = 0;
  tcnum::Model model;
  std::string description;  // "built-in sm_90 model" or "model file FILE"
  bool file = false;
};
ModelChoice choose_model(const std::string& arch, const std::string& model_file);

// The error when CUDA finds no usable GPU: the cause users meet first (no GPU or no driver), CUDA's
// own reason, and what runs without one (`instead`, e.g. "use --backend emu --arch sm_XX").
std::runtime_error no_gpu_error(const std::string& cuda_reason, const std::string& instead);

// Where text goes: stdout, or stderr when --json owns stdout.
std::ostream& text_stream(bool json);

}  // namespace numprobe
