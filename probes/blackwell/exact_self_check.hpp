// The layout self-check both Blackwell runners share: small integers in [-2, 2] for A and B, C in
// [-8, 8], scales 2^-1 .. 2^2 that differ per row, column and block. Every product and sum is then
// exact in every format involved, so a misplaced element, nibble, register or scale byte shows as a
// wrong integer in D.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::blackwell {

// run(in, tiles, a, b, c, scale_a, scale_b) -> D, as the runners' run_tiles.
template <class RunTiles>
std::string exact_self_check(const Instruction& in, int tiles, std::uint32_t seed, RunTiles run) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> ab(-2, 2), cd(-8, 8), se(-1, 2);
  const int M = in.m, N = in.n, K = in.k, S = in.scales_per_row();
  std::vector<double> va(tiles * M * K), vb(tiles * N * K), vc(tiles * M * N), vsa(tiles * M * S), vsb(tiles * N * S);
  std::vector<std::uint32_t> a(va.size()), b(vb.size()), c(vc.size()), sa(vsa.size()), sb(vsb.size());
  auto fill = [&](std::vector<double>& v, std::vector<std::uint32_t>& bits, Format f, auto& dist, bool pow2) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = pow2 ? std::ldexp(1.0, dist(rng)) : static_cast<double>(dist(rng));
      bits[i] = encode(f, v[i]);
    }
  };
  fill(va, a, in.a_type, ab, false);
  fill(vb, b, in.b_type, ab, false);
  fill(vc, c, in.c_type, cd, false);
  if (S) {
    fill(vsa, sa, in.scale_type, se, true);
    fill(vsb, sb, in.scale_type, se, true);
  }
  const std::vector<std::uint32_t> d = run(in, tiles, a, b, c, sa, sb);
  std::ostringstream report;
  int bad = 0;
  for (int t = 0; t < tiles; ++t)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = vc[(t * M + i) * N + j];
        for (int k = 0; k < K; ++k) {
          double p = va[(t * M + i) * K + k] * vb[(t * N + j) * K + k];
          if (S) p *= vsa[(t * M + i) * S + k / in.scale_block] * vsb[(t * N + j) * S + k / in.scale_block];
          want += p;
        }
        const double got = to_double(in.d_type, d[(t * M + i) * N + j]);
        if (got != want && ++bad <= 8)
          report << "\n  tile " << t << " (row " << i << ", col " << j << "): expected " << want << ", got " << got;
      }
  if (!bad) return "";
  return in.name + ": " + std::to_string(bad) + " of " + std::to_string(tiles * M * N) + " elements wrong" + report.str();
}

}  // namespace tcnum::blackwell
