// Designed inputs for the sparse datapath study (sparse_designed.hpp).
#include "sparse_designed.hpp"

#include <cmath>
#include <random>

#include "tcnum/core/format.hpp"
#include "tcnum/core/sparse.hpp"

namespace tcnum::device {
namespace {

bool exact(Format f, double x) { return to_double(f, encode(f, x)) == x && std::fabs(x) >= std::ldexp(1.0, -200); }

struct Terms {
  std::uint32_t a_big, b_big, a_small, b_small;
};

// 2^E = a_big·b_big and s = 1.75·2^(E-F-1) = a_small·b_small, all normal numbers of A's and B's
// formats (fp8 is exact in f16, so its sm_90 unpacking changes nothing).
bool find_terms(const Instruction& in, int frac_bits, Terms& t) {
  for (int e = 0; e <= 24; e += 2)
    for (int ea = -30; ea <= 10; ++ea) {
      const double big = std::ldexp(1.0, e / 2), as = 1.75 * std::ldexp(1.0, ea);
      const double bs = std::ldexp(1.0, e - frac_bits - 1 - ea);
      if (!exact(in.a_type, big) || !exact(in.b_type, big) || !exact(in.a_type, as) || !exact(in.b_type, bs)) continue;
      if (std::fabs(to_double(in.a_type, encode(in.a_type, as))) < std::ldexp(1.0, -14) && in.a_type == Format::fp16)
        continue;
      t = {encode(in.a_type, big), encode(in.b_type, big), encode(in.a_type, as), encode(in.b_type, bs)};
      return true;
    }
  return false;
}

std::vector<std::uint8_t> random_meta(const Instruction& in, std::mt19937& rng) {
  const std::uint8_t v16[] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe}, v32[] = {0x4, 0xe};
  std::vector<std::uint8_t> m(static_cast<std::size_t>(sparse_meta_count(in)));
  for (auto& v : m) v = sparse_group(in) == 2 ? v32[rng() % 2] : v16[rng() % 6];
  return m;
}

// A case whose stored A and selected B are given; B's dropped rows hold `dropped`.
Case place(const Instruction& in, std::vector<std::uint8_t> meta, const std::vector<std::uint32_t>& a,
           const std::vector<std::uint32_t>& b_sel, std::uint32_t dropped) {
  Case g;
  g.meta = std::move(meta);
  g.a = a;
  g.b.assign(static_cast<std::size_t>(in.k), dropped);
  const std::vector<int> pos = selected_positions(in, g.meta);
  for (std::size_t s = 0; s < pos.size(); ++s) g.b[static_cast<std::size_t>(pos[s])] = b_sel[s];
  g.c = zero_bits(in.c_type, false);
  return g;
}

}  // namespace

std::vector<Case> designed_cases(const Instruction& in, const DatapathParams& params) {
  std::vector<Case> out;
  Terms t{};
  if (in.d_type != Format::fp32 || !find_terms(in, params.frac_bits, t)) return out;
  std::mt19937 rng(2026);
  const std::size_t h = static_cast<std::size_t>(in.a_elements());
  const std::uint32_t zero_b = zero_bits(in.b_type, false);
  for (std::size_t p = 0; p < h; ++p) {
    std::vector<std::uint32_t> a(h, t.a_small), b(h, t.b_small);
    a[p] = t.a_big, b[p] = t.b_big;
    out.push_back(place(in, random_meta(in, rng), a, b, zero_b));
  }
  const std::vector<std::uint32_t> ones_a(h, encode(in.a_type, 1.0)), ones_b(h, encode(in.b_type, 1.0));
  out.push_back(place(in, random_meta(in, rng), ones_a, ones_b, infinity_bits(in.b_type, false)));
  out.push_back(place(in, random_meta(in, rng), ones_a, ones_b, canonical_nan(in.b_type)));
  std::vector<std::uint32_t> a0 = ones_a, b_inf = ones_b;
  a0[0] = zero_bits(in.a_type, false), b_inf[0] = infinity_bits(in.b_type, false);
  out.push_back(place(in, random_meta(in, rng), a0, b_inf, zero_b));
  return out;
}

}  // namespace tcnum::device
