// Layout self-check: small integers whose products and sums are exact in every format, so
// any fragment-layout mistake (a swapped row, a wrong half of a register) shows as a wrong
// integer. Nothing is recorded from an instruction until this passed in the process.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "runner_internal.hpp"
#include "tcnum/core/build_id.hpp"

namespace tcnum::device {
namespace {

// 67: not a multiple of 4, so an m8n8k4 warp meets a partly empty step; with a 3-block grid
// every warp loops over several steps.
constexpr int kTiles = 67;
constexpr int kMaxBlocks = 3;
constexpr int kMaxReported = 8;

std::string hex(std::uint32_t v, Format f) {
  char buf[16];
  const int digits = f == Format::fp32 || f == Format::tf32 || f == Format::s32 ? 8
                     : f == Format::e4m3 || f == Format::e5m2 || f == Format::s8 || f == Format::u8 ? 2
                                                                                                     : 4;
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::string self_check(const Instruction& in, const RunOptions& opt) {
  const int M = in.m, N = in.n, K = in.k;
  std::mt19937 rng(0x7c0ffee);
  std::uniform_int_distribution<int> ab(-4, 4), cd(-8, 8);
  std::vector<int> ia(std::size_t(kTiles) * M * K), ib(std::size_t(kTiles) * N * K), ic(std::size_t(kTiles) * M * N);
  // Unsigned integer operands (u8, u4) take |v|: the same small products, none negative.
  const bool a_unsigned = in.a_type == Format::u8 || in.a_type == Format::u4;
  const bool b_unsigned = in.b_type == Format::u8 || in.b_type == Format::u4;
  for (int& v : ia) v = a_unsigned ? std::abs(ab(rng)) : ab(rng);
  for (int& v : ib) v = b_unsigned ? std::abs(ab(rng)) : ab(rng);
  for (int& v : ic) v = cd(rng);
  auto encode = [](Format f, const std::vector<int>& v) {
    std::vector<std::uint32_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = detail::small_int_bits(f, v[i]);
    return out;
  };
  const std::vector<std::uint32_t> d = detail::run_tiles_unchecked(
      in, kTiles, encode(in.a_type, ia), encode(in.b_type, ib), encode(in.c_type, ic), opt, kMaxBlocks);

  std::ostringstream report;
  long long bad = 0;
  for (int t = 0; t < kTiles; ++t)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        long long want = ic[(std::size_t(t) * M + i) * N + j];
        for (int k = 0; k < K; ++k)
          want += static_cast<long long>(ia[(std::size_t(t) * M + i) * K + k]) * ib[(std::size_t(t) * N + j) * K + k];
        const std::uint32_t got = d[(std::size_t(t) * M + i) * N + j];
        const double value = detail::bits_value(in.d_type, got);
        if (value == static_cast<double>(want)) continue;  // +0 and -0 both match 0
        if (++bad <= kMaxReported)
          report << "\n  tile " << t << " (row " << i << ", col " << j << "): expected " << want << " ("
                 << hex(detail::small_int_bits(in.d_type, static_cast<int>(want)), in.d_type) << "), got "
                 << number(value) << " (" << hex(got, in.d_type) << ")";
      }
  if (bad == 0) return "";
  std::ostringstream head;
  head << in.name << ": " << bad << " of " << std::size_t(kTiles) * M * N << " output elements wrong"
       << (bad > kMaxReported ? " (first " + std::to_string(kMaxReported) + " shown)" : std::string()) << ":";
  return head.str() + report.str();
}

namespace {

// Verdicts of earlier processes: one "PASS <uuid> <driver> <build> <key>" line per passed check, in
// $TCNUM_SELF_CHECK_CACHE (or $XDG_CACHE_HOME/tcnum/self-check, ~/.cache/tcnum/self-check);
// TCNUM_SELF_CHECK_CACHE=off disables it. Only passes are kept: a failure is checked again.
std::string cache_path() {
  if (const char* p = std::getenv("TCNUM_SELF_CHECK_CACHE")) return std::string(p) == "off" ? "" : p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tcnum/self-check";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tcnum/self-check";
  return "";
}

std::string cache_line(const std::string& key, int device) {
  const DeviceInfo i = info(device);
  return "PASS " + i.uuid + " " + i.driver + " " + executable_build_id() + " " + key;
}

bool cached_pass(const std::string& line) {
  const std::string path = cache_path();
  if (path.empty()) return false;
  std::ifstream f(path);
  for (std::string l; std::getline(f, l);)
    if (l == line) return true;
  return false;
}

void record_pass(const std::string& line) {
  const std::string path = cache_path();
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream f(path, std::ios::app);  // one short line per write: appends do not interleave
  f << line + "\n" << std::flush;
}

}  // namespace

namespace detail {

void ensure_layout_checked(const Instruction& in, const RunOptions& opt) {
  static std::mutex mutex;
  static std::map<std::string, std::string> verdicts;  // key -> "" (passed) or the report
  std::string key = in.name + "@" + std::to_string(opt.device);
  if (in.family == Family::wgmma) key += opt.a_source == ASource::registers ? "/a=regs" : "/a=smem";
  std::lock_guard<std::mutex> lock(mutex);  // held while checking: one check per key
  auto it = verdicts.find(key);
  if (it == verdicts.end()) {
    const std::string line = cache_line(key, opt.device);
    if (cached_pass(line)) {
      it = verdicts.emplace(key, "").first;
    } else {
      it = verdicts.emplace(key, self_check(in, opt)).first;  // a throw caches nothing
      if (it->second.empty()) record_pass(line);
    }
  }
  if (!it->second.empty())
    throw DeviceError("layout self-check failed, refusing to run " + key + ":\n" + it->second);
}

}  // namespace detail
}  // namespace tcnum::device
