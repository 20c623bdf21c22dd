// The black boxes of feature discovery: the emulator under some parameters, and the adapters
// between one-case and batched boxes.
#include "features_internal.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum::features {

std::uint32_t evaluate(const DatapathParams& params, const Instruction& in, const Case& g) {
  if (!in.block_scaled()) return mma_element(params, in, g.a, g.b, g.c);
  if (!g.scale_a.empty() || !g.scale_b.empty())
    return mma_element_reference(params, in, g.a, g.b, g.c, g.scale_a, g.scale_b);
  const std::vector<std::uint32_t> unit(static_cast<std::size_t>(in.scales_per_row()), encode(in.scale_type, 1.0));
  return mma_element_reference(params, in, g.a, g.b, g.c, unit, unit);
}

BatchFn emulator(const DatapathParams& params, const Instruction& in) {
  if (in.block_scaled()) compile_plan(params, in);  // validates the parameters (mma_element does it otherwise)
  return [params, in](const std::vector<Case>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(evaluate(params, in, g));
    return out;
  };
}

BatchFn emulator(const Model& model, const Instruction& in) { return emulator(model.params_for(in), in); }

BatchFn batch_of(ElementFn fn) {
  return [fn = std::move(fn)](const std::vector<Case>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(fn(g.a, g.b, g.c));
    return out;
  };
}

ElementFn element_of(BatchFn fn) {
  return [fn = std::move(fn)](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::uint32_t c) {
    return fn({Case{a, b, c, {}, {}}}).at(0);
  };
}

}  // namespace tcnum::features
