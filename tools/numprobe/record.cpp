// numprobe record: run generated cases on the GPU and write them as corpus lines. The corpus is
// written chunk by chunk (one instruction and distribution) to a partial file that becomes the
// target only when complete; a killed run continues with --resume (partial_corpus.hpp).
#include <iostream>

#include "commands.hpp"
#include "device_session.hpp"
#include "partial_corpus.hpp"
#include "tcnum/core/corpus.hpp"

namespace numprobe {
namespace {

struct RecordOptions {
  std::string out;
  CaseSelection select{.cases = 1000};
  std::uint64_t seed = 1;
  bool force = false, resume = false;
  std::string command_line;  // what determines the content: no --force, --resume
};

void record_chunks(const RecordOptions& o, const std::string& arch, const std::vector<tcnum::Instruction>& instrs,
                   const std::vector<std::string>& dists, PartialCorpus& corpus, std::size_t& total) {
  ProgressLine line("record");
  const std::uint64_t planned = static_cast<std::uint64_t>(instrs.size() * dists.size() * o.select.cases);
  for (const auto& in : instrs) {
    for (const auto& dist : dists) {
      const std::string chunk = in.name + " " + dist;
      if (corpus.done(chunk)) continue;
      const auto cases = draw_cases(in, dist, o.select.cases, stream_seed(o.seed, in.name, dist));
      const auto d = run_on_device(in, cases, true);
      std::vector<std::string> lines{"# " + chunk + " " + std::to_string(cases.size()) + " cases"};
      for (std::size_t i = 0; i < cases.size(); ++i)
        lines.push_back(tcnum::format_case_line(arch, in, cases[i].a, cases[i].b, cases[i].c, d[i], cases[i].scale_a,
                                                  cases[i].scale_b, cases[i].meta));
      corpus.write_chunk(chunk, lines);
      total += cases.size();
      line.update(total, planned, "cases", -1, -1, chunk);
    }
  }
  line.update(total, planned, "cases", -1, -1, "", true);
  line.finish();
  corpus.commit();
}

int run_record(const RecordOptions& o) {
  if (o.out.empty()) throw std::invalid_argument("record: --out needs a file name");
  const int sm = device_sm();
  const std::string arch = "sm_" + std::to_string(sm);
  const auto instrs = device_instructions(o.select.instr, sm, o.select.wgmma_n);
  const auto dists = select_distributions(o.select.dist);
  // Creates nothing yet: a run that fails before its first chunk leaves no file.
  PartialCorpus corpus(o.out, arch + " " + o.command_line, o.force, o.resume);
  if (corpus.resumed())
    std::cerr << "resuming " << corpus.partial_path() << ": " << corpus.resumed_cases() << " cases kept\n";
  else
    corpus.comment("recorded by numprobe record on " + device_description() + "\ncommand: " + o.command_line +
                   "\nseed " + std::to_string(o.seed) + "; wgmma cases ran with A from shared memory and from registers "
                   "(identical results required)");
  std::size_t total = corpus.resumed_cases();
  try {
    record_chunks(o, arch, instrs, dists, corpus, total);
  } catch (const std::runtime_error& e) {  // a write error (full disk), a device error
    if (corpus.in_place()) throw;
    throw std::runtime_error(std::string(e.what()) + "\nthe finished chunks are kept in '" + corpus.partial_path() +
                             "': run the same command with --resume to continue");
  }
  std::cout << total << " cases from " << instrs.size() << " instructions written to " << o.out << "\n";
  return 0;
}

}  // namespace

void register_record(CLI::App& app, Status& status) {
  auto o = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand("record", "Record device results as corpus lines (needs a GPU)");
  add_case_options(cmd, o->select);
  add_seed_option(cmd, o->seed, "seed (same seed, same inputs)");
  cmd->add_option("--out", o->out, "corpus file (.tcc or .tcc.gz); written as OUT.partial until complete")->required();
  cmd->add_flag("--force", o->force, "overwrite an existing corpus (and discard an interrupted recording)");
  cmd->add_flag("--resume", o->resume, "continue the interrupted recording in OUT.partial (same options)");
  cmd->footer(
      "Examples (GPU):\n"
      "  numprobe record --instr all --dist all --cases 2000 --seed 1 --out h100.tcc.gz\n"
      "  numprobe record --instr wgmma.m64n64k16.f32.bf16.bf16 --dist spread --cases 500 --out spread.tcc\n"
      "  numprobe record --instr sparse --cases 300 --out sparse.tcc.gz   (mma.sp, wgmma.sp at N 8, 64, 256)\n"
      "  tools/record_h100.sh build/tools/numprobe h100-new   (the recipe of corpora/h100)\n"
      "The same seed gives the same inputs; the file records the command line.");
  cmd->callback([o, &status] {
    std::string wgmma_n;
    for (int n : o->select.wgmma_n) wgmma_n += (wgmma_n.empty() ? "" : ",") + std::to_string(n);
    o->command_line = "numprobe record --instr " + o->select.instr + " --dist " + o->select.dist + " --cases " +
                      std::to_string(o->select.cases) + " --seed " + std::to_string(o->seed) + " --wgmma-n " + wgmma_n +
                      " --out " + o->out;
    status.code = run_record(*o);
  });
}

}  // namespace numprobe
