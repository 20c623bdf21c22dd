// record_blackwell: the standalone recorder of a first Blackwell corpus (docs/probes.md,
// "Blackwell"). Built for one target (-DTCNUM_BLACKWELL_TARGET=100 with tcgen05_block_scale.cu and
// tcgen05_runner.cpp on a B200, =120 with mma_sm120_kernels.cu and sm120_runner.cpp on an RTX 50xx),
// it runs each instruction's layout self-check, then tcnum's generators (every distribution, scales
// included) on the device, and writes corpus lines (8 fields for the block-scaled forms).
//   record_blackwell OUT.tcc.gz [--cases N] [--seed S] [--instr NAME]
// Exit status 1 when a self-check failed (those instructions are not recorded).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"

#if TCNUM_BLACKWELL_TARGET == 100
#include "tcgen05_layout.hpp"
#include "tcgen05_runner.hpp"
namespace runner = tcnum::tcgen05;
constexpr int kSm = 100;
#elif TCNUM_BLACKWELL_TARGET == 120
#include "sm120_runner.hpp"
namespace runner = tcnum::sm120;
constexpr int kSm = 120;
#else
#error "define TCNUM_BLACKWELL_TARGET as 100 (B200, tcgen05) or 120 (RTX 50xx, mma.sync kind::)"
#endif

namespace {

using tcnum::Instruction;

// The stream seed of one instruction and distribution: FNV-1a of the names mixed with the seed
// (portable, unlike std::hash), so that one (instruction, distribution) can be re-recorded alone.
std::uint64_t stream_seed(std::uint64_t seed, const std::string& name, const std::string& dist) {
  std::uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char ch : name + "/" + dist) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::vector<Instruction> recorded_instructions(const std::string& only) {
  std::vector<Instruction> out;
  for (const Instruction& in : tcnum::instructions_for(kSm)) {
    if (!only.empty()) {
      if (in.name == only) out.push_back(in);
      continue;
    }
#if TCNUM_BLACKWELL_TARGET == 100
    if (tcnum::tcgen05::supported(in) && (in.n == 16 || in.n == 128)) out.push_back(in);
#else
    if (!in.kind.empty()) out.push_back(in);
#endif
  }
  return out;
}

// Cases on the diagonal of tiles: case i -> tile i / D, row and column i % D (D = min(M, N)); the
// rest of the tile is zeros with unit scales, which no diagonal element reads.
std::vector<std::uint32_t> run_cases(const Instruction& in, const std::vector<tcnum::Case>& cases) {
  const int M = in.m, N = in.n, K = in.k, S = in.scales_per_row(), diag = std::min(M, N);
  const int tiles = static_cast<int>((cases.size() + diag - 1) / diag);
  const std::uint32_t unit = S ? tcnum::encode(in.scale_type, 1.0) : 0;
  std::vector<std::uint32_t> a(std::size_t(tiles) * M * K), b(std::size_t(tiles) * N * K), c(std::size_t(tiles) * M * N);
  std::vector<std::uint32_t> sa(std::size_t(tiles) * M * S, unit), sb(std::size_t(tiles) * N * S, unit);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::size_t t = i / diag, r = i % diag;
    const tcnum::Case& g = cases[i];
    for (int k = 0; k < K; ++k) {
      a[(t * M + r) * K + k] = g.a[k];
      b[(t * N + r) * K + k] = g.b[k];
    }
    c[(t * M + r) * N + r] = g.c;
    for (int s = 0; s < S; ++s) {
      sa[(t * M + r) * S + s] = g.scale_a[s];
      sb[(t * N + r) * S + s] = g.scale_b[s];
    }
  }
  const std::vector<std::uint32_t> d = runner::run_tiles(in, tiles, a, b, c, sa, sb);
  std::vector<std::uint32_t> out(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) out[i] = d[(i / diag * M + i % diag) * N + i % diag];
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: record_blackwell OUT.tcc[.gz] [--cases N] [--seed S] [--instr NAME]\n";
    return 2;
  }
  const std::string out_path = argv[1];
  std::size_t cases = 1000;
  std::uint64_t seed = 1;
  std::string only;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--cases") cases = std::stoul(val);
    else if (opt == "--seed") seed = std::stoull(val);
    else if (opt == "--instr") only = val;
    else {
      std::cerr << "record_blackwell: unknown option " << opt << "\n";
      return 2;
    }
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::cerr << "record_blackwell: no CUDA device\n";
    return 2;
  }
  const int sm = prop.major * 10 + prop.minor;
  if (sm / 10 != kSm / 10) {
    std::cerr << "record_blackwell: built for sm_" << kSm << ", but the GPU is sm_" << sm << " (" << prop.name << ")\n";
    return 2;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const std::string arch = "sm_" + std::to_string(kSm);
  tcnum::CorpusWriter w(out_path);
  w.comment("recorded by probes/blackwell/record_blackwell on " + std::string(prop.name) + " (sm_" + std::to_string(sm) +
            ", CUDA driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime) + ")\nseed " +
            std::to_string(seed) + ", " + std::to_string(cases) + " cases per instruction and distribution");
  int status = 0;
  std::size_t total = 0;
  for (const Instruction& in : recorded_instructions(only)) {
    const std::string why = runner::self_check(in);
    if (!why.empty()) {
      std::cerr << "SELF-CHECK FAILED, not recorded: " << why << "\n";
      status = 1;
      continue;
    }
    for (const std::string& dist : tcnum::reference::frozen_v1::distribution_names()) {
      const auto gen = tcnum::reference::frozen_v1::generate(in, dist, cases, stream_seed(seed, in.name, dist));
      const auto d = run_cases(in, gen);
      w.comment(in.name + " " + dist + " " + std::to_string(gen.size()) + " cases");
      for (std::size_t i = 0; i < gen.size(); ++i)
        w.write(tcnum::format_case_line(arch, in, gen[i].a, gen[i].b, gen[i].c, d[i], gen[i].scale_a, gen[i].scale_b));
      total += gen.size();
    }
    std::cerr << in.name << ": self-check passed, recorded\n";
  }
  w.close();
  std::cout << total << " cases written to " << out_path << "\n";
  return status;
}
