// numprobe fuzz: long campaigns, device (or a stand-in model) against the emulator, and
// `numprobe fuzz merge` of shard outputs. The engine is tcnum/fuzz/campaign.hpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "fuzz_backends.hpp"
#include "instr_option.hpp"
#include "tcnum/core/build_id.hpp"
#include "tcnum/fuzz/campaign.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

struct FuzzOptions {
  std::string instr = "all", dist = "all", time, out, shard, backend = "device", device_model, model_file, arch;
  std::uint64_t cases = 0, seed = 0;
  std::vector<int> devices{0}, wgmma_n;
  bool resume = false, force = false, both_a_sources = false, quiet = false, json = false;
  int threads = 0;
  std::size_t batch = 16384, batches_per_round = 16, raw_limit = 1000000;
  double checkpoint_every = 30;
};

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;
  bool json = false, force = false;
};

// "90s", "15m", "2h", "1h30m", "45" (seconds).
double parse_duration(const std::string& text) {
  double total = 0;
  std::size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || !std::isfinite(v) || v < 0) throw std::invalid_argument("--time: '" + text + "' is not a duration like 90s, 15m, 2h");
    i += used;
    double unit = 1;
    if (i < text.size() && std::string("smhd").find(text[i]) != std::string::npos) {
      unit = text[i] == 's' ? 1 : text[i] == 'm' ? 60 : text[i] == 'h' ? 3600 : 86400;
      ++i;
    }
    total += v * unit;
    any = true;
  }
  if (!any || total <= 0) throw std::invalid_argument("--time: '" + text + "' is not a positive duration");
  return total;
}

// "I/N"; "mpi": the rank and size an MPI launcher (OpenMPI, MPICH/PMI) exported.
std::pair<int, int> parse_shard(const std::string& text) {
  if (text.empty()) return {0, 1};
  if (text == "mpi") {
    for (const auto& [rank, size] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                     std::pair{"PMI_RANK", "PMI_SIZE"}, std::pair{"PMIX_RANK", "PMIX_SIZE"}}) {
      const char* r = std::getenv(rank);
      const char* s = std::getenv(size);
      if (r && s) return {std::atoi(r), std::atoi(s)};
    }
    throw std::invalid_argument("--shard mpi: no MPI rank in the environment (start it with mpirun/srun)");
  }
  int i = -1, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
    throw std::invalid_argument("--shard: '" + text + "' is not I/N with 0 <= I < N");
  return {i, n};
}

// What --instr selects (instr_option.hpp); "all" is every instruction of the arch the generators
// draw for (no tcgen05, no m8n8k4), wgmma at --wgmma-n when given. Block-scaled
// kinds (their scales drawn by tcnum/fuzz/scales.hpp) only where the backend runs them:
// `--backend emu`; no GPU probe runs them yet. "sparse": the sparse forms (wgmma.mma_async.sp at
// N = 8, 64, 256, the probes' kernels, unless --wgmma-n says otherwise).
std::vector<tcnum::Instruction> pick_instructions(const std::string& which, int sm, const std::vector<int>& wgmma_n,
                                                  bool block_scaled_ok) {
  std::vector<tcnum::Instruction> all;
  for (const auto& in : tcnum::instructions_for(sm)) {
    if (in.family == tcnum::Family::tcgen05) continue;           // no tcgen05 probes yet
    if (in.block_scaled() && !block_scaled_ok) continue;
    // integer forms: their own draws (emu/fuzz/integer_cases.cpp), every N of integer wgmma
    if (in.family == tcnum::Family::mma && in.m == 8) continue;  // m8n8k4: Volta's
    if (in.family == tcnum::Family::wgmma && !wgmma_n.empty() &&
        std::find(wgmma_n.begin(), wgmma_n.end(), in.n) == wgmma_n.end())
      continue;
    all.push_back(in);
  }
  for (const auto& in : tcnum::sparse_instructions_for(sm))  // "sparse": wgmma.sp at --wgmma-n, else 8, 64, 256
    if (in.family == tcnum::Family::mma ||
        (wgmma_n.empty() ? in.n == 8 || in.n == 64 || in.n == 256
                         : std::find(wgmma_n.begin(), wgmma_n.end(), in.n) != wgmma_n.end()))
      all.push_back(in);
  auto out = select_instructions(which, sm, all);
  for (const auto& in : out)
    if (in.block_scaled() && !block_scaled_ok)
      throw std::invalid_argument("--instr " + in.name +
                                  ": block-scaled instructions run in fuzz campaigns with --backend emu only (no GPU "
                                  "probe kernel runs them yet; numprobe record, check and replay handle them)");
  return out;
}

std::vector<std::string> pick_distributions(const std::string& which) {
  if (which == "all") return tcnum::fuzz::distribution_names();
  std::vector<std::string> out;
  std::stringstream ss(which);
  for (std::string d; std::getline(ss, d, ',');) {
    tcnum::fuzz::distribution_description(d);  // throws for an unknown name, listing the valid ones
    out.push_back(d);
  }
  return out;
}

std::string fnv_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// SIGINT, SIGTERM and SIGHUP end a campaign after the running pair, with a checkpoint; a second
// signal ends it at once (the handler is reset on the first: SA_RESETHAND).
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};

extern "C" void request_stop(int sig) {
  g_stop_signal.store(sig);
  g_stop.store(true);
}

void stop_on_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {}, sa {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, background jobs
    sa.sa_handler = request_stop;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

// After an interrupted campaign: say so, then end as the signal would have.
[[noreturn]] void end_interrupted(const std::string& dir) {
  std::cerr << "fuzz: interrupted by signal " << g_stop_signal.load() << ": the checkpoint in " << dir
            << " is consistent; run the same command with --resume to continue\n";
  std::signal(g_stop_signal.load(), SIG_DFL);
  std::raise(g_stop_signal.load());
  std::_Exit(2);
}

// A whole number in lo..hi, spelled in decimal digits only ("-1" and "1e3" are refused, not wrapped).
CLI::Validator count_in_range(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        const bool digits = !v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos;
        const std::uint64_t x = digits ? std::stoull(v) : 0;
        if (!digits || x < lo || x > hi) return "'" + v + "' is not a whole number in " + range;
        return std::string();
      },
      "INT in " + range);
}

int run_fuzz(const FuzzOptions& o) {
  if (o.out.empty()) throw std::invalid_argument("fuzz: --out DIR is required");
  if (o.cases == 0 && o.time.empty()) throw std::invalid_argument("fuzz: give --cases N or --time DURATION");
  if (o.backend != "device" && o.backend != "emu")
    throw std::invalid_argument("--backend: '" + o.backend + "' is not device or emu");
  if (o.backend == "emu" && o.device_model.empty())
    throw std::invalid_argument("--backend emu needs --device-model FILE (the model that plays the device)");

  tcnum::fuzz::CampaignConfig cfg;
  cfg.seed = o.seed;
  cfg.cases = o.cases;
  cfg.seconds = o.time.empty() ? 0 : parse_duration(o.time);
  std::tie(cfg.shard, cfg.shards) = parse_shard(o.shard);
  cfg.out_dir = o.out;
  if (o.shard == "mpi") cfg.out_dir += "/shard-" + std::to_string(cfg.shard);  // one directory per rank
  cfg.resume = o.resume;
  cfg.force = o.force;
  if (o.resume && o.force) throw std::invalid_argument("fuzz: --resume and --force exclude each other");
  cfg.threads = o.threads;
  cfg.batch = o.batch;
  cfg.batches_per_round = o.batches_per_round;
  cfg.checkpoint_seconds = o.checkpoint_every;
  cfg.raw_limit = o.raw_limit;
  cfg.run_info.emplace_back("build", tcnum::executable_build_id());
  const nlohmann::json numprobe_build = version_json();  // summary.json's "run" names the build as --version does
  for (const char* key : {"version", "git_revision", "compiler", "cuda"})
    cfg.run_info.emplace_back(key, numprobe_build[key].get<std::string>());

  std::unique_ptr<tcnum::fuzz::Backend> device;
  int sm = arch_or_default(o.arch);
  if (o.backend == "device") {
    check_devices(o.devices);
    const DeviceFacts facts = device_facts(o.devices.at(0));
    if (o.arch.empty()) sm = facts.sm;
    cfg.run_info.insert(cfg.run_info.end(), facts.info.begin(), facts.info.end());
    std::string list;
    for (int d : o.devices) list += (list.empty() ? "" : ",") + std::to_string(d);
    cfg.run_info.emplace_back("devices", list);
    device = make_device_backend(o.devices, o.both_a_sources);
    cfg.device_identity = "GPU " + facts.info.at(0).second + " (sm_" + std::to_string(facts.sm) + ")";
  } else {
    const tcnum::Model stand_in = tcnum::load_model_file(o.device_model);
    cfg.device_identity = "stand-in model " + stand_in.name + " (JSON hash " + fnv_hex(tcnum::model_to_json(stand_in)) + ")";
    device = std::make_unique<tcnum::fuzz::EmuBackend>(stand_in, o.threads);
    cfg.run_info.emplace_back("device", "stand-in: " + o.device_model);
  }
  cfg.arch = "sm_" + std::to_string(sm);
  const tcnum::Model model = o.model_file.empty() ? tcnum::builtin_model(sm) : tcnum::load_model_file(o.model_file);
  cfg.instructions = pick_instructions(o.instr, sm, o.wgmma_n, o.backend == "emu");
  cfg.distributions = pick_distributions(o.dist);

  cfg.stop = &g_stop;
  stop_on_signals();  // before the header line: a caller that waits for it may signal at once
  std::cerr << "fuzz: " << cfg.instructions.size() << " instructions x " << cfg.distributions.size()
            << " distributions, model " << model.name << ", " << device->description() << ", shard " << cfg.shard
            << "/" << cfg.shards << ", seed " << cfg.seed << " -> " << cfg.out_dir << "\n";
  ProgressLine line("fuzz", !o.quiet);
  const auto progress = [&](const tcnum::fuzz::Progress& p) {
    line.update(p.cases, 0, "cases", p.cases_per_s, p.eta_s,
                std::to_string(p.mismatches) + " mismatches, " + std::to_string(p.signatures) + " signatures");
  };
  const auto r = tcnum::fuzz::run_campaign(cfg, model, *device, progress);
  line.finish();
  if (r.interrupted) end_interrupted(cfg.out_dir);
  const std::string summary = cfg.out_dir + "/summary.json";
  text_stream(o.json) << r.cases << " cases, " << r.mismatches << " mismatches, " << r.signatures << " signatures"
                      << (r.complete ? "" : " (not complete: --resume continues)") << "; " << summary << "\n";
  if (o.json)
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"cases", r.cases},           {"mismatches", r.mismatches},
                                {"signatures", r.signatures}, {"complete", r.complete},
                                {"elapsed_s", r.elapsed_s},   {"summary", summary}}
                     .dump(1)
              << "\n";
  return r.mismatches == 0 ? 0 : 1;
}

}  // namespace

void register_fuzz(CLI::App& app, Status& status) {
  auto o = std::make_shared<FuzzOptions>();
  auto m = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand("fuzz", "Fuzz campaign: device (or a stand-in model) against the emulator, "
                                         "checkpointed, resumable, sharded; mismatches minimised by signature");
  add_instr_option(cmd, o->instr, "every instruction of the arch the generators draw for, wgmma at --wgmma-n", "all");
  cmd->add_option("--dist", o->dist, "distributions, comma-separated, or all (normal randbits spread cancel "
                                     "special subnorm boundary)")
      ->capture_default_str();
  cmd->add_option("--cases", o->cases, "cases per instruction x distribution (all shards together)")
      ->check(count_in_range(1, tcnum::fuzz::kMaxCasesPerPair));
  cmd->add_option("--threads", o->threads, "host threads (0: every core)")->capture_default_str()->check(CLI::Range(0, 4096));
  cmd->add_option("--time", o->time, "run for this long (90s, 15m, 2h) per session");
  add_seed_option(cmd, o->seed, "seed: the same seed draws the same cases");
  cmd->add_option("--out", o->out, "campaign directory (summary.json, mismatches.tcc, raw.tcc.gz, checkpoint)");
  add_devices_option(cmd, o->devices);
  cmd->add_option("--shard", o->shard, "I/N: this process runs shard I of N; 'mpi': rank/size from mpirun "
                                       "(writes OUT/shard-RANK)");
  cmd->add_flag("--resume", o->resume, "continue the campaign in --out from its last checkpoint");
  cmd->add_flag("--force", o->force, "discard the campaign (or the start of one) in --out and start again");
  cmd->add_option("--backend", o->backend, "device | emu (a model plays the GPU)")->capture_default_str();
  cmd->add_option("--device-model", o->device_model, "model JSON that plays the device (--backend emu)")
      ->check(CLI::ExistingFile);
  add_model_option(cmd, o->model_file, "model under test (JSON); default: the built-in model of the arch");
  cmd->add_option("--arch", o->arch, "architecture (default: the device's; sm_90 for --backend emu)");
  cmd->add_option("--wgmma-n", o->wgmma_n, "only these wgmma N (default: every legal N)")->delimiter(',');
  cmd->add_option("--batch", o->batch, "cases per generator batch, rounded up to whole tiles (the unit of seeding and sharding)")
      ->capture_default_str()
      ->check(count_in_range(1, 1u << 24));
  cmd->add_option("--batches-per-round", o->batches_per_round, "batches per instruction x distribution per device run")
      ->capture_default_str()
      ->check(count_in_range(1, 65536));
  cmd->add_option("--checkpoint-every", o->checkpoint_every, "seconds between checkpoints")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--raw-limit", o->raw_limit, "raw mismatches kept in raw.tcc.gz")
      ->capture_default_str()
      ->check(count_in_range(0, 1000000000));
  cmd->add_flag("--both-a-sources", o->both_a_sources, "wgmma: run A from shared memory and registers, compare");
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  add_json_flag(cmd, o->json, "the result (counts, completeness, the summary's path) as JSON on stdout; text on stderr");
  cmd->footer("Exit status 0 when no case mismatched, 1 when some did, 2 on errors.\n"
              "Example: numprobe fuzz --instr all --time 10m --seed 1 --out campaign/h100");

  auto* merge = cmd->add_subcommand("merge", "Join shard outputs of one campaign into one report");
  merge->add_option("dirs", m->dirs, "shard campaign directories")->required()->check(CLI::ExistingDirectory);
  merge->add_option("--out", m->out, "directory for the merged report")->required();
  merge->add_flag("--force", m->force, "overwrite the files of an earlier merge in --out");
  add_json_flag(merge, m->json, "the merged summary.json on stdout; text on stderr");
  merge->callback([m, &status] {
    tcnum::fuzz::merge_campaigns(m->dirs, m->out, m->force);
    text_stream(m->json) << "merged " << m->dirs.size() << " shards into " << m->out << "/summary.json\n";
    if (m->json) std::cout << std::ifstream(m->out + "/summary.json").rdbuf();
    status.code = 0;
  });
  cmd->callback([o, merge, &status] {
    if (merge->parsed()) return;
    status.code = run_fuzz(*o);
  });
}

}  // namespace numprobe
