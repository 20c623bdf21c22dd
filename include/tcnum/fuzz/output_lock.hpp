// One owner per output: an exclusive advisory lock (flock) on a lock file beside a campaign or a
// recording. The kernel releases it when its holder exits or is killed, so a stale lock of a dead
// process is taken over without any cleanup; a live holder makes a second process fail with a
// message naming it (pid, host, start time).
#pragma once
#include <string>

namespace tcnum::fuzz {

class OutputLock {
 public:
  // Locks `lock_path` (created if missing) for `what` (the output it guards, for messages).
  // Throws std::runtime_error naming the holder when another process holds it.
  OutputLock(const std::string& lock_path, const std::string& what);
  ~OutputLock();  // releases the lock (the file stays unless release_and_remove())
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // Removes the lock file, then releases the lock (a waiting process then sees a new file).
  void release_and_remove();

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace tcnum::fuzz
