// Runs a piece of code in a child process whose address space is capped a little above what it
// already uses, as `ulimit -v` does: thread stacks (8 MiB each) then fail to map, so a thread
// pool asking for many workers meets std::system_error. The child's exit status is returned.
#pragma once
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

namespace tcnum::test {

// Sanitizers reserve terabytes of shadow memory: a cap on the address space breaks them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kAddressSpaceCanBeCapped = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kAddressSpaceCanBeCapped = false;
#else
inline constexpr bool kAddressSpaceCanBeCapped = true;
#endif
#else
inline constexpr bool kAddressSpaceCanBeCapped = true;
#endif

// The child runs body() under RLIMIT_AS = its current size + headroom and exits with what
// body returns, or is ended by SIGALRM after 120 s. Returns the waitpid status ("exited 0" for a
// clean success, "killed by signal 14" for a hang).
inline std::string run_with_address_space_cap(std::size_t headroom_bytes, const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return "fork failed";
  if (child == 0) {
    ::alarm(120);  // a child that hangs (e.g. waiting for the parent's pool workers) fails, by SIGALRM
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + headroom_bytes;
    const rlimit limit{cap, cap};
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(125);
    int code = 126;
    try {
      code = body();
    } catch (...) {
      code = 127;
    }
    ::_exit(code);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return "waitpid failed";
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace tcnum::test
