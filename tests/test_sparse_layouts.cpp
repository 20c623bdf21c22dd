// The candidate metadata layouts of the mma.sp / wgmma.sp probes (probes/sparse_layouts.hpp):
// each that applies places every (row, group) value of a 16-row warp tile exactly once, in the
// metadata threads of its quad, and the layouts differ (so the self-check can tell them apart).
#include <gtest/gtest.h>

#include <set>

#include "sparse_layouts.hpp"

namespace tcnum::device::detail {
namespace {

TEST(SparseMetaLayouts, EveryValueOnceInItsQuad) {
  for (int groups : {4, 8, 16}) {  // f16 k16 / tf32 k8; f16 k32 / tf32 k16; fp8 k64
    std::set<std::vector<std::uint32_t>> distinct;
    for (const SparseMetaLayout& l : sparse_meta_layouts()) {
      std::vector<std::uint8_t> meta(16 * static_cast<std::size_t>(groups));
      for (std::size_t i = 0; i < meta.size(); ++i) meta[i] = static_cast<std::uint8_t>((i + i / 3) % 16);  // rows g, g + 8 differ
      const std::vector<std::uint32_t> words = pack_sparse_meta(l, groups, meta.data());
      if (words.empty()) continue;
      distinct.insert(words);
      std::set<std::pair<int, int>> seen;
      const int threads = 16 * groups / 64;
      for (int g = 0; g < 8; ++g)
        for (int w = 0; w < 4; ++w)
          for (int j = 0; j < 8; ++j) {
            int row = -1, group = -1;
            if (w >= threads) {
              EXPECT_EQ(words[static_cast<std::size_t>(4 * g + w)], 0u) << l.name;
              continue;
            }
            ASSERT_TRUE(l.place(groups, w, j, g, row, group)) << l.name;
            EXPECT_TRUE(row == g || row == g + 8) << l.name;
            EXPECT_TRUE(seen.insert({row, group}).second) << l.name << " places (" << row << ", " << group << ") twice";
          }
      EXPECT_EQ(seen.size(), 16u * static_cast<std::size_t>(groups)) << l.name;
    }
    EXPECT_GE(distinct.size(), 2u) << groups;
  }
}

}  // namespace
}  // namespace tcnum::device::detail
