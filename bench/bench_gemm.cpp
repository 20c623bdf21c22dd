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

// The instruction classes of the fast kernel on sm_90, plus sm_80 bf16 (two blocks per step).
const Config kConfigs[] = {
    {"bf16_mma_sm90", 90, "mma.m16n8k16.f32.bf16.bf16.f32"},
    {"bf16_wgmma_sm90", 90, "wgmma.m64n256k16.f32.bf16.bf16"},
    {"f16_f16_wgmma_sm90", 90, "wgmma.m64n256k16.f16.f16.f16"},
    {"tf32_wgmma_sm90", 90, "wgmma.m64n256k8.f32.tf32.tf32"},
    {"e4m3_wgmma_sm90", 90, "wgmma.m64n256k32.f32.e4m3.e4m3"},
    {"e4m3_mma_sm90", 90, "mma.m16n8k32.f32.e4m3.e4m3.f32"},
    {"bf16_mma_sm80", 80, "mma.m16n8k16.f32.bf16.bf16.f32"},
};

Bits random_bits(tcnum::Format f, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Bits v(n);
  const bool fp8 = f == tcnum::Format::e4m3 || f == tcnum::Format::e5m2;
  for (auto& x : v) x = tcnum::encode(f, normal(rng), tcnum::Rounding::nearest_even, fp8);
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
  const Timing eigen = eigen_timing(s);
  Timing total;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    Bits d = tcnum::gemm(model, in, s, s, s, a, b, c, opt);
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
                      : how == 1 ? tcnum::mma_element_reference(plan.params, in, ai, bi, c[i])
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
        ->Args({256, 1, 0})->Args({512, 1, 0})->Args({1024, 1, 0})->Args({256, 0, 0})->Args({1024, 0, 0})
        ->Args({256, 1, 1})->ArgNames({"size", "threads", "reference"})
        ->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
  for (const Config& cfg : kConfigs)
    benchmark::RegisterBenchmark((std::string("MmaElement/") + cfg.label).c_str(), BM_MmaElement, cfg)
        ->Arg(0)->Arg(1)->Arg(2)->ArgNames({"path"});
  for (const Config& cfg : kConfigs)
    benchmark::RegisterBenchmark((std::string("MmaBatch/") + cfg.label).c_str(), BM_MmaBatch, cfg);
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
