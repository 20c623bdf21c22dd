#include "version.hpp"

#include "tcnum/core/build_info.hpp"

// tools/CMakeLists.txt defines TCNUM_CUDA_BUILD ("13.0.88, probes for 90a-real") in CUDA builds.
#ifndef TCNUM_CUDA_BUILD
#define TCNUM_CUDA_BUILD "not built"
#endif

namespace numprobe {

nlohmann::json version_json() {
  const tcnum::BuildInfo b = tcnum::build_info();
#ifdef TCNUM_HAVE_MPFR
  const char* mpfr = "built (record, check, features, profile, fit, chain)";
#else
  const char* mpfr = "not built (replay, list, fuzz only)";
#endif
  return {{"version", b.version}, {"git_revision", b.git_revision}, {"build_id", b.build_id},
          {"compiler", b.compiler}, {"simd", b.simd}, {"cuda", TCNUM_CUDA_BUILD}, {"mpfr", mpfr}};
}

std::string version_text() {
  const nlohmann::json v = version_json();
  std::string text = "numprobe " + v["version"].get<std::string>() + "\n";
  const auto line = [&](const char* label, const std::string& value) { text += std::string(label) + value + "\n"; };
  line("git revision: ", v["git_revision"].get<std::string>() + " (when the build was configured)");
  line("build id:     ", v["build_id"].get<std::string>());
  line("compiler:     ", v["compiler"].get<std::string>());
  line("SIMD path:    ", v["simd"].get<std::string>() + " (this CPU offers " + tcnum::simd_best_available() + ")");
  line("CUDA:         ", v["cuda"].get<std::string>());
  line("MPFR layers:  ", v["mpfr"].get<std::string>());
  return text;
}

}  // namespace numprobe
