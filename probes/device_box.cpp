// The GPU as a black box (tcnum/probes/device.hpp, tcnum/core/black_box.hpp): cases packed into
// tiles, and batched GEMMs as whole tiles.
#include <algorithm>

#include "tcnum/core/format.hpp"
#include "tcnum/probes/device_box.hpp"

namespace tcnum::device {
namespace {

// The batch cut into full tiles of the instruction (rows and columns padded with zeros), one
// run_tiles launch per k-step with the previous D as C. A and B as batched_gemm takes them
// (row-major m×k and k×n); device tiles hold B column by column ([n][k]).
std::vector<std::uint32_t> tiled_gemm(const Instruction& in, int batch, int m, int n, int k,
                                      std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                      const RunOptions& opt) {
  const int mt = (m + in.m - 1) / in.m, nt = (n + in.n - 1) / in.n, steps = k / in.k;
  const std::size_t tiles = static_cast<std::size_t>(batch) * mt * nt;
  const std::size_t at = static_cast<std::size_t>(in.m) * in.k, bt = static_cast<std::size_t>(in.n) * in.k,
                    dt = static_cast<std::size_t>(in.m) * in.n;
  std::vector<std::uint32_t> cd(tiles * dt, zero_bits(in.c_type, false));
  for (int s = 0; s < steps; ++s) {
    std::vector<std::uint32_t> ta(tiles * at, zero_bits(in.a_type, false));
    std::vector<std::uint32_t> tb(tiles * bt, zero_bits(in.b_type, false));
    std::size_t tile = 0;
    for (int t = 0; t < batch; ++t)
      for (int mi = 0; mi < mt; ++mi)
        for (int ni = 0; ni < nt; ++ni, ++tile) {
          for (int r = 0; r < in.m && mi * in.m + r < m; ++r)
            for (int q = 0; q < in.k; ++q)
              ta[tile * at + static_cast<std::size_t>(r) * in.k + q] =
                  a[(static_cast<std::size_t>(t) * m + mi * in.m + r) * k + s * in.k + q];
          for (int col = 0; col < in.n && ni * in.n + col < n; ++col)
            for (int q = 0; q < in.k; ++q)
              tb[tile * bt + static_cast<std::size_t>(col) * in.k + q] =
                  b[(static_cast<std::size_t>(t) * k + s * in.k + q) * n + ni * in.n + col];
        }
    cd = run_tiles(in, static_cast<int>(tiles), ta, tb, cd, opt);
  }
  std::vector<std::uint32_t> d(static_cast<std::size_t>(batch) * m * n);
  std::size_t tile = 0;
  for (int t = 0; t < batch; ++t)
    for (int mi = 0; mi < mt; ++mi)
      for (int ni = 0; ni < nt; ++ni, ++tile)
        for (int r = 0; r < in.m && mi * in.m + r < m; ++r)
          for (int col = 0; col < in.n && ni * in.n + col < n; ++col)
            d[(static_cast<std::size_t>(t) * m + mi * in.m + r) * n + ni * in.n + col] =
                cd[tile * dt + static_cast<std::size_t>(r) * in.n + col];
  return d;
}

}  // namespace

BlackBox device_box(const RunOptions& opt) {
  BlackBox box;
  box.cases = [opt](const Instruction& in, std::span<const Case> cs) {
    return run_cases(in, std::vector<Case>(cs.begin(), cs.end()), opt);
  };
  box.gemm = [opt](const Instruction& in, int batch, int m, int n, int k, std::span<const std::uint32_t> a,
                   std::span<const std::uint32_t> b, const BatchScales&) {
    if (in.block_scaled())
      throw DeviceError(in.name + ": no device runner for block-scaled instructions (docs/probes.md)");
    return tiled_gemm(in, batch, m, n, k, a, b, opt);
  };
  return box;
}

}  // namespace tcnum::device
