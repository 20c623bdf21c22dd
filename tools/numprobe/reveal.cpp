// numprobe reveal: find the schedule a black-box GEMM follows (tcnum/core/reveal.hpp).
//
// The black box is chosen by --backend; `make_black_box` is the one place a backend is made.
// This build has one: `emu`, tcnum::gemm running a schedule read from --hidden (for tests and
// demos: reveal must recover it). A GPU library backend would be another case there, built
// where the probes are (TCNUM_HAVE_CUDA), returning D for the A and B it is given.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "output_file.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/reveal.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

constexpr long long kMaxWork = 1LL << 32;  // M·N·K of one search (hundreds of emulated GEMMs)
constexpr std::streamsize kMaxScheduleBytes = 1 << 20;

struct RevealCliOptions {
  std::string instr, arch, model_file, backend = "emu", hidden, json_file;
  int m = 8, n = 8, k = 0, max_split = 8, input_sets = 2;
  std::uint64_t seed = 1;
};

std::string read_schedule_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::invalid_argument("cannot read '" + path + "'");
  std::string text(static_cast<std::size_t>(kMaxScheduleBytes) + 1, '\0');
  f.read(text.data(), kMaxScheduleBytes + 1);
  if (f.gcount() > kMaxScheduleBytes) throw std::invalid_argument("over 1 MiB: not a schedule");
  text.resize(static_cast<std::size_t>(f.gcount()));
  return text;
}

// The hidden schedule, parsed and checked against the call (an error names the key or field).
tcnum::Schedule hidden_schedule(const RevealCliOptions& o, const tcnum::Instruction& in) {
  if (o.hidden.empty()) throw std::invalid_argument("--backend emu needs --hidden SCHEDULE.json (the schedule the black box runs)");
  try {
    tcnum::Schedule s = tcnum::parse_schedule(read_schedule_file(o.hidden));
    tcnum::check_schedule(s, in, o.k);
    return s;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--hidden " + o.hidden + ": " + e.what());
  }
}

tcnum::GemmBlackBox make_black_box(const RevealCliOptions& o, const tcnum::Model& model, const tcnum::Instruction& in) {
  if (o.backend != "emu") throw std::invalid_argument("--backend: '" + o.backend + "' is not a black box of this build (emu)");
  tcnum::GemmOptions opt;
  opt.schedule = hidden_schedule(o, in);
  const std::vector<std::uint32_t> c(static_cast<std::size_t>(o.m) * static_cast<std::size_t>(o.n),
                                     tcnum::zero_bits(in.c_type, false));
  return [model, in, o, opt, c](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    return tcnum::gemm(model, in, o.m, o.n, o.k, a, b, c, opt);
  };
}

void check_sizes(const RevealCliOptions& o) {
  if (o.k < 1) throw std::invalid_argument("--k is required (K >= 1)");
  if (static_cast<long long>(o.m) * o.n * o.k > kMaxWork)
    throw std::invalid_argument("M·N·K = " + std::to_string(static_cast<long long>(o.m) * o.n * o.k) +
                                " is above 2^32: too large to search (every output element is its own chain: "
                                "a few rows and columns, e.g. --m 8 --n 8, show the schedule)");
}

nlohmann::json schedule_object(const tcnum::Schedule& s) { return nlohmann::json::parse(tcnum::schedule_to_json(s)); }

nlohmann::json report(const RevealCliOptions& o, const tcnum::Instruction& in, int sm, const tcnum::RevealResult& r) {
  return {{"numprobe", version_json()},
          {"instruction", in.name},
          {"arch", "sm_" + std::to_string(sm)},
          {"m", o.m}, {"n", o.n}, {"k", o.k},
          {"backend", o.backend},
          {"seed", o.seed}, {"max_split", o.max_split}, {"input_sets", o.input_sets},
          {"found", r.schedule.has_value()},
          {"schedule", r.schedule ? schedule_object(*r.schedule) : nlohmann::json(nullptr)},
          {"best", schedule_object(r.best)},
          {"best_matched", r.best_matched}, {"total", r.total},
          {"tried", r.tried}, {"candidates", r.candidates}};
}

void write_report(const std::string& path, const nlohmann::json& j) {
  OutputFile out(path, true);
  out.stream() << j.dump(1) << "\n";
  out.commit();
}

int run_reveal(const RevealCliOptions& o) {
  check_sizes(o);
  const ModelChoice mc = choose_model(o.arch, o.model_file);
  const tcnum::Instruction in = tcnum::find_instruction(o.instr, mc.sm);
  if (in.block_scaled()) throw std::invalid_argument(in.name + " is block-scaled: reveal takes no scale tensors");
  const tcnum::GemmBlackBox box = make_black_box(o, mc.model, in);
  tcnum::RevealOptions opt;
  opt.max_split = o.max_split;
  opt.seed = o.seed;
  opt.input_sets = o.input_sets;
  const tcnum::RevealResult r = tcnum::reveal_schedule(mc.model, box, in, o.m, o.n, o.k, opt);
  if (!o.json_file.empty()) write_report(o.json_file, report(o, in, mc.sm, r));
  if (r.schedule) {
    std::cerr << "reveal: candidate " << r.tried << " of " << r.candidates << " reproduces all " << r.total
              << " output elements (" << in.name << ", " << mc.description << ")\n";
    std::cout << tcnum::schedule_to_json(*r.schedule) << "\n";
    return 0;
  }
  std::cout << "no schedule in the language fits: the best of " << r.candidates << " candidates matched "
            << r.best_matched << " of " << r.total << " output elements\n";
  std::cerr << "reveal: the best candidate: " << tcnum::schedule_to_json(r.best) << "\n";
  return 1;
}

}  // namespace

void register_reveal(CLI::App& app, Status& status) {
  auto o = std::make_shared<RevealCliOptions>();
  auto* cmd = app.add_subcommand("reveal", "Find the schedule (split-K, k-tiles, partial tile, reduction, tf32 "
                                           "rounding) a black-box GEMM follows, or say that none in the language fits");
  cmd->add_option("--instr", o->instr, "the instruction (numprobe list --arch ...)")->required();
  cmd->add_option("--m", o->m, "rows of A and D")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--n", o->n, "columns of B and D")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--k", o->k, "K, any length (a partial k-step is padded with zeros)")->required()->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-split", o->max_split, "split_k candidates 1..S")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("--input-sets", o->input_sets, "input sets per distribution (normal, wide)")
      ->capture_default_str()->check(CLI::Range(1, 16));
  add_seed_option(cmd, o->seed, "seed of the inputs (tcnum-irwin12-v1): input set i uses seed + i");
  add_arch_option(cmd, o->arch, "the model that computes the candidates (and plays the emu black box)");
  add_model_option(cmd, o->model_file, "model JSON instead of the built-in one");
  cmd->add_option("--backend", o->backend, "the black box: emu (tcnum::gemm running the --hidden schedule)")->capture_default_str();
  cmd->add_option("--hidden", o->hidden, "--backend emu: the schedule JSON the black box runs");
  cmd->add_option("--json", o->json_file, "also write a report (found schedule or null, the best candidate, counts) to FILE");
  cmd->footer(
      "Prints the schedule found as JSON (what tcnum::parse_schedule reads) on stdout, exit 0; or\n"
      "'no schedule in the language fits' with the best candidate's count, exit 1; errors exit 2.\n"
      "Examples:\n"
      "  echo '{\"split_k\": 3, \"slice_rule\": \"whole_tiles\", \"tile_k\": 64}' > hidden.json\n"
      "  numprobe reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --k 1000 --backend emu --hidden hidden.json\n"
      "  numprobe reveal --instr mma.m16n8k8.f32.tf32.tf32.f32 --m 4 --n 4 --k 333 --max-split 4 \\\n"
      "      --backend emu --hidden hidden.json --json report.json\n");
  cmd->callback([o, &status] { status.code = run_reveal(*o); });
}

}  // namespace numprobe
