// Which tcnum build is running, in words a bug report can quote: `numprobe --version`, the
// `--json` summaries and tcnum.__version__ print it.
#pragma once
#include <string>

namespace tcnum {

struct BuildInfo {
  std::string version;       // the project version (CMakeLists.txt's project(): its one source)
  std::string git_revision;  // `git describe --always --dirty` when CMake configured the build
  std::string build_id;      // executable_build_id(): a hash of the running executable
  std::string compiler;      // the C++ compiler that built the core, e.g. "GNU 12.2.0"
  std::string simd;          // simd_path(): the build of the fast kernel that runs
};

// The instruction set the fast kernel was dispatched to on this machine: on x86, "avx512",
// "avx2" or "baseline" (SSE2), and TCNUM_SIMD=baseline|avx2|avx512 in the environment caps it (a
// request above what the CPU has is ignored); elsewhere "portable" (the compiler's own vectors).
const char* simd_path();
// What the CPU offers, independent of TCNUM_SIMD.
const char* simd_best_available();

// The project version, e.g. "0.1.0".
const char* version();
BuildInfo build_info();

}  // namespace tcnum
