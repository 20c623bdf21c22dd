// libFuzzer: model JSON text through model_from_json. Besides "no crash, no UB": the only
// exception is std::invalid_argument; a loaded model has every parameter in kModelLimits and
// survives model_to_json -> model_from_json unchanged.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tcnum/core/model.hpp"

namespace {

bool within_limits(const tcnum::DatapathParams& p) {
  const auto& l = tcnum::kModelLimits;
  const bool floor_ok = !p.align_exponent_floor || (*p.align_exponent_floor >= -l.align_exponent_floor_abs_max &&
                                                    *p.align_exponent_floor <= l.align_exponent_floor_abs_max);
  return p.frac_bits >= l.frac_bits_min && p.frac_bits <= l.frac_bits_max && p.block_size >= 0 &&
         p.block_size <= l.block_size_max && p.k_passes >= 1 && p.k_passes <= l.k_passes_max &&
         p.pass_interleave >= 1 && p.pass_interleave <= l.pass_interleave_max && p.block_result_frac_bits >= 0 &&
         p.block_result_frac_bits <= l.block_result_frac_bits_max && floor_ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tcnum::Model m;
  try {
    m = tcnum::model_from_json(text);
  } catch (const std::invalid_argument&) {
    return 0;  // any other exception type escapes and libFuzzer reports it
  }
  for (const auto& r : m.rules)
    if (!within_limits(r.params)) std::abort();
  const tcnum::Model back = tcnum::model_from_json(tcnum::model_to_json(m));
  if (back.rules.size() != m.rules.size() || back.sm != m.sm || back.name != m.name) std::abort();
  for (std::size_t i = 0; i < m.rules.size(); ++i)
    if (!(back.rules[i].params == m.rules[i].params)) std::abort();
  return 0;
}
