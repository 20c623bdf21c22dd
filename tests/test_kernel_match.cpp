// match_kernel (tcnum/core/kernel_match.hpp): SASS mnemonics as cuobjdump prints them map to
// the catalog instruction; defaults per architecture; contradictions are errors; and the
// claim that an instruction's M and N change no output bit holds.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/core/kernel_match.hpp"

#include "random_values.hpp"

namespace tcnum {
namespace {

using F = Format;

TEST(MatchKernel, FromSass) {
  EXPECT_EQ(match_kernel(90, F::bf16, F::bf16, F::fp32, "HGMMA.64x128x16.F32.BF16").instruction.name,
            "wgmma.m64n128k16.f32.bf16.bf16");
  EXPECT_EQ(match_kernel(90, F::fp16, F::fp16, F::fp32, "HGMMA.64x256x16.F32").instruction.name,
            "wgmma.m64n256k16.f32.f16.f16");
  EXPECT_EQ(match_kernel(90, F::tf32, F::tf32, F::fp32, "HGMMA.64x64x8.F32.TF32").instruction.name,
            "wgmma.m64n64k8.f32.tf32.tf32");
  EXPECT_EQ(match_kernel(90, F::e4m3, F::e5m2, F::fp32, "QGMMA.64x128x32.F32.E4M3.E5M2").instruction.name,
            "wgmma.m64n128k32.f32.e4m3.e5m2");
  EXPECT_EQ(match_kernel(80, F::bf16, F::bf16, F::fp32, "HMMA.16816.F32.BF16").instruction.name,
            "mma.m16n8k16.f32.bf16.bf16.f32");
  EXPECT_EQ(match_kernel(80, F::bf16, F::bf16, F::fp32, "hmma.1688.f32.bf16").instruction.name,
            "mma.m16n8k8.f32.bf16.bf16.f32");
  EXPECT_EQ(match_kernel(80, F::tf32, F::tf32, F::fp32, "HMMA.1684.F32.TF32").instruction.name,
            "mma.m16n8k4.f32.tf32.tf32.f32");
  EXPECT_EQ(match_kernel(80, F::fp16, F::fp16, F::fp16, "HMMA.16816.F16").instruction.name,
            "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_EQ(match_kernel(75, F::fp16, F::fp16, F::fp32, "HMMA.1688.F32").instruction.name,
            "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_EQ(match_kernel(70, F::fp16, F::fp16, F::fp32, "HMMA.884.F32.F32.STEP0").instruction.name,
            "mma.m8n8k4.f32.f16.f16.f32");
  EXPECT_EQ(match_kernel(89, F::e4m3, F::e5m2, F::fp32, "QMMA.16832.F32.E4M3.E5M2").instruction.name,
            "mma.m16n8k32.f32.e4m3.e5m2.f32");
  // A line as cuobjdump -sass prints it.
  EXPECT_EQ(match_kernel(90, F::bf16, F::bf16, F::fp32,
                         "        /*0350*/                   HMMA.16816.F32.BF16 R8, R8, R12, RZ ;")
                .instruction.name,
            "mma.m16n8k16.f32.bf16.bf16.f32");
  // sm_90 runs fp8 mma as f16 HMMAs.
  const KernelMatch fp8 = match_kernel(90, F::e4m3, F::e4m3, F::fp32, "HMMA.16816.F32");
  EXPECT_EQ(fp8.instruction.name, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  EXPECT_NE(fp8.explanation.find("check the PTX"), std::string::npos) << fp8.explanation;
  // So does sm_100 (ptxas 13.0 emits sm_90's SASS); sm_89 has QMMA, so HMMA there is f16 inputs.
  EXPECT_EQ(match_kernel(100, F::e5m2, F::e5m2, F::fp32, "HMMA.16816.F32").instruction.name,
            "mma.m16n8k32.f32.e5m2.e5m2.f32");
  EXPECT_THROW(match_kernel(89, F::e4m3, F::e4m3, F::fp32, "HMMA.16816.F32"), std::invalid_argument);
}

TEST(MatchKernel, DefaultsAreTheDefaultInstructionAscendingK) {
  const KernelMatch h = match_kernel(90, F::bf16, F::bf16, F::fp32);
  EXPECT_EQ(h.instruction.name, "wgmma.m64n8k16.f32.bf16.bf16");
  EXPECT_TRUE(h.options.k_order.empty());
  EXPECT_EQ(h.options.split_k, 1);
  EXPECT_EQ(h.model().sm, 90);
  EXPECT_EQ(match_kernel(80, F::bf16, F::bf16, F::fp32).instruction.name, "mma.m16n8k16.f32.bf16.bf16.f32");
  EXPECT_EQ(match_kernel(80, F::tf32, F::tf32, F::fp32).instruction.name, "mma.m16n8k8.f32.tf32.tf32.f32");
  EXPECT_EQ(match_kernel(89, F::e4m3, F::e4m3, F::fp32).instruction.name, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  EXPECT_EQ(match_kernel(75, F::fp16, F::fp16, F::fp16).instruction.name, "mma.m16n8k8.f16.f16.f16.f16");
  EXPECT_EQ(match_kernel(70, F::fp16, F::fp16, F::fp32).instruction.name, "mma.m8n8k4.f32.f16.f16.f32");
  EXPECT_EQ(match_kernel(100, F::fp16, F::fp16, F::fp32).instruction.name, "tcgen05.mma.m64n8k16.f32.f16.f16");
  // One default in the house: without SASS, match_kernel takes the catalog's, with C = D
  // (on NVIDIA's architectures: match_kernel refuses AMD's gfx targets, which have no SASS).
  for (int sm : known_archs())
    if (!is_amd_arch(sm))
      for (F t : {F::fp16, F::bf16, F::tf32, F::e4m3})
        try {
          EXPECT_EQ(match_kernel(sm, t, t, F::fp32).instruction.name,
                    default_instruction(OperandFormats{t, t, F::fp32, F::fp32}, sm).name);
        } catch (const std::invalid_argument&) {
          EXPECT_THROW(default_instruction(OperandFormats{t, t, F::fp32, F::fp32}, sm), std::invalid_argument);
        }
}

TEST(MatchKernel, ContradictionsAndUnknownsAreErrors) {
  EXPECT_THROW(match_kernel(90, F::fp16, F::fp16, F::fp32, "HGMMA.64x128x16.F32.BF16"), std::invalid_argument);
  EXPECT_THROW(match_kernel(90, F::bf16, F::bf16, F::fp16, "HGMMA.64x128x16.F32.BF16"), std::invalid_argument);
  EXPECT_THROW(match_kernel(90, F::bf16, F::bf16, F::fp32, "IMMA.16816.S32.S8"), std::invalid_argument);
  EXPECT_THROW(match_kernel(90, F::bf16, F::bf16, F::fp32, "HMMA.1234.F32.BF16"), std::invalid_argument);
  EXPECT_THROW(match_kernel(80, F::bf16, F::bf16, F::fp32, "HGMMA.64x128x16.F32.BF16"), UnknownInstruction);
  EXPECT_THROW(match_kernel(75, F::bf16, F::bf16, F::fp32), std::invalid_argument);  // no bf16 before sm_80
  EXPECT_THROW(match_kernel(90, F::bf16, F::bf16, F::bf16), std::invalid_argument);
  EXPECT_THROW(match_kernel(90, F::bf16, F::bf16, F::fp32, "/*0350*/ FFMA R1, R2, R3, R4 ;"), std::invalid_argument);
}

// An architecture without a built-in model is refused by match_kernel itself, with or without
// SASS, naming it; not later by km.model(). (sm_91 would otherwise get sm_90's instructions.)
TEST(MatchKernel, UnknownArchitectureIsRefusedAtOnce) {
  for (int sm : {91, 0, -90, 87, 103, 900}) {
    for (const char* sass : {"", "HGMMA.64x128x16.F32.BF16", "HMMA.16816.F32.BF16"}) {
      try {
        (void)match_kernel(sm, F::bf16, F::bf16, F::fp32, sass);
        ADD_FAILURE() << "sm_" << sm << " '" << sass << "' was accepted";
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("unknown architecture sm_" + std::to_string(sm) + " "), std::string::npos) << what;
        EXPECT_NE(what.find("sm_90"), std::string::npos) << "the known ones are listed: " << what;
      }
    }
  }
  // Every known architecture passes the check (what follows may still refuse the types).
  for (int sm : known_archs()) {
    if (!is_amd_arch(sm)) {
      EXPECT_NO_THROW((void)match_kernel(sm, F::fp16, F::fp16, F::fp32)) << sm;
    }
  }
  // SASS kernels are NVIDIA's: an AMD gfx target is refused by name.
  EXPECT_THROW((void)match_kernel(942, F::fp16, F::fp16, F::fp32), std::invalid_argument);
}

// gemm_with_epilogue(km, A, B, D, ep), no C: km's model, instruction and options, then the
// epilogue; here alpha·acc + bias[j] in one fmaf, then ReLU, written out by hand on km's gemm.
TEST(MatchKernel, EpilogueWithoutCUsesTheMatch) {
  const int m = 64, n = 16, k = 64;
  const auto a = test::random_normal<bfloat16_t>(std::size_t(m) * k, 22);
  const auto b = test::random_normal<bfloat16_t>(std::size_t(k) * n, 122);
  KernelMatch km = match_kernel(80, F::bf16, F::bf16, F::fp32);
  km.options.k_order = {3, 1, 2, 0};  // changes accumulators (GemmOfAMatchUsesItsModelInstructionAndOptions)
  std::vector<float> acc(std::size_t(m) * n);
  gemm(km, row_major(a, m, k), row_major(b, k, n), row_major(acc, m, n));
  std::vector<float> bias(n);
  for (int j = 0; j < n; ++j) bias[j] = 0.375f * float(j - 8) + 1e-3f;
  Epilogue ep;
  ep.alpha = 1.0f / 3.0f;
  ep.bias_kind = BiasKind::per_column;
  ep.bias = bias;
  ep.relu = true;
  std::vector<float> d(acc.size(), -7.0f);
  gemm_with_epilogue(km, row_major(a, m, k), row_major(b, k, n), row_major(d, m, n), ep);
  int zeros = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float x = std::fmaf(ep.alpha, acc[std::size_t(i) * n + j], bias[j]);
      const float want = x > 0.0f ? x : 0.0f;
      zeros += want == 0.0f;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(d[std::size_t(i) * n + j]), std::bit_cast<std::uint32_t>(want))
          << "(" << i << ", " << j << ")";
    }
  EXPECT_GT(zeros, 0) << "the ReLU must have something to do";
  // beta != 0 needs a C.
  ep.beta = 1.0f;
  EXPECT_THROW(gemm_with_epilogue(km, row_major(a, m, k), row_major(b, k, n), row_major(d, m, n), ep),
               std::invalid_argument);
}

TEST(MatchKernel, GemmOfAMatchUsesItsModelInstructionAndOptions) {
  const int m = 64, n = 16, k = 64;
  const auto a = test::random_normal<bfloat16_t>(std::size_t(m) * k, 22);
  const auto b = test::random_normal<bfloat16_t>(std::size_t(k) * n, 122);
  KernelMatch km = match_kernel(80, F::bf16, F::bf16, F::fp32);
  km.options.k_order = {3, 1, 2, 0};
  std::vector<float> via_match(std::size_t(m) * n), direct(via_match.size());
  gemm(km, row_major(a, m, k), row_major(b, k, n), row_major(via_match, m, n));
  gemm(builtin_model(80), find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80), row_major(a, m, k),
       row_major(b, k, n), row_major(direct, m, n), km.options);
  EXPECT_EQ(via_match, direct);
  std::vector<float> ascending(via_match.size());
  gemm(builtin_model(80), km.instruction, row_major(a, m, k), row_major(b, k, n), row_major(ascending, m, n));
  EXPECT_NE(via_match, ascending) << "the k-order must be taken from the match";
}

// The header's claim: an instruction's N does not change any output bit (nor does M).
TEST(MatchKernel, InstructionNChangesNoBit) {
  const int m = 64, n = 32, k = 64;
  const auto a = test::random_normal<bfloat16_t>(std::size_t(m) * k, 21);
  const auto b = test::random_normal<bfloat16_t>(std::size_t(k) * n, 121);
  std::vector<float> d8(std::size_t(m) * n), d256(d8.size());
  gemm(builtin_model(90), find_instruction("wgmma.m64n8k16.f32.bf16.bf16", 90), row_major(a, m, k), row_major(b, k, n),
       row_major(d8, m, n));
  gemm(builtin_model(90), find_instruction("wgmma.m64n256k16.f32.bf16.bf16", 90), row_major(a, m, k),
       row_major(b, k, n), row_major(d256, m, n));
  EXPECT_EQ(d8, d256);
}

}  // namespace
}  // namespace tcnum
