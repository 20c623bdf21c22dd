// numprobe list: the instruction catalog and the built-in models.
#include <iostream>

#include "commands.hpp"
#include "tcnum/core/model.hpp"

namespace numprobe {

void register_list(CLI::App& app) {
  auto arch = std::make_shared<std::string>("sm_90");
  auto show_model = std::make_shared<bool>(false);
  auto show_validation = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("list", "List the instructions of an architecture, or print its built-in model");
  cmd->add_option("--arch", *arch, "sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100")->capture_default_str();
  cmd->add_flag("--model", *show_model, "print the built-in model as JSON (a template for --model files)");
  cmd->add_flag("--validation", *show_validation,
                "after each instruction, the GPUs whose corpora confirmed the built-in model on it");
  cmd->footer(
      "Examples:\n"
      "  numprobe list --arch sm_80                (the instructions of an architecture)\n"
      "  numprobe list --arch sm_89 --validation   (and which GPUs' corpora confirm each)\n"
      "  numprobe list --arch sm_90 --model        (its built-in model as JSON)\n");
  cmd->callback([arch, show_model, show_validation] {
    const int sm = tcnum::parse_arch(*arch);
    if (*show_model) {
      std::cout << tcnum::model_to_json(tcnum::builtin_model(sm));
      return;
    }
    const tcnum::Model& model = tcnum::builtin_model(sm);
    for (const auto& in : tcnum::instructions_for(sm)) {
      std::cout << in.name;
      if (*show_validation) std::cout << "  " << tcnum::validation_summary(model.validations_for(in));
      std::cout << "\n";
    }
  });
}

}  // namespace numprobe
