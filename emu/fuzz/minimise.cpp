// Greedy delta-debugging of one mismatch (tcnum/fuzz/minimise.hpp).
#include "tcnum/fuzz/minimise.hpp"

#include <cmath>
#include <cstdlib>

#include "tcnum/core/format.hpp"

namespace tcnum::fuzz {
namespace {

struct Fields {  // an element's sign, biased exponent and fraction, in its storage layout
  int shift, frac_bits, exp_bits, bias;
  explicit Fields(Format f)
      : shift(f == Format::tf32 ? 13 : 0), frac_bits(spec(f).frac_bits), exp_bits(spec(f).exp_bits),
        bias(spec(f).bias) {}
  std::uint32_t raw(std::uint32_t bits) const { return bits >> shift; }
  std::uint32_t frac(std::uint32_t bits) const { return raw(bits) & ((1u << frac_bits) - 1); }
  int exponent(std::uint32_t bits) const { return static_cast<int>((raw(bits) >> frac_bits) & ((1u << exp_bits) - 1)); }
  bool sign(std::uint32_t bits) const { return (raw(bits) >> (frac_bits + exp_bits)) & 1u; }
  std::uint32_t make(bool s, int e, std::uint32_t f) const {
    return ((static_cast<std::uint32_t>(s) << (frac_bits + exp_bits)) | (static_cast<std::uint32_t>(e) << frac_bits) | f)
           << shift;
  }
  std::uint32_t one() const { return make(false, bias, 0); }
};

void add_element(const Fields& f, std::uint32_t bits, Complexity& c) {
  if ((bits & ~(1u << (f.frac_bits + f.exp_bits + f.shift))) == 0) {  // ±0: only its sign can go
    c.signs += bits != 0;
    return;
  }
  // tf32's ignored low bits count as fraction bits: clearing them is a simplification too.
  c.fraction_bits += __builtin_popcount(f.frac(bits)) + __builtin_popcount(bits & ((1u << f.shift) - 1));
  c.exponent_distance += std::abs(f.exponent(bits) - f.bias);
  c.signs += f.sign(bits);
}

// One-step simplifications of an element (in order of preference).
void element_moves(const Fields& f, Format fmt, std::uint32_t bits, std::vector<std::uint32_t>& out) {
  const auto keep = [&](std::uint32_t v) {
    const Decoded d = decode(fmt, v);
    if (v != bits && !d.is_nan() && !d.is_inf()) out.push_back(v);
  };
  const Decoded d = decode(fmt, bits);
  if (d.is_zero()) keep(f.make(false, 0, 0));
  if (d.is_nan() || d.is_inf() || d.is_zero()) return;  // specials stay; +0 is simplest
  keep(f.one());
  keep(f.make(false, f.exponent(bits), f.frac(bits)));
  for (int i = 0; i < f.frac_bits; ++i)
    if ((f.frac(bits) >> i) & 1u) keep(f.make(f.sign(bits), f.exponent(bits), f.frac(bits) & ~(1u << i)));
  keep(bits & ~((1u << f.shift) - 1));
  const int e = f.exponent(bits);
  if (e != f.bias && e != 0) keep(f.make(f.sign(bits), e + (e < f.bias ? 1 : -1), f.frac(bits)));
}

}  // namespace

Complexity complexity(const Instruction& in, const FuzzCase& x) {
  Complexity c;
  const Fields fa(in.a_type), fb(in.b_type), fc(in.c_type);
  for (std::size_t k = 0; k < x.a.size(); ++k) {
    if (!decode(in.a_type, x.a[k]).is_zero() && !decode(in.b_type, x.b[k]).is_zero()) ++c.terms;
    add_element(fa, x.a[k], c);
    add_element(fb, x.b[k], c);
  }
  if (!decode(in.c_type, x.c).is_zero()) ++c.terms;
  add_element(fc, x.c, c);
  return c;
}

FuzzCase minimise(const MmaPlan& model, const DeviceEval& device, FuzzCase x, int max_rounds) {
  const Instruction& in = model.instruction;
  const std::size_t K = static_cast<std::size_t>(in.k);
  const Fields fa(in.a_type), fb(in.b_type), fc(in.c_type);
  std::vector<FuzzCase> cands;
  std::vector<std::uint32_t> a, b, c, dev, emu, moves;
  for (int round = 0; round < max_rounds; ++round) {
    const Complexity now = complexity(in, x);
    cands.clear();
    const auto propose = [&](FuzzCase y) {
      if (complexity(in, y) < now) cands.push_back(std::move(y));
    };
    if (!decode(in.c_type, x.c).is_zero()) {
      FuzzCase y = x;
      y.c = zero_bits(in.c_type, false);
      propose(y);
    }
    for (std::size_t k = 0; k < K; ++k) {
      if (decode(in.a_type, x.a[k]).is_zero() || decode(in.b_type, x.b[k]).is_zero()) continue;
      FuzzCase y = x;
      y.a[k] = zero_bits(in.a_type, false);
      y.b[k] = zero_bits(in.b_type, false);
      propose(y);
    }
    // Two products that keep the exact sum when merged: equal ones into one of twice the value,
    // opposite ones both zeroed (a cancellation often needs its terms only for the alignment).
    for (std::size_t p = 0; p < K; ++p)
      for (std::size_t q = p + 1; q < K; ++q) {
        const double pp = to_double(in.a_type, x.a[p]) * to_double(in.b_type, x.b[p]);
        const double pq = to_double(in.a_type, x.a[q]) * to_double(in.b_type, x.b[q]);
        if (pp == 0 || pq == 0 || !std::isfinite(pp) || !std::isfinite(pq)) continue;
        FuzzCase y = x;
        y.a[q] = zero_bits(in.a_type, false);
        y.b[q] = zero_bits(in.b_type, false);
        if (pp == -pq) {
          y.a[p] = zero_bits(in.a_type, false);
          y.b[p] = zero_bits(in.b_type, false);
          propose(y);
        } else if (pp == pq) {
          const std::uint32_t doubled = encode(in.a_type, 2 * to_double(in.a_type, x.a[p]));
          if (to_double(in.a_type, doubled) != 2 * to_double(in.a_type, x.a[p])) continue;
          y.a[p] = doubled;
          propose(y);
        }
      }
    for (std::size_t k = 0; k <= K; ++k) {
      for (int side = 0; side < (k < K ? 2 : 1); ++side) {
        std::uint32_t& slot = k == K ? x.c : side == 0 ? x.a[k] : x.b[k];
        const Fields& f = k == K ? fc : side == 0 ? fa : fb;
        const Format fmt = k == K ? in.c_type : side == 0 ? in.a_type : in.b_type;
        moves.clear();
        element_moves(f, fmt, slot, moves);
        const std::uint32_t old = slot;
        for (std::uint32_t v : moves) {
          slot = v;
          propose(x);
        }
        slot = old;
      }
    }
    if (cands.empty()) break;
    const std::size_t n = cands.size();
    a.resize(n * K);
    b.resize(n * K);
    c.resize(n);
    dev.resize(n);
    emu.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::copy(cands[i].a.begin(), cands[i].a.end(), a.begin() + i * K);
      std::copy(cands[i].b.begin(), cands[i].b.end(), b.begin() + i * K);
      c[i] = cands[i].c;
    }
    device(in, n, a.data(), b.data(), c.data(), dev.data());
    mma_batch(model, n, a.data(), b.data(), c.data(), emu.data());
    std::size_t pick = n;
    for (std::size_t i = 0; i < n && pick == n; ++i)
      if (dev[i] != emu[i]) pick = i;
    if (pick == n) break;
    x = std::move(cands[pick]);
    x.device_d = dev[pick];
    x.model_d = emu[pick];
  }
  return x;
}

}  // namespace tcnum::fuzz
