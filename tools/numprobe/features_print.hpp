// Shared by `numprobe --op ...` and `numprobe fit`: the black boxes (emulator or GPU) and
// the text/JSON rendering of feature reports.
#pragma once
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"
#include "tcnum/characterize/features.hpp"

namespace numprobe {

// Where the answers come from.
struct Backend {
  bool device = false;
  int sm = 0;                              // the arch whose instructions are probed
  std::optional<tcnum::Model> model;       // emulator: the model used (built-in or --model file)
  std::string description;                 // "emulator: built-in sm_80 model", "GPU: NVIDIA H100 ..., sm_90"
  std::optional<tcnum::Model> reference;   // device: the built-in model of the device's arch, for comparison
};

// --backend emu|device, --arch, --model (emulator only). Throws std::invalid_argument /
// std::runtime_error with a message for people (no GPU, built without CUDA, unknown arch).
Backend make_backend(const std::string& backend, const std::string& arch, const std::string& model_file);

tcnum::BlackBox black_box(const Backend& b, const tcnum::Instruction& in);

// Which device corpora confirmed the model the backend uses (the built-in one beside a GPU) on `in`.
std::string model_validation(const Backend& b, const tcnum::Instruction& in);

// Aligned text table: rows of cells, first row the header.
void print_table(std::ostream& os, const std::vector<std::vector<std::string>>& rows, const std::string& indent = "  ");

void print_report(std::ostream& os, const tcnum::features::FeatureReport& r, bool with_model_column);
nlohmann::json report_json(const tcnum::features::FeatureReport& r);

std::string params_summary(const tcnum::DatapathParams& p, const tcnum::Instruction& in);

}  // namespace numprobe
