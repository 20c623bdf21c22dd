#include "tcnum/core/build_info.hpp"

#include "tcnum/core/build_id.hpp"

// emu/CMakeLists.txt defines these for this file alone, so that a new revision recompiles one file.
#if !defined(TCNUM_VERSION) || !defined(TCNUM_GIT_REVISION) || !defined(TCNUM_COMPILER)
#error "build_info.cpp needs TCNUM_VERSION, TCNUM_GIT_REVISION and TCNUM_COMPILER (emu/CMakeLists.txt)"
#endif

namespace tcnum {

const char* version() { return TCNUM_VERSION; }

BuildInfo build_info() {
  return {TCNUM_VERSION, TCNUM_GIT_REVISION, executable_build_id(), TCNUM_COMPILER, simd_path()};
}

}  // namespace tcnum
