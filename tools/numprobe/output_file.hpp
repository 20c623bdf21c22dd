// An output file that is all or nothing: written to a temporary file in the same folder and
// renamed over the target only when every write and the close succeeded, so a failed or
// interrupted command never leaves a truncated file or destroys an existing one. The file gets
// the mode a plain create would give (0666 less the umask), not mkstemp's 0600.
#pragma once
#include <fstream>
#include <string>

namespace numprobe {

// Whether two paths name one file (the same spelling, or one existing file reached both ways).
bool same_file(const std::string& a, const std::string& b);

class OutputFile {
 public:
  // Throws std::runtime_error when `path` is an existing regular file and !overwrite
  // ("--force" is the option's name), or when the temporary file cannot be created. A target
  // that exists and is not a regular file (/dev/null, /dev/full, a pipe) is written in place.
  OutputFile(const std::string& path, bool overwrite);
  ~OutputFile();  // without commit(): the temporary file is removed, the target untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, closes and checks for any write error, then renames into place; throws
  // std::runtime_error naming the file and the system's reason.
  void commit();

 private:
  std::string path_, temp_;  // temp_ empty: written in place
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace numprobe
