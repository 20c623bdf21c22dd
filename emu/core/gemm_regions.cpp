// Schedules that differ by output tile (Schedule::regions): D computed with the schedule, then
// each region's rows and columns again with the region's own schedule. Every element of D is
// its own chains of k-steps, so a region's sub-GEMM gives exactly that region's elements.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_call.hpp"

namespace tcnum::detail {
namespace {

[[noreturn]] void fail(const Instruction& in, const std::string& why) {
  throw std::invalid_argument("tcnum::gemm(" + in.name + "): schedule regions: " + why);
}

std::string span(int lo, int hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")"; }

bool overlap(const ScheduleRegion& x, const ScheduleRegion& y) {
  return x.row_begin < y.row_end && y.row_begin < x.row_end && x.col_begin < y.col_end && y.col_begin < x.col_end;
}

void check_regions(const Instruction& in, const std::vector<ScheduleRegion>& regions, int m, int n) {
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const ScheduleRegion& r = regions[i];
    if (r.row_begin < 0 || r.row_begin >= r.row_end || r.row_end > m || r.col_begin < 0 || r.col_begin >= r.col_end ||
        r.col_end > n)
      fail(in, "region " + std::to_string(i) + " (rows " + span(r.row_begin, r.row_end) + ", cols " +
                   span(r.col_begin, r.col_end) + ") is not inside D (" + std::to_string(m) + "×" + std::to_string(n) + ")");
    if (!r.schedule.regions.empty()) fail(in, "region " + std::to_string(i) + "'s schedule has regions of its own");
    for (std::size_t j = 0; j < i; ++j)
      if (overlap(regions[j], r)) fail(in, "regions " + std::to_string(j) + " and " + std::to_string(i) + " overlap");
  }
}

// Rows [r0, r1) and columns [c0, c1) of a row-major matrix with `cols` columns.
std::vector<std::uint32_t> block(const std::vector<std::uint32_t>& x, std::size_t cols, int r0, int r1, int c0, int c1) {
  std::vector<std::uint32_t> out;
  out.reserve(static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(c1 - c0));
  for (int i = r0; i < r1; ++i)
    out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(c0)),
               x.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(c1)));
  return out;
}

}  // namespace

std::vector<std::uint32_t> gemm_by_regions(const Model& model, const Instruction& in, int m, int n, int k,
                                           const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                           const std::vector<std::uint32_t>& c, const GemmOptions& opt) {
  const std::vector<ScheduleRegion>& regions = opt.schedule->regions;
  GemmOptions outside = opt;
  outside.schedule->regions.clear();
  std::vector<std::uint32_t> d = gemm(model, in, m, n, k, a, b, c, outside);  // validates the operands
  check_regions(in, regions, m, n);
  const auto N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  for (const ScheduleRegion& r : regions) {
    GemmOptions inside = opt;
    inside.schedule = r.schedule;
    const int rows = r.row_end - r.row_begin, cols = r.col_end - r.col_begin;
    const auto part = gemm(model, in, rows, cols, k, block(a, K, r.row_begin, r.row_end, 0, k),
                           block(b, N, 0, k, r.col_begin, r.col_end), block(c, N, r.row_begin, r.row_end, r.col_begin, r.col_end),
                           inside);
    for (int i = 0; i < rows; ++i)
      std::copy(part.begin() + static_cast<std::ptrdiff_t>(i) * cols, part.begin() + static_cast<std::ptrdiff_t>(i + 1) * cols,
                d.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r.row_begin + i) * N + static_cast<std::size_t>(r.col_begin)));
  }
  return d;
}

}  // namespace tcnum::detail
