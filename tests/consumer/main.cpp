// One element through the installed package: 1·1 + 1·2 + 1 = 4, f16 inputs, f32 accumulator, sm_90.
#include <tcnum/tcnum.hpp>

#include <cstdio>
#include <vector>

int main() {
  using namespace tcnum;
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  std::vector<std::uint32_t> a(in.k, half_t(0.0).raw()), b(in.k, half_t(0.0).raw());
  a[0] = a[1] = half_t(1.0).raw();
  b[0] = half_t(1.0).raw(), b[1] = half_t(2.0).raw();
  const std::uint32_t d = mma_element(builtin_model(90), in, a, b, float32_t(1.0).raw());
  std::printf("tcnum consumer: %s on sm_90: 1*1 + 1*2 + 1 = %g (bits 0x%08x)\n", in.name.c_str(),
              to_double(Format::fp32, d), d);
  return d == 0x40800000u ? 0 : 1;  // 4.0f
}
