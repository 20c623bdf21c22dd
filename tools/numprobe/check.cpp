// numprobe check: fresh random cases, device against emulator, for every instruction.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "device_session.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/sparse.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

struct CheckOptions {
  std::string model_file, mismatches_out;
  CaseSelection select{.cases = 2000};
  std::uint64_t seed = 0;  // 0: from the clock (fresh cases)
  bool json = false, force = false;
};

// --mismatches-out: an existing corpus is refused unless --force; the cases go to a temporary
// file beside it, renamed into place only when complete (removed on failure). A target that is
// not a regular file (/dev/null) is written in place.
class MismatchesFile {
 public:
  MismatchesFile(const std::string& path, bool force) : path_(path) {
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (exists && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode) && !force)
      throw std::runtime_error("--mismatches-out: '" + path + "' exists; give --force to overwrite it");
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (!exists || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
      temp_ = (gz ? path.substr(0, path.size() - 3) : path) + ".tmp-" + std::to_string(::getpid()) + (gz ? ".gz" : "");
    writer_.emplace(temp_.empty() ? path : temp_);
  }
  ~MismatchesFile() {
    if (committed_ || temp_.empty()) return;
    writer_.reset();
    std::remove(temp_.c_str());
  }
  tcnum::CorpusWriter& writer() { return *writer_; }
  void commit() {
    writer_->close();
    if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error("cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno));
    committed_ = true;
  }

 private:
  std::string path_, temp_;
  std::optional<tcnum::CorpusWriter> writer_;
  bool committed_ = false;
};

int run_check(CheckOptions o) {
  if (o.seed == 0) o.seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::ostream& text = text_stream(o.json);
  const int sm = device_sm();  // fails early and clearly without a GPU
  text << "device: " << device_description() << "\nseed: " << o.seed << "\n";
  std::optional<tcnum::Model> override_model;
  if (!o.model_file.empty()) override_model = tcnum::load_model_file(o.model_file);
  const tcnum::Model& model = override_model ? *override_model : tcnum::builtin_model(sm);
  const auto instrs = device_instructions(o.select.instr, sm, o.select.wgmma_n);
  const auto dists = select_distributions(o.select.dist);
  std::optional<MismatchesFile> bad;
  if (!o.mismatches_out.empty()) bad.emplace(o.mismatches_out, o.force);

  nlohmann::json rows = nlohmann::json::array();
  text << std::left << std::setw(36) << "instruction";
  for (const auto& d : dists) text << std::right << std::setw(10) << d;
  text << "\n";
  std::size_t total_bad = 0, total = 0;
  // A progress line on stderr when the table goes to a file or pipe (stdout), not to the terminal
  // nor to stderr (--json).
  ProgressLine line("check", !o.json && ::isatty(1) == 0);
  const std::uint64_t planned = static_cast<std::uint64_t>(instrs.size() * dists.size() * o.select.cases);
  for (const auto& in : instrs) {
    text << std::left << std::setw(36) << in.name << std::flush;
    for (const auto& dist : dists) {
      const auto cases = draw_cases(in, dist, o.select.cases, stream_seed(o.seed, in.name, dist));
      const auto dev = run_on_device(in, cases, true);
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto emu = in.sparse ? tcnum::sparse_element(model.params_for(in), in, cases[i].a, cases[i].b, cases[i].c, cases[i].meta)
                                   : tcnum::mma_element(model, in, cases[i].a, cases[i].b, cases[i].c);
        if (emu != dev[i]) {
          ++mismatches;
          if (bad)
            bad->writer().write(tcnum::format_case_line("sm_" + std::to_string(sm), in, cases[i].a, cases[i].b, cases[i].c, dev[i],
                                               cases[i].scale_a, cases[i].scale_b, cases[i].meta));
        }
      }
      total_bad += mismatches;
      total += cases.size();
      text << std::right << std::setw(10) << mismatches << std::flush;
      rows.push_back({{"instruction", in.name}, {"distribution", dist}, {"cases", cases.size()}, {"mismatches", mismatches}});
      line.update(total, planned, "cases", -1, -1, std::to_string(total_bad) + " mismatches");
    }
    text << "\n";
  }
  line.finish();
  if (bad) bad->commit();
  text << total - total_bad << " passed, " << total_bad << " failed\n";
  if (o.json)
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"seed", o.seed}, {"rows", rows}, {"passed", total - total_bad}, {"failed", total_bad}}.dump(2)
              << "\n";
  return total_bad == 0 ? 0 : 1;
}

}  // namespace

void register_check(CLI::App& app, Status& status) {
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand("check", "Live check on a GPU: fresh random cases, device vs emulator, per instruction x distribution");
  add_case_options(cmd, o->select);
  add_seed_option(cmd, o->seed, "seed; 0 = from the clock");
  add_model_option(cmd, o->model_file, "model JSON instead of the built-in model of the GPU's architecture");
  cmd->add_option("--mismatches-out", o->mismatches_out, "write mismatching cases as corpus lines here");
  cmd->add_flag("--force", o->force, "overwrite an existing --mismatches-out file");
  add_json_flag(cmd, o->json, "the table as JSON on stdout (text on stderr)");
  cmd->footer(
      "Examples (GPU):\n"
      "  numprobe check --cases 2000 --wgmma-n 8,16,64,128,256   (docs/live-check-h100.txt)\n"
      "  numprobe check --instr mma.m16n8k16.f32.bf16.bf16.f32 --dist spread --seed 7\n"
      "  numprobe check --instr sparse,integer --cases 1000   (mma.sp/wgmma.sp with random metadata; s8/u8/s4/u4)\n"
      "  numprobe check --model fitted.json --mismatches-out bad.tcc   (mismatches as corpus lines)\n"
      "Exit status 1 when any case differs.");
  cmd->callback([o, &status] { status.code = run_check(*o); });
}

}  // namespace numprobe
