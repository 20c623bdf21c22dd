// tcnum_int_record: records integer MMA cases (wgmma .s32.{s8,u8}.{s8,u8} and mma.sync integer
// forms) on the GPU and checks each against the built-in model live (docs/probes.md, "Integer
// MMA"). Needs no MPFR, so it runs on GPU hosts without it: the inputs are the fuzz layer's
// integer draws (emu/fuzz/integer_cases.cpp). Per instruction: the layout self-check (device.hpp
// runs it first), then --cases cases per distribution, run on the device (wgmma: with A from
// registers and from shared memory, which must agree) and compared bit for bit with the model.
// The first --keep of each (instruction, distribution) go to DIR/NAME.tcc.gz where the instruction
// is kept (wgmma: N in --corpus-n), every mismatch to DIR/int-mismatches.tcc.gz.
//
//   tcnum_int_record --out DIR [--cases N] [--keep M] [--seed S] [--instr wgmma|mma|all|NAME]
//                    [--corpus-n 8,64,256]
//
// Exit status: 0 when every case matched, 1 on a mismatch or a failed instruction, 2 on bad usage.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/probes/device.hpp"
#include "tool_options.hpp"

namespace {

using namespace tcnum;

struct Options {
  std::string out, instr = "wgmma", command;
  std::size_t cases = 3000, keep = 8;
  std::uint64_t seed = 1;
  std::vector<int> corpus_n = {8, 64, 256};
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "tcnum_int_record: " << why
            << "\nusage: tcnum_int_record --out DIR [--cases N] [--keep M] [--seed S] [--instr wgmma|mma|all|NAME] "
               "[--corpus-n 8,64,256]\n";
  std::exit(2);
}

std::uint64_t count(const std::string& text, const std::string& name) { return probes::count_value(text, name, usage); }

std::vector<int> parse_list(const std::string& text, const std::string& name) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const std::uint64_t n = count(item, name);
    if (n < 8 || n > 256) usage(name + " takes wgmma N values from 8 to 256, not " + item);
    out.push_back(static_cast<int>(n));
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  o.command = "tcnum_int_record";
  probes::read_tool_options(
      argc, argv,
      [&](const std::string& name, const auto& value) {
        const std::string v = value();  // every option of this tool takes a value
        if (name == "--out") o.out = v;
        else if (name == "--cases") o.cases = count(v, name);
        else if (name == "--keep") o.keep = count(v, name);
        else if (name == "--seed") o.seed = count(v, name);
        else if (name == "--instr") o.instr = v;
        else if (name == "--corpus-n") o.corpus_n = parse_list(v, name);
        else return false;
        if (name != "--out") o.command += " " + name + " " + v;  // the header's command, without the path
        return true;
      },
      usage);
  if (o.out.empty()) usage("--out DIR is required");
  if (o.cases == 0) usage("--cases must be at least 1");
  return o;
}

// The integer instructions of `sm` that --instr selects.
std::vector<Instruction> selected(const std::string& which, int sm) {
  std::vector<Instruction> out;
  for (const Instruction& in : instructions_for(sm)) {
    if (!in.integer()) continue;
    const bool family = (which == "wgmma" && in.family == Family::wgmma) || (which == "mma" && in.family == Family::mma);
    if (which == "all" || family || which == in.name) out.push_back(in);
  }
  if (out.empty()) usage("--instr " + which + " selects no integer instruction of sm_" + std::to_string(sm));
  return out;
}

std::vector<Case> draw(const Instruction& in, const std::string& dist, std::uint64_t seed, std::size_t count) {
  const auto k = static_cast<std::size_t>(in.k);
  std::vector<std::uint32_t> a(count * k), b(count * k), c(count);
  fuzz::generate(in, DatapathParams{}, dist, seed, count, a.data(), b.data(), c.data());
  std::vector<Case> out(count);
  for (std::size_t t = 0; t < count; ++t) {
    out[t].a.assign(a.begin() + static_cast<std::ptrdiff_t>(t * k), a.begin() + static_cast<std::ptrdiff_t>((t + 1) * k));
    out[t].b.assign(b.begin() + static_cast<std::ptrdiff_t>(t * k), b.begin() + static_cast<std::ptrdiff_t>((t + 1) * k));
    out[t].c = c[t];
  }
  return out;
}

struct Counts {
  std::size_t cases = 0, mismatches = 0, source_differences = 0;
};

// One distribution of one instruction: device (both A sources for wgmma) against the model.
Counts run_one(const std::string& arch, const Instruction& in, const std::vector<Case>& cases, std::size_t keep,
               CorpusWriter* sample, CorpusWriter& mismatches) {
  const std::vector<std::uint32_t> dev = device::run_cases(in, cases, {device::ASource::registers, 0});
  std::vector<std::uint32_t> other = dev;
  if (in.family == Family::wgmma) other = device::run_cases(in, cases, {device::ASource::shared_memory, 0});
  const std::vector<std::uint32_t> emu = emulator_box(builtin_model(parse_arch(arch))).cases(in, cases);
  Counts n;
  n.cases = cases.size();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& g = cases[i];
    const std::string line = format_case_line(arch, in, g.a, g.b, g.c, dev[i]);
    if (sample && i < keep) sample->write(line);
    n.source_differences += dev[i] != other[i];
    if (dev[i] != emu[i] || other[i] != emu[i]) {
      ++n.mismatches;
      mismatches.write(line);
      if (other[i] != dev[i]) mismatches.write(format_case_line(arch, in, g.a, g.b, g.c, other[i]));
    }
  }
  return n;
}

int record(const Options& o) {
  const device::DeviceInfo info = device::info(0);
  const std::string arch = "sm_" + std::to_string(info.sm);
  const std::string about = "recorded by tcnum_int_record on " + info.name + " (" + arch + ", driver " + info.driver +
                            ", CUDA runtime " + info.runtime + "); seed " + std::to_string(o.seed) + "; command: " +
                            o.command;
  CorpusWriter mismatches(o.out + "/int-mismatches.tcc.gz");
  mismatches.comment(about);
  Counts total;
  int failed = 0;
  for (const Instruction& in : selected(o.instr, info.sm)) {
    const bool kept = in.family == Family::mma ||
                      std::find(o.corpus_n.begin(), o.corpus_n.end(), in.n) != o.corpus_n.end();
    try {
      std::unique_ptr<CorpusWriter> sample;
      if (kept) {
        sample = std::make_unique<CorpusWriter>(o.out + "/" + in.name + ".tcc.gz");
        sample->comment(about);
      }
      Counts here;
      for (const std::string& dist : fuzz::distribution_names()) {
        const auto cases = draw(in, dist, fuzz::batch_seed(o.seed, in.name, dist, 0), o.cases);
        if (sample)
          sample->comment(in.name + " " + dist + ": the first " + std::to_string(std::min(o.keep, cases.size())) +
                          " of " + std::to_string(cases.size()) + " cases checked live");
        const Counts n = run_one(arch, in, cases, o.keep, sample.get(), mismatches);
        here.cases += n.cases, here.mismatches += n.mismatches, here.source_differences += n.source_differences;
      }
      if (sample) sample->close();
      std::printf("%-40s %8zu cases %6zu mismatches %6zu A-source differences\n", in.name.c_str(), here.cases,
                  here.mismatches, here.source_differences);
      total.cases += here.cases, total.mismatches += here.mismatches, total.source_differences += here.source_differences;
    } catch (const std::exception& e) {  // one failing instruction does not lose the others
      std::printf("%s: FAILED: %s\n", in.name.c_str(), e.what());
      ++failed;
    }
    std::fflush(stdout);
  }
  mismatches.close();
  std::printf("summary: %zu cases checked live, %zu mismatches, %zu A-source differences, %d instructions failed\n",
              total.cases, total.mismatches, total.source_differences, failed);
  return total.mismatches == 0 && total.source_differences == 0 && failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return tcnum::probes::run_recorder("tcnum_int_record", argc, argv, parse, record); }
