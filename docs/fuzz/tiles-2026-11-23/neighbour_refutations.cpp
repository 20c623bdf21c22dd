// How many of a campaign's cases tell the built-in sm_90 model from each of its one-parameter
// neighbours (tcnum::fuzz::neighbours). The device agreed with sm_90 on every case, so each such
// case is one where the device's bits refute that neighbour. Regenerates batch 0 of each
// (instruction, distribution) pair exactly as `numprobe fuzz` drew it (same seed, same --batch).
// Build: g++ -O2 -std=c++20 -Iinclude neighbour_refutations.cpp build/emu/libtcnum_fuzz.a build/emu/libtcnum.a -lz
// Usage: a.out SEED BATCH DIST[,DIST..]
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/classify.hpp"
#include "tcnum/fuzz/generators.hpp"

using namespace tcnum;

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: %s SEED BATCH DISTS\n", argv[0]), 2;
  const std::uint64_t seed = std::strtoull(argv[1], nullptr, 10), batch = std::strtoull(argv[2], nullptr, 10);
  std::vector<std::string> dists;
  std::stringstream ss(argv[3]);
  for (std::string d; std::getline(ss, d, ',');) dists.push_back(d);
  std::vector<Instruction> instrs;  // as `numprobe fuzz --instr all` picks them on sm_90
  for (const auto& in : instructions_for(90))
    if (in.family != Family::tcgen05 && !in.block_scaled() && !(in.family == Family::mma && in.m == 8)) instrs.push_back(in);
  struct Count { std::uint64_t cases = 0, instructions = 0, applies = 0; };
  std::map<std::string, Count> refuted;  // change -> cases, instructions with at least one
  std::uint64_t total = 0;
  std::mutex mutex;
  parallel_for(instrs.size(), 0, [&](std::size_t ii) {
    const Instruction& in = instrs[ii];
    const DatapathParams& p = builtin_model(90).params_for(in);
    const MmaPlan base = compile_plan(p, in);
    std::vector<std::pair<std::string, MmaPlan>> plans;
    for (const auto& n : fuzz::neighbours(p, in)) plans.emplace_back(n.change, compile_plan(n.params, in));
    const std::uint64_t mn = std::uint64_t(in.m) * in.n, tiles = (batch + mn - 1) / mn;
    std::vector<std::uint32_t> a(tiles * in.m * in.k), b(tiles * in.n * in.k), c(tiles * mn), d0(c.size()), d1(c.size());
    std::map<std::string, std::uint64_t> here;
    for (const auto& dist : dists) {
      fuzz::generate_tiles(in, p, dist, fuzz::batch_seed(seed, in.name, dist, 0), tiles, a.data(), b.data(), c.data());
      mma_tiles(base, tiles, a.data(), b.data(), c.data(), d0.data());
      for (const auto& [change, plan] : plans) {
        mma_tiles(plan, tiles, a.data(), b.data(), c.data(), d1.data());
        for (std::size_t e = 0; e < d0.size(); ++e) here[change] += d0[e] != d1[e];
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    total += tiles * mn * dists.size();
    for (const auto& [change, n] : here) {
      refuted[change].cases += n;
      refuted[change].instructions += n > 0;
      ++refuted[change].applies;
    }
  });
  std::printf("seed %llu, batch 0 of every pair (%llu cases, %zu instructions, %s)\n", (unsigned long long)seed,
              (unsigned long long)total, instrs.size(), argv[3]);
  std::printf("| neighbour (change to sm_90) | cases that refute it | instructions refuting it / where it exists |\n|---|---:|---:|\n");
  for (const auto& [change, n] : refuted)
    std::printf("| `%s` | %llu | %llu / %llu |\n", change.c_str(), (unsigned long long)n.cases,
                (unsigned long long)n.instructions, (unsigned long long)n.applies);
}
