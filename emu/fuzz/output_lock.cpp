// Exclusive output locks (tcnum/fuzz/output_lock.hpp).
#include "tcnum/fuzz/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace tcnum::fuzz {
namespace {

std::string holder_text() {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  char when[64] = "?";
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return "pid " + std::to_string(::getpid()) + " on " + host + " since " + when + "\n";
}

// The holder's description; it writes it just after locking, so an empty file is read again
// for up to 0.1 s.
std::string read_holder(int fd) {
  std::string s;
  for (int attempt = 0; attempt < 20 && s.empty(); ++attempt) {
    if (attempt > 0) ::usleep(5000);
    char buf[512] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    s.assign(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  }
  return s.empty() ? "an unknown process" : s;
}

// Whether fd is still the file at path (a holder that finished may have removed it).
bool still_linked(int fd, const std::string& path) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

OutputLock::OutputLock(const std::string& lock_path, const std::string& what) : path_(lock_path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd_ < 0) throw std::runtime_error("cannot lock " + what + ": '" + path_ + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = err == EWOULDBLOCK ? read_holder(fd_) : std::strerror(err);
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw std::runtime_error(what + " is in use by another numprobe (" + holder + "; lock '" + path_ +
                                 "'): wait for it to end, or stop it first");
      throw std::runtime_error("cannot lock " + what + ": '" + path_ + "': " + holder);
    }
    if (still_linked(fd_, path_)) break;
    ::close(fd_);  // the previous holder removed the file between our open and our lock
    fd_ = -1;
  }
  if (fd_ < 0) throw std::runtime_error("cannot lock " + what + ": '" + path_ + "' keeps changing");
  const std::string text = holder_text();
  // The holder's description is informative only: a failure to write it changes nothing.
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, text.data(), text.size(), 0);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputLock::release_and_remove() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace tcnum::fuzz
