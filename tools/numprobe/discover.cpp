// numprobe profile (the element-wise profiling of Sun et al., §8.1) and numprobe features (the
// feature tests), on a GPU (--backend device) or on any model (--backend emu --arch sm_XX);
// `numprobe --dtype X --op Y` is the documented alias of both.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "features_print.hpp"
#include "instr_option.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

using namespace tcnum;
using namespace tcnum::features;

struct DiscoverOptions {
  enum class Kind : std::uint8_t { any, features, profile };  // which entry point: the alias, or a subcommand
  Kind kind = Kind::any;
  std::string dtype, op, backend = "emu", arch, instr, init = "both", acc = "f32", model_file, c_init = "own";
  std::size_t trials = 1000;
  std::uint64_t seed = 1;
  bool json = false;
};

const char* kProfileOps[] = {"multiply", "inner", "accumulate"};

bool is_profile_op(const std::string& op) {
  return op == "profile" || op == "multiply" || op == "inner" || op == "accumulate";
}

std::string sci(double x) {
  if (x == 0) return "0.0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2E", x);
  return buf;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The dtype's name as the paper writes it in column heads.
std::string paper_name(Format f) {
  switch (f) {
    case Format::fp16: return "FP16";
    case Format::bf16: return "BF16";
    case Format::tf32: return "TF32";
    case Format::e4m3: return "E4M3";
    case Format::e5m2: return "E5M2";
    default: return upper(std::string(name_of(f)));
  }
}

// Sun et al.'s published A100 values, for the rows we print (multiply, inner, accumulate) x (low, fp32).
struct PaperTable {
  const char* name;
  double v[3][2];
  double cvt[3][2];  // f16 C/D only: w.r.t. FP32 converted to FP16
};
std::optional<PaperTable> paper_table(Format dtype, Format acc) {
  if (dtype == Format::bf16 && acc == Format::fp32)
    return PaperTable{"Table 12 (BF16, C/D FP32)", {{0.0, 1.29e-3}, {0.0, 1.72e-3}, {1.89e-8, 1.13e-3}}, {}};
  if (dtype == Format::fp16 && acc == Format::fp32)
    return PaperTable{"Table 13 (FP16, C/D FP32)", {{0.0, 1.59e-4}, {0.0, 2.18e-4}, {0.0, 1.36e-4}}, {}};
  if (dtype == Format::fp16 && acc == Format::fp16)
    return PaperTable{"Table 14 (FP16, C/D FP16)",
                      {{1.22e-4, 1.94e-4}, {1.81e-4, 2.99e-4}, {1.81e-4, 2.99e-4}},
                      {{0.0, 1.67e-4}, {0.0, 2.21e-4}, {0.0, 2.21e-4}}};
  if (dtype == Format::tf32 && acc == Format::fp32)
    return PaperTable{"Table 15 (TF32, C/D FP32)", {{0.0, 1.59e-4}, {0.0, 2.17e-4}, {0.0, 1.36e-4}}, {}};
  return std::nullopt;
}

const char* row_name(ProfileOp op) {
  return op == ProfileOp::multiply ? "multiplication" : op == ProfileOp::inner ? "add - inner product" : "add - accumulation";
}

int run_profile(const DiscoverOptions& o, const Backend& b, const Instruction& in, Format dtype) {
  std::vector<ProfileOp> ops;
  for (const char* name : kProfileOps)
    if (o.op == "profile" || o.op == name)
      ops.push_back(std::string(name) == "multiply" ? ProfileOp::multiply : std::string(name) == "inner" ? ProfileOp::inner : ProfileOp::accumulate);
  std::vector<Init> inits;
  if (o.init == "both" || o.init == "low") inits.push_back(Init::low);
  if (o.init == "both" || o.init == "fp32") inits.push_back(Init::fp32);
  if (inits.empty()) throw std::invalid_argument("--init must be low, fp32 or both");
  if (o.c_init != "own" && o.c_init != "input") throw std::invalid_argument("--c-init must be own or input");
  const BlackBox box = black_box(b, in);
  std::vector<std::vector<ProfileCell>> cells;
  for (ProfileOp op : ops) {
    cells.emplace_back();
    for (Init init : inits) cells.back().push_back(profile(in, box, op, init, o.trials, o.seed, o.c_init == "input"));
  }
  const bool f16 = in.d_type != Format::fp32;
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < ops.size(); ++i)
      for (const auto& c : cells[i]) {
        nlohmann::json r{{"op", std::string(name_of(c.op))}, {"init", std::string(name_of(c.init))},
                         {"vs_cpu_fp32", c.vs_cpu_fp32}, {"vs_exact", c.vs_exact},
                         {"trials_differ_cpu_fp32", c.differ_cpu_fp32}, {"trials_differ_exact", c.differ_exact}};
        if (f16) r["vs_cpu_fp32_cvt_f16"] = c.vs_cpu_fp32_cvt, r["trials_differ_cpu_fp32_cvt_f16"] = c.differ_cpu_fp32_cvt;
        rows.push_back(r);
      }
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"study", "Sun et al. TPDS 2023 §8.1 element-wise profiling"},
                                {"backend", b.description}, {"arch", "sm_" + std::to_string(b.sm)},
                                {"dtype", std::string(name_of(dtype))}, {"instruction", in.name},
                                {"acc", std::string(name_of(in.d_type))}, {"trials", o.trials}, {"seed", o.seed},
                                {"c_init", o.c_init}, {"model_validation", model_validation(b, in)},
                                {"error", "mean absolute error"}, {"rows", rows}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "Element-wise profiling (Sun et al., \"Dissecting Tensor Cores via Microbenchmarks\", §8.1)\n"
            << "  " << name_of(dtype) << " on sm_" << b.sm << " (" << b.description << "), " << in.name << ", C/D "
            << upper(std::string(name_of(in.d_type))) << "\n"
            << "  " << o.trials << " trials of N(0,1), seed " << o.seed << "; mean absolute error of D"
            << (o.c_init == "input" ? "; C drawn in the input format" : "") << "\n"
            << "  " << model_validation(b, in) << "\n\n";
  const std::string low = "init_" + paper_name(dtype);
  auto init_head = [&](Init i) { return i == Init::low ? low : std::string("init_FP32"); };
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> top = {""}, head = {""};
  auto group = [&](const std::string& title) {
    for (std::size_t k = 0; k < inits.size(); ++k) {
      top.push_back(k == 0 ? title : "");
      head.push_back(init_head(inits[k]));
    }
  };
  group(f16 ? "CPU_FP32" : "w.r.t. FP32 on CPU");
  if (f16) group("CPU_FP32cvtFP16");
  group("w.r.t. exact (MPFR)");
  rows.push_back(top);
  rows.push_back(head);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::vector<std::string> r = {row_name(ops[i])};
    for (const auto& c : cells[i]) r.push_back(sci(c.vs_cpu_fp32));
    if (f16)
      for (const auto& c : cells[i]) r.push_back(sci(c.vs_cpu_fp32_cvt));
    for (const auto& c : cells[i]) r.push_back(sci(c.vs_exact));
    rows.push_back(r);
  }
  print_table(std::cout, rows, "  ");
  std::cout << "\n  trials with a nonzero error (w.r.t. FP32" << (f16 ? " / FP32cvtFP16" : "") << " / exact):\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::cout << "    " << row_name(ops[i]) << ":";
    for (const auto& c : cells[i]) {
      std::cout << "  " << init_head(c.init) << " " << c.differ_cpu_fp32;
      if (f16) std::cout << " / " << c.differ_cpu_fp32_cvt;
      std::cout << " / " << c.differ_exact;
    }
    std::cout << "\n";
  }
  if (const auto t = paper_table(dtype, in.d_type)) {
    std::cout << "\n  Sun et al., " << t->name << ", A100 (w.r.t. FP32 on CPU" << (f16 ? "; CPU_FP32cvtFP16" : "") << "):\n";
    std::vector<std::vector<std::string>> prow = {{"", low, "init_FP32"}};
    if (f16) prow[0].insert(prow[0].end(), {low + " (cvt)", "init_FP32 (cvt)"});
    for (ProfileOp op : ops) {
      const int i = static_cast<int>(op);
      std::vector<std::string> r = {row_name(op), sci(t->v[i][0]), sci(t->v[i][1])};
      if (f16) r.insert(r.end(), {sci(t->cvt[i][0]), sci(t->cvt[i][1])});
      prow.push_back(r);
    }
    print_table(std::cout, prow, "    ");
  }
  std::cout << "\n  Set-ups (every other element of A, B, C is +0): multiplication d = a0*b0; inner product\n"
               "  d = a0*1 + a1*1; accumulation d = a0*1 + c0 (c0 is the inner product's a1). init_low draws each\n"
               "  operand in the format the instruction reads (C in C's format); init_FP32 draws FP32 and converts\n"
               "  on the way in. Exact: the MPFR value of what the tensor core received. See docs/numprobe.md.\n";
  return 0;
}

int run_feature_ops(const DiscoverOptions& o, const Backend& b, const std::vector<Instruction>& instrs) {
  std::vector<std::string> names;
  if (o.op == "all") names = feature_names();
  else names = {o.op};
  nlohmann::json all = nlohmann::json::array();
  bool anomalies = false;
  std::vector<std::vector<std::string>> block_rows = {{"instruction", "K", "products fused per step", "steps"}};
  if (!o.json) {
    std::cout << "numprobe features --op " << o.op << " on sm_" << b.sm << " (" << b.description << ")\n";
  }
  for (const auto& in : instrs) {
    FeatureOptions opt;
    std::optional<DatapathParams> ref;
    if (b.reference) {
      try {
        ref = b.reference->params_for(in);
        opt.reference = &*ref;
      } catch (const std::exception&) {
      }
    }
    const auto reports = run_features(in, black_box(b, in), names, opt);
    if (!o.json && o.op != "blocksize") std::cout << "\n" << in.name << ": " << model_validation(b, in) << "\n";
    for (const auto& r : reports) {
      anomalies |= !r.anomalies.empty();
      if (o.json) {
        all.push_back(report_json(r));
        all.back()["model_validation"] = model_validation(b, in);
        continue;
      }
      if (o.op == "blocksize" && instrs.size() > 1) {
        std::string kb = "?", steps = "?";
        for (const auto& f : r.facts) {
          if (f.key == "block_size") kb = std::to_string(std::get<std::int64_t>(f.value));
          if (f.key == "blocks_per_instruction") steps = std::to_string(std::get<std::int64_t>(f.value));
        }
        for (const auto& f : r.facts)
          if (f.key == "block_size_at_least" && std::get<bool>(f.value)) kb += "+ (all of K)";
        const std::string k = in.sparse ? std::to_string(in.a_elements()) + " selected of " + std::to_string(in.k)
                                        : std::to_string(in.k);
        block_rows.push_back({in.name, k, kb, steps});
        continue;
      }
      std::cout << "\n";
      print_report(std::cout, r, opt.reference != nullptr);
    }
  }
  if (o.json) {
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"backend", b.description}, {"arch", "sm_" + std::to_string(b.sm)}, {"reports", all}}.dump(2) << "\n";
  } else if (o.op == "blocksize" && instrs.size() > 1) {
    std::cout << "\nblocksize: products fused per step (FPRev-style survivors, see docs/numprobe.md)\n";
    print_table(std::cout, block_rows, "  ");
  }
  return anomalies ? 1 : 0;
}

// What --instr selects for features and profile (instr_option.hpp). Features: "all" is every
// instruction the fit runs, of the dtype (of the arch without --dtype); without --instr the
// dtype's default instruction (every one of the dtype for --op blocksize). The profiling ops take
// one instruction: a family word is the family's default instruction of the dtype.
std::vector<Instruction> discover_instructions(const DiscoverOptions& o, int sm, Format dtype, Format acc, bool profile_op) {
  if (profile_op && !o.instr.empty()) {
    const InstrItem it = one_instr_item(o.instr, "the profiling ops take");
    return {it.family ? default_instruction(dtype, sm, acc, *it.family) : find_instr(it.text, sm)};
  }
  if (o.instr.empty() && (profile_op || o.op != "blocksize")) return {default_instruction(dtype, sm, acc)};
  std::vector<Instruction> all, pool = fit_instructions(sm);
  // The sparse forms for --instr (sparse or a name; their tests run on the selected products);
  // without --instr the dense forms only.
  if (!o.instr.empty())
    for (const auto& in : sparse_feature_instructions(sm)) pool.push_back(in);
  for (const auto& in : pool)
    if ((o.dtype.empty() && !o.instr.empty()) || in.a_type == dtype) all.push_back(in);
  if (!o.instr.empty()) return select_instructions(o.instr, sm, all);
  if (all.empty()) default_instruction(dtype, sm, acc);  // throws with the reason
  return all;
}

int run_discover(DiscoverOptions o) {
  if (o.kind == DiscoverOptions::Kind::features && o.op.empty()) o.op = "all";
  if (o.kind == DiscoverOptions::Kind::profile && o.op.empty()) o.op = "profile";
  if (o.op.empty()) throw std::invalid_argument("give --op or --dtype (see --help), e.g. numprobe --dtype bf16 --op accumulate");
  const bool profile_op = is_profile_op(o.op);
  if (profile_op && o.kind == DiscoverOptions::Kind::features)
    throw std::invalid_argument("--op " + o.op + " is a profiling op: numprobe profile --op " + o.op);
  if (!profile_op && o.kind == DiscoverOptions::Kind::profile)
    throw std::invalid_argument("--op " + o.op + " is a feature test: numprobe features --op " + o.op);
  if (!profile_op && o.op != "all" && !is_feature(o.op)) {
    std::string valid = "profile multiply inner accumulate";
    for (const auto& n : feature_names()) valid += " " + n;
    throw std::invalid_argument("unknown --op '" + o.op + "'; valid: " + valid + " all");
  }
  const Backend b = make_backend(o.backend, o.arch, o.model_file);
  const auto dtype = parse_format(o.dtype.empty() ? "fp16" : o.dtype);
  if (!dtype || *dtype == Format::fp32)
    throw std::invalid_argument("--dtype must be fp16, bf16, tf32, e4m3 or e5m2 (not '" + o.dtype + "')");
  const auto acc = parse_format(o.acc);
  if (!acc || (*acc != Format::fp32 && *acc != Format::fp16)) throw std::invalid_argument("--acc must be f32 or f16");

  const std::vector<Instruction> instrs = discover_instructions(o, b.sm, *dtype, *acc, profile_op);
  if (b.model)
    for (const auto& in : instrs) b.model->params_for(in);  // a model file without a rule: say so now
  if (profile_op) {
    return run_profile(o, b, instrs.front(), instrs.front().a_type);
  }
  return run_feature_ops(o, b, instrs);
}

// The options of one entry point: `kind` says which of the profiling and feature-test options
// it takes (the top-level alias takes both).
void add_discover_options(CLI::App* cmd, DiscoverOptions& o, DiscoverOptions::Kind kind) {
  o.kind = kind;
  const bool profiling = kind != DiscoverOptions::Kind::features, features = kind != DiscoverOptions::Kind::profile;
  cmd->add_option("--dtype", o.dtype, "input type: fp16, bf16, tf32, e4m3, e5m2, e2m1, e2m3, e3m2 (default fp16)");
  std::string ops;
  if (profiling) ops = "profile | multiply | inner | accumulate (Sun et al. §8.1 profiling)";
  if (features) {
    if (!ops.empty()) ops += "; ";
    for (const auto& n : feature_names()) ops += n + " | ";
    ops += "all (feature tests)";
  }
  cmd->add_option("--op", o.op, ops);
  cmd->add_option("--backend", o.backend, "emu (a model) or device (the GPU)")->capture_default_str();
  add_arch_option(cmd, o.arch, "emu");
  add_model_option(cmd, o.model_file, "emu: a model JSON file instead of the built-in model");
  add_instr_option(cmd, o.instr, "every instruction of the dtype; the profiling ops take one",
                   "the dtype's default instruction (tcnum::default_instruction)");
  cmd->add_option("--acc", o.acc, "C/D type: f32 or f16 (where the dtype has it)")->capture_default_str();
  if (profiling) {
    cmd->add_option("--init", o.init, "profiling: low, fp32 or both")->capture_default_str();
    cmd->add_option("--c-init", o.c_init, "profiling: draw C in its own format (own) or in the input format (input)")
        ->capture_default_str();
    cmd->add_option("--trials", o.trials, "profiling: trials per cell")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000000));
    add_seed_option(cmd, o.seed, "profiling: seed of the N(0,1) draws");
  }
  add_json_flag(cmd, o.json, "JSON on stdout instead of tables");
}

}  // namespace

namespace {

// `numprobe features` or `numprobe profile`.
void add_discover_subcommand(CLI::App& app, Status& status, const char* name, const std::string& description,
                             DiscoverOptions::Kind kind, const std::string& footer) {
  auto o = std::make_shared<DiscoverOptions>();
  auto* cmd = app.add_subcommand(name, description);
  add_discover_options(cmd, *o, kind);
  cmd->footer(footer);
  cmd->callback([o, &status] { status.code = run_discover(*o); });
}

}  // namespace

void register_discover(CLI::App& app, Status& status) {
  add_discover_subcommand(
      app, status, "features",
      "Feature tests: designed inputs that reveal how an instruction adds, aligns, rounds, orders (emulator or GPU)",
      DiscoverOptions::Kind::features,
      "Examples:\n"
      "  numprobe features --dtype fp16 --op all                 (every test, built-in sm_90 model)\n"
      "  numprobe features --dtype bf16 --op align --arch sm_80\n"
      "  numprobe features --dtype e4m3 --op all --backend device   (GPU)\n"
      "  numprobe features --dtype tf32 --op blocksize --arch sm_80   (every tf32 instruction)\n"
      "  numprobe features --op round --instr mma.m16n8k16.f16.f16.f16.f16 --json\n"
      "  numprobe features --dtype bf16 --op blocksize --instr sparse   (the sparse forms, on their selected products)\n"
      "Exit status 1 when a test reports an anomaly (a behaviour no model parameter expresses); 2 on an error.");
  add_discover_subcommand(
      app, status, "profile",
      "Element-wise profiling of Sun et al. (TPDS 2023, §8.1): mean error of multiply, inner product, accumulation",
      DiscoverOptions::Kind::profile,
      "Examples:\n"
      "  numprobe profile --dtype bf16 --op accumulate --arch sm_80   (the paper's A100 set-up, Table 12's row)\n"
      "  numprobe profile --dtype fp16 --acc f16 --arch sm_80         (Table 14's set-up, all three rows)\n"
      "  numprobe profile --dtype e4m3 --backend device               (GPU)\n"
      "The output says which model answered: validated on hardware, or literature-only.");

  // The documented entry point `numprobe --dtype bf16 --op accumulate`: the same options on the
  // top-level app, for both kinds.
  auto o = std::make_shared<DiscoverOptions>();
  add_discover_options(&app, *o, DiscoverOptions::Kind::any);
  app.footer(app.get_footer() +
             "Without a subcommand, --dtype/--op run `profile` (profiling ops) or `features` (feature tests):\n"
             "  numprobe --dtype bf16 --op accumulate --arch sm_80   (= numprobe profile ...)\n"
             "  numprobe --dtype fp16 --op all                       (= numprobe features ...)\n"
             "  numprobe fit --backend device --out model.json        (GPU: fit a model file)\n");
  app.callback([o, &app, &status] {
    if (!app.get_subcommands().empty()) return;
    if (app.count_all() == 0) return;  // nothing asked: main prints the help
    DiscoverOptions run = *o;
    if (run.op.empty() && !run.dtype.empty()) run.op = "profile";
    status.code = run_discover(run);
  });
}

}  // namespace numprobe
