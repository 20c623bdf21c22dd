#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace numprobe {

std::string count_text(double v) {
  char buf[32];
  if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string clock_text(double s) {
  if (s < 0) return "?";
  const long t = static_cast<long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

ProgressLine::ProgressLine(std::string what, bool enabled, double every_s)
    : what_(std::move(what)), enabled_(enabled), tty_(::isatty(2) != 0), every_s_(every_s),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(std::uint64_t done, std::uint64_t total, const std::string& unit, double rate, double eta_s,
                          const std::string& extra, bool force) {
  if (!enabled_) return;
  const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!force && now - last_s_ < every_s_) return;
  last_s_ = now;
  if (rate < 0) rate = now > 0 ? static_cast<double>(done) / now : 0;
  if (eta_s < 0 && total > done && rate > 0) eta_s = static_cast<double>(total - done) / rate;
  std::string line = what_ + ": " + count_text(static_cast<double>(done));
  if (total > 0) line += " of " + count_text(static_cast<double>(total));
  line += " " + unit + ", " + count_text(rate) + " " + unit + "/s";
  if (!extra.empty()) line += ", " + extra;
  line += ", elapsed " + clock_text(now) + ", ETA " + clock_text(total > 0 && done >= total ? 0 : eta_s);
  if (tty_) {
    std::cerr << "\r" << line << "\033[K" << std::flush;
    open_ = true;
  } else {
    std::cerr << line << "\n" << std::flush;
  }
}

void ProgressLine::finish() {
  if (open_) std::cerr << "\n" << std::flush;
  open_ = false;
}

}  // namespace numprobe
