// Standalone layout test of the wgmma probe kernels (needs CUDA, probes/wgmma_kernels.cu and emu/core/format.cpp):
// small integers, whose products and sums are exact in every format, must come back as the exact
// integer results in every element of D, for every type combination, every N and both A sources.
//
// Build (sm_90a only):
//   nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Iprobes \
//        probes/wgmma_layout_test.cu probes/wgmma_kernels.cu emu/core/format.cpp -cudart static -o wgmma_layout_test
// Run: wgmma_layout_test [--quick] [--log FILE]     (--quick: N in {8,16,32,64,128,256} only)
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "wgmma_probe.hpp"

using tcnum::Family;
using tcnum::Format;
using tcnum::Instruction;
using tcnum::device::ASource;
using tcnum::device::DeviceError;
using tcnum::device::detail::run_wgmma_tiles;

namespace {

std::string tname(Format f) { return std::string(tcnum::name_of(f)); }

// Exact encoding of a small integer (throws if it is not exact).
std::uint32_t encode_int(Format f, int v) {
  if (f == Format::fp32 || f == Format::tf32 || f == Format::bf16) {
    float x = static_cast<float>(v);
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    return f == Format::bf16 ? u >> 16 : u;
  }
  int eb = 0, fb = 0, bias = 0;
  if (f == Format::fp16) eb = 5, fb = 10, bias = 15;
  if (f == Format::e4m3) eb = 4, fb = 3, bias = 7;
  if (f == Format::e5m2) eb = 5, fb = 2, bias = 15;
  if (v == 0) return 0;
  const std::uint32_t s = v < 0 ? 1u : 0u;
  const int m = v < 0 ? -v : v;
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;
  const int rest = m - (1 << e);
  std::uint32_t frac = 0;
  if (e <= fb) {
    frac = static_cast<std::uint32_t>(rest) << (fb - e);
  } else {
    if (rest % (1 << (e - fb)) != 0) throw std::logic_error("integer not exact in format");
    frac = static_cast<std::uint32_t>(rest >> (e - fb));
  }
  return (s << (eb + fb)) | (static_cast<std::uint32_t>(e + bias) << fb) | frac;
}

struct Combo {
  Format d, a, b;
  int k;
};

const Combo kCombos[] = {
    {Format::fp32, Format::fp16, Format::fp16, 16}, {Format::fp16, Format::fp16, Format::fp16, 16},
    {Format::fp32, Format::bf16, Format::bf16, 16}, {Format::fp32, Format::tf32, Format::tf32, 8},
    {Format::fp32, Format::e4m3, Format::e4m3, 32}, {Format::fp32, Format::e4m3, Format::e5m2, 32},
    {Format::fp32, Format::e5m2, Format::e4m3, 32}, {Format::fp32, Format::e5m2, Format::e5m2, 32},
    {Format::fp16, Format::e4m3, Format::e4m3, 32}, {Format::fp16, Format::e4m3, Format::e5m2, 32},
    {Format::fp16, Format::e5m2, Format::e4m3, 32}, {Format::fp16, Format::e5m2, Format::e5m2, 32},
};

Instruction make(const Combo& cb, int n) {
  Instruction in;
  in.family = Family::wgmma;
  in.m = 64, in.n = n, in.k = cb.k;
  in.d_type = in.c_type = cb.d;
  in.a_type = cb.a, in.b_type = cb.b;
  in.min_sm = 90, in.max_sm = 90;
  in.name = "wgmma.m64n" + std::to_string(n) + "k" + std::to_string(cb.k) + "." + tname(cb.d) + "." + tname(cb.a) +
            "." + tname(cb.b);
  return in;
}

FILE* g_log = nullptr;

void logf(const char* fmt, const std::string& s) {
  std::printf(fmt, s.c_str());
  if (g_log) std::fprintf(g_log, fmt, s.c_str());
}

// Runs one variant; returns "" on pass, else a short report of the mismatches.
std::string run_one(const Instruction& in, int tiles, ASource src, std::mt19937& rng, bool tf32_garbage = false) {
  const int n = in.n, k = in.k;
  std::uniform_int_distribution<int> ab(-4, 4), cd(-8, 8);
  std::uniform_int_distribution<std::uint32_t> low13(0, 0x1FFF);
  std::vector<int> ai(static_cast<std::size_t>(tiles) * 64 * k), bi(static_cast<std::size_t>(tiles) * n * k),
      ci(static_cast<std::size_t>(tiles) * 64 * n);
  std::vector<std::uint32_t> a(ai.size()), b(bi.size()), c(ci.size());
  for (std::size_t i = 0; i < ai.size(); ++i) {
    ai[i] = ab(rng);
    a[i] = encode_int(in.a_type, ai[i]) | (tf32_garbage ? low13(rng) : 0u);
  }
  for (std::size_t i = 0; i < bi.size(); ++i) {
    bi[i] = ab(rng);
    b[i] = encode_int(in.b_type, bi[i]) | (tf32_garbage ? low13(rng) : 0u);
  }
  for (std::size_t i = 0; i < ci.size(); ++i) {
    ci[i] = cd(rng);
    c[i] = encode_int(in.d_type, ci[i]);
  }
  const std::vector<std::uint32_t> d = run_wgmma_tiles(in, tiles, a, b, c, src, 0);
  if (d.size() != c.size()) return "D has " + std::to_string(d.size()) + " elements";
  std::size_t bad = 0;
  std::string first;
  for (int t = 0; t < tiles; ++t) {
    for (int i = 0; i < 64; ++i) {
      for (int j = 0; j < n; ++j) {
        const std::size_t o = (static_cast<std::size_t>(t) * 64 + i) * n + j;
        int sum = ci[o];
        const int* ar = &ai[(static_cast<std::size_t>(t) * 64 + i) * k];
        const int* br = &bi[(static_cast<std::size_t>(t) * n + j) * k];
        for (int kk = 0; kk < k; ++kk) sum += ar[kk] * br[kk];
        const std::uint32_t want = encode_int(in.d_type, sum);
        if (d[o] != want) {
          if (++bad <= 4) {
            char buf[160];
            std::snprintf(buf, sizeof buf, " [tile %d D(%d,%d) got 0x%08x want 0x%08x (%d)]", t, i, j, d[o], want, sum);
            first += buf;
          }
        }
      }
    }
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(d.size()) + " elements wrong:" + first;
}

bool expect_throw_invalid(const Instruction& in, const char* what) {
  try {
    run_wgmma_tiles(in, 1, std::vector<std::uint32_t>(64 * in.k), std::vector<std::uint32_t>(in.n * in.k),
                    std::vector<std::uint32_t>(64 * in.n), ASource::shared_memory, 0);
  } catch (const std::invalid_argument& e) {
    logf("  ok: %s\n", std::string(what) + " -> invalid_argument: " + e.what());
    return true;
  } catch (const std::exception& e) {
    logf("  FAIL: %s\n", std::string(what) + " -> wrong exception: " + e.what());
    return false;
  }
  logf("  FAIL: %s\n", std::string(what) + " -> no exception");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--log") == 0 && i + 1 < argc) g_log = std::fopen(argv[++i], "w");
  }
  int failures = 0;

  logf("%s", std::string("argument checks (no GPU needed):\n"));
  {
    Instruction in = make(kCombos[2], 64);
    in.d_type = in.c_type = Format::fp16;
    failures += !expect_throw_invalid(in, "bf16 with f16 accumulator");
    in = make(kCombos[3], 64);
    in.d_type = in.c_type = Format::fp16;
    failures += !expect_throw_invalid(in, "tf32 with f16 accumulator");
    failures += !expect_throw_invalid(make(kCombos[0], 260), "N = 260");
    failures += !expect_throw_invalid(make(kCombos[0], 12), "N = 12");
    in = make(kCombos[4], 64);
    in.k = 16;
    failures += !expect_throw_invalid(in, "fp8 with K = 16");
    in = make(kCombos[0], 64);
    in.a_type = Format::bf16;
    failures += !expect_throw_invalid(in, "f16 x bf16");
  }
  try {
    run_wgmma_tiles(make(kCombos[0], 8), 1, std::vector<std::uint32_t>(64 * 16), std::vector<std::uint32_t>(8 * 16),
                    std::vector<std::uint32_t>(64 * 8), ASource::shared_memory, 0);
  } catch (const DeviceError& e) {
    logf("device check: %s\n", std::string("DeviceError: ") + e.what());
    logf("%s", std::string("no usable sm_90 device: skipping the layout test\n"));
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    logf("device check: FAIL %s\n", std::string("unexpected exception: ") + e.what());
    return 1;
  }

  std::vector<int> ns;
  if (quick) {
    ns = {8, 16, 32, 64, 128, 256};
  } else {
    for (int n = 8; n <= 256; n += 8) ns.push_back(n);
  }
  const int tiles = 16;
  std::mt19937 rng(12345);
  const auto t0 = std::chrono::steady_clock::now();

  std::printf("\n%-34s %-24s %-24s\n", "instruction (all N)", "SS (A in smem)", "RS (A in registers)");
  if (g_log) std::fprintf(g_log, "\nper variant (%d tiles each):\n", tiles);
  for (const Combo& cb : kCombos) {
    int pass[2] = {0, 0};
    std::string fails[2];
    for (int n : ns) {
      const Instruction in = make(cb, n);
      for (int s = 0; s < 2; ++s) {
        const ASource src = s == 0 ? ASource::shared_memory : ASource::registers;
        std::string r;
        try {
          r = run_one(in, tiles, src, rng);
        } catch (const std::exception& e) {
          r = std::string("exception: ") + e.what();
        }
        if (g_log) std::fprintf(g_log, "%-32s %s %s\n", in.name.c_str(), s ? "RS" : "SS", r.empty() ? "PASS" : r.c_str());
        if (r.empty()) {
          ++pass[s];
        } else {
          ++failures;
          if (fails[s].size() < 600) fails[s] += "\n    " + in.name + (s ? " RS: " : " SS: ") + r;
        }
      }
    }
    const std::string name = std::string("wgmma.m64nNk") + std::to_string(cb.k) + "." + tname(cb.d) + "." +
                             tname(cb.a) + "." + tname(cb.b);
    char cell[2][64];
    for (int s = 0; s < 2; ++s) {
      std::snprintf(cell[s], sizeof cell[s], "%s %d/%zu", pass[s] == static_cast<int>(ns.size()) ? "PASS" : "FAIL",
                    pass[s], ns.size());
    }
    char line[256];
    std::snprintf(line, sizeof line, "%-34s %-24s %-24s", name.c_str(), cell[0], cell[1]);
    std::printf("%s%s%s\n", line, fails[0].c_str(), fails[1].c_str());
    if (g_log) std::fprintf(g_log, "TABLE %s%s%s\n", line, fails[0].c_str(), fails[1].c_str());
    std::fflush(stdout);
  }

  // Grid-stride: many more tiles than blocks.
  std::printf("\nmany tiles (grid-stride):\n");
  const struct { int combo, n, tiles; } big[] = {{2, 256, 3000}, {4, 128, 5000}, {1, 64, 8000}, {3, 8, 20000}};
  for (const auto& bg : big) {
    const Instruction in = make(kCombos[bg.combo], bg.n);
    for (int s = 0; s < 2; ++s) {
      std::string r;
      try {
        r = run_one(in, bg.tiles, s ? ASource::registers : ASource::shared_memory, rng);
      } catch (const std::exception& e) {
        r = std::string("exception: ") + e.what();
      }
      failures += !r.empty();
      char line[512];
      std::snprintf(line, sizeof line, "  %-32s %s %6d tiles: %s\n", in.name.c_str(), s ? "RS" : "SS", bg.tiles,
                    r.empty() ? "PASS" : r.c_str());
      logf("%s", std::string(line));
    }
  }

  // Informational (not counted): does wgmma ignore the low 13 bits of tf32 operands?
  std::printf("\ntf32 operands with random low 13 bits (informational: are they ignored?):\n");
  for (int s = 0; s < 2; ++s) {
    std::string r;
    try {
      r = run_one(make(kCombos[3], 64), 64, s ? ASource::registers : ASource::shared_memory, rng, true);
    } catch (const std::exception& e) {
      r = std::string("exception: ") + e.what();
    }
    logf("  %s\n", std::string(s ? "RS: " : "SS: ") + (r.empty() ? "ignored (results exact)" : "NOT ignored: " + r));
  }

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char tail[128];
  std::snprintf(tail, sizeof tail, "\n%s: %d failure(s), %.1f s\n", failures == 0 ? "ALL PASS" : "FAILED", failures, secs);
  logf("%s", std::string(tail));
  if (g_log) std::fclose(g_log);
  return failures == 0 ? 0 : 1;
}
