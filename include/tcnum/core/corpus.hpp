// Corpus files (.tcc / .tcc.gz): one device-recorded case per line, see docs/corpus-format.md.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// One corpus line: an Observation (a, b, c, block scales, d) and where it was made.
struct CorpusCase : Observation {
  std::string arch;  // as written, e.g. "sm_90"
  int sm = 0;
  Instruction instruction;
};

// Parses one case line; on failure returns nullopt and sets `why`.
std::optional<CorpusCase> parse_case_line(const std::string& line, std::string& why);
// A block-scaled instruction's line also takes its scale vectors (two more fields, after D);
// throws std::invalid_argument when their count is not in.scales_per_row() (0 without scaling).
// A sparse instruction's line takes its in.a_elements() stored A elements and its metadata (one
// more field, after D); invalid metadata throws (sparse.hpp).
std::string format_case_line(const std::string& arch, const Instruction& in, const std::vector<std::uint32_t>& a,
                             const std::vector<std::uint32_t>& b, std::uint32_t c, std::uint32_t d,
                             const std::vector<std::uint32_t>& scale_a = {},
                             const std::vector<std::uint32_t>& scale_b = {},
                             const std::vector<std::uint8_t>& meta = {});
std::string hex_field(Format f, std::uint32_t bits);

// The longest line a corpus may hold (cases are under 1 KiB); a longer line, a NUL byte or a
// read error is reported once (malformed, with its line number) and ends the file.
inline constexpr std::size_t kMaxCorpusLineBytes = std::size_t{1} << 20;

// How gzip files are inflated. `best`: whole members through libdeflate where tcnum was built
// with it (see best_gzip_inflater()), zlib's stream otherwise; `zlib`: always zlib's stream.
// Both give the same lines and the same errors (a member libdeflate cannot take in bounded
// memory, or rejects, goes to zlib).
enum class GzipInflater { best, zlib };
const char* best_gzip_inflater();  // "libdeflate" or "zlib"

// Reads plain or gzip-compressed files alike (gzip: the file starts with 1f 8b; any number of
// members), as bytes. A truncated or corrupt member, or data after the last member that is not
// gzip, is a read error: reported once (malformed), it ends the file.
class CorpusReader {
 public:
  // Throws std::runtime_error if the file cannot be opened.
  explicit CorpusReader(const std::string& path, GzipInflater inflater = GzipInflater::best);
  ~CorpusReader();
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  enum class Status { case_read, malformed, end };
  // Skips comments and blank lines. On `malformed`, `why` holds the reason.
  Status next(CorpusCase& out, std::string& why);
  std::size_t line_number() const { return line_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::size_t line_ = 0;
};

// Writes plain text, or gzip when the path ends in ".gz".
class CorpusWriter {
 public:
  explicit CorpusWriter(const std::string& path, bool append = false);
  ~CorpusWriter();
  CorpusWriter(const CorpusWriter&) = delete;
  CorpusWriter& operator=(const CorpusWriter&) = delete;
  // Each throws std::runtime_error on a write error (e.g. a full disk).
  void comment(const std::string& text);
  void write(const std::string& line);
  void flush();
  // Flushes and closes, reporting errors that only closing reveals; call it before saying
  // "written" (the destructor closes silently, keeping what was written).
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Replay: every case evaluated with the built-in model of its arch, or `override_model`.
struct ReplayIssue {
  std::string file;
  std::size_t line = 0;
  bool malformed = false;
  std::string reason;    // malformed: why; mismatch: empty
  std::optional<CorpusCase> kase;
  std::uint32_t emulated = 0;
};

struct ReplayTally {
  std::size_t passed = 0, failed = 0;
};

ReplayTally replay_file(const std::string& path, const Model* override_model,
                        const std::function<void(const ReplayIssue&)>& on_issue);

}  // namespace tcnum
