// The chain matrix-multiplication study (include/tcnum/studies/chain.hpp): short fixed-seed runs whose
// properties are checked, and the MPFR chain against the emulator with the exact model.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "memory_limit.hpp"
#include "tcnum/studies/chain.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/reference/exact_box.hpp"
#include "tcnum/reference/normal.hpp"

namespace {

using namespace tcnum;
namespace ch = tcnum::chain;

Model exact_model() {
  Model m{"exact", 90, "every term kept, one rounding", {}};
  m.rules.push_back(ModelRule{std::nullopt, std::nullopt, std::nullopt, exact_params(), "test", false, {}, std::nullopt});
  return m;
}

ch::Config config(Format dtype, ch::Init init, int trials, int max_len) {
  ch::Config c;
  c.instr = ch::study_instruction(dtype, Family::mma, 90);
  c.trials = trials;
  c.max_len = max_len;
  c.init = init;
  c.seed = 20240601;
  return c;
}

// The emulator with the exact model and the MPFR chain (rounded once per link) on the same
// configuration, asserted equal link by link; returns the emulator's result.
ch::Result expect_emulator_equals_mpfr(ch::Config cfg, const std::string& label) {
  const ch::Result emu = ch::run(cfg, emulator_box(exact_model()));
  cfg.fp32_reference = cfg.exact_reference = false;
  const ch::Result mp = ch::run(cfg, exact_box());
  for (std::size_t t = 0; t < emu.trials.size(); ++t)
    for (std::size_t l = 0; l < emu.trials[t].links.size(); ++l)
      EXPECT_EQ(emu.trials[t].links[l].d_hash, mp.trials[t].links[l].d_hash) << label << " trial " << t << " link " << l + 1;
  return emu;
}

TEST(Chain, NormalIsPortableAndStandard) {
  NormalStream a(7), b(7);
  double sum = 0, sq = 0;
  constexpr int n = 50000;
  for (int i = 0; i < n; ++i) {
    const double x = a();
    ASSERT_EQ(x, b());
    sum += x;
    sq += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(sq / n, 1.0, 0.03);
  EXPECT_NE(ch::trial_seed(1, 0), ch::trial_seed(1, 1));
  EXPECT_NE(ch::trial_seed(1, 0), ch::trial_seed(2, 0));
}

TEST(Chain, RelativeL2ErrorIsEquationOne) {
  const std::vector<double> low{3, 4}, ref{3, 3};
  EXPECT_DOUBLE_EQ(ch::relative_l2_error(low, ref), 1.0 / 5.0);  // ||(0,1)|| / ||(3,4)||
  const std::vector<double> inf{INFINITY, 1};
  EXPECT_TRUE(std::isnan(ch::relative_l2_error(inf, ref)));
}

// Before: a shorter reference was read past its end (issue 14, item 11).
TEST(Chain, RelativeL2ErrorRejectsSpansOfDifferentLengths) {
  const std::vector<double> low{3, 4, 5}, ref{3, 3};
  EXPECT_THROW(ch::relative_l2_error(low, ref), std::invalid_argument);
  EXPECT_THROW(ch::relative_l2_error(ref, low), std::invalid_argument);
}

TEST(Chain, StudyInstructions) {
  EXPECT_EQ(ch::study_instruction(Format::fp16, Family::mma, 80).name, "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_EQ(ch::study_instruction(Format::bf16, Family::mma, 80).name, "mma.m16n8k8.f32.bf16.bf16.f32");
  EXPECT_EQ(ch::study_instruction(Format::tf32, Family::mma, 90).name, "mma.m16n8k8.f32.tf32.tf32.f32");
  EXPECT_EQ(ch::study_instruction(Format::e4m3, Family::mma, 90).name, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  EXPECT_EQ(ch::study_instruction(Format::bf16, Family::wgmma, 90).name, "wgmma.m64n8k16.f32.bf16.bf16");
  EXPECT_EQ(ch::study_instruction(Format::tf32, Family::wgmma, 90).name, "wgmma.m64n8k8.f32.tf32.tf32");
  EXPECT_EQ(ch::study_instruction(Format::e5m2, Family::wgmma, 90).name, "wgmma.m64n8k32.f32.e5m2.e5m2");
  EXPECT_THROW(ch::study_instruction(Format::fp32, Family::mma, 90), std::invalid_argument);
  EXPECT_THROW(ch::study_instruction(Format::e4m3, Family::mma, 80), std::invalid_argument);  // fp8: sm_89+
  EXPECT_THROW(ch::study_instruction(Format::fp16, Family::wgmma, 80), std::invalid_argument);
}

// BF16 (A100 model): errors grow with the chain on average; with low-precision initialisation
// the first link is almost exact (products exact, one fp32-level accumulation).
TEST(Chain, Bf16ErrorsGrowWithLength) {
  const ch::Config cfg = config(Format::bf16, ch::Init::low, 40, 8);
  const auto pts = ch::summarize(ch::run(cfg, emulator_box(builtin_model(80))));
  ASSERT_EQ(pts.size(), 8u);
  EXPECT_LT(pts[0].mean_rel_err_fp32, 1e-6);
  EXPECT_LT(pts[0].mean_rel_err_exact, 1e-6);
  for (std::size_t i = 1; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].finite, 40);
    EXPECT_GE(pts[i].mean_rel_err_fp32, pts[i - 1].mean_rel_err_fp32) << "N = " << pts[i].n;
    EXPECT_GE(pts[i].mean_rel_err_exact, pts[i - 1].mean_rel_err_exact) << "N = " << pts[i].n;
  }
  EXPECT_GT(pts[7].mean_rel_err_exact, 1e-3);  // about 2^-9 per conversion, many conversions
  // FP32 initialisation costs more at every N (the paper's third observation).
  const auto p32 = ch::summarize(ch::run(config(Format::bf16, ch::Init::fp32, 40, 8), emulator_box(builtin_model(80))));
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_GT(p32[i].mean_rel_err_exact, pts[i].mean_rel_err_exact);
}

// FP16 with the default set-up (m16n8k8, A 16×8, B_i 8×8, N(0,1)): magnitudes grow by about
// sqrt(8) per link, so the conversion of D_{N-1} to f16 overflows around N = 10.
TEST(Chain, Fp16OverflowIsReported) {
  const ch::Result r = ch::run(config(Format::fp16, ch::Init::low, 24, 16), emulator_box(builtin_model(80)));
  for (const auto& t : r.trials) {
    EXPECT_GE(t.first_overflow, 8);
    EXPECT_LE(t.first_overflow, 16);
    for (std::size_t l = 0; l < t.links.size(); ++l) {
      const bool after = static_cast<int>(l) + 1 >= t.first_overflow;
      EXPECT_EQ(t.links[l].overflow, after) << "link " << l + 1;
      EXPECT_EQ(std::isfinite(t.links[l].rel_err_fp32), !after);
      EXPECT_EQ(std::isfinite(t.links[l].rel_err_exact), !after);
    }
  }
  // TF32 has the same precision and fp32's range: same draws, no overflow.
  const ch::Result tf = ch::run(config(Format::tf32, ch::Init::low, 24, 16), emulator_box(builtin_model(80)));
  for (const auto& t : tf.trials) EXPECT_EQ(t.first_overflow, 0);
}

// The exact chain's rounded twin: every link's product through MPFR, rounded once to D's format,
// must equal the emulator with the exact model bit for bit, link after link.
TEST(Chain, MpfrChainEqualsExactModelEmulator) {
  for (Format f : {Format::fp16, Format::bf16, Format::tf32}) {
    for (ch::Init init : {ch::Init::low, ch::Init::fp32}) {
      const ch::Result emu =
          expect_emulator_equals_mpfr(config(f, init, 6, 12), std::string(name_of(f)) + "/" + std::string(ch::name_of(init)));
      // Low initialisation: the first link is the exact product rounded once to fp32.
      if (init == ch::Init::low) {
        for (const auto& t : emu.trials) EXPECT_LE(t.links[0].rel_err_exact, std::ldexp(1.0, -24));
      }
    }
  }
  // Same with the fp8 instruction (K = 32, four n-tiles) and power-of-two scaling, which is exact.
  ch::Config cfg = config(Format::e4m3, ch::Init::low, 4, 4);
  cfg.scaling = ch::Scaling::pow2;
  const ch::Result emu = expect_emulator_equals_mpfr(cfg, "e4m3/pow2");
  for (const auto& t : emu.trials) EXPECT_LE(t.links[0].rel_err_exact, std::ldexp(1.0, -24));
}

// Block-scaled chains (MXFP8, NVFP4): the instruction's own per-block scales through both backends.
ch::Config block_scaled_config(const char* instr, Format dtype, ch::Init init, int trials, int max_len) {
  ch::Config c = config(Format::bf16, init, trials, max_len);
  c.instr = parse_instruction(instr);
  EXPECT_EQ(c.instr.a_type, dtype);
  c.scaling = ch::Scaling::block;
  return c;
}
constexpr const char* kMxfp8 = "mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0";
constexpr const char* kNvfp4 = "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3";

TEST(ChainBlockScaled, MpfrChainEqualsExactModelEmulator) {
  for (const auto& [instr, dtype] : {std::pair{kMxfp8, Format::e4m3}, std::pair{kNvfp4, Format::e2m1}})
    for (ch::Init init : {ch::Init::low, ch::Init::fp32}) {
      // K = the instruction's: one rounding per link, as the MPFR chain's.
      expect_emulator_equals_mpfr(block_scaled_config(instr, dtype, init, 4, 6),
                                  std::string(instr) + "/" + std::string(ch::name_of(init)));
    }
}

TEST(ChainBlockScaled, FourBitElementsLoseMoreThanEightBitOnes) {
  // e2m1 keeps 1 fraction bit, e4m3 3: NVFP4's quantisation error is several times MXFP8's.
  auto first_link = [](const char* instr, Format dtype) {
    const ch::Config cfg = block_scaled_config(instr, dtype, ch::Init::fp32, 30, 1);
    return ch::summarize(ch::run(cfg, emulator_box(builtin_model(120)))).at(0).mean_rel_err_exact;
  };
  const double mx = first_link(kMxfp8, Format::e4m3), nv = first_link(kNvfp4, Format::e2m1);
  EXPECT_GT(mx, 0.0);
  EXPECT_GT(nv, 2 * mx) << "MXFP8 " << mx << ", NVFP4 " << nv;
}

TEST(ChainBlockScaled, ScalingMustMatchTheInstruction) {
  ch::Config cfg = block_scaled_config(kMxfp8, Format::e4m3, ch::Init::low, 1, 1);
  cfg.scaling = ch::Scaling::amax;
  EXPECT_THROW(ch::run(cfg, emulator_box(builtin_model(120))), std::invalid_argument);
  cfg = config(Format::e4m3, ch::Init::low, 1, 1);
  cfg.scaling = ch::Scaling::block;
  EXPECT_THROW(ch::run(cfg, emulator_box(builtin_model(90))), std::invalid_argument);
}

TEST(Chain, ReproducibleWhateverTheThreadCount) {
  ch::Config cfg = config(Format::e5m2, ch::Init::fp32, 6, 5);
  cfg.instr = find_instruction("mma.m16n8k32.f32.e5m2.e5m2.f32", 90);
  cfg.scaling = ch::Scaling::amax;
  cfg.threads = 1;
  const ch::Result one = ch::run(cfg, emulator_box(builtin_model(90), 1));
  cfg.threads = 3;
  const ch::Result three = ch::run(cfg, emulator_box(builtin_model(90), 3));
  for (std::size_t t = 0; t < one.trials.size(); ++t)
    for (std::size_t l = 0; l < one.trials[t].links.size(); ++l) {
      EXPECT_EQ(one.trials[t].links[l].d_hash, three.trials[t].links[l].d_hash);
      EXPECT_EQ(one.trials[t].links[l].rel_err_exact, three.trials[t].links[l].rel_err_exact);
      EXPECT_FALSE(one.trials[t].links[l].overflow);  // scaled fp8 never overflows
    }
}

// Issue #14, item 8 (`numprobe chain --threads 300` under `ulimit -v`): threads the system
// refuses must not abort the study, and the results stay those of one thread.
TEST(Chain, RefusedThreadsNeitherAbortNorChangeResults) {
  if (!test::kAddressSpaceCanBeCapped) GTEST_SKIP() << "a sanitizer build cannot cap its address space";
  ch::Config cfg = config(Format::bf16, ch::Init::low, 300, 2);
  cfg.exact_reference = false;
  cfg.threads = 1;
  const ch::Result one = ch::run(cfg, emulator_box(builtin_model(80), 1));
  const std::string status = test::run_with_address_space_cap(96u << 20, [&] {
    ch::Config many = cfg;
    many.threads = 300;
    const ch::Result r = ch::run(many, emulator_box(builtin_model(80), 300));
    for (std::size_t t = 0; t < one.trials.size(); ++t)
      for (std::size_t l = 0; l < one.trials[t].links.size(); ++l)
        if (r.trials[t].links[l].d_hash != one.trials[t].links[l].d_hash) return 1;
    return 0;
  });
  EXPECT_EQ(status, "exited 0");
}

TEST(Chain, RejectsBadSizes) {
  ch::Config cfg = config(Format::bf16, ch::Init::low, 1, 1);
  cfg.k = 12;  // not a multiple of K = 8
  EXPECT_THROW(ch::run(cfg, emulator_box(builtin_model(80))), std::invalid_argument);
  cfg.k = 0;
  cfg.trials = 0;
  EXPECT_THROW(ch::run(cfg, emulator_box(builtin_model(80))), std::invalid_argument);
}

}  // namespace
