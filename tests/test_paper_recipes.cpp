// The published probe recipes of Fasi et al. 2021 and Khattak & Mikaitis 2025, run on the
// built-in models, asserting the verdicts the papers report for the GPU each model stands for
// (V100 = sm_70, T4 = sm_75, A100 = sm_80, H100 = sm_90, B200 = sm_100). A paper that did not
// test a GPU asserts nothing for it. docs/models.md tabulates the same evidence.
//
// Where a verdict comes from the authors' released code rather than the paper's prose, the
// comment names the file: the Fasi et al. suite encodes each GPU's reported behaviour as the
// values its per-GPU test file expects (tc_test_numerics-V100.cu, -T4-A100-binary16.cu,
// -A100-bf16.cu, -A100-tf32.cu); Khattak & Mikaitis publish their final models per GPU
// (MATLAB-tensor-core: V100TC.m, A100TC.m, H100TC.m, B200TC.m) and an A30 (GA100, sm_80)
// output of their HPEC test program (IEEE_HPEC2025_block_FMA_tests/README.md).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include <cmath>
#include <sstream>
#include <string>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/characterize/recipes.hpp"

namespace {

using namespace tcnum;
using namespace tcnum::recipes;

struct Target {
  int sm;
  Instruction in;
  BlackBox fn;
};

Target target(int sm, const char* name) {
  Instruction in = find_instruction(name, sm);
  return Target{sm, in, emulator_box(builtin_model(sm))};
}

std::string describe(const RecipeVerdict& v, const Instruction& in) {
  std::ostringstream os;
  os << v.recipe << " on " << in.name << ": applicable=" << v.applicable << " passed=" << v.passed
     << " verdict=" << v.verdict << " value=" << v.value << (v.lower_bound ? "+" : "") << " (" << v.note << ")\n";
  for (const Probe& p : v.probes) {
    os << "  " << p.what << " -> D = " << to_double(in.d_type, p.d);
    if (p.expected) os << " (recipe expects " << to_double(in.d_type, *p.expected) << ")";
    os << "\n";
  }
  return os.str();
}

// The recipe ran and its own pass rule held (what the authors' suite prints as [PASS]).
#define EXPECT_PASSES(expr, tgt)                                    \
  do {                                                                 \
    const RecipeVerdict v_ = (expr);                                \
    EXPECT_TRUE(v_.applicable && v_.passed) << describe(v_, (tgt).in); \
  } while (0)

#define EXPECT_VERDICT(expr, tgt, label)                                  \
  do {                                                                       \
    const RecipeVerdict v_ = (expr);                                      \
    EXPECT_TRUE(v_.applicable) << describe(v_, (tgt).in);                    \
    EXPECT_EQ(v_.verdict, std::string(label)) << describe(v_, (tgt).in);     \
  } while (0)

#define EXPECT_VALUE(expr, tgt, number, at_least)                         \
  do {                                                                       \
    const RecipeVerdict v_ = (expr);                                      \
    EXPECT_TRUE(v_.applicable) << describe(v_, (tgt).in);                    \
    EXPECT_EQ(v_.value, (number)) << describe(v_, (tgt).in);                 \
    EXPECT_EQ(v_.lower_bound, (at_least)) << describe(v_, (tgt).in);         \
  } while (0)

// =============================================================================================
// Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores",
// PeerJ Comput. Sci. 7:e330 (2021). Test suite sections A (subnormals), B (accuracy of the
// dot products), C (rounding modes), D (features of the accumulator). The paper reports every
// test of its per-GPU files as passing on that GPU; those files differ where the GPUs do.

// ---- V100 (sm_70): tc_test_numerics-V100.cu ------------------------------------------------

TEST(Fasi2021_V100, SubnormalsSupported) {
  // §A: binary16 subnormal inputs in both modes, binary32 subnormal C, subnormal outputs: all supported.
  const Target f32 = target(70, "mma.m8n8k4.f32.f16.f16.f32");
  const Target f16 = target(70, "mma.m8n8k4.f16.f16.f16.f16");
  EXPECT_PASSES(fasi_subnormal_inputs(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_inputs(f16.fn, f16.in), f16);
  EXPECT_PASSES(fasi_subnormal_c(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_outputs(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_outputs(f16.fn, f16.in), f16);
}

TEST(Fasi2021_V100, DotProductAccuracy) {
  // §B: products exact (both modes); small products below binary32 of the largest term are
  // lost ("accumulated in binary32", V100 vectors a = 1, b = 2^-24); the sum is aligned on the
  // largest element whatever its position.
  const Target f32 = target(70, "mma.m8n8k4.f32.f16.f16.f32");
  const Target f16 = target(70, "mma.m8n8k4.f16.f16.f16.f16");
  EXPECT_PASSES(fasi_exact_products(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_exact_products_fp16_out(f16.fn, f16.in), f16);
  EXPECT_PASSES(fasi_accumulation_width(f32.fn, f32.in, FasiVariant::volta), f32);
  EXPECT_PASSES(fasi_sum_from_largest(f32.fn, f32.in, FasiVariant::volta), f32);
}

TEST(Fasi2021_V100, RoundingModes) {
  // §C: binary32 results are truncated (round-down for positive, round-up for negative values);
  // binary16 results are rounded to nearest.
  const Target f32 = target(70, "mma.m8n8k4.f32.f16.f16.f32");
  const Target f16 = target(70, "mma.m8n8k4.f16.f16.f16.f16");
  EXPECT_VERDICT(fasi_rounding_fp32_out(f32.fn, f32.in), f32, "toward_zero");
  EXPECT_VERDICT(fasi_rounding_fp16_out(f16.fn, f16.in), f16, "nearest");
}

TEST(Fasi2021_V100, Accumulator) {
  // §D1: no extra bit in the alignment: 1*1 - (1 - 2^-24) = 2^-23.
  // §D2/D3: no normalisation between the additions (D3 gives 2^-23 on V100).
  // §D4: three extra bits for the carry-out.  §D5: the dot product is not monotonic.
  const Target t = target(70, "mma.m8n8k4.f32.f16.f16.f32");
  EXPECT_PASSES(fasi_extra_alignment_bits(t.fn, t.in, FasiVariant::volta), t);
  EXPECT_VERDICT(fasi_extra_alignment_bits(t.fn, t.in, FasiVariant::volta), t, "none");
  EXPECT_PASSES(fasi_normalization_addition(t.fn, t.in), t);
  EXPECT_PASSES(fasi_normalization_subtraction(t.fn, t.in, FasiVariant::volta), t);
  EXPECT_PASSES(fasi_carry_out_bits(t.fn, t.in), t);
  EXPECT_VERDICT(fasi_monotonicity(t.fn, t.in, FasiVariant::volta), t, "non_monotonic");
}

// ---- T4 (sm_75): tc_test_numerics-T4-A100-binary16.cu --------------------------------------

TEST(Fasi2021_T4, SubnormalsSupported) {
  // §A: as on V100.
  const Target f32 = target(75, "mma.m16n8k8.f32.f16.f16.f32");
  const Target f16 = target(75, "mma.m16n8k8.f16.f16.f16.f16");
  EXPECT_PASSES(fasi_subnormal_inputs(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_inputs(f16.fn, f16.in), f16);
  EXPECT_PASSES(fasi_subnormal_c(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_outputs(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_subnormal_outputs(f16.fn, f16.in), f16);
}

TEST(Fasi2021_T4, DotProductAccuracy) {
  // §B with the T4/A100 vectors (a = 0.5: one more bit than V100 is kept).
  const Target f32 = target(75, "mma.m16n8k8.f32.f16.f16.f32");
  const Target f16 = target(75, "mma.m16n8k8.f16.f16.f16.f16");
  EXPECT_PASSES(fasi_exact_products(f32.fn, f32.in), f32);
  EXPECT_PASSES(fasi_exact_products_fp16_out(f16.fn, f16.in), f16);
  EXPECT_PASSES(fasi_accumulation_width(f32.fn, f32.in, FasiVariant::turing_ampere), f32);
  EXPECT_PASSES(fasi_sum_from_largest(f32.fn, f32.in, FasiVariant::turing_ampere), f32);
}

TEST(Fasi2021_T4, RoundingModes) {
  // §C: truncation for binary32 results, round to nearest for binary16 results.
  const Target f32 = target(75, "mma.m16n8k8.f32.f16.f16.f32");
  const Target f16 = target(75, "mma.m16n8k8.f16.f16.f16.f16");
  EXPECT_VERDICT(fasi_rounding_fp32_out(f32.fn, f32.in), f32, "toward_zero");
  EXPECT_VERDICT(fasi_rounding_fp16_out(f16.fn, f16.in), f16, "nearest");
}

TEST(Fasi2021_T4, Accumulator) {
  // §D1: one extra alignment bit (1*1 - (1 - 2^-24) = 2^-24 exactly); §D3 gives 0;
  // §D2, D4 (three carry bits), D5 (non-monotonic) as on V100.
  const Target t = target(75, "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_PASSES(fasi_extra_alignment_bits(t.fn, t.in, FasiVariant::turing_ampere), t);
  EXPECT_VERDICT(fasi_extra_alignment_bits(t.fn, t.in, FasiVariant::turing_ampere), t, "at_least_one");
  EXPECT_PASSES(fasi_normalization_addition(t.fn, t.in), t);
  EXPECT_PASSES(fasi_normalization_subtraction(t.fn, t.in, FasiVariant::turing_ampere), t);
  EXPECT_PASSES(fasi_carry_out_bits(t.fn, t.in), t);
  EXPECT_VERDICT(fasi_monotonicity(t.fn, t.in, FasiVariant::turing_ampere), t, "non_monotonic");
}

// ---- A100 (sm_80): -T4-A100-binary16.cu, -A100-bf16.cu, -A100-tf32.cu ----------------------

class Fasi2021_A100 : public ::testing::TestWithParam<const char*> {};

TEST_P(Fasi2021_A100, SuitePasses) {
  // binary16, bfloat16 and TF32 inputs with binary32 D: every test of the A100 files passes.
  const Target t = target(80, GetParam());
  EXPECT_PASSES(fasi_subnormal_inputs(t.fn, t.in), t);                  // §A
  EXPECT_PASSES(fasi_subnormal_c(t.fn, t.in), t);                       // §A
  EXPECT_PASSES(fasi_subnormal_outputs(t.fn, t.in), t);                 // §A (bf16/tf32: exactly 2^-127)
  EXPECT_PASSES(fasi_exact_products(t.fn, t.in), t);                    // §B
  EXPECT_PASSES(fasi_accumulation_width(t.fn, t.in, FasiVariant::turing_ampere), t);  // §B
  EXPECT_PASSES(fasi_sum_from_largest(t.fn, t.in, FasiVariant::turing_ampere), t);    // §B
  EXPECT_VERDICT(fasi_rounding_fp32_out(t.fn, t.in), t, "toward_zero");             // §C
  EXPECT_VERDICT(fasi_extra_alignment_bits(t.fn, t.in, FasiVariant::turing_ampere), t, "at_least_one");  // §D1
  EXPECT_PASSES(fasi_normalization_addition(t.fn, t.in), t);                        // §D2
  EXPECT_PASSES(fasi_normalization_subtraction(t.fn, t.in, FasiVariant::turing_ampere), t);  // §D3
  EXPECT_PASSES(fasi_carry_out_bits(t.fn, t.in), t);                                // §D4
  EXPECT_VERDICT(fasi_monotonicity(t.fn, t.in, FasiVariant::turing_ampere), t, "non_monotonic");  // §D5
}

INSTANTIATE_TEST_SUITE_P(Inputs, Fasi2021_A100,
                         ::testing::Values("mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f32.bf16.bf16.f32",
                                           "mma.m16n8k8.f32.tf32.tf32.f32"));

TEST(Fasi2021_A100Binary16Mode, SubnormalsProductsRounding) {
  // §A, §B, §C in binary16 mode (f16 C and D): subnormal results, exact products, round to nearest.
  const Target t = target(80, "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_PASSES(fasi_subnormal_inputs(t.fn, t.in), t);
  EXPECT_PASSES(fasi_subnormal_outputs(t.fn, t.in), t);
  EXPECT_PASSES(fasi_exact_products_fp16_out(t.fn, t.in), t);
  EXPECT_VERDICT(fasi_rounding_fp16_out(t.fn, t.in), t, "nearest");
}

// =============================================================================================
// Khattak & Mikaitis, "Generalized methodology for determining numerical features of hardware
// floating-point matrix multipliers: Part I", IEEE HPEC 2025 (test vectors, features 1-8), and
// "Accurate models of NVIDIA tensor cores", arXiv 2512.07004 (the per-GPU models the vectors
// and the randomised refinement arrive at: fma = FMA size, neab = extra alignment bits,
// frmode = final rounding). They test V100, A100, H100 and B200 (fp16, bf16, tf32 via WMMA,
// i.e. mma.sync; fp8 via mma.sync.m16n8k32).

// ---- V100 (sm_70): V100TC.m: fma = 4, neab = 0, frmode = rz (rne for fp16 D) -----------------

TEST(KhattakMikaitis2025_V100, Features) {
  const Target t = target(70, "mma.m8n8k4.f32.f16.f16.f32");
  const Target h = target(70, "mma.m8n8k4.f16.f16.f16.f16");
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 0, false);  // feature 1: neab = 0
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 4, true);                // feature 3: FMA size 4 (= K of m8n8k4)
  EXPECT_VERDICT(km_normalisation_pattern(t.fn, t.in), t, "late");  // feature 4: one normalisation per block
  EXPECT_VERDICT(km_output_rounding(t.fn, t.in), t, "toward_zero"); // feature 5: rz
  EXPECT_VERDICT(km_output_rounding(h.fn, h.in), h, "nearest_even");  // feature 6: rne for fp16 D
  EXPECT_VERDICT(km_alignment_rounding(t.fn, t.in, 0), t, "toward_zero");  // feature 7: truncated alignment
}

// ---- A100 (sm_80): A100TC.m: fma = 8 (tf32: 4), neab = 1, rz, rne for fp16 D. The HPEC README
// shows the same program on an A30 (GA100, sm_80) with fp16: one extra alignment bit (two-bit
// test fails), 3 extra carry bits, FMA size 8, late normalisation, RZ fp32 output, RNE fp16
// output, truncated alignment, RZ when blocks are chained. ----------------------------------

class KhattakMikaitis2025_A100 : public ::testing::TestWithParam<const char*> {};

TEST_P(KhattakMikaitis2025_A100, Features16Bit) {
  const Target t = target(80, GetParam());
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 1, false);  // feature 1
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 8, false);              // feature 3
  EXPECT_VALUE(km_extra_carry_bits(t.fn, t.in), t, 3, false);      // feature 2
  EXPECT_VERDICT(km_normalisation_pattern(t.fn, t.in), t, "late");                  // feature 4
  EXPECT_VERDICT(km_output_rounding(t.fn, t.in), t, "toward_zero");                 // feature 5
  EXPECT_VERDICT(km_alignment_rounding(t.fn, t.in, 1), t, "toward_zero");           // feature 7
  EXPECT_VERDICT(km_multi_block_rounding(t.fn, t.in, 8), t, "toward_zero");         // feature 8
}

INSTANTIATE_TEST_SUITE_P(Inputs, KhattakMikaitis2025_A100,
                         ::testing::Values("mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f32.bf16.bf16.f32"));

TEST(KhattakMikaitis2025_A100, Tf32) {
  // A100TC.m: tf32 fma = 4, neab = 1. The HPEC MATLAB sample reports 2 extra carry bits for TF32.
  const Target t = target(80, "mma.m16n8k8.f32.tf32.tf32.f32");
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 1, false);
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 4, false);
  EXPECT_VALUE(km_extra_carry_bits(t.fn, t.in), t, 2, false);
  EXPECT_VERDICT(km_output_rounding(t.fn, t.in), t, "toward_zero");
  EXPECT_VERDICT(km_multi_block_rounding(t.fn, t.in, 4), t, "toward_zero");
}

TEST(KhattakMikaitis2025_A100, Fp16Output) {
  // Feature 6: fp16 D is rounded to nearest even.
  const Target h = target(80, "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_VERDICT(km_output_rounding(h.fn, h.in), h, "nearest_even");
}

// ---- H100 (sm_90): H100TC.m: fma = 16 (tf32: 8), neab = 2, rz, rne for fp16 D;
// fp8: fma = 32 ("two interleaved 16-element vectors"), neab = -10 (13 kept bits). ----------

class KhattakMikaitis2025_H100 : public ::testing::TestWithParam<const char*> {};

TEST_P(KhattakMikaitis2025_H100, Features16Bit) {
  const Target t = target(90, GetParam());
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 2, true);  // feature 1: both bit tests pass
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 16, true);             // feature 3: no boundary within K = 16
  EXPECT_VERDICT(km_normalisation_pattern(t.fn, t.in), t, "late");
  EXPECT_VERDICT(km_output_rounding(t.fn, t.in), t, "toward_zero");
  EXPECT_VERDICT(km_alignment_rounding(t.fn, t.in, 2), t, "toward_zero");
  EXPECT_VALUE(probe_kept_fraction_bits(t.fn, t.in), t, 25, false);  // neab = 2 <=> F = 23 + 2
}

INSTANTIATE_TEST_SUITE_P(Inputs, KhattakMikaitis2025_H100,
                         ::testing::Values("mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f32.bf16.bf16.f32"));

TEST(KhattakMikaitis2025_H100, Tf32AndFp16Output) {
  const Target t = target(90, "mma.m16n8k8.f32.tf32.tf32.f32");
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 2, true);
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 8, true);  // tf32 fma = 8 = K
  const Target h = target(90, "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_VERDICT(km_output_rounding(h.fn, h.in), h, "nearest_even");
}

// FINDING, settled by the H100 corpora (docs/models.md, Hopper evidence): Khattak & Mikaitis
// model fp8 on H100 with 13 kept fraction bits over one 32-product block. On the device that
// is what wgmma (QGMMA) does; mma.sync fp8 on sm_90 is lowered by ptxas to f16 conversion +
// two f16 HMMAs + FADD (SASS), so it keeps the f16 datapath's 25 bits. The paper's 13 bits are
// asserted on wgmma, and mma.sync is asserted to differ, as the corpora show.
TEST(KhattakMikaitis2025_H100, Fp8KeepsThirteenBitsOnWgmmaNotOnMmaSync) {
  const Target w = target(90, "wgmma.m64n8k32.f32.e4m3.e4m3");
  EXPECT_VALUE(probe_kept_fraction_bits(w.fn, w.in), w, 13, false);
  const Target m = target(90, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  const auto kept = probe_kept_fraction_bits(m.fn, m.in);
  EXPECT_NE(kept.value, 13) << "sm_90 mma.sync fp8 runs on the f16 HMMA datapath";
}

// ---- B200 (sm_100): B200TC.m: fma = 16 (tf32: 8, fp8: 32), neab = 2 for every input format,
// rz, rne for fp16 D. --------------------------------------------------------------------------

class KhattakMikaitis2025_B200 : public ::testing::TestWithParam<const char*> {};

TEST_P(KhattakMikaitis2025_B200, Features16Bit) {
  const Target t = target(100, GetParam());
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 2, true);
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 16, true);
  EXPECT_VERDICT(km_normalisation_pattern(t.fn, t.in), t, "late");
  EXPECT_VERDICT(km_output_rounding(t.fn, t.in), t, "toward_zero");
  EXPECT_VERDICT(km_alignment_rounding(t.fn, t.in, 2), t, "toward_zero");
  EXPECT_VALUE(probe_kept_fraction_bits(t.fn, t.in), t, 25, false);
}

INSTANTIATE_TEST_SUITE_P(Inputs, KhattakMikaitis2025_B200,
                         ::testing::Values("mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f32.bf16.bf16.f32"));

TEST(KhattakMikaitis2025_B200, Tf32Fp8AndFp16Output) {
  const Target t = target(100, "mma.m16n8k8.f32.tf32.tf32.f32");
  EXPECT_VALUE(km_extra_alignment_bits(t.fn, t.in), t, 2, true);
  EXPECT_VALUE(km_fma_size(t.fn, t.in), t, 8, true);
  // fp8 (mma.sync.m16n8k32): neab = 2 (F = 25), one 32-product block.
  const Target q = target(100, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  EXPECT_VALUE(probe_kept_fraction_bits(q.fn, q.in), q, 25, false);
  EXPECT_VALUE(probe_block_size(q.fn, q.in), q, 32, true);
  EXPECT_VALUE(km_extra_alignment_bits(q.fn, q.in), q, 2, true);  // scaled by 2^15 into e4m3's range
  const Target h = target(100, "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_VERDICT(km_output_rounding(h.fn, h.in), h, "nearest_even");
}

// =============================================================================================
// Not a probe paper: the structural claim behind the sm_80/86/89 f16-D rule. MMA-Sim (Xie et
// al., arXiv 2511.10909; mmasim nv_ptx sim: Ampere m16n8k16 runs as two 8-product halves,
// each rounded RNE-FP16) and Khattak & Mikaitis (GEMM.m: c = d recursion in the output
// format, A100TC.m rne for fp16 D) both round every block result to f16 before the next block.
TEST(ModelStructure, AmpereF16OutputRoundsEveryBlockToF16) {
  const Target t = target(80, "mma.m16n8k16.f16.f16.f16.f16");
  auto h = [](double x) { return encode(Format::fp16, x); };
  std::vector<std::uint32_t> a(16, h(0)), b(16, h(1.0));
  a[0] = h(1.0), a[1] = h(std::ldexp(1, -11)), a[2] = h(std::ldexp(1, -22));  // block 1: 1 + 2^-11 + 2^-22
  a[8] = h(std::ldexp(1, -11));                                                // block 2: + 2^-11
  // Block 1 rounds to f16: 1 + 2^-10 (above the tie); block 2: 1 + 2^-10 + 2^-11 ties to 1 + 2^-9.
  // (Keeping block 1 in fp32 would give 1 + 2^-10 + 2^-22 -> 1 + 2^-10.)
  EXPECT_EQ(to_double(Format::fp16, evaluate(t.fn, t.in, Case{a, b, h(0), {}, {}})), 1.0 + std::ldexp(1, -9));
}

// The recipes are black-box: a wrong model is told apart. Volta's F = 23 fails the T4/A100 D1
// vector, and a 4-product block fails KM's A100 FMA-size verdict.
TEST(RecipesSanity, DistinguishModels) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 80);
  DatapathParams p = builtin_model(80).params_for(in);
  p.frac_bits = 23;
  EXPECT_EQ(fasi_extra_alignment_bits(emulator_box(p), in, FasiVariant::turing_ampere).verdict, "none");
  p = builtin_model(80).params_for(in);
  p.block_size = 4;
  EXPECT_EQ(km_fma_size(emulator_box(p), in).value, 4);
  EXPECT_EQ(probe_block_size(emulator_box(p), in).value, 4);
  p.frac_bits = 30;
  EXPECT_EQ(probe_kept_fraction_bits(emulator_box(p), in).value, 30);
  p.block_rounding = Rounding::nearest_even;
  EXPECT_EQ(km_output_rounding(emulator_box(p), in).verdict, "nearest_even");
}

TEST(RecipesSanity, NotApplicableIsReported) {
  const Target q = target(89, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  const RecipeVerdict v = fasi_carry_out_bits(q.fn, q.in);  // 2^-23 is no e4m3 value
  EXPECT_FALSE(v.applicable);
  EXPECT_FALSE(v.note.empty());
  const Target f16 = target(80, "mma.m16n8k16.f16.f16.f16.f16");
  EXPECT_FALSE(km_fma_size(f16.fn, f16.in).applicable);  // needs fp32 C and D
}

// A report records what the black box said: every probe's D is the black box's answer to that
// probe's inputs, ids are unique, and a recipe that does not apply says why.
TEST(RecipesSanity, ReportsRecordTheBlackBox) {
  for (const auto& [sm, name] : std::vector<std::pair<int, const char*>>{
           {89, "mma.m16n8k32.f32.e4m3.e4m3.f32"}, {80, "mma.m16n8k16.f16.f16.f16.f16"}, {90, "mma.m16n8k8.f32.tf32.tf32.f32"}}) {
    const Target t = target(sm, name);
    std::set<std::string> ids;
    for (const RecipeVerdict& r : run_all(t.fn, t.in, FasiVariant::turing_ampere)) {
      EXPECT_TRUE(ids.insert(r.recipe).second) << r.recipe << " twice on " << name;
      if (r.applicable) {
        EXPECT_FALSE(r.probes.empty()) << r.recipe << " on " << name << " ran no probe";
      } else {
        EXPECT_FALSE(r.note.empty()) << r.recipe << " on " << name;
      }
      for (const Probe& p : r.probes) EXPECT_EQ(p.d, evaluate(t.fn, t.in, p)) << r.recipe << ": " << p.what;
    }
  }
}

// tcnum's own probes invert the parameters they measure: on a datapath with F kept bits and
// blocks of Kb products they report F and Kb (Kb = K only as a lower bound: no later block).
// The block-size probe's small product (D's smallest subnormal) must survive in a block of its
// own, beside the earlier blocks' zero result: that takes no alignment floor and F >= 23 (as
// every model has for these inputs); the kept-bits probe needs neither.
RC_GTEST_PROP(RecipesSanity, ProbesMeasureTheirParameter, ()) {
  const int sm = *rc::gen::element(80, 90);
  const Instruction in = find_instruction(*rc::gen::element("mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k16.f32.f16.f16.f32"), sm);
  DatapathParams p = builtin_model(sm).params_for(in);
  p.frac_bits = *rc::gen::inRange(10, 40);
  const RecipeVerdict f = probe_kept_fraction_bits(emulator_box(p), in);
  RC_LOG() << describe(f, in);
  RC_ASSERT(f.applicable && f.value == p.frac_bits && !f.lower_bound);

  p.frac_bits = *rc::gen::inRange(23, 40);
  p.block_size = *rc::gen::element(1, 2, 4, 8, 16);
  p.align_exponent_floor.reset();
  const RecipeVerdict kb = probe_block_size(emulator_box(p), in);
  RC_LOG() << describe(kb, in);
  RC_ASSERT(kb.applicable && kb.value == p.block_size);
  RC_ASSERT(kb.lower_bound == (p.block_size == in.k));
}

}  // namespace
