// Sparse cases (tcnum/fuzz/sparse_cases.hpp).
#include "tcnum/fuzz/sparse_cases.hpp"

#include <random>
#include <stdexcept>

#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace tcnum::fuzz {

std::vector<Case> sparse_cases(const Instruction& in, const DatapathParams& params, std::string_view dist,
                               std::uint64_t seed, std::size_t count) {
  if (!in.sparse) throw std::invalid_argument("fuzz::sparse_cases: " + in.name + " is not a sparse instruction");
  const Instruction sel = selected_form(in);
  const std::size_t h = static_cast<std::size_t>(sel.k);
  std::vector<std::uint32_t> a(count * h), b(count * h), c(count), a2(count * h), b2(count * h), c2(count);
  generate(sel, params, dist, seed, count, a.data(), b.data(), c.data());
  generate(sel, params, dist, seed ^ 0x5eed5eedULL, count, a2.data(), b2.data(), c2.data());
  std::mt19937_64 rng(seed * 31 + 7);
  const std::uint8_t v16[] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe}, v32[] = {0x4, 0xe};
  const bool tf32 = sparse_group(in) == 2;
  std::vector<Case> out(count);
  for (std::size_t t = 0; t < count; ++t) {
    Case& g = out[t];
    g.meta.resize(static_cast<std::size_t>(sparse_meta_count(in)));
    for (auto& m : g.meta) m = tf32 ? v32[rng() % 2] : v16[rng() % 6];
    g.a.assign(a.begin() + static_cast<std::ptrdiff_t>(t * h), a.begin() + static_cast<std::ptrdiff_t>((t + 1) * h));
    g.b.assign(static_cast<std::size_t>(in.k), 0);
    std::vector<bool> used(static_cast<std::size_t>(in.k), false);
    const std::vector<int> pos = selected_positions(in, g.meta);
    for (std::size_t s = 0; s < h; ++s) {
      g.b[static_cast<std::size_t>(pos[s])] = b[t * h + s];
      used[static_cast<std::size_t>(pos[s])] = true;
    }
    std::size_t other = 0;
    for (int k = 0; k < in.k; ++k)
      if (!used[static_cast<std::size_t>(k)]) g.b[static_cast<std::size_t>(k)] = b2[t * h + other++];
    g.c = c[t];
  }
  return out;
}

}  // namespace tcnum::fuzz
