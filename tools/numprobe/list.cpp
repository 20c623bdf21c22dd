// numprobe list: the instruction catalog and the built-in models.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "tcnum/core/dmma.hpp"
#include "tcnum/core/model.hpp"
#include "version.hpp"

namespace numprobe {
namespace {

struct ListOptions {
  std::string arch;
  bool show_model = false, old_model_flag = false, show_validation = false, json = false;
};

int run_list(const ListOptions& o) {
  const int sm = arch_or_default(o.arch);
  if (o.show_model) {
    std::cout << tcnum::model_to_json(tcnum::builtin_model(sm));  // JSON either way
    return 0;
  }
  const tcnum::Model& model = tcnum::builtin_model(sm);
  std::vector<tcnum::Instruction> all = tcnum::instructions_for(sm);  // the dense forms, then the sparse ones
  for (const auto& in : tcnum::sparse_instructions_for(sm)) all.push_back(in);
  // The f64 DMMA forms last: not catalog instructions (64-bit operands), modelled by dmma_element.
  const auto dmma = tcnum::dmma_forms_for(sm);
  const auto dmma_validation = [sm](const tcnum::DmmaForm& f) {
    return sm == 90 && f.h100_validated ? std::string("validated on H100 80GB HBM3 (sm_90) [corpora/h100-f64, .tcf64.gz]")
                                        : std::string("not validated on a device (the H100's FMA chain)");
  };
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& in : all) {
      nlohmann::json row{{"instruction", in.name}};
      if (o.show_validation) row["validation"] = tcnum::validation_summary(model.validations_for(in));
      rows.push_back(row);
    }
    nlohmann::json f64 = nlohmann::json::array();
    for (const auto& f : dmma) {
      nlohmann::json row{{"instruction", f.name}, {"model", "tcnum::dmma_element (IEEE binary64 FMA chain)"}};
      if (o.show_validation) row["validation"] = dmma_validation(f);
      f64.push_back(row);
    }
    std::cout << nlohmann::json{{"numprobe", version_json()}, {"arch", tcnum::arch_name(sm)}, {"instructions", rows},
                                {"f64_dmma", f64}}.dump(2)
              << "\n";
    return 0;
  }
  for (const auto& in : all) {
    std::cout << in.name;
    if (o.show_validation) std::cout << "  " << tcnum::validation_summary(model.validations_for(in));
    std::cout << "\n";
  }
  for (const auto& f : dmma) {
    std::cout << f.name << "  (f64 DMMA: tcnum::dmma_element; 64-bit fields, .tcf64 corpora)";
    if (o.show_validation) std::cout << "  " << dmma_validation(f);
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

void register_list(CLI::App& app, Status& status) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List the instructions of an architecture, or print its built-in model");
  add_arch_option(cmd, o->arch);
  cmd->add_flag("--print-model", o->show_model, "print the built-in model as JSON (a template for --model files)");
  // The old spelling, hidden: elsewhere --model FILE reads a model, so this one was misleading.
  cmd->add_flag("--model", o->old_model_flag)->group("");
  cmd->add_flag("--validation", o->show_validation,
                "after each instruction, the GPUs whose corpora confirmed the built-in model on it");
  add_json_flag(cmd, o->json, "the instructions as JSON on stdout");
  cmd->footer(
      "Examples:\n"
      "  numprobe list --arch sm_80                (the instructions of an architecture)\n"
      "  numprobe list --arch sm_89 --validation   (and which GPUs' corpora confirm each)\n"
      "  numprobe list --arch sm_90 --print-model  (its built-in model as JSON)\n"
      "  numprobe list --arch gfx942               (AMD CDNA3's MFMA instructions)\n");
  cmd->callback([o, &status] {
    if (o->old_model_flag) {
      std::cerr << "numprobe list: --model is now --print-model (--model FILE reads a model elsewhere)\n";
      o->show_model = true;
    }
    status.code = run_list(*o);
  });
}

}  // namespace numprobe
