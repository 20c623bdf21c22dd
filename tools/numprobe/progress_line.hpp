// The progress line long-running commands print on stderr (fuzz, check, record):
//   "fuzz: 1.23G cases, 12.4M cases/s, 0 mismatches, elapsed 0:01:40, ETA 0:00:20"
// On a terminal it rewrites one line in place; into a file or pipe it appends a line at most
// every `every_s` seconds, so logs of long runs stay short.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace numprobe {

std::string count_text(double v);  // 1234567 -> "1.23M"
std::string clock_text(double s);  // seconds -> "h:mm:ss"; negative -> "?"

class ProgressLine {
 public:
  explicit ProgressLine(std::string what, bool enabled = true, double every_s = 2);
  ~ProgressLine();
  // `done` of `total` items (total 0: unknown), at `rate` per second (< 0: from the elapsed
  // time), `eta_s` (< 0: from the rate and what is left, or unknown); `extra` follows the rate
  // ("0 mismatches, 0 signatures"). Prints when the last print is `every_s` old, or `force`.
  void update(std::uint64_t done, std::uint64_t total, const std::string& unit, double rate = -1,
              double eta_s = -1, const std::string& extra = "", bool force = false);
  void finish();  // ends an in-place line with a newline (also on destruction)

 private:
  std::string what_;
  bool enabled_, tty_, open_ = false;
  double every_s_, last_s_ = -1e300;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace numprobe
