// tcnum_sparse_record: records mma.sp cases on the GPU and checks each against the emulator
// live (docs/probes.md, "Sparse MMA"). Needs no MPFR: the inputs come from the fuzz layer's
// generators (tcnum/fuzz/generators.hpp) over the selected products, with random valid metadata
// and B's dropped rows drawn from the same distribution. Per instruction: the metadata layout
// self-check, then --cases cases per distribution, all run on the device and compared bit for bit;
// the first --keep of each (instruction, distribution) and every mismatch are written as corpus
// lines. --designed adds the block-boundary cases of docs/models.md ("Sparse MMA: evidence").
// Each case is also compared with the neighbouring hypothesis (the built-in rule with blocks of
// half as many products, i.e. blocks counted in logical K): its mismatch count is printed beside.
//
//   tcnum_sparse_record --out DIR [--cases N] [--keep M] [--keep-wgmma M] [--seed S] [--instr NAME|integer|float|all]
//                       [--family mma|wgmma|all] [--designed]
//
// Exit status: 0 when every case matched, 1 on a mismatch or a failed instruction, 2 on bad usage.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "sparse_designed.hpp"
#include "tool_options.hpp"
#include "tcnum/core/black_box.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/sparse_cases.hpp"
#include "tcnum/probes/device.hpp"

namespace {

using namespace tcnum;

struct Options {
  std::string out, instr = "all", family = "all";
  std::size_t cases = 3000, keep = 100, keep_wgmma = 40;
  std::uint64_t seed = 1;
  bool designed = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "tcnum_sparse_record: " << why
            << "\nusage: tcnum_sparse_record --out DIR [--cases N] [--keep M] [--keep-wgmma M] [--seed S] "
               "[--instr NAME|integer|float|all] [--family mma|wgmma|all] [--designed]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  const auto count = [](const std::string& text, const std::string& name) { return probes::count_value(text, name, usage); };
  probes::read_tool_options(
      argc, argv,
      [&](const std::string& name, const auto& value) {
        if (name == "--out") o.out = value();
        else if (name == "--cases") o.cases = count(value(), name);
        else if (name == "--keep") o.keep = count(value(), name);
        else if (name == "--keep-wgmma") o.keep_wgmma = count(value(), name);
        else if (name == "--seed") o.seed = count(value(), name);
        else if (name == "--instr") o.instr = value();
        else if (name == "--family") o.family = value();
        else if (name == "--designed") o.designed = true;
        else return false;
        return true;
      },
      usage);
  if (o.out.empty()) usage("--out DIR is required");
  if (o.family != "mma" && o.family != "wgmma" && o.family != "all") usage("--family takes mma, wgmma or all, not '" + o.family + "'");
  return o;
}

// The neighbouring hypothesis: the rule's blocks hold half as many products.
DatapathParams halved_blocks(DatapathParams p) {
  if (p.block_size > 1) p.block_size /= 2;
  return p;
}

// The device, read through the CUDA runtime alone (device::info lives in the dense probes'
// library, which this tool does not link).
struct Device {
  std::string name, about;
  int sm = 0;
};

Device device_0() {
  cudaDeviceProp p{};
  int drv = 0, rt = 0;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || cudaDriverGetVersion(&drv) != cudaSuccess ||
      cudaRuntimeGetVersion(&rt) != cudaSuccess)
    throw device::DeviceError("no usable CUDA device 0");
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  Device d;
  d.name = p.name;
  d.sm = p.major * 10 + p.minor;
  d.about = d.name + " (sm_" + std::to_string(d.sm) + ", CUDA driver API " + version(drv) + ", runtime " + version(rt) + ")";
  return d;
}

// Runs `cases` on the device and the emulator; writes the first `keep` and every mismatch.
// `alt_bad` counts the mismatches of the neighbouring hypothesis.
std::size_t run_and_write(const std::string& arch, const Instruction& in, const std::vector<Case>& cases,
                          std::size_t keep, CorpusWriter& sample, CorpusWriter& mismatches, std::size_t& alt_bad) {
  const std::vector<std::uint32_t> dev = device::run_sparse_cases(in, cases);
  const Model& model = builtin_model(parse_arch(arch));
  const std::vector<std::uint32_t> emu = emulator_box(model).cases(in, cases);
  std::vector<std::uint32_t> alt;
  try {  // a neighbour the plan refuses (a block straddling a pass) just has no count
    alt = emulator_box(halved_blocks(model.params_for(in))).cases(in, cases);
  } catch (const std::invalid_argument&) {
    alt.assign(cases.size(), 0);
  }
  std::size_t bad = 0;
  alt_bad = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    alt_bad += dev[i] != alt[i];
    const Case& g = cases[i];
    const std::string line = format_case_line(arch, in, g.a, g.b, g.c, dev[i], {}, {}, g.meta);
    if (i < keep) sample.write(line);
    if (dev[i] != emu[i]) {
      ++bad;
      mismatches.write(line);
    }
  }
  return bad;
}

int record(const Options& o) {
  const Device info = device_0();
  const std::string arch = "sm_" + std::to_string(info.sm);
  const Model& model = builtin_model(info.sm);
  CorpusWriter sample(o.out + "/sparse-mma.tcc.gz"), mismatches(o.out + "/sparse-mismatches.tcc.gz");
  CorpusWriter designed(o.out + "/sparse-designed.tcc");
  const std::string about = "recorded by tcnum_sparse_record on " + info.about + "; seed " + std::to_string(o.seed) +
                            "; command: tcnum_sparse_record --cases " + std::to_string(o.cases) + " --keep " +
                            std::to_string(o.keep) + " --keep-wgmma " + std::to_string(o.keep_wgmma) + " --seed " +
                            std::to_string(o.seed) + (o.instr != "all" ? " --instr " + o.instr : "") +
                            (o.family != "all" ? " --family " + o.family : "") +
                            (o.designed ? " --designed" : "");
  for (CorpusWriter* w : {&sample, &mismatches, &designed}) w->comment(about);
  std::size_t total = 0, total_bad = 0;
  int failed = 0;
  for (const Instruction& in : sparse_instructions_for(info.sm)) {
    // the mma.sp kernels (not the s4/u4 forms, 4:8 in pairs) and the wgmma.sp kernels' N
    const bool probed = in.family == Family::mma ? sparse_group(in) != 8 : in.n == 8 || in.n == 64 || in.n == 256;
    const bool wanted = o.instr == "all" || o.instr == in.name || (o.instr == "integer" && in.integer()) ||
                        (o.instr == "float" && !in.integer());
    const bool family = o.family == "all" || o.family == (in.family == Family::mma ? "mma" : "wgmma");
    if (!probed || !wanted || !family) continue;
    try {
      std::string report;
      const std::string layout = device::sparse_layout(in, {}, &report);
      std::cout << in.name << ": metadata layout '" << layout << "'" << report << "\n";
      const DatapathParams params = model.params_for(in);
      for (const std::string& dist : fuzz::distribution_names()) {
        const auto cases = fuzz::sparse_cases(in, params, dist, fuzz::batch_seed(o.seed, in.name, dist, 0), o.cases);
        sample.comment(in.name + " " + dist + ": the first " +
                       std::to_string(std::min(in.family == Family::mma ? o.keep : o.keep_wgmma, cases.size())) + " of " +
                       std::to_string(cases.size()) + " cases checked live");
        std::size_t alt_bad = 0;
        const std::size_t keep = in.family == Family::mma ? o.keep : o.keep_wgmma;
        const std::size_t bad = run_and_write(arch, in, cases, keep, sample, mismatches, alt_bad);
        std::printf("  %-10s %8zu cases %8zu mismatches (halved blocks: %zu)\n", dist.c_str(), cases.size(), bad, alt_bad);
        total += cases.size(), total_bad += bad;
      }
      if (o.designed) {
        const auto cases = device::designed_cases(in, params);
        if (cases.empty()) continue;  // f16 D: no designed inputs (sparse_designed.hpp)
        const std::vector<std::uint32_t> dev = device::run_sparse_cases(in, cases);
        designed.comment(in.name + ": " + std::to_string(cases.size()) + " designed cases (probes/sparse_designed.cpp)");
        for (std::size_t i = 0; i < cases.size(); ++i)
          designed.write(format_case_line(arch, in, cases[i].a, cases[i].b, cases[i].c, dev[i], {}, {}, cases[i].meta));
      }
    } catch (const std::exception& e) {  // one failing instruction does not lose the others
      std::cout << in.name << ": FAILED: " << e.what() << "\n";
      ++failed;
    }
    std::cout.flush();
  }
  for (CorpusWriter* w : {&sample, &mismatches, &designed}) w->close();
  std::printf("summary: %zu cases checked live, %zu mismatches, %d instructions failed\n", total, total_bad, failed);
  return total_bad == 0 && failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return tcnum::probes::run_recorder("tcnum_sparse_record", argc, argv, parse, record); }
