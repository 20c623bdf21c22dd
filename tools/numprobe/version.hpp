// Which numprobe build ran: `numprobe --version` prints it, and every --json summary carries the
// same facts as its "numprobe" object, so that a bug report or a kept summary names the build.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace numprobe {

nlohmann::json version_json();  // {"version", "git_revision", "build_id", "compiler", "simd", "cuda", "mpfr"}
std::string version_text();     // the same, one "key: value" line each, for --version

}  // namespace numprobe
