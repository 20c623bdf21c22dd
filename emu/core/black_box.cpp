// The one black-box interface (tcnum/core/black_box.hpp): the emulator box and GEMMs over a box.
#include "tcnum/core/black_box.hpp"

#include <stdexcept>
#include <string>

#include "reference_element.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/sparse.hpp"

namespace tcnum {
namespace {

constexpr std::size_t kChunk = 2048;  // cases per mma_batch call on one thread

std::uint32_t scaled_element(const DatapathParams& p, const Instruction& in, const Case& g) {
  if (!g.scale_a.empty() || !g.scale_b.empty())
    return detail::reference_element(p, in, g.a, g.b, g.c, g.scale_a, g.scale_b);
  const std::vector<std::uint32_t> unit(static_cast<std::size_t>(in.scales_per_row()), encode(in.scale_type, 1.0));
  return detail::reference_element(p, in, g.a, g.b, g.c, unit, unit);
}

// Sparse cases: B's selected elements gathered by each case's metadata, then the dense datapath
// of selected_form(in) over them (tcnum/core/sparse.hpp).
std::vector<std::uint32_t> emulate_sparse(const DatapathParams& p, const Instruction& in, std::span<const Case> cs,
                                          int threads) {
  const MmaPlan plan = compile_plan(p, selected_form(in));
  const std::size_t half = static_cast<std::size_t>(in.a_elements());
  for (std::size_t t = 0; t < cs.size(); ++t)
    if (cs[t].a.size() != half || cs[t].b.size() != static_cast<std::size_t>(in.k))
      throw std::invalid_argument(in.name + ": case " + std::to_string(t) + " has " + std::to_string(cs[t].a.size()) +
                                  " A and " + std::to_string(cs[t].b.size()) + " B elements; sparse K = " +
                                  std::to_string(in.k) + " takes " + std::to_string(half) + " stored A elements and " +
                                  std::to_string(in.k) + " of B");
  std::vector<std::uint32_t> d(cs.size());
  const std::size_t chunks = (cs.size() + kChunk - 1) / kChunk;
  parallel_for(chunks, chunks > 1 ? resolve_threads(threads) : 1, [&](std::size_t ch) {
    const std::size_t first = ch * kChunk, n = std::min(kChunk, cs.size() - first);
    std::vector<std::uint32_t> a(n * half), b(n * half), c(n);
    for (std::size_t t = 0; t < n; ++t) {
      const Case& g = cs[first + t];
      const std::vector<std::uint32_t> sel = gather_selected(in, g.meta, g.b);
      std::copy(g.a.begin(), g.a.end(), a.begin() + static_cast<std::ptrdiff_t>(t * half));
      std::copy(sel.begin(), sel.end(), b.begin() + static_cast<std::ptrdiff_t>(t * half));
      c[t] = g.c;
    }
    mma_batch(plan, n, a.data(), b.data(), c.data(), d.data() + first);
  });
  return d;
}

std::vector<std::uint32_t> emulate(const DatapathParams& p, const Instruction& in, std::span<const Case> cs,
                                   int threads) {
  if (in.sparse) return emulate_sparse(p, in, cs, threads);
  const MmaPlan plan = compile_plan(p, in);  // validates the parameters for `in`
  std::vector<std::uint32_t> d(cs.size());
  const std::size_t K = static_cast<std::size_t>(in.k);
  for (std::size_t t = 0; t < cs.size(); ++t)
    if (cs[t].a.size() != K || cs[t].b.size() != K)
      throw std::invalid_argument(in.name + ": case " + std::to_string(t) + " has " + std::to_string(cs[t].a.size()) +
                                  " A and " + std::to_string(cs[t].b.size()) + " B elements; K = " +
                                  std::to_string(K));
  const std::size_t chunks = (cs.size() + kChunk - 1) / kChunk;
  parallel_for(chunks, chunks > 1 ? resolve_threads(threads) : 1, [&](std::size_t ch) {
    const std::size_t first = ch * kChunk, n = std::min(kChunk, cs.size() - first);
    if (in.block_scaled()) {
      for (std::size_t t = first; t < first + n; ++t) d[t] = scaled_element(p, in, cs[t]);
      return;
    }
    std::vector<std::uint32_t> a(n * K), b(n * K), c(n);
    for (std::size_t t = 0; t < n; ++t) {
      std::copy(cs[first + t].a.begin(), cs[first + t].a.end(), a.begin() + static_cast<std::ptrdiff_t>(t * K));
      std::copy(cs[first + t].b.begin(), cs[first + t].b.end(), b.begin() + static_cast<std::ptrdiff_t>(t * K));
      c[t] = cs[first + t].c;
    }
    mma_batch(plan, n, a.data(), b.data(), c.data(), d.data() + first);
  });
  return d;
}

Model single_rule(const DatapathParams& p) {
  Model m{"parameters", 0, "one set of datapath parameters for every instruction", {}};
  m.rules.push_back(ModelRule{std::nullopt, std::nullopt, std::nullopt, p, "given", false, {}, std::nullopt});
  return m;
}

// batched_gemm with tcnum::gemm: per product, M and N padded to whole tiles (every element is
// independent, so padding changes nothing).
std::vector<std::uint32_t> emulator_gemm(const Model& model, const Instruction& in, int batch, int m, int n, int k,
                                         std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                         const BatchScales& scales, int threads) {
  const int mp = (m + in.m - 1) / in.m * in.m, np = (n + in.n - 1) / in.n * in.n;
  const int nb = in.block_scaled() ? k / in.scale_block : 0;  // scales per row of A / column of B
  std::vector<std::uint32_t> d(static_cast<std::size_t>(batch) * m * n);
  const std::uint32_t c0 = zero_bits(in.c_type, false);
  GemmOptions one_thread;
  one_thread.threads = 1;  // the batch is spread instead
  parallel_for(static_cast<std::size_t>(batch), resolve_threads(threads), [&](std::size_t t) {
    std::vector<std::uint32_t> ap(static_cast<std::size_t>(mp) * k, zero_bits(in.a_type, false));
    std::vector<std::uint32_t> bp(static_cast<std::size_t>(k) * np, zero_bits(in.b_type, false));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j) ap[static_cast<std::size_t>(i) * k + j] = a[(t * m + i) * k + j];
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < n; ++j) bp[static_cast<std::size_t>(i) * np + j] = b[(t * k + i) * n + j];
    const std::vector<std::uint32_t> c(static_cast<std::size_t>(mp) * np, c0);
    std::vector<std::uint32_t> dp;
    if (in.block_scaled()) {
      BlockScales sp;  // padded rows and columns: unit scales (their elements are zeros)
      sp.a.assign(static_cast<std::size_t>(mp) * nb, encode(in.scale_type, 1.0));
      sp.b.assign(static_cast<std::size_t>(nb) * np, encode(in.scale_type, 1.0));
      for (int i = 0; i < m; ++i)
        for (int q = 0; q < nb; ++q) sp.a[static_cast<std::size_t>(i) * nb + q] = scales.a[(t * m + i) * nb + q];
      for (int q = 0; q < nb; ++q)
        for (int j = 0; j < n; ++j) sp.b[static_cast<std::size_t>(q) * np + j] = scales.b[(t * nb + q) * n + j];
      dp = gemm(model, in, mp, np, k, ap, bp, c, sp, one_thread);
    } else {
      dp = gemm(model, in, mp, np, k, ap, bp, c, one_thread);
    }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) d[(t * m + i) * n + j] = dp[static_cast<std::size_t>(i) * np + j];
  });
  return d;
}

}  // namespace

std::uint32_t emulate_case(const DatapathParams& p, const Instruction& in, const Case& c) {
  if (in.sparse) return sparse_element(p, in, c.a, c.b, c.c, c.meta);
  if (in.block_scaled()) return scaled_element(p, in, c);
  return mma_element(p, in, c.a, c.b, c.c);
}

BlackBox emulator_box(const Model& model, int threads) {
  BlackBox box;
  box.cases = [model, threads](const Instruction& in, std::span<const Case> cs) {
    return emulate(model.params_for(in), in, cs, threads);
  };
  box.gemm = [model, threads](const Instruction& in, int batch, int m, int n, int k, std::span<const std::uint32_t> a,
                     std::span<const std::uint32_t> b, const BatchScales& scales) {
    if (in.sparse) throw std::invalid_argument(in.name + ": batched_gemm takes dense instructions (sparse A: evaluate cases)");
    return emulator_gemm(model, in, batch, m, n, k, a, b, scales, threads);
  };
  return box;
}

BlackBox emulator_box(const DatapathParams& params, int threads) { return emulator_box(single_rule(params), threads); }

std::uint32_t evaluate(const BlackBox& box, const Instruction& in, const Case& c) {
  const std::vector<std::uint32_t> d = box.cases(in, std::span<const Case>(&c, 1));
  if (d.size() != 1) throw std::runtime_error(in.name + ": the black box returned " + std::to_string(d.size()) + " results for one case");
  return d[0];
}

std::vector<std::uint32_t> batched_gemm(const BlackBox& box, const Instruction& in, int batch, int m, int n, int k,
                                        std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                        const BatchScales& scales) {
  if (batch < 0 || m <= 0 || n <= 0 || k <= 0 || k % in.k != 0)
    throw std::invalid_argument(in.name + ": batched_gemm needs positive sizes and K a multiple of " +
                                std::to_string(in.k) + " (batch " + std::to_string(batch) + ", " + std::to_string(m) +
                                "×" + std::to_string(n) + "×" + std::to_string(k) + ")");
  const std::size_t B = static_cast<std::size_t>(batch), M = static_cast<std::size_t>(m),
                    N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  if (a.size() != B * M * K || b.size() != B * K * N)
    throw std::invalid_argument(in.name + ": batched_gemm got " + std::to_string(a.size()) + " A and " +
                                std::to_string(b.size()) + " B elements for batch " + std::to_string(batch) + " of " +
                                std::to_string(m) + "×" + std::to_string(k) + " · " + std::to_string(k) + "×" +
                                std::to_string(n));
  const std::size_t nb = in.block_scaled() ? K / static_cast<std::size_t>(in.scale_block) : 0;
  if (in.block_scaled() && (scales.a.size() != B * M * nb || scales.b.size() != B * nb * N))
    throw std::invalid_argument(in.name + ": batched_gemm got " + std::to_string(scales.a.size()) + " A and " +
                                std::to_string(scales.b.size()) + " B scales; a block-scaled batch needs " +
                                std::to_string(B * M * nb) + " and " + std::to_string(B * nb * N));
  std::vector<std::uint32_t> d;
  if (box.gemm) {
    d = box.gemm(in, batch, m, n, k, a, b, scales);
  } else {
    const std::size_t ks = static_cast<std::size_t>(in.k);
    d.assign(B * M * N, zero_bits(in.c_type, false));
    std::vector<Case> cs(B * M * N);
    for (std::size_t s = 0; s < K / ks; ++s) {
      for (std::size_t t = 0; t < B; ++t)
        for (std::size_t i = 0; i < M; ++i)
          for (std::size_t j = 0; j < N; ++j) {
            const std::size_t e = (t * M + i) * N + j;
            Case& g = cs[e];
            g.a.assign(a.begin() + static_cast<std::ptrdiff_t>((t * M + i) * K + s * ks),
                       a.begin() + static_cast<std::ptrdiff_t>((t * M + i) * K + (s + 1) * ks));
            g.b.resize(ks);
            for (std::size_t q = 0; q < ks; ++q) g.b[q] = b[(t * K + s * ks + q) * N + j];
            // the previous step's D is this step's C (converted exactly where C is wider than D)
            g.c = s == 0 || in.c_type == in.d_type ? d[e] : encode(in.c_type, to_double(in.d_type, d[e]));
            if (nb > 0) {  // this k-step's scales of A's row i and B's column j
              const std::size_t per = static_cast<std::size_t>(in.scales_per_row());
              g.scale_a.resize(per);
              g.scale_b.resize(per);
              for (std::size_t q = 0; q < per; ++q) {
                g.scale_a[q] = scales.a[(t * M + i) * nb + s * per + q];
                g.scale_b[q] = scales.b[(t * nb + s * per + q) * N + j];
              }
            }
          }
      d = box.cases(in, cs);
    }
  }
  if (d.size() != B * M * N)
    throw std::runtime_error(in.name + ": the black box's GEMM returned " + std::to_string(d.size()) +
                             " elements, not " + std::to_string(B * M * N));
  return d;
}

}  // namespace tcnum
