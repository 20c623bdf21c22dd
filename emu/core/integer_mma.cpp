// Integer MMA: exact products and sums, one wrap or saturation into s32 (integer_mma.hpp).
#include "tcnum/core/integer_mma.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "tcnum/core/instruction.hpp"

namespace tcnum {
namespace {

void require_operand(Format f, const char* which) {
  check_format(f);
  if (f != Format::s8 && f != Format::u8 && f != Format::s4 && f != Format::u4)
    throw std::invalid_argument(std::string("integer_mma_element: ") + which + " is " + std::string(name_of(f)) +
                                ", not an integer operand format (s8, u8, s4, u4)");
}

}  // namespace

std::uint32_t integer_mma_element(std::span<const std::uint32_t> a, Format a_type, std::span<const std::uint32_t> b,
                                  Format b_type, std::uint32_t c, IntegerOverflow overflow) {
  if (a.size() != b.size()) throw std::invalid_argument("integer_mma_element: A and B hold different K");
  require_operand(a_type, "A");
  require_operand(b_type, "B");
  // Exact: |a·b| <= 2^16 and K is far below 2^30, so the sum stays inside an int64.
  std::int64_t sum = integer_value(Format::s32, c);
  for (std::size_t k = 0; k < a.size(); ++k) sum += integer_value(a_type, a[k]) * integer_value(b_type, b[k]);
  if (overflow == IntegerOverflow::saturate) {
    constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
    sum = sum < lo ? lo : sum > hi ? hi : sum;
  }
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum));  // modulo 2^32
}

std::uint32_t integer_mma_element(const Instruction& in, std::span<const std::uint32_t> a,
                                  std::span<const std::uint32_t> b, std::uint32_t c) {
  if (static_cast<int>(a.size()) != in.k || static_cast<int>(b.size()) != in.k)
    throw std::invalid_argument(in.name + ": expected " + std::to_string(in.k) + " elements of A and of B");
  if (in.c_type != Format::s32 || in.d_type != Format::s32)
    throw std::invalid_argument(in.name + ": integer MMA takes s32 C and D");
  return integer_mma_element(a, in.a_type, b, in.b_type, c, in.saturate ? IntegerOverflow::saturate : IntegerOverflow::wrap);
}

}  // namespace tcnum
