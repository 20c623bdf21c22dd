// The emulator as the published recipes' black box.
#include "tcnum/characterize/recipes.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"

namespace tcnum {

ElementFn element_fn(const DatapathParams& p, const Instruction& in) {
  return [p, in](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::uint32_t c) {
    return features::evaluate(p, in, Case{a, b, c, {}, {}});
  };
}

ElementFn element_fn(const Model& m, const Instruction& in) { return element_fn(m.params_for(in), in); }

}  // namespace tcnum
