// Corpus lines: parse, format, read (plain or gzip), write, replay.
#include "tcnum/core/corpus.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "corpus_bytes.hpp"

#include "tcnum/core/dot.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/sparse.hpp"

namespace tcnum {
namespace {

// One table lookup per digit: 0..15, or 16 for anything that is not a lowercase hex digit.
constexpr auto kHexDigit = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(16);
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
  return t;
}();

// 8 lowercase hex digits (the first the most significant) as one value, all 8 bytes in one
// 64-bit word; false if a byte is not such a digit.
inline bool hex8(const unsigned char* p, std::uint32_t& v) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);  // little-endian: p[0] is the low byte
  constexpr std::uint64_t kOnes = 0x0101010101010101u, kHigh = kOnes * 0x80;
  // Per byte, for bytes below 0x80 (no carry into the next byte): the high bit says byte >= lo.
  auto at_least = [x](std::uint64_t lo) { return (x + (0x80 - lo) * kOnes) & kHigh; };
  const std::uint64_t digit = at_least('0') & ~at_least('9' + 1), letter = at_least('a') & ~at_least('f' + 1);
  const std::uint64_t n = (x & (kOnes * 0x0f)) + ((x >> 6) & kOnes) * 9;  // 'a'..'f' have bit 6: 1..6 + 9
  const std::uint64_t pairs = ((n & 0x000f000f000f000fu) << 4) | ((n >> 8) & 0x000f000f000f000fu);
  const std::uint64_t quads = ((pairs & 0x000000ff000000ffu) << 8) | ((pairs >> 16) & 0x000000ff000000ffu);
  v = static_cast<std::uint32_t>(((quads & 0xffffu) << 16) | ((quads >> 32) & 0xffffu));
  return (x & kHigh) == 0 && (digit | letter) == kHigh;
}

// 16 bytes in one vector register (GCC/clang vector extensions: SSE2 on any x86-64, NEON).
using Bytes16 = unsigned char __attribute__((vector_size(16)));
using Pairs16 = std::uint16_t __attribute__((vector_size(16)));

// 16 hex digits into their 8 bytes (byte i = digits 2i, 2i + 1); `valid` keeps, per byte
// position, whether every digit seen there was a lowercase hex digit.
inline void hex16(const unsigned char* p, std::uint16_t (&bytes)[8], Bytes16& valid) {
  Bytes16 x;
  std::memcpy(&x, p, 16);
  const Bytes16 letter = (Bytes16)((x >= 'a') & (x <= 'f'));
  valid &= (Bytes16)((x >= '0') & (x <= '9')) | letter;
  const Pairs16 n = (Pairs16)((x & 0x0f) + (letter & 9));  // digit values, two per 16-bit lane
  const Pairs16 pairs = ((n & 0x0f) << 4) | (n >> 8);        // little-endian: the first digit is the low byte
  std::memcpy(bytes, &pairs, 16);
}

// `count` values of `Width` hex digits each (Width divides 8): 16 digits at a time, then 8,
// then one by one; false if any byte is not a lowercase hex digit.
template <int Width>
bool hex_values(const unsigned char* p, int count, std::uint32_t* out) {
  constexpr int kPerWord = 8 / Width;
  constexpr std::uint32_t kMask = Width == 8 ? 0xffffffffu : (1u << (4 * Width)) - 1;
  bool ok = true;
  int i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    Bytes16 valid = ~Bytes16{};
    for (; i + 2 * kPerWord <= count; i += 2 * kPerWord, p += 16) {
      std::uint16_t b[8];
      hex16(p, b, valid);
      if constexpr (Width == 1) {
        for (int j = 0; j < 8; ++j) {
          out[i + 2 * j] = b[j] >> 4;
          out[i + 2 * j + 1] = b[j] & 15u;
        }
      } else if constexpr (Width == 2) {
        for (int j = 0; j < 8; ++j) out[i + j] = b[j];
      } else if constexpr (Width == 4) {
        for (int j = 0; j < 4; ++j) out[i + j] = std::uint32_t{b[2 * j]} << 8 | b[2 * j + 1];
      } else {
        for (int j = 0; j < 2; ++j)
          out[i + j] = std::uint32_t{b[4 * j]} << 24 | std::uint32_t{b[4 * j + 1]} << 16 | std::uint32_t{b[4 * j + 2]} << 8 |
                       b[4 * j + 3];
      }
    }
    std::uint64_t lanes[2];
    std::memcpy(lanes, &valid, 16);
    ok = (lanes[0] & lanes[1]) == ~std::uint64_t{0};
    for (; i + kPerWord <= count; i += kPerWord, p += 8) {
      std::uint32_t v;
      ok &= hex8(p, v);
      for (int j = 0; j < kPerWord; ++j) out[i + j] = (v >> (4 * Width * (kPerWord - 1 - j))) & kMask;
    }
  }
  std::uint32_t bad = 0;
  for (; i < count; ++i, p += Width) {
    std::uint32_t v = 0;
    for (int j = 0; j < Width; ++j) {
      const std::uint32_t digit = kHexDigit[p[j]];
      bad |= digit;
      v = (v << 4) | (digit & 15u);
    }
    out[i] = v;
  }
  return ok && !(bad & 16u);
}

// `count` values of f's hex width from `field` into out[0..count), without allocating.
bool parse_hex_run(std::string_view field, Format f, int count, std::uint32_t* out, std::string& why,
                   const char* what) {
  const int width = spec(f).hex_digits;
  if (static_cast<std::int64_t>(field.size()) != std::int64_t{width} * count) {
    why = std::string(what) + ": expected " + std::to_string(count) + " x " + std::to_string(width) +
          " hex digits for " + std::string(name_of(f)) + ", got " + std::to_string(field.size()) + " characters";
    return false;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(field.data());
  const bool ok = width == 8   ? hex_values<8>(p, count, out)
                  : width == 4 ? hex_values<4>(p, count, out)
                  : width == 2 ? hex_values<2>(p, count, out)
                               : hex_values<1>(p, count, out);  // the widths of the formats
  if (!ok) {
    for (char ch : field)
      if (kHexDigit[static_cast<unsigned char>(ch)] == 16) {
        why = std::string(what) + ": '" + ch + "' is not a lowercase hex digit";
        break;
      }
    return false;
  }
  return true;
}

// A line's fields, split at single spaces without allocating: 6, 7 for sparse instructions (the
// metadata after D), or 8 for block-scaled instructions (the scales of A's row and of B's column
// after D).
struct LineFields {
  std::string_view field[8];
  int count = 0;
};

bool split_fields(std::string_view line, LineFields& out, std::string& why) {
  // A hostile line of millions of spaces must not allocate: past 8 fields the rest are counted.
  int n = 0;
  std::size_t start = 0;
  while (true) {
    const void* sp = std::memchr(line.data() + start, ' ', line.size() - start);
    const std::size_t end = sp ? static_cast<std::size_t>(static_cast<const char*>(sp) - line.data()) : line.size();
    if (n < 8) out.field[n] = line.substr(start, end - start);
    ++n;
    if (!sp) break;
    start = end + 1;
    if (n == 8) {  // the 9th field and beyond
      n += 1 + static_cast<int>(std::min<std::ptrdiff_t>(std::count(line.begin() + static_cast<std::ptrdiff_t>(start), line.end(), ' '), 1 << 30));
      break;
    }
  }
  bool empty = false;  // two spaces in a row, or a space at an end: not single-space separated
  for (int i = 0; i < std::min(n, 8); ++i) empty |= out.field[i].empty();
  if (n < 6 || n > 8 || empty) {
    why = "expected 6 fields separated by single spaces (arch instruction A B C D; sparse: 7, ... D META; "
          "block-scaled: 8, ... D SA SB), got " + std::to_string(n) + (empty && n >= 6 && n <= 8 ? " with an empty one" : "");
    return false;
  }
  out.count = n;
  return true;
}

// The instruction of each distinct (arch, name), looked up once: a corpus file repeats one.
class InstructionCache {
 public:
  struct Entry {
    std::string arch;  // as written
    int sm = 0;
    Instruction instruction;
    std::size_t id = 0;  // distinct per entry of this cache
    // The characters of each operand field (A, B, C, D, SA, SB; sparse: A, B, C, D, META): a
    // well-formed line's layout.
    std::size_t field_chars[6] = {};
    int fields = 6;
  };
  // The entry of a line's fields; nullptr with `why` for an unknown arch or instruction.
  const Entry* find(const LineFields& f, std::string& why) { return find(f.field[0], f.field[1], why); }
  const Entry* find(std::string_view arch, std::string_view name, std::string& why) {
    if (last_ && last_->arch == arch && last_->instruction.name == name) return last_;
    key_.assign(arch).append(1, ' ').append(name);
    if (auto it = entries_.find(key_); it != entries_.end()) return last_ = it->second.get();
    try {
      auto e = std::make_unique<Entry>();
      e->sm = parse_arch(arch);
      e->instruction = find_instruction(name, e->sm);
      e->arch = arch;
      e->id = entries_.size();
      const Instruction& in = e->instruction;
      auto chars = [](Format f, int count) { return static_cast<std::size_t>(spec(f).hex_digits) * static_cast<std::size_t>(count); };
      const std::size_t meta = in.sparse ? static_cast<std::size_t>(sparse_meta_count(in)) : 0;
      const std::size_t widths[6] = {chars(in.a_type, in.a_elements()), chars(in.b_type, in.k), chars(in.c_type, 1),
                                     chars(in.d_type, 1), in.sparse ? meta : chars(in.scale_type, in.scales_per_row()),
                                     chars(in.scale_type, in.scales_per_row())};
      std::copy(std::begin(widths), std::end(widths), e->field_chars);
      e->fields = in.block_scaled() ? 8 : in.sparse ? 7 : 6;
      // Only names the catalog holds are kept: the cache is bounded by the catalog.
      return last_ = entries_.emplace(key_, std::move(e)).first->second.get();
    } catch (const std::invalid_argument& e) {
      why = e.what();
      if (auto nl = why.find('\n'); nl != std::string::npos) why = why.substr(0, nl) + " (see numprobe list)";
      return nullptr;
    }
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  const Entry* last_ = nullptr;
  std::string key_;
};

// After the operands of a line cut at its known layout did not parse: a wrong field count is
// what split_fields alone would have said first.
void prefer_field_count(std::string_view line, std::string& why) {
  LineFields all;
  std::string count;
  if (!split_fields(line, all, count)) why = count;
}

// Splits a case line and finds its instruction. The operand fields' widths follow from the
// instruction, so a well-formed line is cut at known places; any other line goes through
// split_fields and the lookup again, which give the messages in their order.
const InstructionCache::Entry* split_line(std::string_view line, InstructionCache& cache, LineFields& f,
                                          std::string& why) {
  const std::size_t name_at = line.find(' ') + 1, tail_at = name_at ? line.find(' ', name_at) + 1 : 0;
  if (tail_at) {
    const InstructionCache::Entry* e = cache.find(line.substr(0, name_at - 1), line.substr(name_at, tail_at - 1 - name_at), why);
    if (e) {
      std::size_t at = tail_at;
      int n = 2;
      for (; n < e->fields; ++n) {
        const std::size_t chars = e->field_chars[n - 2];
        if (at + chars > line.size() || (n + 1 < e->fields ? at + chars >= line.size() || line[at + chars] != ' '
                                                            : at + chars != line.size()))
          break;
        f.field[n] = line.substr(at, chars);
        at += chars + 1;
      }
      if (n == e->fields) {
        f.field[0] = line.substr(0, name_at - 1);
        f.field[1] = line.substr(name_at, tail_at - 1 - name_at);
        f.count = n;
        return e;
      }
    }
  }
  if (!split_fields(line, f, why)) return nullptr;
  return cache.find(f, why);
}

// A sparse line's metadata: one hex digit per group, each a valid pattern (sparse.hpp).
bool parse_meta(std::string_view field, const Instruction& in, std::uint8_t* meta, std::string& why) {
  const int count = sparse_meta_count(in);
  if (static_cast<std::int64_t>(field.size()) != count) {
    why = "META: expected " + std::to_string(count) + " hex digits (one metadata value per " +
          std::to_string(sparse_group(in)) + " elements of K = " + std::to_string(in.k) + "), got " +
          std::to_string(field.size()) + " characters";
    return false;
  }
  for (int q = 0; q < count; ++q) {
    const std::uint8_t v = kHexDigit[static_cast<unsigned char>(field[static_cast<std::size_t>(q)])];
    if (v == 16) {
      why = std::string("META: '") + field[static_cast<std::size_t>(q)] + "' is not a lowercase hex digit";
      return false;
    }
    if (!valid_sparse_meta(in, v)) {
      why = "META: " + invalid_sparse_meta_message(in, v, q);
      return false;
    }
    meta[q] = v;
  }
  return true;
}

// The operand fields of a split line for `in`: A (in.a_elements() values) and B (in.k), C, D
// and, when block-scaled, the in.scales_per_row() scales of A's row and of B's column; when
// sparse, the metadata.
bool parse_operands(const LineFields& f, const Instruction& in, std::uint32_t* a, std::uint32_t* b, std::uint32_t& c,
                    std::uint32_t& d, std::uint32_t* scale_a, std::uint32_t* scale_b, std::uint8_t* meta,
                    std::string& why) {
  const int want = in.block_scaled() ? 8 : in.sparse ? 7 : 6;
  if (f.count != want) {
    why = in.block_scaled() ? "block-scaled instruction: expected 8 fields (arch instruction A B C D SA SB), got "
          : in.sparse       ? "sparse instruction: expected 7 fields (arch instruction A B C D META), got "
                            : "expected 6 fields (arch instruction A B C D) for a dense instruction without block scaling, got ";
    why += std::to_string(f.count);
    return false;
  }
  if (!parse_hex_run(f.field[2], in.a_type, in.a_elements(), a, why, "A") ||
      !parse_hex_run(f.field[3], in.b_type, in.k, b, why, "B") || !parse_hex_run(f.field[4], in.c_type, 1, &c, why, "C") ||
      !parse_hex_run(f.field[5], in.d_type, 1, &d, why, "D"))
    return false;
  if (in.sparse) return parse_meta(f.field[6], in, meta, why);
  return !in.block_scaled() || (parse_hex_run(f.field[6], in.scale_type, in.scales_per_row(), scale_a, why, "SA") &&
                                parse_hex_run(f.field[7], in.scale_type, in.scales_per_row(), scale_b, why, "SB"));
}

// One line into `k`, reusing its vectors' storage; false with `why` when malformed.
bool parse_into(std::string_view line, InstructionCache& cache, CorpusCase& k, std::string& why) {
  LineFields f;
  const InstructionCache::Entry* e = split_line(line, cache, f, why);
  if (!e) return false;
  const Instruction& in = e->instruction;
  const auto n = static_cast<std::size_t>(in.k), scales = static_cast<std::size_t>(in.scales_per_row());
  k.a.resize(static_cast<std::size_t>(in.a_elements()));
  k.b.resize(n);
  k.scale_a.resize(scales);
  k.scale_b.resize(scales);
  k.meta.resize(in.sparse ? static_cast<std::size_t>(sparse_meta_count(in)) : 0);
  if (!parse_operands(f, in, k.a.data(), k.b.data(), k.c, k.d, k.scale_a.data(), k.scale_b.data(), k.meta.data(), why)) {
    prefer_field_count(line, why);
    return false;
  }
  k.arch = e->arch;
  k.sm = e->sm;
  k.instruction = in;
  return true;
}

constexpr const char* kNulByte = "NUL byte in the line (a corpus is text)";
bool has_nul(std::string_view line) { return std::memchr(line.data(), '\0', line.size()) != nullptr; }

// The lines of a corpus file (without '\n'), as views into the inflated bytes: a line is copied
// only when it spans two chunks. A read error or an over-long line is `error`. NUL bytes are
// the caller's to look for (has_nul), in the lines that did not parse as a case: one that
// parses has none (its arch, name and hex digits admit no NUL).
class LineReader {
 public:
  LineReader(const std::string& path, GzipInflater inflater) : bytes_(path, inflater) {}
  enum class Line { read, end, error };
  Line next(std::string_view& line, std::string& why) {
    carry_.clear();
    bool any = false;
    while (true) {
      if (chunk_.empty()) {
        const auto got = bytes_.next(chunk_, why);
        if (got == detail::CorpusBytes::Result::error) return Line::error;
        if (got == detail::CorpusBytes::Result::end) {
          line = carry_;
          return any ? Line::read : Line::end;
        }
      }
      any = true;
      const void* nl = std::memchr(chunk_.data(), '\n', chunk_.size());
      const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - chunk_.data()) : chunk_.size();
      if (carry_.size() + take > kMaxCorpusLineBytes) {  // a NUL byte in it is the better reason (/dev/zero)
        const bool nul = has_nul(carry_) || has_nul(chunk_.substr(0, take));
        why = nul ? kNulByte : "line longer than " + std::to_string(kMaxCorpusLineBytes) + " bytes";
        return Line::error;
      }
      if (nl && carry_.empty()) {  // the common case: the whole line in this chunk
        line = chunk_.substr(0, take);
        chunk_.remove_prefix(take + 1);
        return Line::read;
      }
      carry_.append(chunk_.data(), take);
      chunk_.remove_prefix(nl ? take + 1 : take);
      if (nl) {
        line = carry_;
        return Line::read;
      }
    }
  }

 private:
  detail::CorpusBytes bytes_;
  std::string_view chunk_;
  std::string carry_;
};

// A content line (not blank, not a comment), without a trailing '\r'.
bool content_line(std::string_view& line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return !line.empty() && line[0] != '#';
}

}  // namespace

std::string hex_field(Format f, std::uint32_t bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*x", spec(f).hex_digits, bits & storage_mask(f));
  return buf;
}

std::string format_case_line(const std::string& arch, const Instruction& in, const std::vector<std::uint32_t>& a,
                             const std::vector<std::uint32_t>& b, std::uint32_t c, std::uint32_t d,
                             const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b,
                             const std::vector<std::uint8_t>& meta) {
  const auto scales = static_cast<std::size_t>(in.scales_per_row());
  if (in.sparse) {
    (void)selected_positions(in, meta);  // the count and every value checked: a line is never written malformed
    if (a.size() != static_cast<std::size_t>(in.a_elements()) || b.size() != static_cast<std::size_t>(in.k))
      throw std::invalid_argument(in.name + ": a sparse corpus line takes " + std::to_string(in.a_elements()) +
                                  " stored A elements and " + std::to_string(in.k) + " of B");
  } else if (!meta.empty()) {
    throw std::invalid_argument(in.name + ": metadata given for a dense instruction");
  }
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
  if (in.sparse) s += ' ' + sparse_meta_hex(meta);
  return s;
}

std::optional<CorpusCase> parse_case_line(const std::string& line, std::string& why) {
  thread_local InstructionCache cache;
  CorpusCase k;
  if (!parse_into(line, cache, k, why)) return std::nullopt;
  return k;
}

struct CorpusReader::Impl {
  Impl(const std::string& path, GzipInflater inflater) : lines(path, inflater) {}
  LineReader lines;
  InstructionCache instructions;
  CorpusCase scratch;   // parsed into, then swapped with the caller's: `out` changes only on success
  bool broken = false;  // a read error, NUL byte or over-long line ends the file: report it once, then stop
};

CorpusReader::CorpusReader(const std::string& path, GzipInflater inflater)
    : impl_(std::make_unique<Impl>(path, inflater)) {}

CorpusReader::~CorpusReader() = default;

CorpusReader::Status CorpusReader::next(CorpusCase& out, std::string& why) {
  if (impl_->broken) return Status::end;
  std::string_view line;
  while (true) {
    const auto got = impl_->lines.next(line, why);
    if (got == LineReader::Line::end) return Status::end;
    ++line_;
    if (got == LineReader::Line::error) {
      impl_->broken = true;
      return Status::malformed;
    }
    const bool content = content_line(line);
    if (content && parse_into(line, impl_->instructions, impl_->scratch, why)) {
      std::swap(out, impl_->scratch);
      return Status::case_read;
    }
    if (has_nul(line)) {
      why = kNulByte;
      impl_->broken = true;
      return Status::malformed;
    }
    if (content) return Status::malformed;
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

namespace {

// The cases of one instruction parsed so far, in flat arrays: no allocation per case.
struct ReplayBatch {
  const InstructionCache::Entry* of = nullptr;  // the instruction of the batch
  std::size_t n = 0, k = 0, scales = 0;         // cases in the batch; A/B and scale values per case
  std::size_t metas = 0;                        // sparse: metadata values per case (A uses k / 2 of its k slots)
  std::vector<std::uint32_t> a, b, c, d, scale_a, scale_b, emulated;
  std::vector<std::uint8_t> meta;
  std::vector<std::size_t> line_of;

  void switch_to(const InstructionCache::Entry* e) {
    of = e;
    k = static_cast<std::size_t>(e->instruction.k);
    scales = static_cast<std::size_t>(e->instruction.scales_per_row());
    metas = e->instruction.sparse ? static_cast<std::size_t>(sparse_meta_count(e->instruction)) : 0;
  }
  // Room for case n.
  void make_room() {
    if (a.size() < (n + 1) * k) {
      a.resize((n + 1) * k);
      b.resize((n + 1) * k);
    }
    if (meta.size() < (n + 1) * metas) meta.resize((n + 1) * metas);
    if (scale_a.size() < (n + 1) * scales) {
      scale_a.resize((n + 1) * scales);
      scale_b.resize((n + 1) * scales);
    }
    if (c.size() < n + 1) {
      c.resize(n + 1);
      d.resize(n + 1);
      line_of.resize(n + 1);
    }
  }
  CorpusCase case_at(std::size_t i) const {
    CorpusCase kase;
    kase.arch = of->arch;
    kase.sm = of->sm;
    kase.instruction = of->instruction;
    const std::size_t ka = static_cast<std::size_t>(of->instruction.a_elements());
    kase.a.assign(a.begin() + static_cast<std::ptrdiff_t>(i * k), a.begin() + static_cast<std::ptrdiff_t>(i * k + ka));
    kase.meta.assign(meta.begin() + static_cast<std::ptrdiff_t>(i * metas),
                     meta.begin() + static_cast<std::ptrdiff_t>((i + 1) * metas));
    kase.b.assign(b.begin() + static_cast<std::ptrdiff_t>(i * k), b.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
    kase.c = c[i];
    kase.d = d[i];
    kase.scale_a.assign(scale_a.begin() + static_cast<std::ptrdiff_t>(i * scales),
                        scale_a.begin() + static_cast<std::ptrdiff_t>((i + 1) * scales));
    kase.scale_b.assign(scale_b.begin() + static_cast<std::ptrdiff_t>(i * scales),
                        scale_b.begin() + static_cast<std::ptrdiff_t>((i + 1) * scales));
    return kase;
  }
  // emulated[0..n) through the plan.
  void emulate(const MmaPlan& plan) {
    emulated.resize(n);
    if (metas > 0) {  // sparse: stored A and B's selected elements, K/2 each, through the selected form's plan
      const Instruction& in = of->instruction;
      const std::size_t h = k / 2;
      std::vector<std::uint32_t> as(n * h), bs(n * h);
      for (std::size_t i = 0; i < n; ++i) {
        std::copy(a.begin() + static_cast<std::ptrdiff_t>(i * k), a.begin() + static_cast<std::ptrdiff_t>(i * k + h),
                  as.begin() + static_cast<std::ptrdiff_t>(i * h));
        const std::vector<std::uint32_t> sel = gather_selected(in, {meta.data() + i * metas, metas}, {b.data() + i * k, k});
        std::copy(sel.begin(), sel.end(), bs.begin() + static_cast<std::ptrdiff_t>(i * h));
      }
      mma_batch(plan, n, as.data(), bs.data(), c.data(), emulated.data());
    } else if (scales > 0) {  // scale vectors: the reference datapath, case by case
      for (std::size_t i = 0; i < n; ++i)
        emulated[i] = mma_element(plan, {a.data() + i * k, k}, {b.data() + i * k, k}, c[i],
                                  {scale_a.data() + i * scales, scales}, {scale_b.data() + i * scales, scales});
    } else {
      mma_batch(plan, n, a.data(), b.data(), c.data(), emulated.data());
    }
  }
};

// One file's replay: plans compiled once per instruction, cases evaluated a batch at a time,
// issues reported in line order.
class FileReplay {
 public:
  FileReplay(const std::string& path, const Model* override_model, const std::function<void(const ReplayIssue&)>& on_issue)
      : path_(path), override_model_(override_model), on_issue_(on_issue) {}

  ReplayBatch batch;
  ReplayTally tally;

  // Evaluates the batch, counts and reports every case, and empties it.
  void evaluate() {
    if (batch.n == 0) return;
    const auto& plan = plan_of_batch();
    if (const auto* why_not = std::get_if<std::string>(&plan)) {
      for (std::size_t i = 0; i < batch.n; ++i) {
        ++tally.failed;
        on_issue_(ReplayIssue{path_, batch.line_of[i], true, *why_not, batch.case_at(i), 0});
      }
      batch.n = 0;
      return;
    }
    batch.emulate(std::get<MmaPlan>(plan));
    for (std::size_t i = 0; i < batch.n; ++i) {
      if (batch.emulated[i] == batch.d[i]) {
        ++tally.passed;
      } else {
        ++tally.failed;
        on_issue_(ReplayIssue{path_, batch.line_of[i], false, "", batch.case_at(i), batch.emulated[i]});
      }
    }
    batch.n = 0;
  }

  // A line that is no case: the batch before it is reported first.
  void malformed(std::size_t line, const std::string& why) {
    evaluate();
    ++tally.failed;
    on_issue_(ReplayIssue{path_, line, true, why, std::nullopt, 0});
  }

 private:
  // The batch instruction's plan, or why the model has none.
  const std::variant<MmaPlan, std::string>& plan_of_batch() {
    auto it = plans_.find(batch.of->id);
    if (it != plans_.end()) return it->second;
    const Model& model = override_model_ ? *override_model_ : builtin_model(batch.of->sm);
    try {
      const Instruction& in = batch.of->instruction;  // sparse: the rule of `in`, the plan of its selected products
      return plans_.emplace(batch.of->id, compile_plan(model.params_for(in), in.sparse ? selected_form(in) : in))
          .first->second;
    } catch (const std::invalid_argument& e) {
      return plans_.emplace(batch.of->id, std::string(e.what())).first->second;
    }
  }

  const std::string& path_;
  const Model* override_model_;
  const std::function<void(const ReplayIssue&)>& on_issue_;
  std::unordered_map<std::size_t, std::variant<MmaPlan, std::string>> plans_;  // by entry id
};

}  // namespace

ReplayTally replay_file(const std::string& path, const Model* override_model,
                        const std::function<void(const ReplayIssue&)>& on_issue) {
  constexpr std::size_t kBatch = 1024;
  FileReplay replay(path, override_model, on_issue);
  ReplayBatch& batch = replay.batch;
  LineReader lines(path, GzipInflater::best);
  InstructionCache instructions;
  std::string_view line;
  std::string why;
  for (std::size_t line_no = 1;; ++line_no) {
    const auto got = lines.next(line, why);
    if (got == LineReader::Line::end) break;
    if (got == LineReader::Line::error) {  // ends the file: what follows is not trusted
      replay.malformed(line_no, why);
      break;
    }
    const bool content = content_line(line);
    if (!content && !has_nul(line)) continue;
    LineFields f;
    const InstructionCache::Entry* e = content ? split_line(line, instructions, f, why) : nullptr;
    if (!e) {
      if (has_nul(line)) {  // ends the file, as a read error
        replay.malformed(line_no, kNulByte);
        break;
      }
      replay.malformed(line_no, why);
      continue;
    }
    if (batch.n > 0 && (e != batch.of || batch.n == kBatch)) replay.evaluate();
    if (e != batch.of) batch.switch_to(e);
    batch.make_room();
    const std::size_t n = batch.n, k = batch.k, scales = batch.scales, metas = batch.metas;
    if (!parse_operands(f, e->instruction, batch.a.data() + n * k, batch.b.data() + n * k, batch.c[n], batch.d[n],
                        batch.scale_a.data() + n * scales, batch.scale_b.data() + n * scales,
                        batch.meta.data() + n * metas, why)) {
      if (has_nul(line)) {
        replay.malformed(line_no, kNulByte);
        break;
      }
      prefer_field_count(line, why);
      replay.malformed(line_no, why);
      continue;
    }
    batch.line_of[batch.n++] = line_no;
  }
  replay.evaluate();
  return replay.tally;
}

}  // namespace tcnum
