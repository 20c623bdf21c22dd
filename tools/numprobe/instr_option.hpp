// --instr, one grammar for every numprobe command: a comma-separated list of items, each
//   all                   every instruction the command runs on the architecture (and --dtype)
//   mma, wgmma, tcgen05   those of one family
//   sparse, integer       the sparse forms; the integer (s8/u8/s4/u4) dense forms
//   NAME                  one instruction of the architecture, by its PTX name (numprobe list)
// An empty item, an item given twice, an unknown word or name, or a selection with no
// instruction or one instruction twice is a usage error (std::invalid_argument, exit status 2)
// with the same message in every command. Commands that run a set (record, check, fuzz, fit,
// features) take every item; commands that run one instruction per dtype (profile, chain) take one
// item, and a family word there means the family's default instruction of the dtype.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace numprobe {

struct InstrItem {
  std::string text;                     // as given
  bool all = false;                     // "all"
  std::optional<tcnum::Family> family;  // "mma", "wgmma", "tcgen05" (dense forms)
  bool sparse = false;                  // "sparse": the sparse forms of the pool (mma.sp, wgmma.mma_async.sp)
  bool integer = false;                 // "integer": the dense integer forms of the pool
  bool name() const { return !all && !family && !sparse && !integer; }
};

// --instr on a command; `all_means` says what "all" selects there, `fallback` the default.
CLI::Option* add_instr_option(CLI::App* cmd, std::string& spec, const std::string& all_means,
                              const std::string& fallback);

// The items of a spec; throws std::invalid_argument for an empty or repeated item or an unknown word.
std::vector<InstrItem> parse_instr(const std::string& spec);

// The instructions a spec selects on `sm`: a word takes the instructions of `pool` (the command's
// "all") it names, in the pool's order; a name is looked up on the architecture.
std::vector<tcnum::Instruction> select_instructions(const std::string& spec, int sm,
                                                    const std::vector<tcnum::Instruction>& pool);

// The one item of a spec, for the commands that run one instruction per dtype; `who` names them
// in the error ("chain takes", "the profiling ops take").
InstrItem one_instr_item(const std::string& spec, const std::string& who);

// The instruction an item names, looked up on `sm` (the error says --instr and lists the names).
tcnum::Instruction find_instr(const std::string& name, int sm);

}  // namespace numprobe
