// Corpus lines: parse, format, read (plain or gzip), write, replay.
#include "tcnum/core/corpus.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum {
namespace {

bool parse_hex_run(const std::string& field, Format f, int count, std::vector<std::uint32_t>& out,
                   std::string& why, const char* what) {
  const int width = spec(f).hex_digits;
  if (static_cast<int>(field.size()) != width * count) {
    why = std::string(what) + ": expected " + std::to_string(count) + " x " + std::to_string(width) +
          " hex digits for " + std::string(name_of(f)) + ", got " + std::to_string(field.size()) + " characters";
    return false;
  }
  // One table lookup per digit: 0..15, or 16 for anything that is not a lowercase hex digit.
  static constexpr auto kDigit = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(16);
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
    return t;
  }();
  out.resize(static_cast<std::size_t>(count));
  const auto* p = reinterpret_cast<const unsigned char*>(field.data());
  for (int i = 0; i < count; ++i) {
    std::uint32_t v = 0, bad = 0;
    for (int j = 0; j < width; ++j) {
      const std::uint32_t digit = kDigit[p[i * width + j]];
      bad |= digit & 16u;
      v = (v << 4) | (digit & 15u);
    }
    if (bad) {
      for (int j = 0; j < width; ++j)
        if (kDigit[p[i * width + j]] == 16) {
          why = std::string(what) + ": '" + field[static_cast<std::size_t>(i * width + j)] + "' is not a lowercase hex digit";
          break;
        }
      return false;
    }
    out[static_cast<std::size_t>(i)] = v;
  }
  return true;
}

}  // namespace

std::string hex_field(Format f, std::uint32_t bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*x", spec(f).hex_digits, bits & storage_mask(f));
  return buf;
}

std::string format_case_line(const std::string& arch, const Instruction& in, const std::vector<std::uint32_t>& a,
                             const std::vector<std::uint32_t>& b, std::uint32_t c, std::uint32_t d,
                             const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b) {
  const auto scales = static_cast<std::size_t>(in.scales_per_row());
  if (scale_a.size() != scales || scale_b.size() != scales)
    throw std::invalid_argument(in.name + ": a corpus line takes " + std::to_string(scales) +
                                " scales for A's row and for B's column, got " + std::to_string(scale_a.size()) + " and " +
                                std::to_string(scale_b.size()));
  std::string s = arch + " " + in.name + " ";
  for (auto v : a) s += hex_field(in.a_type, v);
  s += ' ';
  for (auto v : b) s += hex_field(in.b_type, v);
  s += ' ' + hex_field(in.c_type, c) + ' ' + hex_field(in.d_type, d);
  if (in.block_scaled()) {
    s += ' ';
    for (auto v : scale_a) s += hex_field(in.scale_type, v);
    s += ' ';
    for (auto v : scale_b) s += hex_field(in.scale_type, v);
  }
  return s;
}

std::optional<CorpusCase> parse_case_line(const std::string& line, std::string& why) {
  // Count the fields before splitting: a hostile line of millions of spaces must not allocate.
  // Block-scaled instructions add two fields: the scales of A's row and of B's column.
  const auto separators = std::count(line.begin(), line.end(), ' ');
  if (separators != 5 && separators != 7) {
    why = "expected 6 fields separated by single spaces (arch instruction A B C D; block-scaled: 8, "
          "... D SA SB), got " + std::to_string(separators + 1);
    return std::nullopt;
  }
  std::string fields[8];
  std::size_t start = 0;
  for (int f = 0; f <= separators; ++f) {
    std::string& field = fields[f];
    const auto sp = line.find(' ', start);
    field = line.substr(start, sp == std::string::npos ? std::string::npos : sp - start);
    start = sp + 1;
  }
  CorpusCase k;
  k.arch = fields[0];
  // A corpus file repeats one instruction line after line: the last lookup is kept.
  thread_local std::string last_arch, last_name;
  thread_local std::optional<std::pair<int, Instruction>> last;
  try {
    if (!last || fields[0] != last_arch || fields[1] != last_name) {
      last.reset();
      const int sm = parse_arch(fields[0]);
      last.emplace(sm, find_instruction(fields[1], sm));
      last_arch = fields[0];
      last_name = fields[1];
    }
    k.sm = last->first;
    k.instruction = last->second;
  } catch (const std::invalid_argument& e) {
    why = e.what();
    if (auto nl = why.find('\n'); nl != std::string::npos) why = why.substr(0, nl) + " (see numprobe list)";
    return std::nullopt;
  }
  const Instruction& in = k.instruction;
  if (in.block_scaled() != (separators == 7)) {
    why = in.block_scaled() ? "block-scaled instruction: expected 8 fields (arch instruction A B C D SA SB), got 6"
                            : "expected 6 fields (arch instruction A B C D) for an instruction without block scaling, got 8";
    return std::nullopt;
  }
  std::vector<std::uint32_t> c, d;
  if (!parse_hex_run(fields[2], in.a_type, in.k, k.a, why, "A") ||
      !parse_hex_run(fields[3], in.b_type, in.k, k.b, why, "B") ||
      !parse_hex_run(fields[4], in.c_type, 1, c, why, "C") || !parse_hex_run(fields[5], in.d_type, 1, d, why, "D"))
    return std::nullopt;
  if (in.block_scaled() && (!parse_hex_run(fields[6], in.scale_type, in.scales_per_row(), k.scale_a, why, "SA") ||
                           !parse_hex_run(fields[7], in.scale_type, in.scales_per_row(), k.scale_b, why, "SB")))
    return std::nullopt;
  k.c = c[0];
  k.d = d[0];
  return k;
}

struct CorpusReader::Impl {
  gzFile file = nullptr;
  bool broken = false;  // a read error, NUL byte or over-long line ends the file: report it once, then stop
  std::vector<char> buffer = std::vector<char>(1 << 16);
  std::size_t pos = 0, filled = 0;

  enum class Line { read, end, error };
  // Reads the next line (without its '\n') as bytes; `why` says what was wrong on `error`.
  Line read_line(std::string& line, std::string& why) {
    line.clear();
    bool any = false;
    while (true) {
      if (pos == filled) {
        const int n = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
        if (n < 0) {
          int err = 0;
          why = std::string("read error (truncated or corrupt file?): ") + gzerror(file, &err);
          return Line::error;
        }
        if (n == 0) {
          int err = 0;
          const char* msg = gzerror(file, &err);
          if (err != Z_OK && err != Z_STREAM_END) {
            why = std::string("read error (truncated or corrupt file?): ") + msg;
            return Line::error;
          }
          return any ? Line::read : Line::end;
        }
        pos = 0;
        filled = static_cast<std::size_t>(n);
      }
      any = true;
      const char* begin = buffer.data() + pos;
      const std::size_t avail = filled - pos;
      const void* nl = std::memchr(begin, '\n', avail);
      const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : avail;
      if (std::memchr(begin, '\0', take)) {
        why = "NUL byte in the line (a corpus is text)";
        return Line::error;
      }
      if (line.size() + take > kMaxCorpusLineBytes) {
        why = "line longer than " + std::to_string(kMaxCorpusLineBytes) + " bytes";
        return Line::error;
      }
      line.append(begin, take);
      pos += take;
      if (nl) {
        ++pos;
        return Line::read;
      }
    }
  }
};

CorpusReader::CorpusReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->file = gzopen(path.c_str(), "rb");
  if (!impl_->file) throw std::runtime_error("cannot open corpus file '" + path + "'");
  gzbuffer(impl_->file, 1 << 17);
}

CorpusReader::~CorpusReader() {
  if (impl_->file) gzclose(impl_->file);
}

CorpusReader::Status CorpusReader::next(CorpusCase& out, std::string& why) {
  std::string line;
  if (impl_->broken) return Status::end;
  while (true) {
    const auto got = impl_->read_line(line, why);
    if (got == Impl::Line::end) return Status::end;
    ++line_;
    if (got == Impl::Line::error) {
      impl_->broken = true;
      return Status::malformed;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (auto k = parse_case_line(line, why)) {
      out = std::move(*k);
      return Status::case_read;
    }
    return Status::malformed;
  }
}

namespace {
// Why the last write failed (ENOSPC, EFBIG, EIO, ...), as the system says; callers clear errno first.
std::string write_error() { return errno ? std::strerror(errno) : "disk full?"; }
}  // namespace

struct CorpusWriter::Impl {
  gzFile gz = nullptr;
  std::FILE* plain = nullptr;
  std::string path;
};

CorpusWriter::CorpusWriter(const std::string& path, bool append) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz) impl_->gz = gzopen(path.c_str(), append ? "ab9" : "wb9");
  else impl_->plain = std::fopen(path.c_str(), append ? "a" : "w");
  if (!impl_->gz && !impl_->plain) throw std::runtime_error("cannot write corpus file '" + path + "'");
}

CorpusWriter::~CorpusWriter() {
  // Not closed by close() (an exception is unwinding): keep what was written, report nothing.
  if (impl_->gz) gzclose(impl_->gz);
  if (impl_->plain) std::fclose(impl_->plain);
}

void CorpusWriter::close() {
  // gzip and stdio buffer: a full disk is often reported only here.
  bool ok = true;
  errno = 0;
  if (impl_->gz) ok = gzclose(impl_->gz) == Z_OK;
  if (impl_->plain) ok = std::ferror(impl_->plain) == 0 && std::fclose(impl_->plain) == 0 && ok;
  impl_->gz = nullptr;
  impl_->plain = nullptr;
  if (!ok) throw std::runtime_error("write failed on '" + impl_->path + "': " + write_error());
}

void CorpusWriter::write(const std::string& line) {
  if (!impl_->gz && !impl_->plain) throw std::logic_error("CorpusWriter: write after close");
  const std::string s = line + "\n";
  errno = 0;
  const bool ok = impl_->gz ? gzwrite(impl_->gz, s.data(), static_cast<unsigned>(s.size())) == static_cast<int>(s.size())
                            : std::fwrite(s.data(), 1, s.size(), impl_->plain) == s.size();
  if (!ok) throw std::runtime_error("write failed on '" + impl_->path + "': " + write_error());
}

void CorpusWriter::comment(const std::string& text) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) write("# " + l);
}

void CorpusWriter::flush() {
  errno = 0;
  const bool ok = impl_->gz ? gzflush(impl_->gz, Z_SYNC_FLUSH) == Z_OK : std::fflush(impl_->plain) == 0;
  if (!ok) throw std::runtime_error("write failed on '" + impl_->path + "': " + write_error());
}

ReplayTally replay_file(const std::string& path, const Model* override_model,
                        const std::function<void(const ReplayIssue&)>& on_issue) {
  // Cases are evaluated in batches of one instruction through its compiled plan (one plan per
  // run of cases with the same arch and instruction); issues are still reported in line order.
  constexpr std::size_t kBatch = 1024;
  ReplayTally t;
  CorpusReader reader(path);
  std::vector<CorpusCase> batch;
  std::vector<std::size_t> lines;
  std::vector<std::uint32_t> a, b, c, d;
  std::optional<MmaPlan> plan;
  const Model* plan_model = nullptr;
  auto evaluate = [&] {
    if (batch.empty()) return;
    const Instruction& in = batch.front().instruction;
    const Model& model = override_model ? *override_model : builtin_model(batch.front().sm);
    try {
      if (!plan || plan_model != &model || plan->instruction.name != in.name) {
        plan.reset();
        plan = compile_plan(model, in);
        plan_model = &model;
      }
    } catch (const std::invalid_argument& e) {
      for (std::size_t n = 0; n < batch.size(); ++n) {
        ++t.failed;
        on_issue(ReplayIssue{path, lines[n], true, e.what(), std::move(batch[n]), 0});
      }
      batch.clear();
      lines.clear();
      return;
    }
    d.resize(batch.size());
    if (in.block_scaled()) {  // scale vectors: the reference datapath, case by case
      for (std::size_t n = 0; n < batch.size(); ++n) {
        const CorpusCase& k = batch[n];
        d[n] = mma_element(*plan, k.a, k.b, k.c, k.scale_a, k.scale_b);
      }
    } else {
      a.clear();
      b.clear();
      c.clear();
      for (const CorpusCase& k : batch) {
        a.insert(a.end(), k.a.begin(), k.a.end());
        b.insert(b.end(), k.b.begin(), k.b.end());
        c.push_back(k.c);
      }
      mma_batch(*plan, batch.size(), a.data(), b.data(), c.data(), d.data());
    }
    for (std::size_t n = 0; n < batch.size(); ++n) {
      if (d[n] == batch[n].d) {
        ++t.passed;
      } else {
        ++t.failed;
        on_issue(ReplayIssue{path, lines[n], false, "", batch[n], d[n]});
      }
    }
    batch.clear();
    lines.clear();
  };
  CorpusCase k;
  std::string why;
  while (true) {
    const auto st = reader.next(k, why);
    if (st == CorpusReader::Status::end) break;
    if (st == CorpusReader::Status::malformed) {
      evaluate();
      ++t.failed;
      on_issue(ReplayIssue{path, reader.line_number(), true, why, std::nullopt, 0});
      continue;
    }
    if (!batch.empty() && (batch.size() == kBatch || batch.front().sm != k.sm ||
                           batch.front().instruction.name != k.instruction.name))
      evaluate();
    batch.push_back(std::move(k));
    k = CorpusCase{};
    lines.push_back(reader.line_number());
  }
  evaluate();
  return t;
}

}  // namespace tcnum
