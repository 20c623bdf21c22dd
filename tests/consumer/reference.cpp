// The reference component through the installed package: the exact value of 1·1 + 1·2 + 1 with
// f16 inputs and an f32 C, rounded to f32, is 4 (the emulator's answer in main.cpp).
#include <tcnum/reference/mpfr_reference.hpp>

#include <cstdio>
#include <vector>

int main() {
  using namespace tcnum;
  const std::uint32_t one = 0x3c00u, two = 0x4000u, zero = 0u;  // f16
  const std::vector<std::uint32_t> a{one, one, zero}, b{one, two, zero};
  const std::uint32_t d = exact_dot_rounded(Format::fp16, Format::fp16, Format::fp32, a, b, 0x3f800000u /* 1.0f */,
                                            Format::fp32, Rounding::nearest_even);
  std::printf("tcnum consumer (reference): exact 1*1 + 1*2 + 1 = bits 0x%08x\n", d);
  return d == 0x40800000u ? 0 : 1;  // 4.0f
}
