// tcnum_bench: the GEMM oracle's cost, against Eigen's float GEMM of the same shape measured
// in the same run, and the cost of one mma_element call per input type.
//
// Counters (see docs/benchmarks.md):
//   vs_eigen_float  oracle wall time per GEMM / Eigen MatrixXf GEMM wall time, same M=N=K (how many
//                   times slower the bit-exact oracle is than a plain float GEMM)
//   cpu_vs_eigen_float  the same with CPU time (all the oracle's threads / Eigen's one): the
//                   work ratio; unlike wall time it holds on a machine busy with other jobs
//   MAC/s           multiply-adds per second (M·N·K per GEMM)
//   calls/s         mma_element calls per second (one per output element per k-step)
// The oracle uses all cores (std::thread) unless TCNUM_THREADS is set; Eigen runs single-threaded
// (it is built without OpenMP here).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/build_info.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/reference/mpfr_reference.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using Bits = std::vector<std::uint32_t>;

struct Config {
  const char* label;
  int sm;
  const char* instruction;
};

// The instruction classes of the fast kernel on sm_90, plus sm_80 bf16 (two blocks per step);
// then (kNewConfigs) the classes issue 22 brought onto the fast path: Blackwell's fp8 tcgen05,
// kind::f8f6f4 (FP4, FP6), the block-scaled kinds (MXFP8, MXFP4, NVFP4), sm_120's mma.sync
// forms, and sm_70's m8n8k4.
const Config kConfigs[] = {
    {"bf16_mma_sm90", 90, "mma.m16n8k16.f32.bf16.bf16.f32"},
    {"bf16_wgmma_sm90", 90, "wgmma.m64n256k16.f32.bf16.bf16"},
    {"f16_f16_wgmma_sm90", 90, "wgmma.m64n256k16.f16.f16.f16"},
    {"tf32_wgmma_sm90", 90, "wgmma.m64n256k8.f32.tf32.tf32"},
    {"e4m3_wgmma_sm90", 90, "wgmma.m64n256k32.f32.e4m3.e4m3"},
    {"e4m3_mma_sm90", 90, "mma.m16n8k32.f32.e4m3.e4m3.f32"},
    {"bf16_mma_sm80", 80, "mma.m16n8k16.f32.bf16.bf16.f32"},
};
const Config kNewConfigs[] = {
    {"e4m3_tcgen05_sm100", 100, "tcgen05.mma.m128n256k32.f32.e4m3.e4m3"},
    {"e2m1_f8f6f4_sm100", 100, "tcgen05.mma.m128n256k32.kind::f8f6f4.f32.e2m1.e2m1"},
    {"e3m2_e2m3_f8f6f4_sm100", 100, "tcgen05.mma.m128n256k32.kind::f8f6f4.f32.e3m2.e2m3"},
    {"mxf8_e4m3_sm100", 100, "tcgen05.mma.m128n256k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.ue8m0"},
    {"mxf4_sm100", 100, "tcgen05.mma.m128n256k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.ue8m0"},
    {"nvf4_sm100", 100, "tcgen05.mma.m128n256k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.ue4m3"},
    {"e4m3_mma_sm120", 120, "mma.m16n8k32.f32.e4m3.e4m3.f32"},
    {"e2m1_mma_sm120", 120, "mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1.f32"},
    {"mxf4_mma_sm120", 120, "mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"},
    {"nvf4_mma_sm120", 120, "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"},
    {"f16_m8n8k4_sm70", 70, "mma.m8n8k4.f32.f16.f16.f32"},
};

Bits random_bits(tcnum::Format f, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Bits v(n);
  const bool fp8 = f == tcnum::Format::e4m3 || f == tcnum::Format::e5m2;
  for (auto& x : v) x = tcnum::encode(f, normal(rng), tcnum::Rounding::nearest_even, fp8);
  return v;
}

// Block scales 2^e·(1 + u), e uniform in [-2, 2], u in [0, 1) (ue8m0 keeps the power of two).
Bits random_scales(tcnum::Format f, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> e(-2, 2);
  Bits v(n);
  for (auto& x : v) x = tcnum::encode(f, std::ldexp(1.0 + u(rng), e(rng)), tcnum::Rounding::toward_zero);
  return v;
}

// CPU time of the whole process (every thread), in seconds.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timing {
  double wall = 0, cpu = 0;  // seconds per GEMM
};

// Seconds per Eigen float GEMM D = A·B + C of size s³: best of several timed batches, measured
// once per size and cached, so every oracle benchmark of that size divides by the same numbers.
Timing eigen_timing(int s) {
  static std::map<int, Timing> cache;
  if (auto it = cache.find(s); it != cache.end()) return it->second;
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(s, s), B = Eigen::MatrixXf::Random(s, s);
  Eigen::MatrixXf C = Eigen::MatrixXf::Random(s, s), D(s, s);
  Timing best{1e30, 1e30};
  for (int batch = 0; batch < 7; ++batch) {
    int reps = 0;
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    do {
      D.noalias() = C;
      D.noalias() += A * B;
      benchmark::DoNotOptimize(D.data());
      ++reps;
    } while (Clock::now() - t0 < std::chrono::milliseconds(50));
    best.wall = std::min(best.wall, std::chrono::duration<double>(Clock::now() - t0).count() / reps);
    best.cpu = std::min(best.cpu, (process_cpu_seconds() - c0) / reps);
  }
  return cache[s] = best;
}

void BM_EigenFloatGemm(benchmark::State& state) {
  const int s = static_cast<int>(state.range(0));
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(s, s), B = Eigen::MatrixXf::Random(s, s);
  Eigen::MatrixXf C = Eigen::MatrixXf::Random(s, s), D(s, s);
  for (auto _ : state) {
    D.noalias() = C;
    D.noalias() += A * B;
    benchmark::DoNotOptimize(D.data());
    benchmark::ClobberMemory();
  }
  state.counters["MAC/s"] = benchmark::Counter(double(s) * s * s * state.iterations(), benchmark::Counter::kIsRate);
}

// Args: size, threads (0 = all cores), path (0 fast, 1 reference).
void BM_Gemm(benchmark::State& state, const Config& cfg) {
  const int s = static_cast<int>(state.range(0));
  tcnum::GemmOptions opt;
  opt.threads = static_cast<int>(state.range(1));
  opt.path = state.range(2) ? tcnum::GemmOptions::Path::reference : tcnum::GemmOptions::Path::fast;
  const tcnum::Instruction in = tcnum::find_instruction(cfg.instruction, cfg.sm);
  const tcnum::Model& model = tcnum::builtin_model(cfg.sm);
  const std::size_t n = std::size_t(s) * s;
  const Bits a = random_bits(in.a_type, n, 1), b = random_bits(in.b_type, n, 2), c = random_bits(in.c_type, n, 3);
  const std::size_t scales = in.block_scaled() ? n / static_cast<std::size_t>(in.scale_block) : 0;
  const tcnum::BlockScales block_scales{random_scales(in.scale_type, scales, 7), random_scales(in.scale_type, scales, 8)};
  const Timing eigen = eigen_timing(s);
  Timing total;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    Bits d = in.block_scaled() ? tcnum::gemm(model, in, s, s, s, a, b, c, block_scales, opt)
                               : tcnum::gemm(model, in, s, s, s, a, b, c, opt);
    benchmark::DoNotOptimize(d.data());
    total.cpu += process_cpu_seconds() - c0;
    total.wall += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  const double iters = double(state.iterations());
  const double steps = double((s + in.k - 1) / in.k);
  state.counters["vs_eigen_float"] = total.wall / iters / eigen.wall;
  state.counters["cpu_vs_eigen_float"] = total.cpu / iters / eigen.cpu;
  state.counters["eigen_us"] = eigen.wall * 1e6;
  state.counters["MAC/s"] = benchmark::Counter(double(n) * s * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["calls/s"] = benchmark::Counter(double(n) * steps * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["threads"] = opt.threads;
  state.SetLabel(std::string(cfg.instruction) + (state.range(2) ? " reference" : " fast ") + tcnum::simd_path());
}

// One element per iteration, cycling through 256 inputs. Arg: 0 = through the compiled plan
// (fast kernel), 1 = the reference datapath, 2 = MPFR's exact dot product rounded into D.
void BM_MmaElement(benchmark::State& state, const Config& cfg) {
  const tcnum::Instruction in = tcnum::find_instruction(cfg.instruction, cfg.sm);
  const tcnum::MmaPlan plan = tcnum::compile_plan(tcnum::builtin_model(cfg.sm), in);
  constexpr std::size_t kCases = 256;
  const Bits a = random_bits(in.a_type, kCases * in.k, 4), b = random_bits(in.b_type, kCases * in.k, 5);
  const Bits c = random_bits(in.c_type, kCases, 6);
  const std::size_t k = static_cast<std::size_t>(in.k);
  const auto how = state.range(0);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::span<const std::uint32_t> ai{a.data() + i * k, k}, bi{b.data() + i * k, k};
    std::uint32_t d = how == 0   ? tcnum::mma_element(plan, ai, bi, c[i])
                      : how == 1 ? tcnum::mma_element(plan, ai, bi, c[i], tcnum::Datapath::reference)
                                 : tcnum::exact_dot_rounded(in.a_type, in.b_type, in.c_type, ai, bi, c[i], in.d_type,
                                                            tcnum::Rounding::nearest_even);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetLabel(std::string(cfg.instruction) + (how == 0 ? " plan" : how == 1 ? " reference" : " mpfr-exact"));
}

// A batch of independent elements (replay, check, fuzz): elements per second.
void BM_MmaBatch(benchmark::State& state, const Config& cfg) {
  const tcnum::Instruction in = tcnum::find_instruction(cfg.instruction, cfg.sm);
  const tcnum::MmaPlan plan = tcnum::compile_plan(tcnum::builtin_model(cfg.sm), in);
  constexpr std::size_t kCases = 4096;
  const Bits a = random_bits(in.a_type, kCases * in.k, 4), b = random_bits(in.b_type, kCases * in.k, 5);
  const Bits c = random_bits(in.c_type, kCases, 6);
  Bits d(kCases);
  for (auto _ : state) {
    tcnum::mma_batch(plan, kCases, a.data(), b.data(), c.data(), d.data());
    benchmark::DoNotOptimize(d.data());
  }
  state.counters["elements/s"] = benchmark::Counter(double(kCases) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(cfg.instruction);
}

int register_all() {
  for (int s : {256, 512, 1024}) benchmark::RegisterBenchmark("EigenFloatGemm", BM_EigenFloatGemm)->Arg(s)->Unit(benchmark::kMillisecond);
  for (const Config& cfg : kConfigs)
    benchmark::RegisterBenchmark((std::string("Gemm/") + cfg.label).c_str(), BM_Gemm, cfg)
        ->Args({256, 1, 0})->Args({512, 1, 0})->Args({1024, 1, 0})->Args({256, 0, 0})->Args({512, 0, 0})
        ->Args({1024, 0, 0})->Args({256, 1, 1})->ArgNames({"size", "threads", "reference"})
        ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
  for (const Config& cfg : kNewConfigs)
    benchmark::RegisterBenchmark((std::string("Gemm/") + cfg.label).c_str(), BM_Gemm, cfg)
        ->Args({256, 1, 0})->Args({512, 1, 0})->Args({256, 0, 0})->Args({512, 0, 0})->Args({256, 1, 1})
        ->ArgNames({"size", "threads", "reference"})
        ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
  for (const Config& cfg : kConfigs)
    benchmark::RegisterBenchmark((std::string("MmaElement/") + cfg.label).c_str(), BM_MmaElement, cfg)
        ->Arg(0)->Arg(1)->Arg(2)->ArgNames({"path"});
  for (const Config& cfg : kNewConfigs)  // single elements of the unscaled ones (mma_element takes no scales)
    if (!tcnum::find_instruction(cfg.instruction, cfg.sm).block_scaled())
      benchmark::RegisterBenchmark((std::string("MmaElement/") + cfg.label).c_str(), BM_MmaElement, cfg)
          ->Arg(0)->Arg(1)->Arg(2)->ArgNames({"path"});
  for (const Config& cfg : kConfigs)
    benchmark::RegisterBenchmark((std::string("MmaBatch/") + cfg.label).c_str(), BM_MmaBatch, cfg);
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
