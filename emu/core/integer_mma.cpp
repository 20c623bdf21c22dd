// Integer MMA: exact products and sums, one wrap or saturation into s32 (integer_mma.hpp).
#include "tcnum/core/integer_mma.hpp"

#include <limits>
#include <stdexcept>

namespace tcnum {

std::uint32_t integer_mma_element(std::span<const std::uint32_t> a, bool a_signed, std::span<const std::uint32_t> b,
                                  bool b_signed, std::uint32_t c, IntegerOverflow overflow) {
  if (a.size() != b.size()) throw std::invalid_argument("integer_mma_element: A and B hold different K");
  auto value = [](std::uint32_t raw, bool is_signed) -> std::int64_t {
    const std::uint32_t byte = raw & 0xffu;
    return is_signed ? static_cast<std::int64_t>(static_cast<std::int8_t>(byte)) : static_cast<std::int64_t>(byte);
  };
  // Exact: |a·b| <= 2^16 and K is far below 2^30, so the sum stays inside an int64.
  std::int64_t sum = static_cast<std::int64_t>(static_cast<std::int32_t>(c));
  for (std::size_t k = 0; k < a.size(); ++k) sum += value(a[k], a_signed) * value(b[k], b_signed);
  if (overflow == IntegerOverflow::saturate) {
    constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
    sum = sum < lo ? lo : sum > hi ? hi : sum;
  }
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum));  // modulo 2^32
}

}  // namespace tcnum
