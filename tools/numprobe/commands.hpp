// Each numprobe subcommand registers itself on the app; main.cpp wires them together.
#pragma once
#include <CLI/CLI.hpp>

namespace numprobe {

// Exit code of the command that ran (set by its callback).
int& exit_code();

void register_replay(CLI::App& app);
void register_list(CLI::App& app);
void register_chain(CLI::App& app);
void register_record(CLI::App& app);
void register_check(CLI::App& app);
void register_discover(CLI::App& app);  // the top-level --dtype/--op options (no subcommand)
void register_fit(CLI::App& app);
void register_fuzz(CLI::App& app);  // numprobe fuzz and fuzz merge (no MPFR needed)

}  // namespace numprobe
