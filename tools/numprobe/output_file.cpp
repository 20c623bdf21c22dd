#include "output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace numprobe {

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

mode_t umask_now() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

// Temporary files of live OutputFiles, removed by a SIGINT, SIGTERM or SIGHUP before the
// signal ends the process as it would have (the handler uses only unlink, signal and raise).
constexpr int kMaxTemps = 16;
std::atomic<const char*> g_temps[kMaxTemps];

extern "C" void remove_temps_then_die(int sig) {
  for (auto& t : g_temps)
    if (const char* p = t.load()) ::unlink(p);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void register_temp(const char* path) {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup: keep ignoring
      std::signal(sig, remove_temps_then_die);
    }
    return true;
  }();
  (void)installed;
  for (auto& t : g_temps) {
    const char* empty = nullptr;
    if (t.compare_exchange_strong(empty, path)) return;
  }
}

void unregister_temp(const char* path) {
  for (auto& t : g_temps) {
    const char* mine = path;
    t.compare_exchange_strong(mine, nullptr);
  }
}

}  // namespace

OutputFile::OutputFile(const std::string& path, bool overwrite) : path_(path) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISREG(st.st_mode) && !overwrite)
    throw std::runtime_error("'" + path + "' exists; give --force to overwrite it");
  if (exists && !S_ISREG(st.st_mode)) {
    out_.open(path, std::ios::binary);
  } else {
    std::string pattern = path + ".tmp-XXXXXX";  // same folder, so the rename is atomic
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
    ::fchmod(fd, 0666 & ~umask_now());
    ::close(fd);
    temp_ = name.data();
    register_temp(temp_.c_str());
    out_.open(temp_, std::ios::binary | std::ios::trunc);
  }
  if (!out_) {
    const std::string why = std::strerror(errno);
    if (!temp_.empty()) {
      unregister_temp(temp_.c_str());
      std::remove(temp_.c_str());
    }
    throw std::runtime_error("cannot write '" + path + "': " + why);
  }
}

OutputFile::~OutputFile() {
  if (!temp_.empty()) unregister_temp(temp_.c_str());
  if (committed_ || temp_.empty()) return;
  out_.close();
  std::remove(temp_.c_str());
}

void OutputFile::commit() {
  errno = 0;
  out_.flush();
  out_.close();
  if (out_.fail()) {
    const std::string why = errno ? std::strerror(errno) : "write failed";
    throw std::runtime_error("cannot write '" + path_ + "': " + why +
                             (temp_.empty() ? "" : " ('" + path_ + "' is unchanged)"));
  }
  if (!temp_.empty()) unregister_temp(temp_.c_str());  // from here it is the target
  if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno));
  committed_ = true;
}

}  // namespace numprobe
