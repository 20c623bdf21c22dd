// Which build of a program is running: a hash of its own executable, so that a rebuild (new
// code, another compiler) is another build. Keys caches that must not outlive a build (the
// probes' layout self-check) and labels campaign summaries.
#pragma once
#include <string>

namespace tcnum {

// 16 hex digits of a 64-bit FNV-1a hash of /proc/self/exe, computed once; "unknown" when the
// executable cannot be read.
const std::string& executable_build_id();

}  // namespace tcnum
