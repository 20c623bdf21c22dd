// The black boxes of feature discovery: the emulator under some parameters, and the adapters
// between one-case and batched boxes.
#include "features_internal.hpp"
#include "tcnum/core/dot.hpp"

namespace tcnum::features {

BatchFn emulator(const DatapathParams& params, const Instruction& in) {
  return [params, in](const std::vector<GeneratedCase>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(mma_element(params, in, g.a, g.b, g.c));
    return out;
  };
}

BatchFn emulator(const Model& model, const Instruction& in) { return emulator(model.params_for(in), in); }

BatchFn batch_of(ElementFn fn) {
  return [fn = std::move(fn)](const std::vector<GeneratedCase>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(fn(g.a, g.b, g.c));
    return out;
  };
}

ElementFn element_of(BatchFn fn) {
  return [fn = std::move(fn)](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::uint32_t c) {
    return fn({GeneratedCase{a, b, c}}).at(0);
  };
}

}  // namespace tcnum::features
