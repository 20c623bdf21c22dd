// numprobe replay: re-evaluate recorded device cases with a model, bit for bit.
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "tcnum/core/corpus.hpp"

namespace numprobe {
namespace {

std::string describe(tcnum::Format f, std::uint32_t bits) {
  return "0x" + tcnum::hex_field(f, bits) + " (" + [&] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", tcnum::to_double(f, bits));
    return std::string(buf);
  }() + ")";
}

struct ReplayOptions {
  std::vector<std::string> files;
  std::string model_file;
  int max_errors = 20;
  bool json = false;
  bool allow_empty = false;
};

int run_replay(const ReplayOptions& o) {
  std::optional<tcnum::Model> model;
  if (!o.model_file.empty()) model = tcnum::load_model_file(o.model_file);
  std::size_t passed = 0, failed = 0;
  int shown = 0;
  nlohmann::json report = nlohmann::json::array();
  for (const auto& file : o.files) {
    tcnum::ReplayTally t;
    try {
      t = tcnum::replay_file(file, model ? &*model : nullptr, [&](const tcnum::ReplayIssue& is) {
        if (shown >= o.max_errors) return;
        ++shown;
        if (is.malformed) {
          std::cout << is.file << ":" << is.line << ": malformed: " << is.reason << "\n";
          return;
        }
        const auto& k = *is.kase;
        const auto f = k.instruction.d_type;
        std::cout << is.file << ":" << is.line << ": mismatch " << k.arch << " " << k.instruction.name
                  << "\n  device   " << describe(f, k.d) << "\n  emulator " << describe(f, is.emulated) << "\n";
      });
    } catch (const std::exception& e) {
      std::cout << file << ": error: " << e.what() << "\n";
      ++failed;
      continue;
    }
    // A file with no case proves nothing: an empty or unreadable corpus must not pass.
    if (t.passed + t.failed == 0 && !o.allow_empty) {
      std::cout << file << ": error: no cases in " << file << " (--allow-empty accepts this)\n";
      ++failed;
    }
    passed += t.passed;
    failed += t.failed;
    report.push_back({{"file", file}, {"passed", t.passed}, {"failed", t.failed}});
  }
  if (failed > static_cast<std::size_t>(shown) && shown >= o.max_errors)
    std::cout << "(" << failed - shown << " more failures not shown; raise --max-errors)\n";
  if (o.json) std::cerr << report.dump() << "\n";
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

void register_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  auto* cmd = app.add_subcommand("replay", "Replay corpus files (.tcc/.tcc.gz) against a model, bit for bit");
  cmd->add_option("files", o->files, "corpus files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--model", o->model_file, "model JSON file instead of each arch's built-in model")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-errors", o->max_errors, "mismatches to print")->capture_default_str();
  cmd->add_flag("--json", o->json, "also print a per-file JSON summary on stderr");
  cmd->add_flag("--allow-empty", o->allow_empty, "accept a file with no case (otherwise an error)");
  cmd->footer("Ends with 'N passed, M failed'; exit status 0 only when M is 0 and every file held a case.");
  cmd->callback([o] { exit_code() = run_replay(*o); });
}

}  // namespace numprobe
