#include "options.hpp"

#include <iostream>
#include <stdexcept>

#include "tcnum/core/instruction.hpp"

namespace numprobe {

CLI::Option* add_arch_option(CLI::App* cmd, std::string& arch, const std::string& context) {
  std::string archs;
  for (int sm : tcnum::known_archs()) archs += (archs.empty() ? "" : " ") + tcnum::arch_name(sm);
  return cmd->add_option("--arch", arch,
                         (context.empty() ? "" : context + ": ") + archs + " (default " + kDefaultArch + ", validated)");
}

CLI::Option* add_model_option(CLI::App* cmd, std::string& model_file, const std::string& what) {
  return cmd->add_option("--model", model_file, what)->check(CLI::ExistingFile);
}

CLI::Option* add_json_flag(CLI::App* cmd, bool& json, const std::string& what) { return cmd->add_flag("--json", json, what); }

CLI::Option* add_seed_option(CLI::App* cmd, std::uint64_t& seed, const std::string& what) {
  return cmd->add_option("--seed", seed, what)->capture_default_str();
}

CLI::Option* add_devices_option(CLI::App* cmd, std::vector<int>& devices) {
  return cmd->add_option("--devices", devices, "CUDA devices this process drives, comma-separated (one host thread each)")
      ->delimiter(',')
      ->capture_default_str();
}

void check_devices(const std::vector<int>& devices) {
  if (devices.empty()) throw std::invalid_argument("--devices: no device given");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0) throw std::invalid_argument("--devices: " + std::to_string(devices[i]) + " is not a device ordinal");
    for (std::size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i])
        throw std::invalid_argument("--devices: device " + std::to_string(devices[i]) + " given twice");
  }
}

int arch_or_default(const std::string& arch) { return tcnum::parse_arch(arch.empty() ? kDefaultArch : arch); }

ModelChoice choose_model(const std::string& arch, const std::string& model_file) {
  ModelChoice c;
  c.sm = arch_or_default(arch);
  if (model_file.empty()) {
    c.model = tcnum::builtin_model(c.sm);
    c.description = "built-in " + tcnum::arch_name(c.sm) + " model";
  } else {
    c.model = tcnum::load_model_file(model_file);
    c.description = "model file " + model_file;
    c.file = true;
  }
  return c;
}

std::runtime_error no_gpu_error(const std::string& cuda_reason, const std::string& instead) {
  return std::runtime_error("no usable GPU: no GPU or driver (CUDA: " + cuda_reason + "); " + instead);
}

std::ostream& text_stream(bool json) { return json ? std::cerr : std::cout; }

}  // namespace numprobe
