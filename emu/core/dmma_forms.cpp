// The f64 DMMA forms beside the catalog (tcnum/core/dmma.hpp): names, shapes, architectures.
#include <algorithm>
#include <array>

#include "tcnum/core/dmma.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum {
namespace {

// PTX ISA "mma" (.f64): m8n8k4 from sm_80, m16n8k4/k8/k16 from sm_90 (ptxas 13.0 refuses them on
// sm_89 and accepts them on sm_100a and sm_120a). All four were run on the H100 (docs/models.md §8.6).
constexpr std::array<std::array<int, 4>, 4> kForms{{{8, 8, 4, 80}, {16, 8, 4, 90}, {16, 8, 8, 90}, {16, 8, 16, 90}}};

DmmaForm form(const std::array<int, 4>& f) {
  DmmaForm d;
  d.m = f[0], d.n = f[1], d.k = f[2], d.min_sm = f[3];
  d.name = "mma.m" + std::to_string(d.m) + "n" + std::to_string(d.n) + "k" + std::to_string(d.k) + ".f64.f64.f64.f64";
  d.h100_validated = true;
  return d;
}

// Drops ".sync", ".aligned", ".row", ".col" as the catalog's names do.
std::string plain(std::string_view name) {
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    const std::string_view part = name.substr(start, dot - start);
    if (part != "sync" && part != "aligned" && part != "row" && part != "col") out += (out.empty() ? "" : ".") + std::string(part);
    start = dot + 1;
  }
  return out;
}

}  // namespace

std::vector<DmmaForm> dmma_forms_for(int sm) {
  std::vector<DmmaForm> out;
  if (is_amd_arch(sm)) return out;
  for (const auto& f : kForms)
    if (sm >= f[3]) out.push_back(form(f));
  return out;
}

std::optional<DmmaForm> find_dmma_form(std::string_view name) {
  const std::string wanted = plain(name);
  for (const auto& f : kForms)
    if (form(f).name == wanted) return form(f);
  return std::nullopt;
}

std::string dmma_not_in_catalog_message(const DmmaForm& f) {
  return f.name + " is an f64 DMMA form (sm_" + std::to_string(f.min_sm) +
         "+): its binary64 operands do not fit the catalog's 32-bit raw fields (cases, corpus lines, mma_element, "
         "gemm, record, check, fuzz). Its model is tcnum::dmma_element (Python: tcnum.dmma_element), an IEEE "
         "binary64 FMA chain validated on the H100; its corpus lines are .tcf64.gz files (16 hex digits per "
         "binary64; corpora/h100-f64, docs/corpus-format.md), replayed by tests/test_dmma.cpp";
}

}  // namespace tcnum
