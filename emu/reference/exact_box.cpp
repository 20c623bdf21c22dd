// The exact black box (tcnum/reference/exact_box.hpp).
#include "tcnum/reference/exact_box.hpp"

#include <mpfr.h>

#include "tcnum/core/format.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/reference/mpfr_reference.hpp"

namespace tcnum {

BlackBox exact_box(int threads) {
  BlackBox box;
  box.cases = [threads](const Instruction& in, std::span<const Case> cs) {
    std::vector<std::uint32_t> d(cs.size());
    constexpr std::size_t kChunk = 256;
    const std::size_t chunks = (cs.size() + kChunk - 1) / kChunk;
    parallel_for(
        chunks, chunks > 1 ? resolve_threads(threads) : 1,
        [&](std::size_t ch) {
          const std::vector<std::uint32_t> unit(static_cast<std::size_t>(in.scales_per_row()),
                                                in.block_scaled() ? encode(in.scale_type, 1.0) : 0);
          for (std::size_t t = ch * kChunk; t < std::min(cs.size(), (ch + 1) * kChunk); ++t) {
            const Case& g = cs[t];
            if (!in.block_scaled()) {
              d[t] = exact_dot_rounded(in.a_type, in.b_type, in.c_type, g.a, g.b, g.c, in.d_type, Rounding::nearest_even);
              continue;
            }
            const bool given = !g.scale_a.empty() || !g.scale_b.empty();
            const ScaleVectors sv{in.scale_type, in.scale_block, given ? std::span<const std::uint32_t>(g.scale_a) : unit,
                                  given ? std::span<const std::uint32_t>(g.scale_b) : unit};
            d[t] = exact_dot_rounded(in.a_type, in.b_type, in.c_type, g.a, g.b, g.c, sv, in.d_type,
                                     Rounding::nearest_even);
          }
        },
        [] { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); });
    return d;
  };
  return box;
}

}  // namespace tcnum
