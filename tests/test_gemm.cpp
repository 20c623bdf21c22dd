// The GEMM oracle (tcnum/core/gemm.hpp) and its Eigen front (tcnum/interop/eigen.hpp): laws that tie
// gemm() to mma_element() and to itself, expectations derived by hand or from independent
// arithmetic (native fp32 additions), never copied from gemm()'s own output.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tcnum/core/dot.hpp"
#include "tcnum/interop/eigen.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/types.hpp"

namespace tcnum {
namespace {

using Bits = std::vector<std::uint32_t>;

// Raw operands of an M×N×K problem, N(0,1) values rounded (RNE) into each format.
struct Problem {
  int m, n, k;
  Bits a, b, c;
};

Problem random_problem(const Instruction& in, int m, int n, int k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  auto draw = [&](Format f, std::size_t count) {
    Bits v(count);
    for (auto& x : v) x = encode(f, normal(rng), Rounding::nearest_even, f == Format::e4m3 || f == Format::e5m2);
    return v;
  };
  return {m, n, k, draw(in.a_type, std::size_t(m) * k), draw(in.b_type, std::size_t(k) * n),
          draw(in.c_type, std::size_t(m) * n)};
}

Bits gemm_of(const Model& model, const Instruction& in, const Problem& p, const GemmOptions& opt = {}) {
  return gemm(model, in, p.m, p.n, p.k, p.a, p.b, p.c, opt);
}

// Columns [k0, k1) of A (M×K) and rows [k0, k1) of B (K×N).
Bits a_cols(const Problem& p, int k0, int k1) {
  Bits out;
  for (int i = 0; i < p.m; ++i)
    for (int kk = k0; kk < k1; ++kk) out.push_back(p.a[std::size_t(i) * p.k + kk]);
  return out;
}
Bits b_rows(const Problem& p, int k0, int k1) {
  return Bits(p.b.begin() + std::ptrdiff_t(k0) * p.n, p.b.begin() + std::ptrdiff_t(k1) * p.n);
}

// D(i,j) by explicit mma_element calls over the k-steps in `order`: each step's D is the next C.
std::uint32_t chained_element(const Model& model, const Instruction& in, const Problem& p, int i, int j,
                              const std::vector<int>& order) {
  std::uint32_t acc = p.c[std::size_t(i) * p.n + j];
  for (int s : order) {
    Bits a(in.k), b(in.k);
    for (int t = 0; t < in.k; ++t) {
      a[t] = p.a[std::size_t(i) * p.k + s * in.k + t];
      b[t] = p.b[std::size_t(s * in.k + t) * p.n + j];
    }
    acc = mma_element(model, in, a, b, acc);
  }
  return acc;
}

std::vector<int> ascending(int steps) {
  std::vector<int> v(steps);
  for (int s = 0; s < steps; ++s) v[s] = s;
  return v;
}

// fp32 addition as the reduction kernel does it, natively (independent of tcnum's code).
std::uint32_t f32_add(std::uint32_t x, std::uint32_t y) {
  volatile float sum = std::bit_cast<float>(x) + std::bit_cast<float>(y);
  return std::bit_cast<std::uint32_t>(static_cast<float>(sum));
}

const Model& sm80() { return builtin_model(80); }
const Model& sm90() { return builtin_model(90); }

Model exact_model() {
  Model m{"exact", 0, "every term kept, one block, RNE", {}};
  m.rules.push_back(ModelRule{std::nullopt, std::nullopt, std::nullopt, exact_params(), "test", false, {}, std::nullopt});
  return m;
}

// The instructions the laws run over: f32 and f16 accumulators, mma and wgmma, every input class.
std::vector<std::pair<int, std::string>> cases() {
  return {{80, "mma.m16n8k16.f32.bf16.bf16.f32"}, {80, "mma.m16n8k16.f16.f16.f16.f16"},
          {80, "mma.m16n8k8.f32.tf32.tf32.f32"},  {89, "mma.m16n8k32.f32.e4m3.e5m2.f32"},
          {90, "wgmma.m64n8k16.f32.f16.f16"},     {90, "wgmma.m64n8k32.f16.e4m3.e4m3"},
          {70, "mma.m8n8k4.f16.f16.f16.f32"}};
}

TEST(Gemm, OneStepIsMmaElementPerElement) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    const Problem p = random_problem(in, 5, 7, in.k, 11);
    const Bits d = gemm_of(model, in, p);
    ASSERT_EQ(d.size(), 35u);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        Bits a(p.a.begin() + i * in.k, p.a.begin() + (i + 1) * in.k), b(in.k);
        for (int t = 0; t < in.k; ++t) b[t] = p.b[std::size_t(t) * p.n + j];
        EXPECT_EQ(d[i * p.n + j], mma_element(model.params_for(in), in, a, b, p.c[i * p.n + j])) << i << "," << j;
      }
  }
}

// mma_tiles is the tile level: B column-major (column n at n·K), the instruction's own M, N, K.
// A tile equals a one-step gemm (B row-major) of the same values, and mma_element per element,
// on either datapath.
TEST(MmaTiles, IsOneStepGemmWithBColumnMajor) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    const Problem p = random_problem(in, in.m, in.n, in.k, 12);
    Bits b_columns(p.b.size());
    for (int kk = 0; kk < in.k; ++kk)
      for (int j = 0; j < in.n; ++j) b_columns[std::size_t(j) * in.k + kk] = p.b[std::size_t(kk) * in.n + j];
    Bits d(std::size_t(in.m) * in.n), d_reference(d.size());
    const MmaPlan plan = compile_plan(model, in);
    mma_tiles(plan, 1, p.a.data(), b_columns.data(), p.c.data(), d.data());
    EXPECT_EQ(d, gemm_of(model, in, p));
    EXPECT_EQ(mma_tiles(plan, 1, p.a.data(), b_columns.data(), p.c.data(), d_reference.data(), Datapath::reference),
              d.size());
    EXPECT_EQ(d_reference, d);
    const int i = in.m - 1, j = in.n / 2;
    EXPECT_EQ(d[std::size_t(i) * in.n + j],
              mma_element(model.params_for(in), in, {p.a.data() + std::size_t(i) * in.k, std::size_t(in.k)},
                          {b_columns.data() + std::size_t(j) * in.k, std::size_t(in.k)}, p.c[std::size_t(i) * in.n + j]));
  }
}

TEST(Gemm, StepsChainThroughD) {
  // Three k-steps: each one mma_element whose C is the previous D (f16 accumulators stay f16).
  // 48×40 outputs × 3 steps is enough work for gemm() to use several threads.
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    Problem p = random_problem(in, 48, 40, 3 * in.k, 12);
    if (in.c_type != in.d_type) continue;  // sm_70 mixed: covered by MixedTypesChainInDType
    const Bits d = gemm_of(model, in, p);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j)
        ASSERT_EQ(d[i * p.n + j], chained_element(model, in, p, i, j, ascending(3))) << i << "," << j;
  }
}

TEST(Gemm, ResultsDoNotDependOnTheThreadCount) {
  // Big enough for the fast engine to spread its tasks (and the decoding of A's and B's planes,
  // done by whichever task needs a group first) over every thread asked for; ragged M, N and K
  // leave partial row groups, column groups and k-steps. split_k 3 adds the reduction of chains.
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    const Problem p = random_problem(in, 203, 150, 9 * in.k - 3, 14);
    for (const int split : {1, 3}) {
      GemmOptions opt;
      opt.split_k = split;
      opt.threads = 1;
      const Bits one = gemm_of(model, in, p, opt);
      for (const int threads : {2, 3, 8}) {
        opt.threads = threads;
        ASSERT_EQ(gemm_of(model, in, p, opt), one) << threads << " threads, split_k " << split;
      }
      if (split == 1) {  // and the fast engine is the reference datapath's answer
        opt.path = GemmOptions::Path::reference;
        ASSERT_EQ(gemm_of(model, in, p, opt), one);
      }
    }
  }
}

TEST(Gemm, MixedTypesChainInDType) {
  // mma.m8n8k4.f16.f16.f16.f32: C is f32, D f16; later steps take the running f16 D as C,
  // i.e. they are the same instruction with an f16 C (mma.m8n8k4.f16.f16.f16.f16).
  const Instruction in = find_instruction("mma.m8n8k4.f16.f16.f16.f32", 70);
  const Instruction same = find_instruction("mma.m8n8k4.f16.f16.f16.f16", 70);
  const Model& model = builtin_model(70);
  const Problem p = random_problem(in, 4, 3, 8, 13);
  const Bits d = gemm_of(model, in, p);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      Bits a0(4), b0(4), a1(4), b1(4);
      for (int t = 0; t < 4; ++t) {
        a0[t] = p.a[i * 8 + t], a1[t] = p.a[i * 8 + 4 + t];
        b0[t] = p.b[t * p.n + j], b1[t] = p.b[(4 + t) * p.n + j];
      }
      const std::uint32_t d0 = mma_element(model, in, a0, b0, p.c[i * p.n + j]);
      EXPECT_EQ(d[i * p.n + j], mma_element(model, same, a1, b1, d0));
    }
}

TEST(Gemm, RaggedKPadsWithZeros) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    const int k = 2 * in.k + in.k / 2 + 1;  // 2.5 steps and a bit -> 3 steps
    const Problem p = random_problem(in, 6, 5, k, 14);
    Problem padded = p;
    padded.k = 3 * in.k;
    padded.a.clear();
    for (int i = 0; i < p.m; ++i) {
      for (int kk = 0; kk < k; ++kk) padded.a.push_back(p.a[std::size_t(i) * k + kk]);
      for (int kk = k; kk < padded.k; ++kk) padded.a.push_back(zero_bits(in.a_type, false));
    }
    padded.b.resize(std::size_t(padded.k) * p.n, zero_bits(in.b_type, false));
    EXPECT_EQ(gemm_of(model, in, p), gemm_of(model, in, padded));
  }
}

TEST(Gemm, AscendingOrderIsTheDefault) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Problem p = random_problem(in, 6, 5, 4 * in.k, 15);
    GemmOptions opt;
    opt.k_order = ascending(4);
    EXPECT_EQ(gemm_of(builtin_model(sm), in, p), gemm_of(builtin_model(sm), in, p, opt));
  }
}

TEST(Gemm, OrderEqualsPermutedOperands) {
  // k_order π over the original operands == ascending order over operands whose k-blocks
  // were permuted by π (block t of the new operands is block π[t] of the old).
  const std::vector<int> pi = {2, 0, 3, 1};
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Model& model = builtin_model(sm);
    const Problem p = random_problem(in, 6, 5, 4 * in.k, 16);
    Problem q = p;
    for (int t = 0; t < 4; ++t)
      for (int u = 0; u < in.k; ++u) {
        const int to = t * in.k + u, from = pi[t] * in.k + u;
        for (int i = 0; i < p.m; ++i) q.a[std::size_t(i) * p.k + to] = p.a[std::size_t(i) * p.k + from];
        for (int j = 0; j < p.n; ++j) q.b[std::size_t(to) * p.n + j] = p.b[std::size_t(from) * p.n + j];
      }
    GemmOptions opt;
    opt.k_order = pi;
    EXPECT_EQ(gemm_of(model, in, p, opt), gemm_of(model, in, q));
  }
}

TEST(Gemm, OrderMattersWhereStepsRound) {
  // f16 accumulator, one product per step: 1, then 2048, then -2048.
  // Ascending: 1 + 2048 = 2049 -> 2048 (tie to even in f16), - 2048 -> 0.
  // Order {1, 2, 0}: 2048 - 2048 = 0, + 1 -> 1.
  const Instruction in = find_instruction("mma.m16n8k16.f16.f16.f16.f16", 80);
  Problem p{1, 1, 48, Bits(48, 0), Bits(48, 0), Bits{0}};
  const std::uint32_t one = half_t(1.0).raw();
  p.a[0] = one, p.b[0] = one;
  p.a[16] = half_t(2048.0).raw(), p.b[16] = one;
  p.a[32] = half_t(-2048.0).raw(), p.b[32] = one;
  EXPECT_EQ(gemm_of(sm80(), in, p), Bits{zero_bits(Format::fp16, false)});
  GemmOptions opt;
  opt.k_order = {1, 2, 0};
  EXPECT_EQ(gemm_of(sm80(), in, p, opt), Bits{one});
}

TEST(Gemm, ExactModelSingleStepIsOrderFree) {
  // With one k-step there is one permutation; with the exact model a single step is the
  // correctly rounded c + Σ a·b, so summing the same terms in any K order inside the step
  // (permuting A's columns and B's rows together) gives the same D.
  const Model exact = exact_model();
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const Problem p = random_problem(in, 4, 4, in.k, 17);
  Problem q = p;
  for (int kk = 0; kk < in.k; ++kk) {
    const int from = in.k - 1 - kk;
    for (int i = 0; i < p.m; ++i) q.a[std::size_t(i) * p.k + kk] = p.a[std::size_t(i) * p.k + from];
    for (int j = 0; j < p.n; ++j) q.b[std::size_t(kk) * p.n + j] = p.b[std::size_t(from) * p.n + j];
  }
  GemmOptions opt;
  opt.k_order = {0};
  EXPECT_EQ(gemm_of(exact, in, p), gemm_of(exact, in, q, opt));
}

TEST(Gemm, SplitOneIsTheDefault) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    const Problem p = random_problem(in, 6, 5, 3 * in.k, 18);
    GemmOptions opt;
    opt.split_k = 1;
    EXPECT_EQ(gemm_of(builtin_model(sm), in, p), gemm_of(builtin_model(sm), in, p, opt));
  }
}

// split_k slices: D = round_D(fp32(p0 + p1 [+ p2])) where p0 = gemm of slice 0 from C,
// the others from +0, each over its k-steps as a GEMM of its own.
Bits manual_split(const Model& model, const Instruction& in, const Problem& p, const std::vector<int>& bounds) {
  std::vector<Bits> partials;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const int k0 = bounds[s] * in.k, k1 = std::min(bounds[s + 1] * in.k, p.k);
    const Bits c = s == 0 ? p.c : Bits(p.c.size(), zero_bits(in.c_type, false));
    partials.push_back(gemm(model, in, p.m, p.n, k1 - k0, a_cols(p, k0, k1), b_rows(p, k0, k1), c));
  }
  Bits d(p.c.size());
  for (std::size_t e = 0; e < d.size(); ++e) {
    std::uint32_t sum = encode(Format::fp32, to_double(in.d_type, partials[0][e]));
    for (std::size_t s = 1; s < partials.size(); ++s)
      sum = f32_add(sum, encode(Format::fp32, to_double(in.d_type, partials[s][e])));
    d[e] = in.d_type == Format::fp32 ? sum : encode(in.d_type, std::bit_cast<float>(sum));
    if (to_double(Format::fp32, sum) != to_double(Format::fp32, sum)) d[e] = canonical_nan(in.d_type);
  }
  return d;
}

TEST(Gemm, SplitTwoIsTwoHalfGemmsAddedInFp32) {
  for (const auto& [sm, name] : cases()) {
    SCOPED_TRACE(name);
    const Instruction in = find_instruction(name, sm);
    if (in.c_type != in.d_type) continue;
    const Model& model = builtin_model(sm);
    const Problem p = random_problem(in, 7, 6, 4 * in.k, 19);
    GemmOptions opt;
    opt.split_k = 2;
    const Bits d = gemm_of(model, in, p, opt);
    EXPECT_EQ(d, manual_split(model, in, p, {0, 2, 4}));
    EXPECT_NE(d, gemm_of(model, in, p)) << "split-K should change some element's rounding";
  }
}

TEST(Gemm, SplitSlicesAreBalancedFirstLonger) {
  // 4 steps in 3 slices: steps {0,1}, {2}, {3}; 5 steps in 4 slices: {0,1}, {2}, {3}, {4}.
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  for (int steps : {4, 5}) {
    const Problem p = random_problem(in, 5, 4, steps * in.k, 20 + steps);
    GemmOptions opt;
    opt.split_k = steps - 1;
    std::vector<int> bounds = {0};
    for (int b = 2; b <= steps; ++b) bounds.push_back(b);
    EXPECT_EQ(gemm_of(sm80(), in, p, opt), manual_split(sm80(), in, p, bounds));
  }
}

TEST(Gemm, SplitFollowsKOrder) {
  // Slices are cut from the k_order sequence: order {3,2,1,0} with split 2 is the split of the
  // operands with their k-blocks reversed.
  const Instruction in = find_instruction("wgmma.m64n8k16.f32.f16.f16", 90);
  const Problem p = random_problem(in, 5, 4, 4 * in.k, 24);
  Problem q = p;
  for (int to = 0; to < p.k; ++to) {
    const int from = (3 - to / in.k) * in.k + to % in.k;
    for (int i = 0; i < p.m; ++i) q.a[std::size_t(i) * p.k + to] = p.a[std::size_t(i) * p.k + from];
    for (int j = 0; j < p.n; ++j) q.b[std::size_t(to) * p.n + j] = p.b[std::size_t(from) * p.n + j];
  }
  GemmOptions reversed;
  reversed.k_order = {3, 2, 1, 0};
  reversed.split_k = 2;
  GemmOptions plain;
  plain.split_k = 2;
  EXPECT_EQ(gemm_of(sm90(), in, p, reversed), gemm_of(sm90(), in, q, plain));
}

TEST(Gemm, SplitReductionByHand) {
  // f16 D, one product per slice: slice 0 = C + 1·1 = 2049 -> 2048 (f16 tie to even);
  // slice 1 = 1·1 = 1; fp32 sum 2049 (exact), rounded to f16: tie -> 2048.
  const Instruction in = find_instruction("mma.m16n8k16.f16.f16.f16.f16", 80);
  Problem p{1, 1, 32, Bits(32, 0), Bits(32, 0), Bits{half_t(2048.0).raw()}};
  const std::uint32_t one = half_t(1.0).raw(), two = half_t(2.0).raw();
  p.a[0] = p.b[0] = p.a[16] = p.b[16] = one;
  GemmOptions opt;
  opt.split_k = 2;
  EXPECT_EQ(gemm_of(sm80(), in, p, opt), Bits{half_t(2048.0).raw()});
  // f32 D on sm_80 (blocks round toward zero): C = 2^24, step 0 all zeros, step 1 = 1·1 + 1·2.
  // Unsplit: 2^24 + 3 rounds toward zero in the datapath -> 2^24 + 2.
  // Split 2: partials 2^24 and 3, the fp32 RNE addition gives 2^24 + 3 -> tie -> 2^24 + 4.
  const Instruction f32 = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 80);
  Problem q{1, 1, 32, Bits(32, 0), Bits(32, 0), Bits{float32_t(16777216.0).raw()}};
  q.a[16] = q.b[16] = q.a[17] = one;
  q.b[17] = two;
  EXPECT_EQ(gemm_of(sm80(), f32, q), Bits{float32_t(16777218.0).raw()});
  EXPECT_EQ(gemm_of(sm80(), f32, q, opt), Bits{float32_t(16777220.0).raw()});
}

TEST(Gemm, SplitNaNIsCanonical) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  Problem p = random_problem(in, 2, 2, 2 * in.k, 25);
  p.a[in.k] = 0x7fc1;  // a bf16 NaN with a payload, in slice 1 of row 0
  GemmOptions opt;
  opt.split_k = 2;
  const Bits d = gemm_of(sm80(), in, p, opt);
  EXPECT_EQ(d[0], 0x7fffffffu);
  EXPECT_EQ(d[1], 0x7fffffffu);
  EXPECT_EQ(to_double(Format::fp32, d[2]), to_double(Format::fp32, d[2]));  // row 1 is finite
}

TEST(Gemm, EmptyOutputs) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  EXPECT_TRUE(gemm(sm80(), in, 0, 3, 16, {}, Bits(48, 0), {}).empty());
  EXPECT_TRUE(gemm(sm80(), in, 3, 0, 16, Bits(48, 0), {}, {}).empty());
}

void expect_throw_with(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Gemm, BadArgumentsThrowWithReasons) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const Problem p = random_problem(in, 3, 2, 32, 26);
  auto run = [&](int m, int n, int k, const Bits& a, const Bits& b, const Bits& c, GemmOptions opt = {}) {
    return [=, &in] { gemm(sm80(), in, m, n, k, a, b, c, opt); };
  };
  expect_throw_with(run(3, 2, 0, {}, {}, p.c), "K must be positive");
  expect_throw_with(run(-1, 2, 32, p.a, p.b, p.c), "must not be negative");
  expect_throw_with(run(3, 2, 32, Bits(95), p.b, p.c), "A has 95 elements, expected M×K = 3×32 = 96");
  expect_throw_with(run(3, 2, 32, p.a, Bits(3), p.c), "B has 3 elements, expected K×N");
  expect_throw_with(run(3, 2, 32, p.a, p.b, Bits(7)), "C has 7 elements, expected M×N");
  Bits wide = p.a;
  wide[5] = 0x3f800000;  // f32 bits passed as bf16
  expect_throw_with(run(3, 2, 32, wide, p.b, p.c), "A[0][5] = 0x3f800000 does not fit bf16");
  // Wherever the bad element sits: in a later group of 16 values, or in the tail past them.
  Bits late = p.a;
  late[90] = 0x10000;
  expect_throw_with(run(3, 2, 32, late, p.b, p.c), "A[2][26] = 0x10000 does not fit bf16");
  Bits b_wide = p.b;
  b_wide[63] = 0xffff0000;
  expect_throw_with(run(3, 2, 32, p.a, b_wide, p.c), "B[31][1] = 0xffff0000 does not fit bf16");
  Bits a_tail(p.a.begin(), p.a.begin() + 90), b_tail(p.b.begin(), p.b.begin() + 60);  // K = 30: 90 = 5·16 + 10
  a_tail[89] = 0x20000;
  expect_throw_with(run(3, 2, 30, a_tail, b_tail, p.c), "A[2][29] = 0x20000 does not fit bf16");
  GemmOptions o;
  o.k_order = {0};
  expect_throw_with(run(3, 2, 32, p.a, p.b, p.c, o), "k_order has 1 entries, expected one per k-step: 2");
  o.k_order = {1, 1};
  expect_throw_with(run(3, 2, 32, p.a, p.b, p.c, o), "not a permutation");
  o.k_order = {0, 2};
  expect_throw_with(run(3, 2, 32, p.a, p.b, p.c, o), "k_order[1] = 2");
  o.k_order = {};
  o.split_k = 0;
  expect_throw_with(run(3, 2, 32, p.a, p.b, p.c, o), "split_k = 0 must be in 1..steps");
  o.split_k = 3;
  expect_throw_with(run(3, 2, 32, p.a, p.b, p.c, o), "split_k = 3 must be in 1..steps, steps = 2");
  // The model must have a rule for the instruction.
  Model none{"none", 0, "", {}};
  expect_throw_with([&] { gemm(none, in, 3, 2, 32, p.a, p.b, p.c); }, "no rule");
  // Every message names the instruction.
  expect_throw_with(run(3, 2, 0, {}, {}, p.c), "mma.m16n8k16.f32.bf16.bf16.f32");
}

// --- Eigen front -------------------------------------------------------------------------

template <class T>
eigen::Matrix<T> to_eigen(const Bits& v, int rows, int cols) {
  eigen::Matrix<T> out(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      if constexpr (std::is_same_v<T, float>)
        out(i, j) = std::bit_cast<float>(v[std::size_t(i) * cols + j]);
      else
        out(i, j) = T::bitcast(v[std::size_t(i) * cols + j]);
    }
  return out;
}

TEST(EigenGemm, EqualsRawGemmF32) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const Problem p = random_problem(in, 9, 7, 40, 27);
  const auto A = to_eigen<bfloat16_t>(p.a, 9, 40);
  const auto B = to_eigen<bfloat16_t>(p.b, 40, 7);
  const auto C = to_eigen<float>(p.c, 9, 7);
  GemmOptions opt;
  opt.k_order = {2, 0, 1};
  opt.split_k = 2;
  const Eigen::MatrixXf D = eigen::gemm(sm80(), in, A, B, C, opt);
  const Bits d = gemm_of(sm80(), in, p, opt);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(std::bit_cast<std::uint32_t>(D(i, j)), d[i * 7 + j]);
  // Expressions (a row-major copy, a block) give the same.
  const Eigen::Matrix<bfloat16_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Arm = A;
  const Eigen::MatrixXf D2 = eigen::gemm(sm80(), in, Arm, B, C, opt);
  EXPECT_TRUE((D2.array() == D.array()).all());
  const Eigen::MatrixXf D3 = eigen::gemm(sm80(), in, A.topRows(3), B, C.topRows(3), opt);
  EXPECT_TRUE((D3.array() == D.topRows(3).array()).all());
}

TEST(EigenGemm, EqualsRawGemmF16) {
  const Instruction in = find_instruction("wgmma.m64n8k32.f16.e4m3.e4m3", 90);
  const Problem p = random_problem(in, 4, 5, 64, 28);
  const auto D = eigen::gemm(sm90(), in, to_eigen<float_e4m3_t>(p.a, 4, 64), to_eigen<float_e4m3_t>(p.b, 64, 5),
                             to_eigen<half_t>(p.c, 4, 5));
  static_assert(std::is_same_v<std::remove_const_t<decltype(D)>, eigen::Matrix<half_t>>);
  const Bits d = gemm_of(sm90(), in, p);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(D(i, j).raw(), d[i * 5 + j]);
}

TEST(EigenGemm, MixedCAndDTypes) {
  const Instruction in = find_instruction("mma.m8n8k4.f16.f16.f16.f32", 70);
  const Problem p = random_problem(in, 3, 2, 8, 29);
  const auto D = eigen::gemm<half_t>(builtin_model(70), in, to_eigen<half_t>(p.a, 3, 8),
                                     to_eigen<half_t>(p.b, 8, 2), to_eigen<float>(p.c, 3, 2));
  const Bits d = gemm_of(builtin_model(70), in, p);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(D(i, j).raw(), d[i * 2 + j]);
}

TEST(EigenGemm, MmaIsOneInstruction) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.tf32.tf32.f32", 80);
  const Problem p = random_problem(in, 16, 8, 8, 30);
  const Eigen::MatrixXf D = eigen::mma(sm80(), in, to_eigen<tfloat32_t>(p.a, 16, 8),
                                       to_eigen<tfloat32_t>(p.b, 8, 8), to_eigen<float>(p.c, 16, 8));
  const Bits d = gemm_of(sm80(), in, p);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(std::bit_cast<std::uint32_t>(D(i, j)), d[i * 8 + j]);
  expect_throw_with([&] { eigen::mma(sm80(), in, to_eigen<tfloat32_t>(p.a, 16, 8).topRows(8),
                                     to_eigen<tfloat32_t>(p.b, 8, 8), to_eigen<float>(p.c, 16, 8)); },
                    "takes A 16×8");
}

TEST(EigenGemm, WrongTypesAndShapesThrow) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const eigen::Matrix<half_t> Ah(2, 16);
  const eigen::Matrix<bfloat16_t> A(2, 16), B(16, 3);
  const Eigen::MatrixXf C = Eigen::MatrixXf::Zero(2, 3);
  expect_throw_with([&] { eigen::gemm(sm80(), in, Ah, B, C); }, "takes bf16 for A, but the matrix given holds f16");
  const eigen::Matrix<half_t> Ch(2, 3);
  expect_throw_with([&] { eigen::gemm(sm80(), in, A, B, Ch); }, "takes f32 for C, but the matrix given holds f16");
  expect_throw_with([&] { eigen::gemm(sm80(), in, A, B.topRows(8), C); }, "shapes do not agree");
  expect_throw_with([&] { eigen::gemm(sm80(), in, A, B, C.leftCols(2)); }, "shapes do not agree");
}

TEST(EigenGemm, FloatConversions) {
  Eigen::MatrixXf x(2, 3);
  x << 1.0f, -0.0f, 3.0f / 1024, 65504.0f, 70000.0f, 1.0f + 1.0f / 4096;
  const auto h = eigen::from_float<half_t>(x);
  EXPECT_EQ(h(0, 0).raw(), 0x3c00u);
  EXPECT_EQ(h(0, 1).raw(), 0x8000u);
  EXPECT_EQ(h(1, 0).raw(), 0x7bffu);
  EXPECT_EQ(h(1, 1).raw(), 0x7c00u);  // overflow -> Inf (RNE)
  EXPECT_EQ(h(1, 2).raw(), 0x3c00u);  // 1 + 2^-12: below half an ulp -> 1
  const Eigen::MatrixXf back = eigen::to_float(h);
  EXPECT_EQ(back(0, 2), 3.0f / 1024);
  EXPECT_TRUE(std::signbit(back(0, 1)));
  const auto e4 = eigen::from_float<float_e4m3_t>(x);
  EXPECT_EQ(e4(1, 1).raw(), 0x7eu);  // satfinite: 448
  const auto bf = eigen::from_float<bfloat16_t>(x);
  EXPECT_EQ(eigen::to_float(bf)(0, 0), 1.0f);
  // Eigen can store, copy and compare them.
  eigen::Matrix<bfloat16_t> z = eigen::Matrix<bfloat16_t>::Constant(2, 2, bfloat16_t(2.0));
  EXPECT_EQ(z(1, 1).raw(), bfloat16_t(2.0).raw());
  EXPECT_TRUE(z == eigen::Matrix<bfloat16_t>(z));
}

}  // namespace
}  // namespace tcnum
