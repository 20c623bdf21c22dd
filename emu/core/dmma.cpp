// f64 DMMA: an IEEE binary64 FMA chain in ascending k with the H100's NaN rules (dmma.hpp).
#include "tcnum/core/dmma.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace tcnum {
namespace {

constexpr std::uint64_t kQuietBit = std::uint64_t{1} << 51;
constexpr std::uint64_t kInvalidNaN = 0xfff8000000000000ull;  // what a step that makes a NaN writes

bool is_nan(std::uint64_t x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }

// One step d = fma(a, b, d), on bits: B's NaN, then d's, then A's (quieted), else the IEEE fma,
// whose NaN from numbers becomes kInvalidNaN.
std::uint64_t step(std::uint64_t a, std::uint64_t b, std::uint64_t d) {
  if (is_nan(b)) return b | kQuietBit;
  if (is_nan(d)) return d | kQuietBit;
  if (is_nan(a)) return a | kQuietBit;
  const double r = std::fma(std::bit_cast<double>(a), std::bit_cast<double>(b), std::bit_cast<double>(d));
  return std::isnan(r) ? kInvalidNaN : std::bit_cast<std::uint64_t>(r);
}

}  // namespace

std::uint64_t dmma_element(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
  if (a.size() != b.size()) throw std::invalid_argument("dmma_element: A and B hold different K");
  std::uint64_t d = c;
  for (std::size_t k = 0; k < a.size(); ++k) d = step(a[k], b[k], d);
  return d;
}

double dmma_element(std::span<const double> a, std::span<const double> b, double c) {
  if (a.size() != b.size()) throw std::invalid_argument("dmma_element: A and B hold different K");
  std::uint64_t d = std::bit_cast<std::uint64_t>(c);
  for (std::size_t k = 0; k < a.size(); ++k) d = step(std::bit_cast<std::uint64_t>(a[k]), std::bit_cast<std::uint64_t>(b[k]), d);
  return std::bit_cast<double>(d);
}

}  // namespace tcnum
