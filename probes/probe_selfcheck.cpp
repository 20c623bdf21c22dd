// tcnum_probe_selfcheck: device info, then the layout self-check of every catalog
// instruction for the device's architecture, one line each. Exit 1 if any check fails.
// Usage: tcnum_probe_selfcheck [--device N] [--list] [--exact] [NAME-PART...]
//   NAME-PART: only names containing one (--exact: equal to one); --list: print names only.
//   --tf32-lowbits: also show what mma tf32 does with the low 13 bits of its registers.
// A kernel fault poisons the whole CUDA context, so a script may run each name in its own
// process (--list, then --exact NAME) to keep one fault from failing every later check.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tcnum/device.hpp"
#include "tcnum/instruction.hpp"

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
    std::vector<device::Case> cases;
    for (std::uint32_t x : xs) {
      device::Case ca{std::vector<std::uint32_t>(in.k, 0), std::vector<std::uint32_t>(in.k, 0), 0};
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

}  // namespace

int main(int argc, char** argv) {
  using namespace tcnum;
  device::RunOptions opt;
  std::vector<std::string> filters;
  bool list = false, exact = false, tf32_lowbits = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      opt.device = std::atoi(argv[++i]);
    } else if (arg == "--list") {
      list = true;
    } else if (arg == "--tf32-lowbits") {
      tf32_lowbits = true;
    } else if (arg == "--exact") {
      exact = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [--device N] [--list] [--exact] [NAME-PART...]\n", argv[0]);
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
  if (list) {
    for (const Instruction& in : instructions_for(di.sm))
      if (wanted(in.name, filters, exact)) std::printf("%s\n", in.name.c_str());
    return 0;
  }
  std::printf("device %d: %s, sm_%d, driver %s, CUDA runtime %s\n", opt.device, di.name.c_str(), di.sm,
              di.driver.c_str(), di.runtime.c_str());

  int pass = 0, fail = 0, skip = 0;
  for (const Instruction& in : instructions_for(di.sm)) {
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
  return fail ? 1 : 0;
}
