// Whole tiles through a plan (mma_tiles in tcnum/core/plan.hpp): every output element of a tile
// is an independent dot product, but its row of A and column of B are shared with the rest of
// the row and column, so they are decoded into planes once per tile and the kernel runs up to 8
// rows × 16 columns in lockstep (the GEMM kernel with one k-step). Lanes the kernel hands back
// take the reference datapath, element by element.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fast_kernel.hpp"
#include "reference_element.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum {

std::size_t mma_tiles(const MmaPlan& plan, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                      const std::uint32_t* c, std::uint32_t* d, Datapath path) {
  const Instruction& in = plan.instruction;
  const auto M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n), K = static_cast<std::size_t>(in.k);
  const std::size_t MK = M * K, NK = N * K, MN = M * N;
  if (path == Datapath::reference || !plan.fast || in.block_scaled()) {  // (the reference asks for missing scales)
    for (std::size_t t = 0; t < tiles; ++t)
      for (std::size_t i = 0; i < M; ++i)
        for (std::size_t j = 0; j < N; ++j)
          d[t * MN + i * N + j] = detail::reference_element(plan, {a + t * MK + i * K, K}, {b + t * NK + j * K, K},
                                                            c[t * MN + i * N + j]);
    return tiles * MN;
  }
  using detail::kLanes;
  using detail::kMaxChainRows;
  const std::size_t groups = (N + kLanes - 1) / kLanes, blocks = plan.blocks.size();
  const float a_scale = std::ldexp(1.0f, plan.product_shift);
  thread_local std::vector<float> a_sig, a_near, b_sig, b_near;
  thread_local std::vector<std::int32_t> a_exp, a_max, b_exp, b_max;
  thread_local std::vector<std::uint32_t> a_pairs, b_pairs;  // OperandPlanes::exp_pairs
  const std::size_t K2 = (K + 1) / 2;
  const std::size_t row_groups = (M + kLanes - 1) / kLanes;  // A's planes: 16 rows as the lanes, as B's columns
  a_sig.resize(row_groups * K * kLanes), a_near.resize(a_sig.size()), a_exp.resize(a_sig.size());
  a_max.resize(row_groups * blocks * kLanes), a_pairs.resize(row_groups * K2 * kLanes);
  b_sig.resize(groups * K * kLanes), b_near.resize(b_sig.size()), b_exp.resize(b_sig.size());
  b_max.resize(groups * blocks * kLanes), b_pairs.resize(groups * K2 * kLanes);
  const detail::GemmChainFn chain = detail::kernels().gemm_chain;
  const auto chain_rows = static_cast<std::size_t>(detail::kernels().chain_rows);
  const std::uint32_t d_zero = zero_bits(in.d_type, false);
  std::size_t slow = 0;
  const detail::PreparePlanesFn prepare = detail::kernels().prepare_planes;
  const std::uint32_t a_zero = zero_bits(in.a_type, false), b_zero = zero_bits(in.b_type, false);
  thread_local std::vector<std::uint32_t> raw;
  raw.resize(K * kLanes);
  const std::vector<std::size_t> slots(plan.schedule.begin(), plan.schedule.end());  // k of each schedule slot
  const auto gather_rows = detail::kernels().gather_rows;
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::uint32_t *ta = a + t * MK, *tb = b + t * NK, *tc = c + t * MN;
    std::uint32_t* td = d + t * MN;
    // Planes in product-schedule order, both in the kernel's [k][lane] layout: A 16 rows at a
    // time as the lanes (a row reads its lane), B 16 columns at a time.
    bool special = false;  // some operand of the tile is NaN/Inf
    for (std::size_t i0 = 0; i0 < M; i0 += kLanes) {
      const std::size_t rows = std::min<std::size_t>(kLanes, M - i0), at = i0 * K;
      gather_rows(ta + i0 * K, K, static_cast<int>(rows), slots.data(), K, K, a_zero, raw.data());
      special |= prepare(plan, detail::OperandSide::a, in.a_type, plan.a_seen, a_scale, raw.data(), nullptr,
                         &a_sig[at], &a_exp[at], &a_near[at], &a_max[i0 * blocks], &a_pairs[i0 * K2]);
    }
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t at = g * K * kLanes, j0 = g * kLanes;  // B column j: K values at tb + j·K
      gather_rows(tb + j0 * K, K, static_cast<int>(std::min<std::size_t>(kLanes, N - j0)), slots.data(), K, K, b_zero,
                  raw.data());
      special |= prepare(plan, detail::OperandSide::b, in.b_type, plan.b_seen, 1.0f, raw.data(), nullptr, &b_sig[at],
                         &b_exp[at], &b_near[at], &b_max[g * blocks * kLanes], &b_pairs[g * K2 * kLanes]);
    }
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t j0 = g * kLanes, lanes = std::min(kLanes * std::size_t{1}, N - j0), at = g * K * kLanes;
      const detail::OperandPlanes b_planes{&b_sig[at], &b_near[at], &b_exp[at], &b_max[g * blocks * kLanes],
                                           &b_pairs[g * K2 * kLanes]};
      for (std::size_t i0 = 0; i0 < M; i0 += chain_rows) {
        const int rows = static_cast<int>(std::min(chain_rows, M - i0));
        detail::OperandPlanes a_rows[kMaxChainRows];
        std::uint32_t acc[kMaxChainRows * kLanes], failed[kMaxChainRows] = {};
        for (int r = 0; r < rows; ++r) {
          const std::size_t i = i0 + static_cast<std::size_t>(r);
          const std::size_t lane_at = (i / kLanes) * K * kLanes + i % kLanes;  // row i's lane of its group
          a_rows[r] = {&a_sig[lane_at], &a_near[lane_at], &a_exp[lane_at], &a_max[(i / kLanes) * blocks * kLanes + i % kLanes],
                       &a_pairs[(i / kLanes) * K2 * kLanes + i % kLanes]};
          for (std::size_t l = 0; l < kLanes; ++l) acc[r * kLanes + l] = l < lanes ? tc[i * N + j0 + l] : d_zero;
        }
        const bool done = chain(plan, plan, rows, 1, a_rows, b_planes, acc, failed, !special) == 1;
        for (int r = 0; r < rows; ++r) {
          const std::size_t i = i0 + static_cast<std::size_t>(r);
          for (std::size_t l = 0; l < lanes; ++l) {
            const std::size_t j = j0 + l;
            if (!done && ((failed[r] >> l) & 1u)) {
              td[i * N + j] = mma_element(plan, {ta + i * K, K}, {tb + j * K, K}, tc[i * N + j]);
              ++slow;
            } else {
              td[i * N + j] = acc[r * kLanes + l];
            }
          }
        }
      }
    }
  }
  return slow;
}

}  // namespace tcnum
