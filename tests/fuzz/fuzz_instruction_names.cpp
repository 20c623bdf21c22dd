// libFuzzer: instruction names and architectures (parse_arch, parse_instruction,
// find_instruction), lenient spellings included. The input's first line is read as an
// architecture, the rest as a name; its first four bytes also as an sm number. Besides "no crash,
// no UB", only std::invalid_argument escapes, and what is accepted obeys these laws:
//  * an architecture is spelled exactly sm_NN or sm_NNa for a known NN, or gfxNNN as AMD names it;
//  * a name is a catalog name with whole qualifier parts (sync, aligned, row, col) inserted
//    between its dot-separated parts, nothing else;
//  * find_instruction(name, sm) accepts exactly what parse_instruction accepts and sm offers
//    (instructions_for / sparse_instructions_for list it).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace {

std::vector<std::string> parts_of(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(name.substr(start, dot - start));
  parts.push_back(name.substr(start));
  return parts;
}

bool is_qualifier(const std::string& part) {
  return part == "sync" || part == "aligned" || part == "row" || part == "col";
}

// The input's parts with its qualifier parts removed equal the catalog name's parts.
bool spells(const std::string& input, const std::string& catalog_name) {
  std::vector<std::string> kept;
  for (const std::string& p : parts_of(input))
    if (!is_qualifier(p)) kept.push_back(p);
  return kept == parts_of(catalog_name);
}

// The catalog lists the instruction for the architecture (dense or sparse forms).
bool offers(int sm, const std::string& name) {
  const auto known = tcnum::known_archs();
  if (std::find(known.begin(), known.end(), sm) == known.end()) return false;
  for (const auto& list : {tcnum::instructions_for(sm), tcnum::sparse_instructions_for(sm)})
    for (const tcnum::Instruction& in : list)
      if (in.name == name) return true;
  return false;
}

void check_arch(const std::string& text) {
  int sm = 0;
  try {
    sm = tcnum::parse_arch(text);
  } catch (const std::invalid_argument&) {
    return;
  }
  const auto known = tcnum::known_archs();
  if (std::find(known.begin(), known.end(), sm) == known.end()) std::abort();
  if (tcnum::is_amd_arch(sm)) {  // AMD's targets: gfxNNN exactly, as arch_name spells them
    if (text != tcnum::arch_name(sm)) std::abort();
    return;
  }
  const std::string plain = "sm_" + std::to_string(sm);
  if (text != plain && text != plain + "a") std::abort();
}

void check_name(const std::string& name, int sm_from_bytes) {
  bool parsed = false;
  tcnum::Instruction in;
  try {
    in = tcnum::parse_instruction(name);
    parsed = true;
  } catch (const std::invalid_argument&) {
  }
  if (parsed) {
    if (!spells(name, in.name) || tcnum::parse_instruction(in.name).name != in.name || in.k <= 0) std::abort();
    tcnum::check_formats(in);
  }
  // Every known sm for an accepted name; else one (a refusal builds the list of valid names,
  // which is slow) and the random number.
  const auto known = tcnum::known_archs();
  std::vector<int> sms = parsed ? known : std::vector<int>{known[static_cast<std::uint32_t>(sm_from_bytes) % known.size()]};
  sms.push_back(sm_from_bytes);
  for (int sm : sms) {
    try {
      const tcnum::Instruction found = tcnum::find_instruction(name, sm);
      if (!parsed || found.name != in.name || sm < found.min_sm || sm > found.max_sm) std::abort();
    } catch (const std::invalid_argument&) {
      if (parsed && offers(sm, in.name)) std::abort();  // refused what sm offers
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = text.find('\n');
  const std::string arch = text.substr(0, nl), name = nl == std::string::npos ? text : text.substr(nl + 1);
  std::int32_t sm = 0;
  if (size >= 4) std::memcpy(&sm, data, 4);
  check_arch(arch);
  check_arch(text);
  check_name(name, sm);
  return 0;
}
