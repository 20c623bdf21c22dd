// A sparse instruction seen through its selected products (features.hpp): the box of its
// selected form, answered by the sparse instruction.
#include <stdexcept>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/sparse.hpp"

namespace tcnum::features {
namespace {

// The metadata values the PTX ISA gives a meaning for `in`, ascending.
std::vector<std::uint8_t> valid_metadata(const Instruction& in) {
  std::vector<std::uint8_t> v;
  for (std::uint32_t m = 0; m < 16; ++m)
    if (valid_sparse_meta(in, m)) v.push_back(static_cast<std::uint8_t>(m));
  return v;
}

// A dense case of the selected form as the sparse instruction's case: case t's group g takes
// the valid value (t + g) mod their count (every pattern at every group over a batch); A's
// elements are stored as given, B's sit at the selected positions, and the rows of B no
// stored element meets hold B's largest finite magnitude, alternating in sign (a datapath that
// met one of them would be far off).
Case as_sparse_case(const Instruction& sparse, const Case& dense, std::size_t t, const std::vector<std::uint8_t>& valid) {
  Case s = dense;
  const int groups = sparse_meta_count(sparse);
  s.meta.resize(static_cast<std::size_t>(groups));
  for (int g = 0; g < groups; ++g) s.meta[static_cast<std::size_t>(g)] = valid[(t + static_cast<std::size_t>(g)) % valid.size()];
  s.b.assign(static_cast<std::size_t>(sparse.k), 0);
  for (int k = 0; k < sparse.k; ++k) s.b[static_cast<std::size_t>(k)] = max_finite_bits(sparse.b_type, k % 2 == 1);
  const std::vector<int> at = selected_positions(sparse, s.meta);
  for (std::size_t i = 0; i < at.size(); ++i) s.b[static_cast<std::size_t>(at[i])] = dense.b[i];
  return s;
}

}  // namespace

BlackBox selected_products_box(const Instruction& sparse, const BlackBox& box) {
  if (!sparse.sparse) throw std::invalid_argument(sparse.name + ": not a sparse instruction");
  const Instruction dense = selected_form(sparse);
  BlackBox view;
  view.cases = [sparse, dense, box, valid = valid_metadata(sparse)](const Instruction& in, std::span<const Case> cases) {
    if (in.name != dense.name || in.sparse || in.k != dense.k)
      throw std::invalid_argument("the selected-products box of " + sparse.name + " answers its selected form (K = " +
                                  std::to_string(dense.k) + ", dense), not " + in.name);
    std::vector<Case> given;
    given.reserve(cases.size());
    for (std::size_t t = 0; t < cases.size(); ++t) {
      const Case& c = cases[t];
      if (c.a.size() != static_cast<std::size_t>(dense.k) || c.b.size() != static_cast<std::size_t>(dense.k))
        throw std::invalid_argument(dense.name + ": a case needs " + std::to_string(dense.k) + " elements of A and of B");
      given.push_back(as_sparse_case(sparse, c, t, valid));
    }
    return box.cases(sparse, given);
  };
  return view;
}

}  // namespace tcnum::features
