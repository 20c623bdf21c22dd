// tcnum_probe_selfcheck: device info, then the layout self-check of every catalog
// instruction for the device's architecture, one line each. Exit 1 if any check fails.
// Usage: tcnum_probe_selfcheck [--device N] [--list] [--exact] [NAME-PART...]
//   NAME-PART: only names containing one (--exact: equal to one); --list: print names only.
//   --tf32-lowbits: also show what mma tf32 does with the low 13 bits of its registers.
//   --extra: also self-check probe kernels the catalog does not list (legal PTX it lacks).
//   --throughput: time a large chunked run_tiles twice and compare the two results.
// A kernel fault poisons the whole CUDA context, so a script may run each name in its own
// process (--list, then --exact NAME) to keep one fault from failing every later check.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mma_sync_probe.hpp"
#include "tcnum/probes/device.hpp"
#include "tcnum/core/instruction.hpp"

namespace {

bool wanted(const std::string& name, const std::vector<std::string>& filters, bool exact) {
  if (filters.empty()) return true;
  for (const auto& f : filters)
    if (exact ? name == f : name.find(f) != std::string::npos) return true;
  return false;
}

// 1 * x for register patterns x around 1.0: shows whether the low 13 bits are ignored,
// truncated or rounded (0x3f801000 is exactly half a tf32 ulp above 1).
void show_tf32_lowbits(const tcnum::device::RunOptions& opt) {
  using namespace tcnum;
  try {
    const Instruction in = parse_instruction("mma.m16n8k8.f32.tf32.tf32.f32");
    const std::vector<std::uint32_t> xs{0x3f800000, 0x3f800001, 0x3f800fff, 0x3f801000, 0x3f801001,
                                        0x3f801fff, 0x3f802000, 0x3f803000, 0xbf801fff, 0x00001fff};
    std::vector<Case> cases;
    for (std::uint32_t x : xs) {
      Case ca{std::vector<std::uint32_t>(in.k, 0), std::vector<std::uint32_t>(in.k, 0), 0, {}, {}};
      ca.a[0] = x, ca.b[0] = 0x3f800000;  // x in A
      cases.push_back(ca);
      std::swap(ca.a, ca.b);  // x in B
      cases.push_back(ca);
    }
    const std::vector<std::uint32_t> d = device::run_cases(in, cases, opt);
    std::printf("tf32 low bits (%s): register x -> D = 1*x with x in A | in B\n", in.name.c_str());
    for (std::size_t i = 0; i < xs.size(); ++i)
      std::printf("  x=0x%08x -> 0x%08x | 0x%08x\n", xs[i], d[2 * i], d[2 * i + 1]);
  } catch (const std::exception& e) {
    std::printf("tf32 low-bit probe failed: %s\n", e.what());
  }
}

// An Instruction for a probe kernel the catalog lacks: "mma.mMnNkK.d.a.b.c".
tcnum::Instruction uncatalogued(const tcnum::device::detail::MmaKernel& k) {
  tcnum::Instruction in;
  in.name = k.name;
  in.family = tcnum::Family::mma;
  in.m = k.m, in.n = k.n, in.k = k.k;
  in.min_sm = k.min_arch;
  std::vector<std::string> tok;
  std::string cur;
  for (char ch : in.name + ".") {
    if (ch == '.') tok.push_back(cur), cur.clear();
    else cur += ch;
  }
  auto fmt = [&](std::size_t i) {
    auto f = tcnum::parse_format(tok.at(i));
    if (!f) throw std::runtime_error("bad format in " + in.name);
    return *f;
  };
  in.d_type = fmt(2), in.a_type = fmt(3), in.b_type = fmt(4), in.c_type = fmt(5);
  return in;
}

// 300k m16n8k16 bf16 tiles of random bits (several chunks), twice: time and determinism.
void show_throughput(const tcnum::device::RunOptions& opt) {
  using namespace tcnum;
  try {
    const Instruction in = parse_instruction("mma.m16n8k16.f32.bf16.bf16.f32");
    const int tiles = 300000;
    std::mt19937 rng(42);
    auto fill = [&](std::size_t n, std::uint32_t mask) {
      std::vector<std::uint32_t> v(n);
      for (auto& x : v) x = rng() & mask;
      return v;
    };
    const auto a = fill(std::size_t(tiles) * in.m * in.k, 0xffff), b = fill(std::size_t(tiles) * in.n * in.k, 0xffff),
               c = fill(std::size_t(tiles) * in.m * in.n, 0xffffffff);
    std::vector<std::uint32_t> d[2];
    for (int r = 0; r < 2; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      d[r] = device::run_tiles(in, tiles, a, b, c, opt);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("throughput: %s, %d tiles in %.3f s (%.2f M MMAs/s incl. copies)\n", in.name.c_str(), tiles, s,
                  tiles / s / 1e6);
    }
    std::printf("throughput: the two runs %s\n", d[0] == d[1] ? "agree bit for bit" : "DIFFER");
  } catch (const std::exception& e) {
    std::printf("throughput probe failed: %s\n", e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tcnum;
  device::RunOptions opt;
  std::vector<std::string> filters;
  bool list = false, exact = false, tf32_lowbits = false, extra = false, throughput = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      opt.device = std::atoi(argv[++i]);
    } else if (arg == "--list") {
      list = true;
    } else if (arg == "--tf32-lowbits") {
      tf32_lowbits = true;
    } else if (arg == "--extra") {
      extra = true;
    } else if (arg == "--throughput") {
      throughput = true;
    } else if (arg == "--exact") {
      exact = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [--device N] [--list] [--exact] [--extra] [--tf32-lowbits] [--throughput] [NAME-PART...]\n", argv[0]);
      return 0;
    } else {
      filters.push_back(arg);
    }
  }
  std::string why;
  if (!device::available(&why)) {
    std::printf("no device: %s\n", why.c_str());
    return 2;
  }
  device::DeviceInfo di;
  try {
    di = device::info(opt.device);
  } catch (const std::exception& e) {
    std::printf("device info failed: %s\n", e.what());
    return 2;
  }

  std::vector<Instruction> todo = instructions_for(di.sm);
  if (extra) {
    for (const auto& k : device::detail::mma_kernels()) {
      bool listed = false;
      for (const Instruction& in : todo) listed = listed || in.name == k.name;
      auto pos = std::find_if(todo.begin(), todo.end(), [](const Instruction& in) { return in.family != Family::mma; });
      if (!listed && di.sm >= k.min_arch) todo.insert(pos, uncatalogued(k));  // before wgmma: a fault there poisons all after
    }
  }
  if (list) {
    for (const Instruction& in : todo)
      if (wanted(in.name, filters, exact)) std::printf("%s\n", in.name.c_str());
    return 0;
  }
  std::printf("device %d: %s, sm_%d, driver %s, CUDA runtime %s\n", opt.device, di.name.c_str(), di.sm,
              di.driver.c_str(), di.runtime.c_str());
  int pass = 0, fail = 0, skip = 0;
  for (const Instruction& in : todo) {
    if (!wanted(in.name, filters, exact)) continue;
    std::vector<device::ASource> sources{device::ASource::shared_memory};
    if (in.family == Family::wgmma) sources.push_back(device::ASource::registers);
    for (device::ASource src : sources) {
      opt.a_source = src;
      std::string label = in.name;
      if (in.family == Family::wgmma) label += src == device::ASource::registers ? " [A regs]" : " [A smem]";
      const auto t0 = std::chrono::steady_clock::now();
      std::string verdict, report;
      try {
        report = device::self_check(in, opt);
        verdict = report.empty() ? "PASS" : "FAIL";
      } catch (const device::DeviceError& e) {
        report = e.what();
        // A missing kernel is not a layout failure; a failed CUDA call is.
        const bool missing = report.find("no mma.sync probe kernel") != std::string::npos ||
                             report.find("no wgmma probe kernels") != std::string::npos ||
                             report.find("no tcgen05 probe kernels") != std::string::npos;
        verdict = missing ? "SKIP" : "FAIL";
      } catch (const std::exception& e) {
        report = e.what();
        verdict = "FAIL";
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      (verdict == "PASS" ? pass : verdict == "SKIP" ? skip : fail)++;
      std::printf("%-4s %-44s %8.1f ms%s%s\n", verdict.c_str(), label.c_str(), ms, report.empty() ? "" : "  ",
                  report.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("summary: %d PASS, %d FAIL, %d SKIP\n", pass, fail, skip);
  if (tf32_lowbits) show_tf32_lowbits(opt);
  if (throughput) show_throughput(opt);
  return fail ? 1 : 0;
}
