// numprobe chain: the chain matrix-multiplication error study of Sun et al. (§8.2, Fig. 17),
// on the emulator or on the GPU (include/tcnum/studies/chain.hpp, docs/chain-study.md).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "instr_option.hpp"
#include "output_file.hpp"
#include "tcnum/core/black_box.hpp"
#include "tcnum/studies/chain.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/format.hpp"
#include "version.hpp"

#ifdef TCNUM_HAVE_CUDA
#include "tcnum/probes/device.hpp"
#include "tcnum/probes/device_box.hpp"
#endif

namespace numprobe {
namespace {

namespace ch = tcnum::chain;

struct ChainOptions {
  std::vector<std::string> dtypes{"fp16", "bf16", "tf32"};
  std::vector<std::string> inits{"low", "fp32"};
  int max_len = 20;
  int trials = 1000;
  std::string instr = "mma";
  std::string backend = "emu";
  std::string arch;  // emu: kDefaultArch when empty; device: the GPU's
  std::string model_file;
  bool exact_model = false;
  std::string scaling = "auto";
  int rows = 16;
  int k = 0;
  std::uint64_t seed = 1;
  int threads = 0;
  bool no_exact = false;
  std::string out = "chain.csv";
  std::string summary;
  bool force = false;
  bool json = false;
  bool quiet = false;
};

// Progress on stderr: a bar redrawn in place on a terminal, else a line every 10% (or 30 s).
class ProgressBar {
 public:
  ProgressBar(std::size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {
    start_ = last_line_ = std::chrono::steady_clock::now();
  }
  void set_label(std::string label) { label_ = std::move(label); }
  void update(std::size_t done) {
    if (quiet_ || total_ == 0) return;
    done_ = std::min(done, total_);
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double frac = static_cast<double>(done_) / static_cast<double>(total_);
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    char tail[160];
    std::snprintf(tail, sizeof tail, "%5.1f%%  %s  %.0fs elapsed, ~%.0fs left", 100 * frac, label_.c_str(), elapsed,
                  eta);
    if (tty_) {
      constexpr int width = 30;
      const int filled = static_cast<int>(frac * width);
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar.resize(width, '.');
      std::fprintf(stderr, "\r[%s] %s\x1b[K", bar.c_str(), tail);
      std::fflush(stderr);
      return;
    }
    const int decile = static_cast<int>(frac * 10);
    if (decile > last_decile_ || std::chrono::duration<double>(now - last_line_).count() > 30 || done_ == total_) {
      if (done_ == total_ && printed_end_) return;
      printed_end_ = done_ == total_;
      last_decile_ = decile;
      last_line_ = now;
      std::fprintf(stderr, "chain: %s\n", tail);
    }
  }
  void finish() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  std::size_t total_, done_ = 0;
  bool quiet_, tty_;
  bool printed_end_ = false;
  int last_decile_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_line_;
};

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9e", v);
  return buf;
}

nlohmann::json jnum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// What --instr selects (instr_option.hpp): chain takes one item; a family word is the family's
// study instruction of the dtype (the paper's m16n8k8 for mma), a name that instruction.
tcnum::Instruction resolve_instruction(const std::string& spec, tcnum::Format dtype, int sm) {
  const InstrItem it = one_instr_item(spec, "chain takes");
  if (it.family) return ch::study_instruction(dtype, *it.family, sm);
  const tcnum::Instruction in = find_instr(it.text, sm);
  if (in.a_type != dtype)
    throw std::invalid_argument("--instr " + in.name + " takes " + std::string(tcnum::name_of(in.a_type)) +
                                " inputs, not --dtype " + std::string(tcnum::name_of(dtype)));
  return in;
}


// Device vs emulator on the same inputs, link by link (the chain itself runs on the device).
struct ElementCheck {
  int link = 0;
  std::size_t elements = 0, differing = 0;
  nlohmann::json examples = nlohmann::json::array();
};

struct Comparison {
  std::size_t chains = 0, identical_chains = 0, links = 0, identical_links = 0;
  int first_trial = -1, first_link = -1;
};

// Where the chains run: the emulator (a model of sm, or the ideal tensor core) or the GPU.
struct Backend {
  bool device = false;
  std::string device_name;  // the GPU, in words
  int sm = 0;
  std::string arch;         // as the outputs name it: sm_XX, or "exact"
  tcnum::Model model;
};

Backend resolve_backend(const ChainOptions& o) {
  Backend be;
  be.device = o.backend == "device";
  if (o.backend != "emu" && !be.device) throw std::invalid_argument("--backend must be emu or device");
#ifndef TCNUM_HAVE_CUDA
  if (be.device) throw std::runtime_error("--backend device: numprobe was built without CUDA (TCNUM_CUDA=ON)");
#endif
  if (be.device) {
#ifdef TCNUM_HAVE_CUDA
    std::string why;
    if (!tcnum::device::available(&why)) throw std::runtime_error("--backend device: " + why);
    const auto info = tcnum::device::info();
    be.device_name = info.name + " (sm_" + std::to_string(info.sm) + ", driver " + info.driver + ", CUDA " +
                     info.runtime + ")";
    be.sm = info.sm;
    if (!o.arch.empty() && tcnum::parse_arch(o.arch) != be.sm)
      throw std::invalid_argument("--arch " + o.arch + " but the GPU is sm_" + std::to_string(be.sm));
#endif
  } else {
    be.sm = arch_or_default(o.arch);
  }
  be.arch = o.exact_model ? "exact" : "sm_" + std::to_string(be.sm);
  be.model = o.model_file.empty() ? tcnum::builtin_model(be.sm) : tcnum::load_model_file(o.model_file);
  if (o.exact_model) {
    if (be.device) throw std::invalid_argument("--exact-model is for the emulator backend");
    be.model = tcnum::Model{"exact", be.sm, "every term kept, one rounding (RNE) to D", {}};
    be.model.rules.push_back(tcnum::ModelRule{std::nullopt, std::nullopt, std::nullopt, tcnum::exact_params(),
                                              "ideal tensor core", false, {}});
  }
  return be;
}

struct Job {
  ch::Config cfg;
  std::string dtype;
};

ch::Config job_config(const ChainOptions& o, const tcnum::Instruction& in, tcnum::Format fmt, ch::Init init) {
  ch::Config c;
  c.instr = in;
  c.rows = o.rows;
  c.k = o.k;
  c.max_len = o.max_len;
  c.trials = o.trials;
  c.init = init;
  c.seed = o.seed;
  c.threads = o.threads;
  c.exact_reference = !o.no_exact;
  const bool fp8 = fmt == tcnum::Format::e4m3 || fmt == tcnum::Format::e5m2;
  if (o.scaling == "auto") {
    c.scaling = in.block_scaled() ? ch::Scaling::block : fp8 ? ch::Scaling::amax : ch::Scaling::none;
  } else {
    const auto s = ch::parse_scaling(o.scaling);
    if (!s) throw std::invalid_argument("--scaling " + o.scaling + ": expected auto, none, amax, pow2 or block");
    c.scaling = *s;
  }
  return c;
}

// Every configuration (dtype × init), validated before anything runs.
std::vector<Job> chain_jobs(const ChainOptions& o, const Backend& be) {
  std::vector<Job> jobs;
  for (const auto& dt : o.dtypes) {
    const auto fmt = tcnum::parse_format(dt == "fp16" ? "f16" : dt);
    if (!fmt || *fmt == tcnum::Format::fp32 || *fmt == tcnum::Format::ue8m0 || *fmt == tcnum::Format::ue4m3)
      throw std::invalid_argument("--dtype " + dt + ": expected fp16, bf16, tf32, e4m3, e5m2, e2m1, e2m3 or e3m2");
    const tcnum::Instruction in = resolve_instruction(o.instr, *fmt, be.sm);
    for (const auto& is : o.inits) {
      const auto init = ch::parse_init(is);
      if (!init) throw std::invalid_argument("--init " + is + ": expected low or fp32");
      const ch::Config c = job_config(o, in, *fmt, *init);
      be.model.params_for(in);  // throws when the model has no rule for it
      jobs.push_back({c, dt});
    }
  }
  return jobs;
}

// The per-trial CSV (unless o.out is empty: only a summary asked for) and, when asked for, the
// per-N summary CSV.
class ChainFiles {
 public:
  explicit ChainFiles(const ChainOptions& o) {
    if (!o.out.empty()) {
      csv_file_.emplace(checked_out(o), o.force);
      csv_file_->stream() << "dtype,init,instr,backend,arch,trial,n,rel_err_fp32,rel_err_exact,overflow,first_overflow,"
                             "saturated,scaling,emu_match,baseline_err_exact\n";
    }
    if (o.summary.empty()) return;
    summary_file_.emplace(o.summary, o.force);
    summary_file_->stream() << "dtype,init,instr,backend,arch,scaling,n,trials,finite,mean_rel_err_fp32,mean_rel_err_exact,"
                               "median_rel_err_fp32,median_rel_err_exact,overflow_fraction,saturated_fraction,"
                               "mean_baseline_err_exact\n";
  }

  // One line per trial and link; emu_match (the d_hash field reused) only when compared with the emulator.
  void write_trials(const std::string& head, const ch::Result& r, bool compared) {
    if (!csv_file_) return;
    std::ostream& csv = csv_file_->stream();
    for (std::size_t t = 0; t < r.trials.size(); ++t) {
      const ch::Trial& tr = r.trials[t];
      for (std::size_t l = 0; l < tr.links.size(); ++l) {
        const ch::Link& ln = tr.links[l];
        csv << head << t << ',' << l + 1 << ',' << num(ln.rel_err_fp32) << ',' << num(ln.rel_err_exact) << ','
            << ln.overflow << ',' << tr.first_overflow << ',' << ln.saturated << ',' << ch::name_of(r.config.scaling)
            << ',' << (compared ? std::to_string(ln.d_hash) : std::string()) << ',' << num(ln.baseline_err_exact)
            << '\n';
      }
    }
  }

  void write_summary(const std::string& head, const ch::Point& p) {
    if (!summary_file_) return;
    summary_file_->stream() << head << p.n << ',' << p.trials << ',' << p.finite << ',' << num(p.mean_rel_err_fp32)
                            << ',' << num(p.mean_rel_err_exact) << ',' << num(p.median_rel_err_fp32) << ','
                            << num(p.median_rel_err_exact) << ',' << p.overflow_fraction << ','
                            << p.saturated_fraction << ',' << num(p.mean_baseline_err_exact) << '\n';
  }

  void commit() {
    if (csv_file_) csv_file_->commit();
    if (summary_file_) summary_file_->commit();
  }

 private:
  static const std::string& checked_out(const ChainOptions& o) {
    if (!o.summary.empty() && same_file(o.out, o.summary))
      throw std::invalid_argument("chain: --out and --summary name the same file ('" + o.out + "'): one would replace the other");
    return o.out;
  }
  std::optional<OutputFile> csv_file_, summary_file_;
};

// One configuration's run, with the device-vs-emulator comparison when the device ran it.
struct JobRun {
  ch::Result result;
  std::optional<Comparison> cmp;
  std::optional<ElementCheck> element_check;
};

// Running totals of the device-vs-emulator comparison over every configuration.
struct DeviceTotals {
  Comparison cmp;
  std::size_t elements = 0, differing = 0;
  bool all_match = true;
  void add(const Comparison& c, const ElementCheck& ec) {
    cmp.chains += c.chains;
    cmp.identical_chains += c.identical_chains;
    cmp.links += c.links;
    cmp.identical_links += c.identical_links;
    all_match = all_match && c.identical_chains == c.chains && ec.differing == 0;
    elements += ec.elements;
    differing += ec.differing;
  }
};

#ifdef TCNUM_HAVE_CUDA
// The GPU as a box whose every link's product is also emulated on the very same inputs, element by element.
tcnum::BlackBox checked_device_box(const tcnum::BlackBox& dev, const tcnum::BlackBox& emu, ElementCheck& ec) {
  tcnum::BlackBox checked;
  checked.gemm = [&dev, &emu, &ec](const tcnum::Instruction& in, int batch, int m, int n, int k,
                                   std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                   const tcnum::BatchScales& scales) {
    std::vector<std::uint32_t> d = tcnum::batched_gemm(dev, in, batch, m, n, k, a, b, scales);
    const std::vector<std::uint32_t> e = tcnum::batched_gemm(emu, in, batch, m, n, k, a, b, scales);
    ++ec.link;
    ec.elements += d.size();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (d[i] == e[i]) continue;
      ++ec.differing;
      if (ec.examples.size() < 8) {
        const std::size_t t = i / (static_cast<std::size_t>(m) * n), rc = i % (static_cast<std::size_t>(m) * n);
        ec.examples.push_back({{"trial", t}, {"n", ec.link}, {"row", rc / n}, {"col", rc % n},
                               {"device", tcnum::hex_field(in.d_type, d[i])},
                               {"emulator", tcnum::hex_field(in.d_type, e[i])},
                               {"device_value", tcnum::to_double(in.d_type, d[i])},
                               {"emulator_value", tcnum::to_double(in.d_type, e[i])}});
      }
    }
    return d;
  };
  return checked;
}

// The device's chains against the emulator's (same seed), link by link through the D hashes.
Comparison compare_chains(const ch::Result& r, const ch::Result& e) {
  Comparison c;
  for (std::size_t t = 0; t < r.trials.size(); ++t) {
    bool same = true;
    for (std::size_t l = 0; l < r.trials[t].links.size(); ++l) {
      const bool eq = r.trials[t].links[l].d_hash == e.trials[t].links[l].d_hash;
      ++c.links;
      c.identical_links += eq;
      if (!eq && same && c.first_trial < 0) {
        c.first_trial = static_cast<int>(t);
        c.first_link = static_cast<int>(l) + 1;
      }
      same = same && eq;
    }
    ++c.chains;
    c.identical_chains += same;
  }
  return c;
}

// Per link, per trial: does the emulator chain equal the device chain up to and including n?
// Kept in d_hash, which the CSV writes as the emu_match column.
void mark_emulator_match(ch::Result& r, const ch::Result& e) {
  for (std::size_t t = 0; t < r.trials.size(); ++t) {
    bool same = true;
    for (std::size_t l = 0; l < r.trials[t].links.size(); ++l) {
      same = same && r.trials[t].links[l].d_hash == e.trials[t].links[l].d_hash;
      r.trials[t].links[l].d_hash = same ? 1 : 0;
    }
  }
}

// The chains on the GPU (each link's product checked on the emulator), then again on the emulator alone.
JobRun run_on_device(const ch::Config& cfg, const tcnum::Model& model, int threads, const ch::Progress& progress,
                     const std::function<void()>& next_pass) {
  JobRun run;
  ElementCheck ec;
  const tcnum::BlackBox dev = tcnum::device::device_box();
  const tcnum::BlackBox emu = tcnum::emulator_box(model, threads);
  run.result = ch::run(cfg, checked_device_box(dev, emu, ec), progress);
  next_pass();
  ch::Config shadow = cfg;
  shadow.fp32_reference = shadow.exact_reference = false;
  const ch::Result e = ch::run(shadow, emu, progress);
  run.cmp = compare_chains(run.result, e);
  run.element_check = ec;
  mark_emulator_match(run.result, e);
  return run;
}
#endif

nlohmann::json comparison_json(const Comparison& c, const ElementCheck& ec) {
  return {{"chains", c.chains}, {"identical_chains", c.identical_chains}, {"links", c.links},
          {"identical_links", c.identical_links}, {"first_mismatch_trial", c.first_trial},
          {"first_mismatch_n", c.first_link}, {"same_input_elements", ec.elements},
          {"same_input_differing", ec.differing}, {"examples", ec.examples}};
}

// One configuration's summary: its points (also written to the summary CSV) and first-overflow histogram.
nlohmann::json config_json(const Job& job, const JobRun& run, const std::string& summary_head, ChainFiles& files) {
  const ch::Config& cfg = job.cfg;
  const ch::Result& r = run.result;
  std::map<int, int> first_overflow;
  for (const auto& tr : r.trials) ++first_overflow[tr.first_overflow];
  nlohmann::json jc = {{"dtype", job.dtype},
                       {"init", ch::name_of(cfg.init)},
                       {"instr", cfg.instr.name},
                       {"scaling", ch::name_of(cfg.scaling)},
                       {"rows", cfg.rows},
                       {"k", cfg.k ? cfg.k : cfg.instr.k},
                       {"points", nlohmann::json::array()}};
  nlohmann::json hist = nlohmann::json::object();
  for (const auto& [n, count] : first_overflow) hist[n == 0 ? "none" : std::to_string(n)] = count;
  jc["first_overflow"] = hist;
  for (const auto& p : ch::summarize(r)) {
    jc["points"].push_back({{"n", p.n},
                            {"finite", p.finite},
                            {"mean_rel_err_fp32", jnum(p.mean_rel_err_fp32)},
                            {"mean_rel_err_exact", jnum(p.mean_rel_err_exact)},
                            {"median_rel_err_fp32", jnum(p.median_rel_err_fp32)},
                            {"median_rel_err_exact", jnum(p.median_rel_err_exact)},
                            {"overflow_fraction", p.overflow_fraction},
                            {"saturated_fraction", p.saturated_fraction},
                            {"mean_baseline_err_exact", jnum(p.mean_baseline_err_exact)}});
    files.write_summary(summary_head, p);
  }
  if (run.cmp) jc["device_vs_emulator"] = comparison_json(*run.cmp, *run.element_check);
  return jc;
}

// A compact table: mean errors at a few chain lengths, per configuration.
void print_table(const ChainOptions& o, const nlohmann::json& report, const Backend& be, const DeviceTotals& totals) {
  std::vector<int> shown;
  for (int n : {1, 5, 10, 20, o.max_len})
    if (n <= o.max_len && std::find(shown.begin(), shown.end(), n) == shown.end()) shown.push_back(n);
  for (const auto& jc : report["configs"]) {
    std::cout << jc["dtype"].get<std::string>() << "/" << jc["init"].get<std::string>() << " "
              << jc["instr"].get<std::string>() << " (scaling " << jc["scaling"].get<std::string>() << ")\n";
    for (int n : shown) {
      const auto& p = jc["points"][static_cast<std::size_t>(n - 1)];
      auto str = [](const nlohmann::json& v) { return v.is_null() ? std::string("-") : num(v.get<double>()); };
      std::cout << "  N=" << n << "  mean rel err vs fp32 " << str(p["mean_rel_err_fp32"]) << ", vs exact "
                << str(p["mean_rel_err_exact"]) << ", overflowed " << p["overflow_fraction"].get<double>() * 100
                << "%\n";
    }
    std::cout << "  first overflow (N: trials): " << jc["first_overflow"].dump() << "\n";
    if (jc.contains("device_vs_emulator")) {
      const auto& c = jc["device_vs_emulator"];
      std::cout << "  device vs emulator: " << c["identical_chains"] << "/" << c["chains"]
                << " chains bit-identical (" << c["identical_links"] << "/" << c["links"] << " links); "
                << c["same_input_differing"] << " of " << c["same_input_elements"]
                << " D elements differ on the same inputs\n";
      if (!c["examples"].empty()) std::cout << "  examples: " << c["examples"].dump() << "\n";
    }
  }
  if (be.device)
    std::cout << "device vs emulator, all configurations: " << totals.cmp.identical_chains << "/"
              << totals.cmp.chains << " chains bit-identical, " << totals.cmp.identical_links << "/"
              << totals.cmp.links << " links; " << totals.differing << " of " << totals.elements
              << " D elements differ on the same inputs\n";
  std::cout << "wrote " << (o.out.empty() ? o.summary : o.out + (o.summary.empty() ? "" : " and " + o.summary)) << "\n";
}

int run_chain(const ChainOptions& o) {
  const Backend be = resolve_backend(o);
  const std::vector<Job> jobs = chain_jobs(o, be);
  ChainFiles files(o);
  const std::size_t per_job = static_cast<std::size_t>(o.trials) * static_cast<std::size_t>(o.max_len);
  ProgressBar bar(per_job * jobs.size() * (be.device ? 2 : 1), o.quiet);
  std::size_t offset = 0;
  nlohmann::json report = {{"numprobe", version_json()}, {"backend", o.backend}, {"arch", be.arch}, {"model", be.model.name},
                           {"seed", o.seed},       {"trials", o.trials}, {"max_len", o.max_len},
                           {"configs", nlohmann::json::array()}};
  if (be.device) report["device"] = be.device_name;
  DeviceTotals totals;
  if (!o.json) {
    std::cout << "chain study: backend " << o.backend << ", " << be.arch << " (model " << be.model.name << ")"
              << (be.device ? ", " + be.device_name : "") << ", " << o.trials << " trials, N = 1.." << o.max_len
              << ", seed " << o.seed << "\n";
  }
  for (const Job& job : jobs) {
    const ch::Config& cfg = job.cfg;
    const std::string label = job.dtype + "/" + std::string(ch::name_of(cfg.init)) + " " + cfg.instr.name;
    bar.set_label(label);
    auto progress = [&](std::size_t done, std::size_t) { bar.update(offset + done); };
    JobRun run;
#ifdef TCNUM_HAVE_CUDA
    if (be.device) {
      run = run_on_device(cfg, be.model, o.threads, progress, [&] {
        offset += per_job;
        bar.set_label(label + " (emulator)");
      });
      totals.add(*run.cmp, *run.element_check);
    } else
#endif
    {
      run.result = ch::run(cfg, tcnum::emulator_box(be.model, o.threads), progress);
    }
    offset += per_job;
    const std::string head = job.dtype + "," + std::string(ch::name_of(cfg.init)) + "," + cfg.instr.name + "," +
                             o.backend + "," + be.arch + ",";
    files.write_trials(head, run.result, run.cmp.has_value());
    const std::string summary_head = job.dtype + "," + std::string(ch::name_of(cfg.init)) + "," + cfg.instr.name + "," +
                                     o.backend + "," + be.arch + "," + std::string(ch::name_of(cfg.scaling)) + ",";
    report["configs"].push_back(config_json(job, run, summary_head, files));
  }
  bar.finish();
  if (be.device)
    report["device_vs_emulator"] = {{"chains", totals.cmp.chains},
                                    {"identical_chains", totals.cmp.identical_chains},
                                    {"links", totals.cmp.links},
                                    {"identical_links", totals.cmp.identical_links},
                                    {"same_input_elements", totals.elements},
                                    {"same_input_differing", totals.differing}};
  files.commit();
  if (o.json) std::cout << report.dump(1) << "\n";
  else print_table(o, report, be, totals);
  return totals.all_match ? 0 : 1;
}

}  // namespace

void register_chain(CLI::App& app, Status& status) {
  auto o = std::make_shared<ChainOptions>();
  auto* cmd = app.add_subcommand(
      "chain", "Chain matrix-multiplication error study (Sun et al. §8.2, Fig. 17): D_i = D_{i-1}·B_i");
  cmd->add_option("--dtype", o->dtypes, "input formats, comma-separated: fp16, bf16, tf32, e4m3, e5m2 (e2m1, e2m3, e3m2 with a block-scaled --instr)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--init", o->inits,
                  "low: N(0,1) rounded to the input format; fp32: N(0,1) in fp32, converted on the way in")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--max-len", o->max_len, "longest chain (every N = 1..max-len is reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--trials", o->trials, "independent chains per configuration")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  add_instr_option(cmd, o->instr, "not for chain: one instruction per dtype; mma is m16n8k8 (m16n8k32 for fp8), "
                   "wgmma m64n8k16/k8/k32", "mma");
  cmd->add_option("--backend", o->backend, "emu (the emulator) or device (the GPU, compared with the emulator)")
      ->capture_default_str()
      ->check(CLI::IsMember({"emu", "device"}));
  add_arch_option(cmd, o->arch, "model architecture (device: the GPU's)");
  add_model_option(cmd, o->model_file, "model JSON file instead of the built-in model");
  cmd->add_flag("--exact-model", o->exact_model,
                "emulate an ideal tensor core (every product kept, one RNE rounding to D) as a control");
  cmd->add_option("--scaling", o->scaling, "scaling: auto (block for block-scaled instructions, amax for fp8, else none), none, amax, pow2, block")
      ->capture_default_str();
  cmd->add_option("--rows", o->rows, "rows of A and of every D_i")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--k", o->k, "K = N of every B_i (0: the instruction's K)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65536));
  add_seed_option(cmd, o->seed, "seed (std::mt19937_64 per trial)");
  cmd->add_option("--threads", o->threads, "worker threads (0: all)")->capture_default_str()->check(CLI::Range(0, 1024));
  cmd->add_flag("--no-exact", o->no_exact, "skip the exact (MPFR) reference chain");
  auto* out = cmd->add_option("--out", o->out, "per-trial CSV (default chain.csv; none when only a summary is asked for: "
                                             "--summary or --json without --out)");
  cmd->add_option("--summary", o->summary, "per-N summary CSV (means over finite trials)");
  cmd->add_flag("--force", o->force, "overwrite existing --out/--summary files");
  add_json_flag(cmd, o->json, "print the summary as JSON on stdout instead of the table");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->footer(
      "Example (the paper's Fig. 17 on the A100 model):\n"
      "  numprobe chain --dtype fp16,bf16,tf32 --init low,fp32 --max-len 20 --trials 1000 --arch sm_80 "
      "--out chain.csv\n"
      "Block-scaled (MXFP8, NVFP4; the instruction's own per-block scales, docs/chain-study.md):\n"
      "  numprobe chain --arch sm_120 --dtype e4m3 --init fp32 --instr "
      "mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 --out mxfp8.csv\n"
      "With --backend device every link's product is also emulated on the same inputs, and the whole\n"
      "chains are re-run on the emulator (same seed) and compared bit for bit; exit status 1 when any\n"
      "element or chain differs.");
  cmd->callback([o, out, &status] {
    if (out->count() == 0 && (!o->summary.empty() || o->json)) o->out.clear();  // only a summary asked for
    status.code = run_chain(*o);
  });
}

}  // namespace numprobe
