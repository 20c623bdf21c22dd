// Block scales for fuzz campaigns (tcnum/fuzz/scales.hpp).
#include "tcnum/fuzz/scales.hpp"

#include <stdexcept>
#include <string>

#include "tcnum/core/format.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "splitmix.hpp"

namespace tcnum::fuzz {
namespace {

class Stream {
 public:
  explicit Stream(std::uint64_t seed) : x_(seed ^ 0x5ca1e5ca1e5ca1e5ull) {}
  std::uint64_t bits() {
    return detail::splitmix64(x_);
  }
  int range(int lo, int hi) {  // uniform in [lo, hi], exact rejection
    const std::uint64_t n = static_cast<std::uint64_t>(hi - lo) + 1, limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    for (;;)
      if (const std::uint64_t v = bits(); v < limit) return lo + static_cast<int>(v % n);
  }
  bool chance(int one_in) { return range(0, one_in - 1) == 0; }

 private:
  std::uint64_t x_;
};

// Raw bits of 2^e (ue8m0), or of 2^e·(1 + m/8) (ue4m3, e within its normal range).
std::uint32_t power(Format f, int e, Stream& s) {
  if (f == Format::ue8m0) return static_cast<std::uint32_t>(127 + e);
  return static_cast<std::uint32_t>(((7 + e) << 3) | s.range(0, 7));
}

std::uint32_t largest(Format f) { return f == Format::ue8m0 ? 0xfeu : 0x7eu; }
std::uint32_t smallest(Format f) { return f == Format::ue8m0 ? 0x00u : 0x01u; }

std::uint32_t draw(Format f, int dist, Stream& s) {
  const bool e8 = f == Format::ue8m0;
  switch (dist) {
    case 1: return static_cast<std::uint32_t>(s.range(0, e8 ? 0xfe : 0x7e));
    case 2:
      if (e8) return power(f, s.chance(2) ? s.range(-127, -110) : s.range(110, 127), s);
      return s.chance(2) ? static_cast<std::uint32_t>(s.range(0x01, 0x0f)) : static_cast<std::uint32_t>(s.range(0x70, 0x7e));
    case 4:
      if (s.chance(8)) {
        switch (s.range(0, 3)) {
          case 0: return canonical_nan(f);
          case 1: return largest(f);
          case 2: return smallest(f);
          default: return e8 ? smallest(f) : 0x00u;
        }
      }
      return power(f, s.range(-4, 4), s);
    case 5: return e8 ? power(f, s.range(-127, -120), s) : static_cast<std::uint32_t>(s.range(0x00, 0x07));
    case 6:
      if (s.chance(16)) return s.chance(2) ? largest(f) : smallest(f);
      return power(f, s.range(-4, 4), s);
    default: return power(f, s.range(-4, 4), s);  // normal, cancel
  }
}

int dist_number(std::string_view dist) {
  const auto names = distribution_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == dist) return static_cast<int>(i);
  distribution_description(dist);  // throws, listing the valid names
  return 0;
}

}  // namespace

void generate_scales(const Instruction& in, std::string_view dist, std::uint64_t seed, std::size_t tiles,
                     std::uint32_t* scale_a, std::uint32_t* scale_b) {
  if (!in.block_scaled()) throw std::invalid_argument("generate_scales: " + in.name + " is not block-scaled");
  const int which = dist_number(dist);
  const int per = in.scales_per_row();
  Stream s(seed);
  auto lines = [&](std::uint32_t* out, int count) {
    for (int r = 0; r < count; ++r) {
      const std::uint32_t shared = draw(in.scale_type, which, s);
      for (int j = 0; j < per; ++j) out[r * per + j] = which == 3 ? shared : draw(in.scale_type, which, s);
    }
  };
  for (std::size_t t = 0; t < tiles; ++t) {
    lines(scale_a + t * static_cast<std::size_t>(in.m) * per, in.m);
    lines(scale_b + t * static_cast<std::size_t>(in.n) * per, in.n);
  }
}

}  // namespace tcnum::fuzz
