// The input generator "tcnum-irwin12-v1" (tcnum/core/library_inputs.hpp, docs/library-corpus.md §1).
#include "tcnum/core/library_inputs.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tcnum {
namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kOperandMul = 0xD1B54A32D192ED03ULL;
constexpr std::int64_t kOffset = 393210;  // the mean of the sum of twelve 16-bit fields
constexpr int kMaxE = 100;

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t fields_sum(std::uint64_t z) {
  return (z & 0xFFFF) + ((z >> 16) & 0xFFFF) + ((z >> 32) & 0xFFFF) + (z >> 48);
}

void check_e(int E) {
  if (E < 0 || E > kMaxE) throw std::invalid_argument("tcnum library inputs: E must be within 0..100, got " + std::to_string(E));
}

}  // namespace

std::uint64_t library_input_draw(std::uint64_t seed, std::uint64_t id, std::uint64_t e, unsigned d) {
  const std::uint64_t base = (seed * kGolden) ^ (id * kOperandMul);
  return mix(base + (4 * e + d + 1) * kGolden);
}

float library_input_value(std::uint64_t seed, std::uint64_t id, std::uint64_t e, InputDist dist, int E) {
  check_e(E);
  std::uint64_t s = 0;
  for (unsigned d = 0; d < 3; ++d) s += fields_sum(library_input_draw(seed, id, e, d));
  // Exact: |s − 393210| < 2^20, so the difference and its quotient by 2^16 are float32 values.
  float x = static_cast<float>(static_cast<std::int64_t>(s) - kOffset) / 65536.0f;
  if (dist == InputDist::wide && E > 0) {
    const auto t = static_cast<int>(library_input_draw(seed, id, e, 3) % static_cast<std::uint64_t>(2 * E + 1)) - E;
    x = std::ldexp(x, t);  // exact: |x| >= 2^-16 or 0, and 2^±100 keeps it a normal float32
  }
  return x;
}

std::vector<std::uint32_t> library_input_bits(Format f, std::uint64_t seed, std::uint64_t id, int rows, int cols,
                                              InputDist dist, int E) {
  check_e(E);
  if (rows < 0 || cols < 0) throw std::invalid_argument("tcnum library inputs: negative matrix size");
  check_format(f);
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  std::vector<std::uint32_t> bits(count);
  const bool as_f32 = f == Format::fp32 || f == Format::tf32;
  for (std::size_t e = 0; e < count; ++e) {
    const float x = library_input_value(seed, id, e, dist, E);
    bits[e] = as_f32 ? std::bit_cast<std::uint32_t>(x) : encode(f, x, Rounding::nearest_even);
  }
  return bits;
}

int library_wide_exponent(Format f) {
  switch (f) {
    case Format::fp32: case Format::tf32: case Format::bf16: return 16;
    case Format::fp16: case Format::e5m2: return 8;
    case Format::e4m3: return 4;
    default: return 0;
  }
}

}  // namespace tcnum
