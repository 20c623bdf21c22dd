// Gzip corpora through both inflaters (libdeflate's whole members where built with it, zlib's
// stream): several members, truncation, corruption, a lying ISIZE, data after the last member,
// empty files and members, a member too large for one buffer. Each input is read by both and
// must give the same cases and the same errors; each test also states what that result is.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"

using namespace tcnum;

namespace {

// Unique per process: several checkouts may run this suite at once on one machine.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "tcnum_gzip_" + std::to_string(::getpid()) + "_" + name;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Case i: 1·1 + 1·2 + C with C = i, so D = i + 3 (exact in fp32 for these sizes).
std::string case_line(int i) {
  return "sm_90 mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 " +
         hex32(std::bit_cast<std::uint32_t>(static_cast<float>(i))) + " " +
         hex32(std::bit_cast<std::uint32_t>(static_cast<float>(i + 3)));
}

std::string lines(int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i) s += case_line(i) + "\n";
  return s;
}

// One gzip member holding `text`.
std::string gzip_member(const std::string& text, int level = 6) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int ret = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (ret != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(z.total_out);
  return out;
}

std::string write_bytes(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Everything a reader returns, in order: "case LINE C D" or "malformed LINE REASON".
struct Outcome {
  std::vector<std::string> events;
  int cases = 0, malformed = 0, read_errors = 0;
  std::string last_reason;
};

Outcome read_all(const std::string& path, GzipInflater inflater) {
  Outcome o;
  CorpusReader reader(path, inflater);
  CorpusCase k;
  std::string why;
  for (int calls = 0; calls < 10'000'000; ++calls) {
    const auto st = reader.next(k, why);
    if (st == CorpusReader::Status::end) break;
    const std::string line = std::to_string(reader.line_number());
    if (st == CorpusReader::Status::case_read) {
      ++o.cases;
      o.events.push_back("case " + line + " " + hex32(k.c) + " " + hex32(k.d));
    } else {
      ++o.malformed;
      o.read_errors += why.find("read error") != std::string::npos;
      o.last_reason = why;
      o.events.push_back("malformed " + line + " " + why);
    }
  }
  return o;
}

// Reads with both inflaters, checks they agree, returns the outcome.
Outcome read_both(const std::string& path) {
  const Outcome best = read_all(path, GzipInflater::best), zlib = read_all(path, GzipInflater::zlib);
  EXPECT_EQ(best.events, zlib.events) << path << " (best inflater: " << best_gzip_inflater() << ")";
  return best;
}

}  // namespace

TEST(CorpusGzip, TheBestInflaterIsLibdeflateWhereBuiltWithIt) {
#ifdef TCNUM_TEST_HAVE_LIBDEFLATE
  EXPECT_STREQ(best_gzip_inflater(), "libdeflate");
#else
  EXPECT_STREQ(best_gzip_inflater(), "zlib");
#endif
}

// Members end anywhere, even inside a line; an empty member in between is nothing.
TEST(CorpusGzip, SeveralMembersReadAsOneText) {
  const std::string text = lines(0, 300);
  const std::size_t cut = text.size() / 3 + 17;  // inside a line
  const std::string path = write_bytes(
      "members.tcc.gz", gzip_member(text.substr(0, cut)) + gzip_member("") + gzip_member(text.substr(cut), 9));
  const Outcome o = read_both(path);
  EXPECT_EQ(o.cases, 300);
  EXPECT_EQ(o.malformed, 0) << o.last_reason;
  ASSERT_EQ(o.events.size(), 300u);
  EXPECT_EQ(o.events[299], "case 300 " + hex32(std::bit_cast<std::uint32_t>(299.0f)) + " " +
                               hex32(std::bit_cast<std::uint32_t>(302.0f)));
  std::remove(path.c_str());
}

// A first member far larger than the last member's ISIZE (the only size hint): the buffer grows.
TEST(CorpusGzip, AMemberLargerThanItsSizeHintIsReadWhole) {
  const std::string big = lines(0, 20000), small = lines(20000, 1);
  const std::string path = write_bytes("hint.tcc.gz", gzip_member(big, 9) + gzip_member(small));
  const Outcome o = read_both(path);
  EXPECT_EQ(o.cases, 20001);
  EXPECT_EQ(o.malformed, 0) << o.last_reason;
  std::remove(path.c_str());
}

// Cut anywhere after the magic bytes: a read error, never a silently shorter corpus.
TEST(CorpusGzip, ATruncatedFileIsAReadErrorWhereverItIsCut) {
  const std::string whole = gzip_member(lines(0, 40)) + gzip_member(lines(40, 40));
  const std::size_t first_member = gzip_member(lines(0, 40)).size();
  for (std::size_t size = 2; size < whole.size(); ++size) {
    if (size == first_member) continue;  // a whole gzip file of one member
    const std::string path = write_bytes("cut.tcc.gz", whole.substr(0, size));
    const Outcome o = read_both(path);
    EXPECT_EQ(o.read_errors, 1) << "cut at " << size;
    EXPECT_LE(o.cases, 80) << "cut at " << size;  // all 80 when the cut is in the last trailer
    EXPECT_FALSE(o.events.empty() || o.events.back().rfind("malformed", 0) != 0) << "cut at " << size;
  }
  std::remove(temp_path("cut.tcc.gz").c_str());
}

// Any byte changed after the 10-byte header (deflate data, CRC-32, ISIZE) is a read error.
TEST(CorpusGzip, AnyChangedByteOfDataOrTrailerIsAReadError) {
  const std::string good = gzip_member(lines(0, 30));
  for (std::size_t at = 10; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    const std::string path = write_bytes("corrupt.tcc.gz", bad);
    const Outcome o = read_both(path);
    EXPECT_EQ(o.read_errors, 1) << "byte " << at;
    EXPECT_LE(o.cases, 30) << "byte " << at;
  }
  std::remove(temp_path("corrupt.tcc.gz").c_str());
}

// ISIZE (the last 4 bytes) too small, too large or absurd: the data is read, then the length
// check fails with a read error naming the member.
TEST(CorpusGzip, ALyingIsizeIsAReadErrorAfterTheData) {
  const std::string good = gzip_member(lines(0, 50));
  std::uint32_t isize = 0;
  std::memcpy(&isize, good.data() + good.size() - 4, 4);
  for (const std::uint32_t lie : {isize - 1, isize + 1, 0u, isize * 1000, 0xffffffffu}) {
    std::string bad = good;
    std::memcpy(bad.data() + bad.size() - 4, &lie, 4);
    const std::string path = write_bytes("isize.tcc.gz", bad);
    const Outcome o = read_both(path);
    EXPECT_EQ(o.cases, 50) << "ISIZE " << lie;
    EXPECT_EQ(o.read_errors, 1) << "ISIZE " << lie;
    EXPECT_NE(o.last_reason.find("gzip member 1 is corrupt"), std::string::npos) << o.last_reason;
  }
  std::remove(temp_path("isize.tcc.gz").c_str());
}

// zlib's gzread ignored what followed the last member; now it is an error (nothing is dropped
// silently), after every case of the members before it.
TEST(CorpusGzip, DataAfterTheLastMemberIsAReadError) {
  for (const std::string& tail : {std::string("x"), std::string(100, '\0'), lines(100, 2), std::string("\x1f")}) {
    const std::string path = write_bytes("tail.tcc.gz", gzip_member(lines(0, 20)) + tail);
    const Outcome o = read_both(path);
    EXPECT_EQ(o.cases, 20);
    EXPECT_EQ(o.read_errors, 1);
    EXPECT_NE(o.last_reason.find("after gzip member 1 (from byte"), std::string::npos) << o.last_reason;
  }
  std::remove(temp_path("tail.tcc.gz").c_str());
}

TEST(CorpusGzip, EmptyFilesAndEmptyMembersHoldNothing) {
  for (const std::string& bytes : {std::string(), gzip_member(""), gzip_member("") + gzip_member("")}) {
    const std::string path = write_bytes("empty.tcc.gz", bytes);
    const Outcome o = read_both(path);
    EXPECT_TRUE(o.events.empty()) << bytes.size() << " bytes: " << o.last_reason;
  }
  std::remove(temp_path("empty.tcc.gz").c_str());
}

// A member above the whole-member buffer's limit (128 MiB) streams through zlib: here a line
// of 130 MiB after a case, which the line limit then rejects, as for a plain file.
TEST(CorpusGzip, AMemberTooLargeForOneBufferStreams) {
  const std::string path =
      write_bytes("large.tcc.gz", gzip_member(lines(0, 1)) + gzip_member(std::string(std::size_t{130} << 20, 'a'), 1));
  const Outcome o = read_both(path);
  EXPECT_EQ(o.cases, 1);
  EXPECT_EQ(o.malformed, 1);
  EXPECT_NE(o.last_reason.find("line longer than"), std::string::npos) << o.last_reason;
  std::remove(path.c_str());
}

// replay_file reads through the same inflater and numbers lines across members.
TEST(CorpusGzip, ReplayCountsEveryMemberAndNumbersLinesAcrossThem) {
  const std::string mismatch = case_line(7).substr(0, case_line(7).size() - 1) + "1";
  const std::string path = write_bytes("replay.tcc.gz", gzip_member(lines(0, 1000)) + gzip_member("# note\n" + mismatch + "\n") +
                                                            gzip_member(lines(1000, 500)));
  std::vector<std::size_t> issue_lines;
  const ReplayTally t = replay_file(path, nullptr, [&](const ReplayIssue& is) {
    EXPECT_FALSE(is.malformed) << is.reason;
    issue_lines.push_back(is.line);
  });
  EXPECT_EQ(t.passed, 1500u);
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(issue_lines, std::vector<std::size_t>{1002});
  std::remove(path.c_str());
}
