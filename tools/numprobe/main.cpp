// numprobe: tensor-core numerics from the command line.
#include <iostream>

#include "commands.hpp"

namespace numprobe {
int& exit_code() {
  static int code = 0;
  return code;
}
}  // namespace numprobe

int main(int argc, char** argv) {
  CLI::App app{"numprobe: probe, replay and model NVIDIA tensor-core numerics (tcnum)"};
  app.footer(
      "Examples:\n"
      "  numprobe replay corpora/h100/*/*.tcc.gz\n"
      "  numprobe list --arch sm_90\n"
      "  numprobe record --instr all --dist all --cases 2000 --seed 1 --out h100.tcc.gz   (GPU)\n"
      "  numprobe check --cases 2000   (GPU: device vs emulator table)\n");
  app.require_subcommand(0, 1);
  numprobe::register_replay(app);
  numprobe::register_list(app);
  numprobe::register_fuzz(app);
#ifdef TCNUM_HAVE_MPFR  // the commands built on the reference, characterisation and study layers
  numprobe::register_chain(app);
  numprobe::register_record(app);
  numprobe::register_check(app);
  numprobe::register_discover(app);
  numprobe::register_fit(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "numprobe: " << e.what() << "\n";
    return 2;
  }
  if (app.get_subcommands().empty() && app.count_all() == 0) {
    std::cout << app.help();
    return 0;
  }
  return numprobe::exit_code();
}
