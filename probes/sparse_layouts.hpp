// Internal: where mma.sp's metadata register of each lane holds the metadata of a 16-row warp
// tile (sparsity selector 0). The PTX ISA gives the layouts as figures only ("Sparse MMA
// metadata layout"), so the probes carry the candidates a reading of them allows, and the
// layout self-check (sparse_runner.cpp) keeps the first under which small-integer tiles with
// random metadata come out exact; the report names it. Host code, no CUDA.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tcnum::device::detail {

// A warp tile's metadata: value (row r, group q) at meta[r * groups + q], 16 rows; lanes of
// quad g (lanes 4g..4g+3) serve rows g and g + 8, and `threads` = 16·groups / 64 of them (1, 2
// or 4) hold one 32-bit word each (8 values), the rest hold 0.
struct SparseMetaLayout {
  const char* name;
  // Nibble j (bits 4j..4j+3) of word w of quad g holds (row, group); false if the layout does
  // not apply to this many groups.
  bool (*place)(int groups, int w, int j, int g, int& row, int& group);
};

const std::vector<SparseMetaLayout>& sparse_meta_layouts();

// 32 lane words of one warp tile under `layout`.
std::vector<std::uint32_t> pack_sparse_meta(const SparseMetaLayout& layout, int groups, const std::uint8_t* meta);

}  // namespace tcnum::device::detail
