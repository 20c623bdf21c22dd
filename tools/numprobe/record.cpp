// numprobe record: run generated cases on the GPU and write them as corpus lines.
#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "device_session.hpp"
#include "tcnum/core/corpus.hpp"
#ifdef TCNUM_HAVE_CUDA
#include "tcnum/probes/device.hpp"
#endif

namespace numprobe {
namespace {

struct RecordOptions {
  std::string instr = "all", dist = "all", out;
  std::size_t cases = 1000;
  std::uint64_t seed = 1;
  std::vector<int> wgmma_n{8, 64, 256};
  std::string command_line;
};

int run_record([[maybe_unused]] const RecordOptions& o) {
#ifndef TCNUM_HAVE_CUDA
  throw std::runtime_error("numprobe was built without CUDA; record needs a GPU build (docs/probes.md)");
#else
  std::string why;
  if (!tcnum::device::available(&why)) throw std::runtime_error("no usable GPU: " + why);
  const auto info = tcnum::device::info();
  const std::string arch = "sm_" + std::to_string(info.sm);
  const auto instrs = select_instructions(o.instr, info.sm, o.wgmma_n);
  const auto dists = select_distributions(o.dist);
  tcnum::CorpusWriter w(o.out);
  w.comment("recorded by numprobe record on " + device_description() + "\ncommand: " + o.command_line +
            "\nseed " + std::to_string(o.seed) + "; wgmma cases ran with A from shared memory and from registers "
            "(identical results required)");
  std::size_t total = 0;
  ProgressLine line("record");
  const std::uint64_t planned = static_cast<std::uint64_t>(instrs.size() * dists.size() * o.cases);
  for (const auto& in : instrs) {
    for (const auto& dist : dists) {
      const auto cases = tcnum::generate(in, dist, o.cases, stream_seed(o.seed, in.name, dist));
      const auto d = run_on_device(in, cases, true);
      w.comment(in.name + " " + dist + " " + std::to_string(cases.size()) + " cases");
      for (std::size_t i = 0; i < cases.size(); ++i)
        w.write(tcnum::format_case_line(arch, in, cases[i].a, cases[i].b, cases[i].c, d[i], cases[i].scale_a, cases[i].scale_b));
      total += cases.size();
      line.update(total, planned, "cases", -1, -1, in.name + " " + dist);
    }
  }
  line.update(total, planned, "cases", -1, -1, "", true);
  line.finish();
  w.close();
  std::cout << total << " cases from " << instrs.size() << " instructions written to " << o.out << "\n";
  return 0;
#endif
}

}  // namespace

void register_record(CLI::App& app, Status& status) {
  auto o = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand("record", "Record device results as corpus lines (needs a GPU)");
  cmd->add_option("--instr", o->instr, "instruction name or 'all'")->capture_default_str();
  cmd->add_option("--dist", o->dist, "normal, randbits, spread, cancel, special, subnorm, or all")->capture_default_str();
  cmd->add_option("--cases", o->cases, "cases per instruction and distribution")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  add_seed_option(cmd, o->seed, "seed (same seed, same inputs)");
  cmd->add_option("--wgmma-n", o->wgmma_n, "wgmma N values probed by --instr all")->delimiter(',')->capture_default_str();
  cmd->add_option("--out", o->out, "corpus file (.tcc or .tcc.gz)")->required();
  cmd->footer(
      "Examples (GPU):\n"
      "  numprobe record --instr all --dist all --cases 2000 --seed 1 --out h100.tcc.gz\n"
      "  numprobe record --instr wgmma.m64n64k16.f32.bf16.bf16 --dist spread --cases 500 --out spread.tcc\n"
      "  tools/record_h100.sh build/tools/numprobe h100-new   (the recipe of corpora/h100)\n"
      "The same seed gives the same inputs; the file records the command line.");
  cmd->callback([o, &status] {
    o->command_line = "numprobe record --instr " + o->instr + " --dist " + o->dist + " --cases " +
                      std::to_string(o->cases) + " --seed " + std::to_string(o->seed) + " --out " + o->out;
    status.code = run_record(*o);
  });
}

}  // namespace numprobe
