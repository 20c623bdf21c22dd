// The element-wise profiling of Sun et al. (TPDS 2023, §8.1, Tables 12-15) on the built-in
// A100 model (sm_80): the paper's qualitative findings must hold — zero error for low-format
// initialisation in multiplication and inner-product addition, a non-zero accumulation error
// for bf16, f16 C/D exact against the FP32 result converted to f16 — and FP32 initialisation
// must show the conversion error of the inputs.
#include <gtest/gtest.h>

#include "tcnum/characterize/features.hpp"

namespace {

using namespace tcnum;
using namespace tcnum::features;

ProfileCell run(Format dtype, Format acc, ProfileOp op, Init init, bool c_like_inputs = false) {
  const Instruction in = default_instruction(dtype, 80, acc);
  return profile(in, emulator_box(builtin_model(80)), op, init, 1000, 1, c_like_inputs);
}

TEST(SunProfiling, LowFormatMultiplicationAndInnerProductAreExact) {
  for (Format d : {Format::bf16, Format::fp16, Format::tf32})
    for (ProfileOp op : {ProfileOp::multiply, ProfileOp::inner}) {
      const ProfileCell c = run(d, Format::fp32, op, Init::low);
      EXPECT_EQ(c.vs_cpu_fp32, 0.0) << name_of(d) << " " << name_of(op);
      EXPECT_EQ(c.vs_exact, 0.0) << name_of(d) << " " << name_of(op);
    }
}

TEST(SunProfiling, Bf16AccumulationHasAnError) {
  const ProfileCell c = run(Format::bf16, Format::fp32, ProfileOp::accumulate, Init::low);
  EXPECT_GT(c.vs_cpu_fp32, 0.0);
  EXPECT_LT(c.vs_cpu_fp32, 1e-6);  // Table 12: 1.89E-08 — a truncated last bit now and then
  EXPECT_GT(c.differ_cpu_fp32, 0u);
}

TEST(SunProfiling, Fp16AccumulationExactWhenCIsDrawnLikeTheInputs) {
  // Tables 13 and 15 report 0 for accumulation: C drawn in the input format makes a0 + c0 exact.
  for (Format d : {Format::fp16, Format::tf32})
    EXPECT_EQ(run(d, Format::fp32, ProfileOp::accumulate, Init::low, true).vs_cpu_fp32, 0.0) << name_of(d);
}

TEST(SunProfiling, F16OutputIsTheConvertedFp32Result) {
  for (ProfileOp op : {ProfileOp::multiply, ProfileOp::inner, ProfileOp::accumulate}) {
    const ProfileCell c = run(Format::fp16, Format::fp16, op, Init::low);
    EXPECT_EQ(c.vs_cpu_fp32_cvt, 0.0) << name_of(op);  // Table 14, CPU_FP32cvtFP16, init_FP16
    EXPECT_GT(c.vs_cpu_fp32, 0.0) << name_of(op);      // Table 14, CPU_FP32: the f16 rounding itself
  }
}

TEST(SunProfiling, Fp32InitialisationShowsTheConversionError) {
  for (Format d : {Format::bf16, Format::fp16, Format::tf32})
    for (ProfileOp op : {ProfileOp::multiply, ProfileOp::inner, ProfileOp::accumulate}) {
      const ProfileCell c = run(d, Format::fp32, op, Init::fp32);
      const double scale = d == Format::bf16 ? 1e-3 : 1e-4;  // Tables 12, 13, 15: E-03 for bf16, E-04 otherwise
      EXPECT_GT(c.vs_cpu_fp32, 0.5 * scale) << name_of(d) << " " << name_of(op);
      EXPECT_LT(c.vs_cpu_fp32, 5 * scale) << name_of(d) << " " << name_of(op);
    }
}

TEST(SunProfiling, SameSeedSameDraws) {
  const ProfileCell a = run(Format::bf16, Format::fp32, ProfileOp::inner, Init::fp32);
  const ProfileCell b = run(Format::bf16, Format::fp32, ProfileOp::inner, Init::fp32);
  EXPECT_EQ(a.vs_cpu_fp32, b.vs_cpu_fp32);
}

}  // namespace
