#include "instr_option.hpp"

#include <stdexcept>

#include "tcnum/core/dmma.hpp"

namespace numprobe {

namespace {

const char* const kGrammar =
    "give all, mma, wgmma, tcgen05, mfma, sparse, integer or instruction names (numprobe list --arch sm_XX or gfxNNN), comma-separated";

std::invalid_argument instr_error(const std::string& what) { return std::invalid_argument("--instr: " + what); }

bool on_some_arch(const std::string& name) {
  for (int sm : tcnum::known_archs()) {
    try {
      tcnum::find_instruction(name, sm);
      return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

InstrItem parse_item(const std::string& text) {
  InstrItem it;
  it.text = text;
  if (text == "all") it.all = true;
  else if (text == "mma") it.family = tcnum::Family::mma;
  else if (text == "wgmma") it.family = tcnum::Family::wgmma;
  else if (text == "tcgen05") it.family = tcnum::Family::tcgen05;
  else if (text == "sparse") it.sparse = true;
  else if (text == "integer") it.integer = true;
  else if (text == "mfma") it.family = tcnum::Family::mfma;
  else if (const auto f = tcnum::find_dmma_form(text))  // f64: beside the catalog, no command here takes it
    throw instr_error(tcnum::dmma_not_in_catalog_message(*f));
  else if (!on_some_arch(text))
    throw instr_error("'" + text + "' is neither a word nor an instruction of any architecture; " + kGrammar);
  return it;
}

}  // namespace

CLI::Option* add_instr_option(CLI::App* cmd, std::string& spec, const std::string& all_means,
                              const std::string& fallback) {
  // Checked as it is parsed, before anything runs (a GPU command without a GPU included); names
  // against the architecture later, when it is known. CLI11 puts "--instr: " before the message.
  const CLI::Validator grammar(
      [](std::string& text) {
        try {
          parse_instr(text);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what()).substr(std::string("--instr: ").size());
        }
      },
      "SPEC", "instr");
  return cmd->add_option("--instr", spec,
                         "all (" + all_means + "), mma, wgmma, tcgen05, mfma (those of a family), sparse (mma.sp, wgmma.mma_async.sp, "
                         "where the command runs them), integer (s8/u8/s4/u4 inputs) or instruction names, "
                         "comma-separated; default: " + fallback)
      ->check(grammar);
}

std::vector<InstrItem> parse_instr(const std::string& spec) {
  std::vector<InstrItem> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    const std::string text = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (text.empty()) throw instr_error("an empty item in '" + spec + "'; " + kGrammar);
    for (const auto& seen : items)
      if (seen.text == text) throw instr_error(text + " is given twice");
    items.push_back(parse_item(text));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

tcnum::Instruction find_instr(const std::string& name, int sm) {
  try {
    return tcnum::find_instruction(name, sm);
  } catch (const std::exception& e) {
    throw instr_error(e.what());
  }
}

std::vector<tcnum::Instruction> select_instructions(const std::string& spec, int sm,
                                                    const std::vector<tcnum::Instruction>& pool) {
  std::vector<tcnum::Instruction> out;
  for (const InstrItem& it : parse_instr(spec)) {
    const std::size_t before = out.size();
    if (it.name()) out.push_back(find_instr(it.text, sm));
    for (const auto& in : pool)  // all and the families: dense forms; sparse: the sparse ones
      if (in.sparse ? it.sparse : (it.all || (it.family && in.family == *it.family) || (it.integer && in.integer())))
        out.push_back(in);
    if (out.size() == before)
      throw instr_error("'" + it.text + "' selects no instruction this command runs on " + tcnum::arch_name(sm));
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name) throw instr_error("'" + spec + "' selects " + out[i].name + " twice");
  return out;
}

InstrItem one_instr_item(const std::string& spec, const std::string& who) {
  const auto items = parse_instr(spec);
  if (items.size() != 1 || items.front().all || items.front().integer)
    throw instr_error(who + " one instruction per dtype: give one family (mma, wgmma, tcgen05) or one instruction name, "
                      "not '" + spec + "'");
  return items.front();
}

}  // namespace numprobe
