// Candidate metadata layouts of mma.sp (sparse_layouts.hpp).
#include "sparse_layouts.hpp"

namespace tcnum::device::detail {
namespace {

// "halves": the low 16 bits row g, the high 16 bits row g + 8, word w groups 4w..4w+3.
bool halves(int groups, int w, int j, int g, int& row, int& group) {
  row = g + 8 * (j >> 2);
  group = 4 * w + (j & 3);
  return group < groups;
}

// "rows": word w row g (w even) or g + 8 (w odd), groups 8(w/2)..8(w/2)+7.
bool rows(int groups, int w, int j, int g, int& row, int& group) {
  if (groups < 8) return false;
  row = g + 8 * (w & 1);
  group = 8 * (w >> 1) + j;
  return group < groups;
}

// "rows-major": the first half of the words row g, the second row g + 8, 8 groups each.
bool rows_major(int groups, int w, int j, int g, int& row, int& group) {
  const int words = 16 * groups / 64;
  if (groups < 8) return false;
  row = g + 8 * (w >= words / 2);
  group = 8 * (w % (words / 2)) + j;
  return group < groups;
}

// "halves-swapped": as halves, the low 16 bits row g + 8.
bool halves_swapped(int groups, int w, int j, int g, int& row, int& group) {
  row = g + 8 * (1 - (j >> 2));
  group = 4 * w + (j & 3);
  return group < groups;
}

}  // namespace

const std::vector<SparseMetaLayout>& sparse_meta_layouts() {
  static const std::vector<SparseMetaLayout> all = {
      {"halves", &halves}, {"rows", &rows}, {"rows-major", &rows_major}, {"halves-swapped", &halves_swapped}};
  return all;
}

std::vector<std::uint32_t> pack_sparse_meta(const SparseMetaLayout& layout, int groups, const std::uint8_t* meta) {
  std::vector<std::uint32_t> words(32, 0);
  const int threads = 16 * groups / 64;
  for (int g = 0; g < 8; ++g)
    for (int w = 0; w < threads; ++w)
      for (int j = 0; j < 8; ++j) {
        int row = 0, group = 0;
        if (!layout.place(groups, w, j, g, row, group)) return {};
        words[static_cast<std::size_t>(4 * g + w)] |= std::uint32_t{meta[row * groups + group]} << (4 * j);
      }
  return words;
}

}  // namespace tcnum::device::detail
