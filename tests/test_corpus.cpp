// Corpus lines and files: parsing, errors that name the reason, gzip round trip, replay tally.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"

using namespace tcnum;

namespace {

const std::string kGood =
    "sm_90 mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 "
    "3f800000 40800000";

// Unique per process: several checkouts may run this suite at once on one machine.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "tcnum_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace

TEST(CorpusLine, ParsesTheDocumentedExample) {
  std::string why;
  const auto k = parse_case_line(kGood, why);
  ASSERT_TRUE(k) << why;
  EXPECT_EQ(k->sm, 90);
  EXPECT_EQ(k->instruction.k, 8);
  EXPECT_EQ(k->a[0], 0x3c00u);
  EXPECT_EQ(k->b[1], 0x4000u);
  EXPECT_EQ(k->c, 0x3f800000u);
  EXPECT_EQ(k->d, 0x40800000u);
  EXPECT_EQ(format_case_line(k->arch, k->instruction, k->a, k->b, k->c, k->d), kGood);
}

TEST(CorpusLine, MalformedLinesSayWhy) {
  const std::pair<std::string, std::string> cases[] = {
      {"sm_90 mma.m16n8k8.f32.f16.f16.f32 3c00", "6 fields"},
      {"sm_42 mma.m16n8k8.f32.f16.f16.f32 a b c d", "unknown architecture"},
      {"sm_90 mma.m16n8k9.f32.f16.f16.f32 a b c d", "not available on sm_90"},
      {"sm_70 wgmma.m64n8k16.f32.f16.f16 a b c d", "not available on sm_70"},
      {kGood.substr(0, kGood.size() - 1), "D: expected 1 x 8 hex digits"},
      {"sm_90 mma.m16n8k8.f32.f16.f16.f32 3C003c00000000000000000000000000 3c004000000000000000000000000000 "
       "3f800000 40800000",
       "not a lowercase hex digit"},
      {"sm_90  mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 "
       "3f800000 40800000",
       "6 fields"},
  };
  for (const auto& [line, reason] : cases) {
    std::string why;
    EXPECT_FALSE(parse_case_line(line, why)) << line;
    EXPECT_NE(why.find(reason), std::string::npos) << "line: " << line << "\nwhy: " << why;
  }
}

TEST(CorpusFile, GzipRoundTripAndReplayTally) {
  const std::string path = temp_path("roundtrip.tcc.gz");
  {
    CorpusWriter w(path);
    w.comment("a comment\nof two lines");
    w.write(kGood);
    w.write("");
    w.write("sm_90 bogus 1 2 3 4");
    w.write(kGood.substr(0, kGood.size() - 1) + "1");  // a wrong D: a mismatch, not malformed
  }
  std::size_t malformed_line = 0, mismatch_line = 0;
  const ReplayTally t = replay_file(path, nullptr, [&](const ReplayIssue& is) {
    (is.malformed ? malformed_line : mismatch_line) = is.line;
  });
  EXPECT_EQ(t.passed, 1u);
  EXPECT_EQ(t.failed, 2u);
  EXPECT_EQ(malformed_line, 5u);  // two comment lines, the case, a blank line, then the bad one
  EXPECT_EQ(mismatch_line, 6u);
  std::remove(path.c_str());
}

TEST(CorpusFile, TruncatedGzipIsReportedOnceAndEnds) {
  const std::string full = temp_path("full.tcc.gz"), cut = temp_path("cut.tcc.gz");
  {
    CorpusWriter w(full);
    for (int i = 0; i < 2000; ++i) w.write(kGood);
  }
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 40u);
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  int read_errors = 0;
  const ReplayTally t = replay_file(cut, nullptr, [&](const ReplayIssue& is) {
    if (is.malformed && is.reason.find("read error") != std::string::npos) ++read_errors;
  });
  EXPECT_EQ(read_errors, 1);
  EXPECT_GE(t.failed, 1u);
  EXPECT_LT(t.passed, 2000u);
  std::remove(full.c_str());
  std::remove(cut.c_str());
}

TEST(CorpusFile, UnreadableFileThrows) {
  EXPECT_THROW(CorpusReader("/nonexistent/tcnum.tcc"), std::runtime_error);
}

namespace {

std::string write_bytes(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

struct Replayed {
  ReplayTally tally;
  std::vector<ReplayIssue> issues;
};

Replayed replay(const std::string& path) {
  Replayed r;
  r.tally = replay_file(path, nullptr, [&](const ReplayIssue& is) { r.issues.push_back(is); });
  return r;
}

}  // namespace

// Before: the NUL ended the C string, the mismatching case was glued onto the comment and
// the file replayed as "1 passed, 0 failed".
TEST(CorpusFile, ANulByteIsReportedWithItsLineAndEndsTheFile) {
  const std::string mismatch = kGood.substr(0, kGood.size() - 1) + "1";
  const std::string path =
      write_bytes("nul.tcc", kGood + "\n# header" + std::string(1, '\0') + "\n" + mismatch + "\n" + kGood + "\n");
  const auto r = replay(path);
  EXPECT_EQ(r.tally.passed, 1u);
  EXPECT_EQ(r.tally.failed, 1u);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_TRUE(r.issues[0].malformed);
  EXPECT_EQ(r.issues[0].line, 2u);
  EXPECT_NE(r.issues[0].reason.find("NUL byte"), std::string::npos) << r.issues[0].reason;
  std::remove(path.c_str());
}

// Before: a 20 MiB line of spaces was split into 20 M fields (over 1 GB) before their count
// was checked.
TEST(CorpusFile, AnOverLongLineIsReportedAndEndsTheFile) {
  const std::string path = write_bytes("long.tcc", kGood + "\n" + std::string(kMaxCorpusLineBytes + 1, ' ') + "\n" + kGood + "\n");
  const auto r = replay(path);
  EXPECT_EQ(r.tally.passed, 1u);
  EXPECT_EQ(r.tally.failed, 1u);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].line, 2u);
  EXPECT_NE(r.issues[0].reason.find("longer than 1048576 bytes"), std::string::npos) << r.issues[0].reason;
  std::remove(path.c_str());
}

TEST(CorpusFile, ALineOfExactlyTheLimitIsParsedNotRejected) {
  const std::string path = write_bytes("limit.tcc", std::string(kMaxCorpusLineBytes, ' ') + "\n");
  const auto r = replay(path);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_NE(r.issues[0].reason.find("expected 6 fields"), std::string::npos) << r.issues[0].reason;
  std::remove(path.c_str());
}

TEST(CorpusFile, CrlfAndAMissingFinalNewlineAreAccepted) {
  const std::string path = write_bytes("crlf.tcc", "# c\r\n" + kGood + "\r\n" + kGood);
  const auto r = replay(path);
  EXPECT_EQ(r.tally.passed, 2u);
  EXPECT_EQ(r.tally.failed, 0u);
  std::remove(path.c_str());
}

TEST(CorpusLine, FieldsAreCountedBeforeSplitting) {
  std::string why;
  EXPECT_FALSE(parse_case_line(std::string(1000, ' '), why));
  EXPECT_NE(why.find("got 1001"), std::string::npos) << why;
}

// Before: errors that only closing reveals (a full disk behind stdio's or gzip's buffer) were
// ignored and the caller said "written".
TEST(CorpusFile, AWriteErrorOnCloseIsReported) {
  CorpusWriter full("/dev/full");
  full.write(kGood);
  EXPECT_THROW(full.close(), std::runtime_error);
  CorpusWriter ok(temp_path("closed.tcc"));
  ok.write(kGood);
  EXPECT_NO_THROW(ok.close());
  EXPECT_THROW(ok.write(kGood), std::logic_error);
  std::remove(temp_path("closed.tcc").c_str());
}

// Every instruction of every architecture: random raw operands (each format's storage bits)
// format to a line that parses back to them (every hex width, whole 8-digit words and the
// digits after them); a byte that is not a lowercase hex digit, anywhere in an operand field,
// is rejected and named. The bytes are the neighbours of the digit ranges and non-ASCII ones.
TEST(CorpusLine, EveryInstructionRoundTripsAndRejectsANonHexByteAnywhere) {
  std::mt19937 rng(9);
  const std::string bad = std::string("/:@`gAF\x80\xff") + '\0';
  std::size_t instructions = 0, rejected = 0;
  for (const int sm : known_archs()) {
    for (const Instruction& in : instructions_for(sm)) {
      auto raw = [&](Format f, int n) {
        std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
        for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & storage_mask(f);
        return v;
      };
      const auto a = raw(in.a_type, in.k), b = raw(in.b_type, in.k), c = raw(in.c_type, 1), d = raw(in.d_type, 1);
      const auto sa = raw(in.scale_type, in.scales_per_row()), sb = raw(in.scale_type, in.scales_per_row());
      const std::string arch = arch_name(sm);
      const std::string line = format_case_line(arch, in, a, b, c[0], d[0], sa, sb);
      std::string why;
      const auto k = parse_case_line(line, why);
      ASSERT_TRUE(k) << line << ": " << why;
      EXPECT_EQ(k->a, a) << line;
      EXPECT_EQ(k->b, b) << line;
      EXPECT_EQ(k->c, c[0]) << line;
      EXPECT_EQ(k->d, d[0]) << line;
      EXPECT_EQ(k->scale_a, sa) << line;
      EXPECT_EQ(k->scale_b, sb) << line;
      EXPECT_EQ(k->instruction.name, in.name);
      ++instructions;
      const std::size_t operands = line.find(' ', line.find(' ') + 1) + 1;
      for (std::size_t at = operands; at < line.size(); ++at) {
        if (line[at] == ' ') continue;
        std::string broken = line;
        broken[at] = bad[at % bad.size()];
        const bool parsed = parse_case_line(broken, why).has_value();
        EXPECT_FALSE(parsed) << "byte " << at << " of " << line;
        EXPECT_NE(why.find("is not a lowercase hex digit"), std::string::npos) << why;
        rejected += !parsed;
      }
    }
  }
  EXPECT_GT(instructions, 500u);
  EXPECT_GT(rejected, 100000u);
}

// Replay batches runs of one instruction: lines that alternate between instructions (and an
// unknown one) are each evaluated with their own plan, and issues come in line order.
TEST(CorpusFile, AlternatingInstructionsReplayInLineOrder) {
  const std::string bf16 = "sm_90 mma.m16n8k16.f32.bf16.bf16.f32 3f803f80" + std::string(56, '0') + " 3f804000" +
                           std::string(56, '0') + " 3f800000 40800000";  // 1·1 + 1·2 + 1 = 4
  auto wrong = [](const std::string& line) { return line.substr(0, line.size() - 1) + "1"; };
  const std::string path = temp_path("alternating.tcc");
  {
    CorpusWriter w(path);
    for (const std::string& line : {kGood, bf16, wrong(kGood), bf16, std::string("sm_90 mma.bogus 1 2 3 4"), wrong(bf16),
                                    kGood, bf16})
      w.write(line);
  }
  std::vector<std::size_t> lines;
  std::vector<bool> malformed;
  const ReplayTally t = replay_file(path, nullptr, [&](const ReplayIssue& is) {
    lines.push_back(is.line);
    malformed.push_back(is.malformed);
    if (!is.malformed) EXPECT_EQ(is.kase->instruction.name, (is.line == 3 ? "mma.m16n8k8.f32.f16.f16.f32" : "mma.m16n8k16.f32.bf16.bf16.f32"));
  });
  EXPECT_EQ(t.passed, 5u);
  EXPECT_EQ(t.failed, 3u);
  EXPECT_EQ(lines, (std::vector<std::size_t>{3, 5, 6}));
  EXPECT_EQ(malformed, (std::vector<bool>{false, true, false}));
  std::remove(path.c_str());
}
