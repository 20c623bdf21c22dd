// numprobe fit: run the feature recipes on every instruction and write a model file.
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "output_file.hpp"
#include "features_print.hpp"
#include "instr_option.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

using namespace tcnum;
using namespace tcnum::features;

struct FitCmdOptions {
  std::string backend = "emu", arch, model_file, instr = "all", out;
  bool force = false;
  std::uint64_t seed = 1;
  std::size_t random_cases = 100;
  bool report = false, json = false, no_published = false;
};

std::string rnd(Rounding r) { return r == Rounding::toward_zero ? "rz" : "rne"; }

std::vector<std::string> fit_row(const InstructionFit& f) {
  const Measurement& m = f.measured;
  const Instruction& in = f.instruction;
  const DatapathParams e = effective_params(f.params, in);
  std::string F = m.frac_bits ? std::to_string(*m.frac_bits) + (m.frac_bits_at_least ? "+" : "") : "?";
  std::string kb = m.block_size ? std::to_string(*m.block_size) + (m.block_size_at_least ? "+" : "") : "?";
  if (e.k_passes > 1) kb += " x" + std::to_string(e.k_passes) + "/" + std::to_string(e.pass_interleave);
  std::string c = !m.addend ? "?" : e.addend == AddendEntry::first_block ? "first" : e.addend == AddendEntry::last_block ? "last" : "ieee-add";
  std::string blocks = std::string(name_of(e.block_format)) + "/" + rnd(e.block_rounding);
  if (e.block_result_frac_bits) blocks += " cut" + std::to_string(e.block_result_frac_bits);
  std::string d = in.d_type == e.block_format ? "-" : std::string(e.output_direct ? "direct/" : "double/") + rnd(e.output_rounding);
  std::string sub = m.flush_subnormal_inputs ? (*m.flush_subnormal_inputs ? "flush" : "kept") : "?";
  if (e.unpack_format) sub += ", unpack " + std::string(name_of(*e.unpack_format));
  if (e.align_exponent_floor) sub += ", floor " + std::to_string(*e.align_exponent_floor);
  std::string ovf = m.overflow_to_inf ? (*m.overflow_to_inf ? "inf" : "saturate") : "n/a";
  std::string zeros = m.negative_zero_results ? (*m.negative_zero_results ? "ieee" : "+0") : "?";
  return {in.name, F, kb, c, blocks, d, sub, ovf, zeros, std::to_string(f.verified) + "/" + std::to_string(f.verify_total)};
}

std::string rule_text(const ModelRule& r) {
  std::string who;
  if (r.family) who += std::string(family_name(*r.family)) + " ";
  if (r.inputs) who += std::string(input_class_name(*r.inputs)) + " ";
  if (r.d_type) who += "D=" + std::string(name_of(*r.d_type)) + " ";
  if (who.empty()) who = "* ";
  return who + "-> " + params_text(r.params);
}

int run_fit(const FitCmdOptions& o) {
  std::optional<OutputFile> out;  // opened first: an existing file is refused before a long fit
  if (!o.out.empty()) out.emplace(o.out, o.force);
  const Backend b = make_backend(o.backend, o.arch, o.model_file);
  const std::vector<Instruction> instrs = select_instructions(o.instr, b.sm, fit_instructions(b.sm));
  const auto t0 = std::chrono::steady_clock::now();
  if (!o.json) std::cout << "numprobe fit: sm_" << b.sm << " (" << b.description << "), " << instrs.size() << " instruction(s)\n" << std::flush;

  std::vector<InstructionFit> fits;
  nlohmann::json jfits = nlohmann::json::array();
  bool all_verified = true;
  for (const auto& in : instrs) {
    FitOptions fo;
    fo.seed = o.seed;
    fo.random_cases = o.random_cases;
    fo.features.published = !o.no_published;
    std::optional<DatapathParams> ref;
    const Model* refm = b.reference ? &*b.reference : nullptr;
    if (refm) {
      try {
        ref = refm->params_for(in);
        fo.features.reference = &*ref;
      } catch (const std::exception&) {
      }
    }
    if (!o.json) std::cerr << "  fitting " << in.name << " ...\n";
    fits.push_back(fit_instruction(in, black_box(b, in), fo));
    const InstructionFit& f = fits.back();
    all_verified &= f.verified == f.verify_total;
    if (o.report && !o.json) {
      std::cout << "\n######## " << in.name << "\n";
      for (const auto& r : f.reports) {
        std::cout << "\n";
        print_report(std::cout, r, fo.features.reference != nullptr);
      }
    }
    nlohmann::json jr = nlohmann::json::array();
    if (o.json && o.report)
      for (const auto& r : f.reports) jr.push_back(report_json(r));
    const auto row = fit_row(f);
    jfits.push_back({{"instruction", in.name}, {"F", row[1]}, {"Kb", row[2]}, {"C", row[3]}, {"blocks", row[4]},
                     {"f16_D", row[5]}, {"subnormals", row[6]}, {"overflow", row[7]}, {"zeros", row[8]}, {"verified", f.verified},
                     {"verify_total", f.verify_total}, {"issues", f.issues}, {"params", params_summary(f.params, in)},
                     {"reports", jr}});
  }
  const std::string source = "numprobe fit on " + b.description;
  const Model fitted = assemble_model("sm_" + std::to_string(b.sm), b.sm,
                                      "fitted by numprobe fit (" + b.description + "); docs/numprobe.md", fits, source);
  // Compare with the built-in model of the arch (and with the emulated model, for emu).
  const Model& builtin = builtin_model(b.sm);
  const auto diff_builtin = compare_models(fitted, builtin, instrs);
  std::vector<std::string> diff_emulated;
  if (!b.device && b.model) diff_emulated = compare_models(fitted, *b.model, instrs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (out) {
    out->stream() << model_to_json(fitted);
    out->commit();
  }
  if (o.json) {
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"backend", b.description}, {"arch", "sm_" + std::to_string(b.sm)}, {"fits", jfits},
                                {"model", nlohmann::json::parse(model_to_json(fitted))},
                                {"differs_from_builtin", diff_builtin}, {"seconds", secs}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "\nper instruction (F: kept fraction bits; Kb: products per block, + = all of a pass, xP/I = P passes\n"
                 "interleaved by I; C: where C enters; blocks: block result format/rounding; f16 D: how D is rounded;\n"
                 "zeros: sign of zero results; verified: probes + random cases the fitted parameters reproduce)\n";
    std::vector<std::vector<std::string>> rows = {
        {"instruction", "F", "Kb", "C", "blocks", "f16 D", "subnormals", "overflow", "zeros", "verified"}};
    for (const auto& f : fits) rows.push_back(fit_row(f));
    print_table(std::cout, rows, "  ");
    for (const auto& f : fits)
      for (const auto& i : f.issues) std::cout << "  issue: " << f.instruction.name << ": " << i << "\n";
    std::cout << "\nfitted model (" << fitted.rules.size() << " rules, first match wins):\n";
    for (const auto& r : fitted.rules) std::cout << "  " << rule_text(r) << "\n";
    if (diff_builtin.empty())
      std::cout << "\nequal to the built-in sm_" << b.sm << " model on every fitted instruction"
                << (o.instr == "all" ? " (the same function on every instruction of sm_" + std::to_string(b.sm) + ")" : "") << "\n";
    else {
      std::cout << "\nDIFFERS from the built-in sm_" << b.sm << " model on " << diff_builtin.size() << " instruction(s):\n";
      for (const auto& d : diff_builtin) std::cout << "  " << d << "\n";
    }
    if (!b.device && b.model && b.model->name != builtin.name) {
      if (diff_emulated.empty()) std::cout << "equal to the emulated model (" << b.model->name << ")\n";
      else std::cout << "DIFFERS from the emulated model on " << diff_emulated.size() << " instruction(s)\n";
    }
    if (!o.out.empty()) std::cout << "written: " << o.out << "\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f s", secs);
    std::cout << "(" << buf << ")\n";
  }
  if (!all_verified) return 1;
  if (!b.device && !diff_emulated.empty()) return 1;  // emu: a fit that misses its own model is a bug
  return 0;
}

}  // namespace

void register_fit(CLI::App& app, Status& status) {
  auto o = std::make_shared<FitCmdOptions>();
  auto* cmd = app.add_subcommand("fit", "Run the feature tests on every instruction and fit a model file");
  cmd->add_option("--backend", o->backend, "device (the GPU) or emu (a model; a self-consistency check)")->capture_default_str();
  add_arch_option(cmd, o->arch, "emu");
  add_model_option(cmd, o->model_file, "emu: fit this model file instead of the built-in one");
  add_instr_option(cmd, o->instr, "one per family, shape and types", "all");
  cmd->add_option("--out", o->out, "write the fitted model here (JSON, loadable by replay --model)");
  cmd->add_flag("--force", o->force, "overwrite an existing --out file");
  add_seed_option(cmd, o->seed, "seed of the random verification cases");
  cmd->add_option("--random-cases", o->random_cases, "random verification cases per distribution")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000000));
  cmd->add_flag("--report", o->report, "print every feature report of every instruction");
  cmd->add_flag("--no-published", o->no_published, "skip the published recipes' cross-checks (faster on a GPU)");
  add_json_flag(cmd, o->json, "JSON on stdout");
  cmd->footer(
      "Examples:\n"
      "  numprobe fit --backend device --out h100.json          (GPU)\n"
      "  numprobe fit --backend device --instr mma.m16n8k16.f32.bf16.bf16.f32 --report\n"
      "  numprobe fit --backend emu --arch sm_90                 (self-consistency: must print 'equal')\n"
      "  numprobe replay --model h100.json corpora/h100/*/*.tcc.gz\n"
      "Exit status 1 when a fitted instruction does not reproduce every case it was asked.");
  cmd->callback([o, &status] { status.code = run_fit(*o); });
}

}  // namespace numprobe
