#include "tcnum/core/build_id.hpp"

#include <cstdint>
#include <cstdio>

namespace tcnum {
namespace {

std::string hash_of_executable() {
  std::FILE* f = std::fopen("/proc/self/exe", "rb");
  if (!f) return "unknown";
  std::uint64_t h = 1469598103934665603ull;
  static char buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return "unknown";
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace

const std::string& executable_build_id() {
  static const std::string id = hash_of_executable();
  return id;
}

}  // namespace tcnum
