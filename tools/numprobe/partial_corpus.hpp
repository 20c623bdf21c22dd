// A corpus that a long command writes chunk by chunk (numprobe record). Nothing half-written is
// ever left at the target, nothing existing is overwritten silently, and a killed run resumes.
//  * The cases go to the target's partial file (x.tcc -> x.tcc.partial, x.tcc.gz ->
//    x.tcc.partial.gz); each chunk ends with a "# done: NAME; crc32 HEX over N cases" line and a
//    flush; commit() closes it and renames it to the target. A resume verifies each finished
//    chunk's CRC (a gzip partial file is one unfinished member: zlib checks no CRC of it) and
//    refuses a damaged one.
//  * One process per target: an exclusive lock on x.tcc.lock (tcnum/fuzz/output_lock.hpp), held
//    until the object is destroyed; a second recording of the same target is refused.
//  * A partial file that --force discards is unlinked, never written through (a symlink's
//    target is left alone).
//  * An existing target is refused unless `overwrite` (--force). So is the partial file of an
//    earlier run, unless `resume` (its finished chunks are kept, an unfinished tail is dropped)
//    or `overwrite` (it is discarded).
//  * The partial file records "# record: KEY"; a resume must give the same key (same options,
//    same device), else nothing is touched.
//  * A target that exists and is not a regular file (/dev/null, /dev/full) is written in place.
// Nothing is created before the first write, so a run that fails early leaves no file.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/fuzz/output_lock.hpp"

namespace numprobe {

class PartialCorpus {
 public:
  // Throws std::runtime_error for an existing target or partial file (see above), a partial
  // file of another key, or --resume with no partial file.
  PartialCorpus(const std::string& target, const std::string& key, bool overwrite, bool resume);
  ~PartialCorpus();  // without commit(): the partial file stays, with its finished chunks

  const std::string& partial_path() const { return partial_; }
  bool in_place() const { return in_place_; }
  bool resumed() const { return !kept_lines_.empty(); }
  std::size_t resumed_cases() const { return kept_cases_; }
  bool done(const std::string& chunk) const { return done_.count(chunk) != 0; }

  void comment(const std::string& text);
  // Writes a chunk's lines and its "# done" line and flushes them (std::runtime_error on a write
  // error: the partial file keeps the chunks finished before).
  void write_chunk(const std::string& chunk, const std::vector<std::string>& lines);
  void commit();  // std::runtime_error on a write, close or rename error

 private:
  void open();
  void keep_finished_chunks(const std::vector<std::string>& lines);
  std::string target_, partial_, key_;
  std::unique_ptr<tcnum::fuzz::OutputLock> lock_;
  bool in_place_ = false;
  std::vector<std::string> kept_lines_;  // of a resumed partial file, up to its last finished chunk
  std::size_t kept_cases_ = 0;
  std::set<std::string> done_;
  std::unique_ptr<tcnum::CorpusWriter> writer_;
};

}  // namespace numprobe
