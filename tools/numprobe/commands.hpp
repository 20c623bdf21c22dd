// Each numprobe subcommand registers itself on the app; main.cpp wires them together. A
// command's callback writes its exit status into the Status that main returns.
#pragma once
#include <CLI/CLI.hpp>

#include "options.hpp"

namespace numprobe {

void register_replay(CLI::App& app, Status& status);
void register_list(CLI::App& app, Status& status);
void register_chain(CLI::App& app, Status& status);
void register_record(CLI::App& app, Status& status);
void register_check(CLI::App& app, Status& status);
// `numprobe features` and `numprobe profile`, and the top-level --dtype/--op options that
// alias them (the documented `numprobe --dtype bf16 --op accumulate`).
void register_discover(CLI::App& app, Status& status);
void register_fit(CLI::App& app, Status& status);
void register_fuzz(CLI::App& app, Status& status);  // numprobe fuzz and fuzz merge (no MPFR needed)
void register_reveal(CLI::App& app, Status& status);  // a black-box GEMM's schedule (no MPFR needed)

}  // namespace numprobe
