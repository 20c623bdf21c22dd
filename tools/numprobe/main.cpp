// numprobe: tensor-core numerics from the command line.
#include <csignal>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  // Past a file-size limit a write fails with EFBIG, reported by the writer that met it, with
  // the file's name (by default SIGXFSZ would kill the process without a word).
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"numprobe: probe, replay and model NVIDIA tensor-core numerics (tcnum)"};
  app.footer(
      "Examples:\n"
      "  numprobe replay corpora/h100/*/*.tcc.gz\n"
      "  numprobe list --arch sm_90\n"
      "  numprobe record --instr all --dist all --cases 2000 --seed 1 --out h100.tcc.gz   (GPU)\n"
      "  numprobe check --cases 2000   (GPU: device vs emulator table)\n"
      "  numprobe reveal --instr mma.m16n8k16.f32.bf16.bf16.f32 --k 1000 --backend emu --hidden hidden.json\n");
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", [] {
    std::string text = numprobe::version_text();
    text.pop_back();  // CLI11 ends the text with its own newline
    return text;
  }, "the version, git revision, build id, compiler, SIMD path and CUDA of this build, then exit");
  numprobe::Status status;
  numprobe::register_replay(app, status);
  numprobe::register_list(app, status);
  numprobe::register_fuzz(app, status);
  numprobe::register_reveal(app, status);
#ifdef TCNUM_HAVE_MPFR  // the commands built on the reference, characterisation and study layers
  numprobe::register_chain(app, status);
  numprobe::register_record(app, status);
  numprobe::register_check(app, status);
  numprobe::register_discover(app, status);
  numprobe::register_fit(app, status);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints the help, or the error with the option's valid range
    return code == 0 ? 0 : 2;      // a bad option is an error like any other: exit status 2
  } catch (const std::exception& e) {
    std::cerr << "numprobe: " << e.what() << "\n";
    return 2;
  }
  if (app.get_subcommands().empty() && app.count_all() == 0) {
    std::cout << app.help();
    return 0;
  }
  return status.code;
}
