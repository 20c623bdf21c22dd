// Sparse instructions in fuzz campaigns (tcnum/fuzz/sparse_tiles.hpp).
#include "tcnum/fuzz/sparse_tiles.hpp"

#include <random>
#include <vector>

#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace tcnum::fuzz {

void generate_sparse_tiles(const Instruction& in, const DatapathParams& params, std::string_view dist,
                           std::uint64_t seed, std::size_t tiles, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c) {
  const Instruction sel = selected_form(in);
  const std::size_t M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n),
                    K = static_cast<std::size_t>(in.k), h = K / 2;
  std::vector<std::uint32_t> as(tiles * M * h), bs(tiles * N * h), bd(tiles * N * h), cd(tiles * M * N), ad(tiles * M * h);
  generate_tiles(sel, params, dist, seed, tiles, as.data(), bs.data(), c);
  generate_tiles(sel, params, dist, seed ^ 0x5eed5eedULL, tiles, ad.data(), bd.data(), cd.data());  // dropped rows
  std::mt19937_64 rng(seed * 31 + 7);
  const std::uint8_t v16[] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe}, v32[] = {0x4, 0xe};
  const std::uint32_t zero = zero_bits(in.a_type, false);
  for (std::size_t t = 0; t < tiles; ++t) {
    std::vector<std::uint8_t> meta(static_cast<std::size_t>(sparse_meta_count(in)));
    for (auto& m : meta) m = sparse_group(in) == 2 ? v32[rng() % 2] : v16[rng() % 6];
    const std::vector<int> pos = selected_positions(in, meta);
    std::vector<bool> kept(K, false);
    for (int p : pos) kept[static_cast<std::size_t>(p)] = true;
    for (std::size_t i = 0; i < M; ++i) {
      std::uint32_t* row = a + (t * M + i) * K;
      std::fill(row, row + K, zero);
      for (std::size_t s = 0; s < h; ++s) row[pos[s]] = as[(t * M + i) * h + s];
    }
    for (std::size_t j = 0; j < N; ++j) {
      std::uint32_t* col = b + (t * N + j) * K;
      std::size_t s = 0, other = 0;
      for (std::size_t k = 0; k < K; ++k)
        col[k] = kept[k] ? bs[(t * N + j) * h + s++] : bd[(t * N + j) * h + other++];
    }
  }
}

void sparse_mma_tiles(const MmaPlan& selected_plan, const Instruction& in, std::size_t tiles, const std::uint32_t* a,
                      const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d) {
  const std::size_t M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n),
                    K = static_cast<std::size_t>(in.k), h = K / 2;
  std::vector<std::uint32_t> bsel(N * h), arows(N * h), cs(N);
  for (std::size_t t = 0; t < tiles; ++t)
    for (std::size_t i = 0; i < M; ++i) {
      const CompressedRow row = compress_sparse_a(in, {a + (t * M + i) * K, K});
      const std::vector<int> pos = selected_positions(in, row.meta);
      for (std::size_t j = 0; j < N; ++j) {
        const std::uint32_t* col = b + (t * N + j) * K;
        for (std::size_t s = 0; s < h; ++s) bsel[j * h + s] = col[pos[s]];
        std::copy(row.a.begin(), row.a.end(), arows.begin() + static_cast<std::ptrdiff_t>(j * h));
        cs[j] = c[(t * M + i) * N + j];
      }
      mma_batch(selected_plan, N, arows.data(), bsel.data(), cs.data(), d + (t * M + i) * N);
    }
}

}  // namespace tcnum::fuzz
