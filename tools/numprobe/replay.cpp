// numprobe replay: re-evaluate recorded device cases with a model, bit for bit.
#include <atomic>
#include <cmath>
#include <string>
#include <string_view>
#include <thread>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/parallel.hpp"
#include "version.hpp"

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
  int threads = 0;
};

// One file's outcome, kept until the files before it have been printed.
struct FileResult {
  tcnum::ReplayTally tally;
  std::vector<tcnum::ReplayIssue> issues;  // the first max_errors of them
  std::size_t issue_count = 0;
  std::string error;  // the file could not be read at all
};

// Library corpora (docs/library-corpus.md) hold library calls, not instruction cases: their
// replay rebuilds the inputs from a seed and applies a plan table, in Python.
bool is_library_corpus(const std::string& file) {
  const auto ends = [&](std::string_view s) { return file.size() >= s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0; };
  return ends(".jsonl") || ends(".jsonl.gz");
}

int run_replay(const ReplayOptions& o) {
  for (const std::string& file : o.files)
    if (is_library_corpus(file)) {
      std::cerr << "numprobe replay: " << file << " is a library corpus (library calls, docs/library-corpus.md); "
                << "replay it with: python3 -m tcnum.libraries replay " << file << "\n";
      return 2;
    }
  std::optional<tcnum::Model> model;
  if (!o.model_file.empty()) model = tcnum::load_model_file(o.model_file);
  // Files are replayed in parallel (one file per worker at a time) and reported in order.
  std::vector<FileResult> results(o.files.size());
  std::vector<std::atomic<bool>> done(o.files.size());
  auto replay_one = [&](std::size_t f) {
    FileResult& r = results[f];
    try {
      r.tally = tcnum::replay_file(o.files[f], model ? &*model : nullptr, [&](const tcnum::ReplayIssue& is) {
        if (r.issue_count++ < static_cast<std::size_t>(o.max_errors)) r.issues.push_back(is);
      });
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    done[f].store(true, std::memory_order_release);
    done[f].notify_all();
  };
  // The pool works in the background while this thread prints the files in order.
  std::jthread pool([&] { tcnum::parallel_for(o.files.size(), tcnum::resolve_threads(o.threads), replay_one); });

  std::ostream& text = text_stream(o.json);
  std::size_t passed = 0, failed = 0;
  int shown = 0;
  nlohmann::json report = nlohmann::json::array();
  for (std::size_t f = 0; f < o.files.size(); ++f) {
    done[f].wait(false, std::memory_order_acquire);
    const std::string& file = o.files[f];
    const FileResult& r = results[f];
    if (!r.error.empty()) {
      text << file << ": error: " << r.error << "\n";
      ++failed;
      continue;
    }
    for (const auto& is : r.issues) {
      if (shown >= o.max_errors) break;
      ++shown;
      if (is.malformed) {
        text << is.file << ":" << is.line << ": malformed: " << is.reason << "\n";
        continue;
      }
      const auto& k = *is.kase;
      const auto fmt = k.instruction.d_type;
      text << is.file << ":" << is.line << ": mismatch " << k.arch << " " << k.instruction.name
                << "\n  device   " << describe(fmt, k.d) << "\n  emulator " << describe(fmt, is.emulated) << "\n";
    }
    const tcnum::ReplayTally& t = r.tally;
    // A file with no case proves nothing: an empty or unreadable corpus must not pass.
    if (t.passed + t.failed == 0 && !o.allow_empty) {
      text << file << ": error: no cases in " << file << " (--allow-empty accepts this)\n";
      ++failed;
    }
    passed += t.passed;
    failed += t.failed;
    report.push_back({{"file", file}, {"passed", t.passed}, {"failed", t.failed}});
  }
  if (failed > static_cast<std::size_t>(shown) && shown >= o.max_errors)
    text << "(" << failed - shown << " more failures not shown; raise --max-errors)\n";
  if (o.json)
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"files", report}, {"passed", passed}, {"failed", failed}}.dump(2) << "\n";
  text << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

void register_replay(CLI::App& app, Status& status) {
  auto o = std::make_shared<ReplayOptions>();
  auto* cmd = app.add_subcommand("replay", "Replay corpus files (.tcc/.tcc.gz) against a model, bit for bit");
  cmd->add_option("files", o->files, "corpus files")->required()->check(CLI::ExistingFile);
  add_model_option(cmd, o->model_file, "model JSON file instead of each arch's built-in model");
  cmd->add_option("--max-errors", o->max_errors, "mismatches to print")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 30));
  add_json_flag(cmd, o->json, "per-file JSON summary on stdout (the text report then goes to stderr)");
  cmd->add_option("--threads", o->threads, "files replayed at once (0 = every core)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_flag("--allow-empty", o->allow_empty, "accept a file with no case (otherwise an error)");
  cmd->footer("Ends with 'N passed, M failed'; exit status 0 only when M is 0 and every file held a case.");
  cmd->callback([o, &status] { status.code = run_replay(*o); });
}

}  // namespace numprobe
