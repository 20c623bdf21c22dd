// The fast path equals the reference path, bit for bit: every instruction of every architecture,
// every input distribution, single elements, batches and GEMMs with random k_order and split_k.
// Plus: dispatch takes the best SIMD path the CPU has, and the fast kernel really runs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>

#include "tcnum/core/build_info.hpp"
#include "tcnum/core/detail/fast_program.hpp"  // white-box: the fast kernel alone (fast_element_only)
#include "tcnum/core/dot.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "test_support.hpp"

namespace tcnum {
namespace {

using fuzz::distribution_names;

// A plan's parameters as the model JSON of one rule (logged when a property fails).
std::string params_json(const DatapathParams& p, int sm) {
  return model_to_json(Model{"logged", sm, "", {ModelRule{std::nullopt, std::nullopt, std::nullopt, p, "test", false, {}, std::nullopt}}});
}

// Instructions that differ only in M and N compute the same elements: one of each kind.
std::vector<Instruction> distinct_instructions(int sm) {
  std::map<std::tuple<Family, int, Format, Format, Format, Format>, Instruction> seen;
  for (const Instruction& in : test::unscaled_instructions_for(sm))
    seen.emplace(std::make_tuple(in.family, in.k, in.a_type, in.b_type, in.c_type, in.d_type), in);
  std::vector<Instruction> out;
  for (auto& [key, in] : seen) out.push_back(in);
  return out;
}

TEST(FastPath, EqualsReferenceOnEveryInstructionAndDistribution) {
  std::size_t checked = 0, fast_plans = 0;
  for (int sm : known_archs()) {
    const Model& model = builtin_model(sm);
    for (const Instruction& in : distinct_instructions(sm)) {
      const MmaPlan plan = compile_plan(model, in);
      fast_plans += plan.fast;
      for (const std::string& dist : distribution_names()) {
        const auto cases = fuzz::generate_cases(in, plan.params, dist, 96, 0x5eed + static_cast<std::uint64_t>(sm));
        std::vector<std::uint32_t> a, b, c, d(cases.size());
        for (const auto& g : cases) {
          a.insert(a.end(), g.a.begin(), g.a.end());
          b.insert(b.end(), g.b.begin(), g.b.end());
          c.push_back(g.c);
        }
        mma_batch(plan, cases.size(), a.data(), b.data(), c.data(), d.data());
        std::vector<std::uint32_t> d_reference(cases.size());
        ASSERT_EQ(mma_batch(plan, cases.size(), a.data(), b.data(), c.data(), d_reference.data(), Datapath::reference),
                  cases.size());
        for (std::size_t t = 0; t < cases.size(); ++t) {
          const std::uint32_t want = mma_element(plan, cases[t].a, cases[t].b, cases[t].c, Datapath::reference);
          ASSERT_EQ(d[t], want) << "sm_" << sm << " " << in.name << " " << dist << " case " << t;
          ASSERT_EQ(mma_element(plan, cases[t].a, cases[t].b, cases[t].c), want)
              << "scalar path: sm_" << sm << " " << in.name << " " << dist << " case " << t;
          ASSERT_EQ(d_reference[t], want)
              << "reference batch: sm_" << sm << " " << in.name << " " << dist << " case " << t;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(fast_plans, 0u);
  RecordProperty("cases", static_cast<int>(checked));
}

// Every built-in rule of sm_90 (the validated model) compiles to the fast kernel.
TEST(FastPath, EverySm90InstructionHasAFastPlan) {
  for (const Instruction& in : distinct_instructions(90)) {
    const MmaPlan plan = compile_plan(builtin_model(90), in);
    EXPECT_TRUE(plan.fast) << in.name << ": " << plan.reference_only;
  }
}

// The fast kernel really runs, in batches and for single elements: on N(0,1) inputs no lane
// or element may need the reference.
TEST(FastPath, NormalInputsStayOnTheFastKernel) {
  struct Named {
    const char* name;
    int sm;
  };
  for (const Named& named : {Named{"wgmma.m64n64k16.f32.bf16.bf16", 90}, Named{"mma.m16n8k32.f32.e4m3.e4m3.f32", 90},
                             Named{"wgmma.m64n64k32.f32.e4m3.e4m3", 90}, Named{"mma.m16n8k16.f16.f16.f16.f16", 90},
                             Named{"wgmma.m64n256k8.f32.tf32.tf32", 90}, Named{"wgmma.m64n256k16.f16.f16.f16", 90},
                             Named{"tcgen05.mma.m64n8k32.f32.e4m3.e4m3", 100},
                             Named{"tcgen05.mma.m64n8k32.kind::f8f6f4.f32.e2m1.e2m1", 100},
                             Named{"tcgen05.mma.m64n8k32.kind::f8f6f4.f16.e3m2.e2m3", 100},
                             Named{"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m3.f32", 120},
                             Named{"mma.m16n8k32.f32.e4m3.e4m3.f32", 120}, Named{"mma.m8n8k4.f32.f16.f16.f32", 70}}) {
    const char* name = named.name;
    const Instruction in = find_instruction(name, named.sm);
    const MmaPlan plan = compile_plan(builtin_model(named.sm), in);
    const auto cases = fuzz::generate_cases(in, plan.params, "normal", 256, 7);
    std::size_t slow = 0, slow_elements = 0;
    for (const auto& g : cases) {
      std::uint32_t d = 0;
      slow += mma_batch(plan, 1, g.a.data(), g.b.data(), &g.c, &d);
      slow_elements += !detail::fast_element_only(plan, g.a, g.b, g.c, d);
    }
    EXPECT_EQ(slow, 0u) << name;
    EXPECT_EQ(slow_elements, 0u) << name << ": single elements";
  }
}

// Every fp8 bit pattern of A against every one of B, as single elements of fp8 mma.sync on
// sm_90 (operands widened to f16, two interleaved passes, C added last) and of sm_80's two
// blocks of 8 (bf16: the pattern as the high byte); every FP6/FP4/fp8 pattern pair of
// Blackwell's kind::f8f6f4 and tcgen05 fp8 (one block of 32: sums wider than 32 bits). The pair sits at a k that moves with the
// patterns, three more pattern pairs derived from it beside it, every other operand zero: so
// subnormals set the alignment as often as normal numbers, and both passes and blocks see them.
TEST(FastPath, EverySingleElementOperandPairEqualsReference) {
  struct Case {
    const char* name;
    int sm;
  };
  for (const Case& cs : {Case{"mma.m16n8k32.f32.e4m3.e4m3.f32", 90}, Case{"mma.m16n8k32.f32.e5m2.e4m3.f32", 90},
                         Case{"mma.m16n8k32.f16.e5m2.e5m2.f16", 90}, Case{"mma.m16n8k16.f32.bf16.bf16.f32", 80},
                         Case{"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e3m2.f32", 120},
                         Case{"tcgen05.mma.m64n8k32.kind::f8f6f4.f16.e2m3.e4m3", 100},
                         Case{"tcgen05.mma.m64n8k32.f32.e4m3.e5m2", 100}}) {
    const Instruction in = find_instruction(cs.name, cs.sm);
    const MmaPlan plan = compile_plan(builtin_model(cs.sm), in);
    ASSERT_TRUE(plan.fast) << cs.name;
    const auto cases = fuzz::generate_cases(in, plan.params, "normal", 64, 11);
    const unsigned shift = in.a_type == Format::bf16 ? 8 : 0;
    const auto k = static_cast<unsigned>(in.k);
    // Patterns per operand: 256 (fp8; bf16's high byte), 64 (FP6), 16 (FP4).
    const unsigned na = std::min(256u, 1u << spec(in.a_type).storage_bits), nb = std::min(256u, 1u << spec(in.b_type).storage_bits);
    std::size_t fast = 0;
    for (unsigned x = 0; x < na; ++x) {
      for (unsigned y = 0; y < nb; ++y) {
        const std::uint32_t c = cases[(x * 7 + y) % cases.size()].c;
        std::vector<std::uint32_t> a(k, 0), b(k, 0);
        for (unsigned j = 0; j < 4; ++j) {
          const unsigned at = (x + y + j * (k / 4 + 1)) % k;
          a[at] = ((x + 37 * j) % na) << shift;
          b[at] = ((y + 59 * j) % nb) << shift;
        }
        const std::uint32_t want = mma_element(plan, a, b, c, Datapath::reference);
        std::uint32_t d = 0;
        if (detail::fast_element_only(plan, a, b, c, d)) {
          ++fast;
          ASSERT_EQ(d, want) << cs.name << " sm_" << cs.sm << " a pattern 0x" << std::hex << x << " b pattern 0x" << y;
        }
        ASSERT_EQ(mma_element(plan, a, b, c), want) << cs.name << " a pattern 0x" << std::hex << x << " b 0x" << y;
      }
    }
    EXPECT_GT(fast, na * nb / 4) << cs.name << ": the fast path must answer many pairs";
  }
}

// Blocks whose aligned terms sum beyond int32 (wide_sum: tcgen05 e4m3, 25 kept bits, 32
// products of 1.875 · 1.875 at one exponent sum to 2^31.8): single elements, batches and GEMMs
// (whose 16-lane step hands such lanes back) equal the reference, for sums just below, at and
// beyond 2^31 and their negatives.
TEST(FastPath, WideBlockSumsBeyondInt32EqualReference) {
  const Instruction in = find_instruction("tcgen05.mma.m64n8k32.f32.e4m3.e4m3", 100);
  const MmaPlan plan = compile_plan(builtin_model(100), in);
  ASSERT_TRUE(plan.fast && plan.wide_sum);
  const int K = in.k, N = 16;
  std::vector<std::uint32_t> a, b(static_cast<std::size_t>(K * N)), c;
  for (int large = 16; large <= K; large += 4)  // rows: `large` products of 0x77·0x77 (240²), the rest smaller
    for (std::uint32_t sign : {0x00u, 0x80u})
      for (int k = 0; k < K; ++k) a.push_back((k < large ? 0x77u : 0x6fu) | sign);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[static_cast<std::size_t>(k * N + j)] = j % 3 == 2 ? 0x76u : 0x77u;
  const int M = static_cast<int>(a.size()) / K;
  c.assign(static_cast<std::size_t>(M * N), 0);
  const auto fast = gemm(builtin_model(100), in, M, N, K, a, b, c);
  GemmOptions ref;
  ref.path = GemmOptions::Path::reference;
  EXPECT_EQ(fast, gemm(builtin_model(100), in, M, N, K, a, b, c, ref));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const std::vector<std::uint32_t> row(a.begin() + i * K, a.begin() + (i + 1) * K);
      std::vector<std::uint32_t> col;
      for (int k = 0; k < K; ++k) col.push_back(b[static_cast<std::size_t>(k * N + j)]);
      const std::uint32_t want = mma_element(plan, row, col, 0, Datapath::reference);
      EXPECT_EQ(fast[static_cast<std::size_t>(i * N + j)], want) << "row " << i << " column " << j;
      std::uint32_t d = 0;
      EXPECT_TRUE(detail::fast_element_only(plan, row, col, 0, d)) << "a single element sums in double";
      EXPECT_EQ(d, want) << "row " << i << " column " << j;
      mma_batch(plan, 1, row.data(), col.data(), &c[0], &d);
      EXPECT_EQ(d, want) << "batch: row " << i << " column " << j;
    }
}

#if defined(__x86_64__) || defined(__i386__)
// The kernel this CPU should get, read from another source than the dispatcher's CPUID: the
// flags the operating system reports in /proc/cpuinfo (the kernel clears those whose register
// state it does not save). Empty where there is no such file.
std::string kernel_for_cpuinfo_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) != 0 || line.find(':') == std::string::npos) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    const std::set<std::string> flags{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    auto has_all = [&](std::initializer_list<const char*> names) {
      return std::all_of(names.begin(), names.end(), [&](const char* n) { return flags.count(n) > 0; });
    };
    if (has_all({"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"})) return "avx512";
    if (has_all({"avx2", "fma", "bmi2"})) return "avx2";
    return "baseline";
  }
  return "";
}
#endif

TEST(FastPath, DispatchTakesTheBestPathTheCpuHas) {
  const bool forced = std::getenv("TCNUM_SIMD") != nullptr;
#if !defined(__x86_64__) && !defined(__i386__)
  EXPECT_STREQ(simd_best_available(), "portable");  // one build off x86: nothing to dispatch
#else
  const std::string expected = kernel_for_cpuinfo_flags();
  if (expected.empty()) GTEST_SKIP() << "no /proc/cpuinfo to read the CPU's features from";
  EXPECT_EQ(simd_best_available(), expected);
#endif
  if (!forced) EXPECT_STREQ(simd_path(), simd_best_available());
  else GTEST_LOG_(INFO) << "TCNUM_SIMD=" << std::getenv("TCNUM_SIMD") << ": running " << simd_path();
}

// A batch of hand-picked hard cases (specials, cancelling pairs, sparse products, every
// exponent range), run through the plan's batch kernel and its scalar path, each checked against
// the reference datapath; on a mismatch the log shows the parameters and the case.
void check_hard_batch(const MmaPlan& plan, std::size_t count) {
  const Instruction& in = plan.instruction;
  std::vector<std::uint32_t> a, b, c, d(count);
  for (std::size_t t = 0; t < count; ++t) {
    const auto pc = test::pick_case(in, *rc::gen::inRange(0, 3));
    a.insert(a.end(), pc.a.begin(), pc.a.end());
    b.insert(b.end(), pc.b.begin(), pc.b.end());
    c.push_back(pc.c);
  }
  mma_batch(plan, d.size(), a.data(), b.data(), c.data(), d.data());
  const auto k = static_cast<std::size_t>(in.k);
  RC_LOG() << in.name << ": " << params_json(plan.params, 0) << (plan.fast ? " (fast)" : " (reference only)") << "\n";
  for (std::size_t t = 0; t < d.size(); ++t) {
    const std::span<const std::uint32_t> at{a.data() + t * k, k}, bt{b.data() + t * k, k};
    const std::uint32_t want = mma_element(plan, at, bt, c[t], Datapath::reference);
    const std::uint32_t scalar = mma_element(plan, at, bt, c[t]);
    if (d[t] != want || scalar != want) {
      RC_LOG() << "case " << t << ": a";
      for (auto x : at) RC_LOG() << " " << test::hex(x);
      RC_LOG() << "\n  b";
      for (auto x : bt) RC_LOG() << " " << test::hex(x);
      RC_LOG() << "\n  c " << test::hex(c[t]) << " batch " << test::hex(d[t]) << " scalar " << test::hex(scalar)
               << " reference " << test::hex(want) << "\n";
    }
    RC_ASSERT(d[t] == want);
    RC_ASSERT(scalar == want);
  }
}

// Hard cases on every built-in model.
RC_GTEST_PROP(FastPath, HardCasesEqualReference, ()) {
  const int sm = *rc::gen::element(70, 75, 80, 86, 89, 90, 100, 120);
  const auto all = distinct_instructions(sm);
  const Instruction in = *rc::gen::elementOf(all);
  check_hard_batch(compile_plan(builtin_model(sm), in), static_cast<std::size_t>(*rc::gen::inRange(1, 40)));
}

// Parameters near every built-in model (one to four fields changed): whatever the plan compiles
// to, it equals the reference datapath on hard cases.
RC_GTEST_PROP(FastPath, PerturbedModelsEqualReference, ()) {
  const int sm = *rc::gen::element(70, 75, 80, 86, 89, 90, 100, 120);
  const auto all = distinct_instructions(sm);
  const Instruction in = *rc::gen::elementOf(all);
  const MmaPlan plan = compile_plan(test::pick_params(in, sm), in);
  check_hard_batch(plan, 24);
  RC_TAG(plan.fast ? "fast plan" : "reference-only plan");
}

// Random instruction, distribution, shape, k_order and split_k: the fast GEMM equals the
// reference GEMM element for element.
RC_GTEST_PROP(FastPath, GemmEqualsReferenceGemm, ()) {
  const int sm = *rc::gen::element(70, 75, 80, 86, 89, 90, 100, 120);
  const auto all = distinct_instructions(sm);
  const Instruction in = *rc::gen::elementOf(all);
  const auto dists = distribution_names();
  const std::string dist = *rc::gen::elementOf(dists);
  const int m = *rc::gen::inRange(1, 21), n = *rc::gen::inRange(1, 40);
  const int steps = *rc::gen::inRange(1, 6);
  const int k = steps * in.k - *rc::gen::inRange(0, in.k);  // K need not be a multiple of in.k
  const auto seed = *rc::gen::arbitrary<std::uint32_t>();
  // Elements drawn from the distribution's cases: each case supplies a row of A, a column of B
  // and a C.
  const auto cases = fuzz::generate_cases(in, builtin_model(sm).params_for(in), dist, static_cast<std::size_t>(m * n * steps + m + n), seed);
  std::vector<std::uint32_t> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)),
      c(static_cast<std::size_t>(m * n));
  std::size_t next = 0;
  const auto K = static_cast<std::size_t>(in.k);
  for (auto& x : a) x = cases[next % cases.size()].a[(next + 1) % K], ++next;
  for (auto& x : b) x = cases[next % cases.size()].b[(next + 1) % K], ++next;
  for (auto& x : c) x = cases[next++ % cases.size()].c;
  GemmOptions opt;
  const int real_steps = (k + in.k - 1) / in.k;
  opt.k_order.resize(static_cast<std::size_t>(real_steps));
  std::iota(opt.k_order.begin(), opt.k_order.end(), 0);
  opt.k_order = *rc::gen::just(opt.k_order);
  if (*rc::gen::arbitrary<bool>()) std::reverse(opt.k_order.begin(), opt.k_order.end());
  opt.split_k = *rc::gen::inRange(1, real_steps + 1);
  opt.threads = *rc::gen::inRange(1, 3);
  const Model& model = builtin_model(sm);
  const auto fast = gemm(model, in, m, n, k, a, b, c, opt);
  opt.path = GemmOptions::Path::reference;
  const auto ref = gemm(model, in, m, n, k, a, b, c, opt);
  RC_ASSERT(fast == ref);
}


// The chain kernel's fixed shapes (8 rows in lockstep, the Hopper-era classes: the block maximum
// read from exp_pairs) on every distribution, NaN/Inf, zeros and subnormals included: M = 16 rows
// run as two chains of 8, K = 3 steps, 40 columns (two full groups of 16 and a partial one).
TEST(FastPath, ChainShapesEqualReferenceGemmOnEveryDistribution) {
  const int m = 16, n = 40;
  int compared = 0;
  for (const int sm : {80, 90})
    for (const Instruction& in : distinct_instructions(sm)) {
      const Model& model = builtin_model(sm);
      const int k = 3 * in.k;
      for (const std::string& dist : distribution_names()) {
        const auto cases = fuzz::generate_cases(in, model.params_for(in), dist, static_cast<std::size_t>(m + n + m * n), 17);
        std::vector<std::uint32_t> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)),
            c(static_cast<std::size_t>(m * n));
        const auto K = static_cast<std::size_t>(in.k);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = cases[(i / K) % cases.size()].a[i % K];
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = cases[(i / K + 7) % cases.size()].b[i % K];
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = cases[i % cases.size()].c;
        GemmOptions opt;
        const auto fast = gemm(model, in, m, n, k, a, b, c, opt);
        opt.path = GemmOptions::Path::reference;
        ASSERT_EQ(fast, gemm(model, in, m, n, k, a, b, c, opt)) << in.name << " " << dist;
        ++compared;
      }
    }
  EXPECT_GT(compared, 20);
}

// ±(1 + u)·2^e in format f (u uniform in [0, 1), the sign a coin), or +0 where e is below fp32's
// normal numbers.
std::uint32_t random_in_binade(Format f, int e, std::mt19937_64& rng) {
  if (e < -126) return 0;
  return encode(f, std::ldexp(1.0 + std::uniform_real_distribution<double>(0, 1)(rng), e) * (rng() % 2 ? -1 : 1));
}

// An m×k A, k×n B (both row-major) and m×n C for `in`, each operand random_in_binade of the
// exponent a_exp(i, t), b_exp(t, j) or c_exp() gives.
struct BinadeOperands {
  std::vector<std::uint32_t> a, b, c;
};
template <class AExp, class BExp, class CExp>
BinadeOperands binade_operands(const Instruction& in, int m, int n, int k, AExp a_exp, BExp b_exp, CExp c_exp,
                               std::mt19937_64& rng) {
  BinadeOperands o;
  for (int i = 0; i < m; ++i)
    for (int t = 0; t < k; ++t) o.a.push_back(random_in_binade(in.a_type, a_exp(i, t), rng));
  for (int t = 0; t < k; ++t)
    for (int j = 0; j < n; ++j) o.b.push_back(random_in_binade(in.b_type, b_exp(t, j), rng));
  for (int x = 0; x < m * n; ++x) o.c.push_back(random_in_binade(in.c_type, c_exp(), rng));
  return o;
}

// The reference path's GEMM of o, expecting the fast path's to equal it.
std::vector<std::uint32_t> reference_equal_to_fast(const Model& model, const Instruction& in, int m, int n, int k,
                                                   const BinadeOperands& o) {
  GemmOptions opt;
  const auto fast = gemm(model, in, m, n, k, o.a, o.b, o.c, opt);
  opt.path = GemmOptions::Path::reference;
  auto ref = gemm(model, in, m, n, k, o.a, o.b, o.c, opt);
  EXPECT_EQ(fast, ref);
  return ref;
}

// Blocks whose scale (the block's largest A and B exponents less its largest product's, or C's)
// spans the kernel's bounds: A's near values clamped at 2^-91, the scale's floor 2^-32 and the
// spread limit 2^80 beyond which a block scales each product by its own power of two
// (fast_kernel.hpp). Each operand is ±(1 + f)·2^(E − gap) (zero where below the normal
// numbers or drawn zero), the gaps 0 (a block's largest) or up to 140 binades, C far above or
// below the products: the fast GEMM equals the reference on 8-row chains of the Hopper-era
// shapes and on the general shape.
TEST(FastPath, ProductScalesAtTheKernelsBoundsEqualReference) {
  std::mt19937_64 rng(20261127);
  // Odd rounds: A's largest at even k, B's at odd k, so that every product has a factor 60 to
  // 109 binades below its block's largest (the scale straddles the spread limit); even rounds:
  // gaps drawn alike for every k. 1000: a zero.
  const auto gap = [&rng](int round, int t, int largest_at) {
    if (round % 2 && t % 2 == largest_at) return 0;
    const int pick = static_cast<int>(rng() % 8);
    if (round % 2) return pick == 0 ? 1000 : 60 + static_cast<int>(rng() % 50);
    return pick < 2 ? 0 : pick < 3 ? 1000 : 5 + static_cast<int>(rng() % 100);
  };
  const std::pair<int, const char*> instructions[] = {
      {90, "wgmma.m64n16k16.f32.bf16.bf16"}, {90, "wgmma.m64n16k8.f32.tf32.tf32"},
      {80, "mma.m16n8k16.f32.bf16.bf16.f32"}, {100, "tcgen05.mma.m64n8k16.f32.bf16.bf16"}};
  for (const auto& [sm, name] : instructions) {
    const Instruction in = find_instruction(name, sm);
    const int m = 16, n = 32, k = 6 * in.k;
    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE(std::string(name) + ", round " + std::to_string(round));
      const auto o = binade_operands(
          in, m, n, k, [&](int i, int t) { return i % 8 - gap(round, t, 0); },
          [&](int t, int j) { return j % 8 - gap(round, t, 1); }, [&] { return static_cast<int>(rng() % 200) - 150; },
          rng);
      reference_equal_to_fast(builtin_model(sm), in, m, n, k, o);
    }
  }
}

// Chains whose running D leaves fp32's normal range (rows and columns scaled by up to 2^±63, so
// that sums overflow to Inf or fall below 2^-126 partway along K): a trusted chain checks each
// block's alignment range instead of each result's class (range_checked in the kernel), and
// the steps it flags go to the checked knobs and the reference. Fast equals reference.
TEST(FastPath, TrustedChainsLeavingTheNormalRangeEqualReference) {
  std::mt19937_64 rng(7);
  const int scales[] = {0, 60, 63, -60, -63, 2, -2, 61};
  const std::pair<int, const char*> instructions[] = {
      {90, "wgmma.m64n16k16.f32.bf16.bf16"}, {90, "wgmma.m64n16k8.f32.tf32.tf32"},
      {80, "mma.m16n8k16.f32.bf16.bf16.f32"}};
  for (const auto& [sm, name] : instructions) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const int m = 16, n = 32, k = 6 * in.k;
    const auto o = binade_operands(
        in, m, n, k, [&](int i, int) { return scales[i % 8]; }, [&](int, int j) { return scales[j % 8]; },
        [] { return 0; }, rng);
    const auto ref = reference_equal_to_fast(builtin_model(sm), in, m, n, k, o);
    // The range is left: some results are Inf, some below fp32's normal numbers.
    const auto infinite =
        std::count_if(ref.begin(), ref.end(), [](std::uint32_t d) { return (d & 0x7fffffffu) == 0x7f800000u; });
    const auto tiny =
        std::count_if(ref.begin(), ref.end(), [](std::uint32_t d) { return d != 0 && (d & 0x7f800000u) == 0; });
    EXPECT_GT(infinite + tiny, 0);
  }
}

}  // namespace
}  // namespace tcnum
