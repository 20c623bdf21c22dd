// Corpus bytes: plain files as read, gzip files member by member. A whole member goes through
// libdeflate in one call (2-3x zlib's speed, replay's bound) when the build has it and the
// file is in memory. zlib's stream inflates everything else: files above kWholeFileLimit,
// members above kMemberOutputLimit, and every member libdeflate rejects, so that a truncated
// or corrupt member gets zlib's diagnosis, after the same bytes, whichever inflater runs.
#include "corpus_bytes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef TCNUM_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tcnum {

const char* best_gzip_inflater() {
#ifdef TCNUM_HAVE_LIBDEFLATE
  return "libdeflate";
#else
  return "zlib";
#endif
}

namespace detail {
namespace {

constexpr std::size_t kReadChunk = std::size_t{1} << 17;
// A gzip file up to this size is read whole, for libdeflate; a larger one streams through zlib.
constexpr std::size_t kWholeFileLimit = std::size_t{64} << 20;
// libdeflate inflates a member into one buffer of at most this size. A larger member (or a
// hostile one: deflate expands up to 1032:1, and a member's ISIZE trailer can lie) streams
// through zlib in bounded memory instead.
constexpr std::size_t kMemberOutputLimit = std::size_t{128} << 20;
constexpr std::size_t kZlibOutputChunk = std::size_t{1} << 17;

bool gzip_magic(const unsigned char* p) { return p[0] == 0x1f && p[1] == 0x8b; }

// Uninitialised bytes that grow, keeping their first `keep`.
struct Buffer {
  std::unique_ptr<unsigned char[]> bytes;
  std::size_t capacity = 0;
  unsigned char* data() { return bytes.get(); }
  void reserve(std::size_t n, std::size_t keep = 0) {
    if (capacity >= n) return;
    const std::size_t grown = std::max(n, capacity * 2);
    auto fresh = std::make_unique_for_overwrite<unsigned char[]>(grown);
    if (keep) std::memcpy(fresh.get(), bytes.get(), keep);
    bytes = std::move(fresh);
    capacity = grown;
  }
};

// Replay reads file after file on a thread: each reader takes the buffers the last one left,
// instead of fresh pages (a page fault per 4 KiB). Up to kKeptBuffer bytes each are kept.
constexpr std::size_t kKeptBuffer = std::size_t{16} << 20;
thread_local Buffer spare_in, spare_out;

void give_back(Buffer& b, Buffer& spare) {
  if (b.capacity <= kKeptBuffer && b.capacity > spare.capacity) std::swap(b, spare);
}

}  // namespace

struct CorpusBytes::Impl {
  std::string path;
  GzipInflater inflater = GzipInflater::best;
  int fd = -1;
  bool started = false, file_end = false, gzip = false, done = false;
  bool whole_file = false;        // `in` holds the rest of the file (libdeflate's condition)
  Buffer in;                      // read, not yet consumed: [in_pos, in_end)
  std::size_t in_pos = 0, in_end = 0;
  std::uint64_t in_offset = 0;    // the file offset of in[0]
  int members = 0;                // gzip members finished
  std::string pending_error;  // found after output that was passed on first
  z_stream z{};
  bool z_ready = false, in_zlib_member = false;
  Buffer out;
#ifdef TCNUM_HAVE_LIBDEFLATE
  libdeflate_decompressor* deflater = nullptr;
#endif

  Impl() {
    std::swap(in, spare_in);
    std::swap(out, spare_out);
  }
  ~Impl() {
    give_back(in, spare_in);
    give_back(out, spare_out);
    if (z_ready) inflateEnd(&z);
#ifdef TCNUM_HAVE_LIBDEFLATE
    if (deflater) libdeflate_free_decompressor(deflater);
#endif
    if (fd >= 0) ::close(fd);
  }

  Result fail(std::string reason, std::string& why) {
    done = true;
    why = std::move(reason);
    return Result::error;
  }

  std::string member_name() const { return "gzip member " + std::to_string(members + 1); }

  // Reads up to `want` more bytes after in_end (fewer only at the end of the file).
  bool read_more(std::size_t want, std::string& why) {
    if (file_end) return true;
    if (in_pos > 0) {  // keep what is unconsumed, at the front
      std::memmove(in.data(), in.data() + in_pos, in_end - in_pos);
      in_offset += in_pos;
      in_end -= in_pos;
      in_pos = 0;
    }
    in.reserve(in_end + want, in_end);
    for (std::size_t got = 0; got < want;) {
      const ssize_t n = ::read(fd, in.data() + in_end, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::string("read error: ") + std::strerror(errno);
        return false;
      }
      if (n == 0) {
        file_end = true;
        break;
      }
      in_end += static_cast<std::size_t>(n);
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

  // The first bytes decide: gzip magic, or plain text. A gzip file that fits is read whole.
  bool start(std::string& why) {
    started = true;
    if (!read_more(kReadChunk, why)) return false;
    gzip = in_end >= 2 && gzip_magic(in.data());
#ifdef TCNUM_HAVE_LIBDEFLATE
    if (gzip && inflater == GzipInflater::best) {
      struct stat st {};
      std::size_t want = kReadChunk;
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0)
        want = std::max<std::size_t>(want, static_cast<std::size_t>(st.st_size) + 1);  // +1: sees the end
      while (!file_end && in_end < kWholeFileLimit)
        if (!read_more(std::min(want, kWholeFileLimit + 1 - in_end), why)) return false;
      whole_file = file_end;
      if (whole_file && !(deflater = libdeflate_alloc_decompressor())) throw std::bad_alloc();
    }
#endif
    return true;
  }

#ifdef TCNUM_HAVE_LIBDEFLATE
  enum class Whole { chunk, empty, use_zlib };
  // The member at in_pos in one call. The output size starts from the hints (the file's last
  // ISIZE, 4x the input) and doubles on "insufficient space" up to kMemberOutputLimit; beyond
  // it, or on bad data, zlib takes the member.
  Whole whole_member(std::string_view& chunk) {
    const unsigned char* src = in.data() + in_pos;
    const std::size_t avail = in_end - in_pos;
    // libdeflate skips a header CRC (FLG.FHCRC) unchecked, zlib checks it: such a member (gzip
    // never writes one) goes to zlib, so both inflaters accept and reject alike.
    if (avail >= 4 && src[0] == 0x1f && src[1] == 0x8b && (src[3] & 0x02) != 0) return Whole::use_zlib;
    std::size_t size = std::max<std::size_t>(std::size_t{1} << 16, std::min(avail, kMemberOutputLimit / 4) * 4);
    if (avail >= 18) {  // the smallest gzip member; ISIZE is only a hint (the last member's, and may lie)
      const unsigned char* t = in.data() + in_end - 4;
      const std::size_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (std::size_t{t[3]} << 24);
      if (isize <= kMemberOutputLimit && isize / 1032 <= avail) size = std::max(size, isize);
    }
    size = std::min(size, kMemberOutputLimit);
    while (true) {
      out.reserve(size);
      std::size_t used = 0, produced = 0;
      const auto r = libdeflate_gzip_decompress_ex(deflater, src, avail, out.data(), size, &used, &produced);
      if (r == LIBDEFLATE_SUCCESS) {
        in_pos += used;
        ++members;
        chunk = std::string_view(reinterpret_cast<char*>(out.data()), produced);
        return produced ? Whole::chunk : Whole::empty;
      }
      if (r != LIBDEFLATE_INSUFFICIENT_SPACE || size == kMemberOutputLimit) return Whole::use_zlib;
      size = std::min(size * 2, kMemberOutputLimit);
    }
  }
#endif

  enum class Stream { chunk, member_end, error };
  // Inflates the member that zlib is in until it gives output or ends.
  Stream zlib_step(std::string_view& chunk, std::string& why) {
    out.reserve(kZlibOutputChunk);
    while (true) {
      if (in_pos == in_end) {
        if (!read_more(kReadChunk, why)) return Stream::error;
        if (in_pos == in_end) {
          why = "read error: " + member_name() + " is truncated (the file ends inside it)";
          return Stream::error;
        }
      }
      const std::size_t avail = std::min<std::size_t>(in_end - in_pos, UINT_MAX);
      z.next_in = in.data() + in_pos;
      z.avail_in = static_cast<uInt>(avail);
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(kZlibOutputChunk);
      const int ret = inflate(&z, Z_NO_FLUSH);
      const std::size_t used = avail - z.avail_in, produced = kZlibOutputChunk - z.avail_out;
      in_pos += used;
      chunk = std::string_view(reinterpret_cast<char*>(out.data()), produced);
      if (ret == Z_STREAM_END) {
        in_zlib_member = false;
        ++members;
        return Stream::member_end;
      }
      if ((ret == Z_OK || ret == Z_BUF_ERROR) && (used > 0 || produced > 0)) {
        if (produced > 0) return Stream::chunk;
        continue;
      }
      // What inflated before the error is passed on first (the reader checks every line); the
      // error comes with the next call, wherever zlib's output chunks happen to end.
      const std::string reason =
          "read error: " + member_name() + " is corrupt (" + (z.msg ? std::string(z.msg) : "inflate: " + std::to_string(ret)) + ")";
      if (produced > 0) {
        pending_error = reason;
        return Stream::chunk;
      }
      why = reason;
      return Stream::error;
    }
  }

  void start_zlib_member() {
    if (!z_ready) {
      if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();  // 16+: gzip only
      z_ready = true;
    } else {
      inflateReset(&z);
    }
    in_zlib_member = true;
  }

  Result next_gzip(std::string_view& chunk, std::string& why) {
    if (!pending_error.empty()) return fail(pending_error, why);
    while (true) {
      if (in_zlib_member) {
        const Stream s = zlib_step(chunk, why);
        if (s == Stream::error) return fail(why, why);
        if (!chunk.empty()) return Result::chunk;
        continue;  // the member ended without more output
      }
      // At a member boundary: the end of the file, another member, or data that is not gzip.
      if (in_end - in_pos < 2 && !read_more(kReadChunk, why)) return fail(why, why);
      if (in_pos == in_end) {
        done = true;
        return Result::end;
      }
      if (in_end - in_pos < 2 || !gzip_magic(in.data() + in_pos))
        return fail("read error: the bytes after gzip member " + std::to_string(members) + " (from byte " +
                        std::to_string(in_offset + in_pos) + ") are not gzip data",
                    why);
#ifdef TCNUM_HAVE_LIBDEFLATE
      if (whole_file) {
        const Whole w = whole_member(chunk);
        if (w == Whole::chunk) return Result::chunk;
        if (w == Whole::empty) continue;
      }
#endif
      start_zlib_member();
    }
  }
};

CorpusBytes::CorpusBytes(const std::string& path, GzipInflater inflater) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl_->fd < 0) throw std::runtime_error("cannot open corpus file '" + path + "'");
  impl_->z.zalloc = Z_NULL;
  impl_->z.zfree = Z_NULL;
  impl_->z.opaque = Z_NULL;
  impl_->inflater = inflater;
}

CorpusBytes::~CorpusBytes() = default;

CorpusBytes::Result CorpusBytes::next(std::string_view& chunk, std::string& why) {
  Impl& s = *impl_;
  if (s.done) return Result::end;
  if (!s.started && !s.start(why)) return s.fail(why, why);
  if (s.gzip) return s.next_gzip(chunk, why);
  if (s.in_pos == s.in_end && !s.read_more(kReadChunk, why)) return s.fail(why, why);
  if (s.in_pos == s.in_end) {
    s.done = true;
    return Result::end;
  }
  chunk = std::string_view(reinterpret_cast<const char*>(s.in.data()) + s.in_pos, s.in_end - s.in_pos);
  s.in_pos = s.in_end;
  return Result::chunk;
}

}  // namespace detail
}  // namespace tcnum
