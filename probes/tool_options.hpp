// The probe tools' command lines (tcnum_sparse_record, tcnum_int_record): each option applied by
// the tool's own handler; a missing value, a malformed number or an unknown option goes to the
// tool's usage(), which exits 2.
#pragma once
#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <system_error>

namespace tcnum::probes {

// Calls apply(name, value) for each option of argv[1..], where value() returns the option's
// value (the next argument; usage() when there is none). apply returns false for an unknown name.
template <class Apply, class Usage>
void read_tool_options(int argc, char** argv, Apply&& apply, Usage&& usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(name + " needs a value");
      return argv[++i];
    };
    if (!apply(name, value)) usage("unknown option '" + name + "'");
  }
}

// The whole of `text` as a decimal count (std::stoul took "12x" as 12 and "-1" as 2^64 - 1).
template <class Usage>
std::uint64_t count_value(const std::string& text, const std::string& name, Usage&& usage) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || at != end) usage("bad number for " + name + ": '" + text + "'");
  return v;
}

// A recorder's main: its options parsed (usage() exits 2), then run(options); an exception is
// reported under the tool's name with exit status 1.
template <class Parse, class Run>
int run_recorder(const char* tool, int argc, char** argv, Parse&& parse, Run&& run) {
  const auto options = parse(argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tcnum::probes
