#include "partial_corpus.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace numprobe {
namespace {

const std::string kDone = "# done: ";
const std::string kCrc = "; crc32 ";
const std::string kKey = "# record: ";

bool is_case(const std::string& line) { return !line.empty() && line[0] != '#'; }

// The check of a chunk: CRC-32 over its case lines, each with its '\n', and their count.
std::string chunk_check(const std::vector<std::string>::const_iterator first, const std::vector<std::string>::const_iterator last) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t n = 0;
  for (auto it = first; it != last; ++it) {
    if (!is_case(*it)) continue;
    crc = crc32(crc, reinterpret_cast<const Bytef*>(it->data()), static_cast<uInt>(it->size()));
    crc = crc32(crc, reinterpret_cast<const Bytef*>("\n"), 1);
    ++n;
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));
  return std::string(hex) + " over " + std::to_string(n) + " cases";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// x.tcc -> x.tcc<suffix>, x.tcc.gz -> x.tcc<suffix>.gz (CorpusWriter picks gzip by ".gz").
std::string beside(const std::string& target, const std::string& suffix) {
  if (ends_with(target, ".gz")) return target.substr(0, target.size() - 3) + suffix + ".gz";
  return target + suffix;
}

bool exists(const std::string& path, struct stat* st) { return ::stat(path.c_str(), st) == 0; }

// The complete lines of a file that a killed writer may have cut anywhere, even inside a gzip
// stream: reading stops at the first line without its '\n' or at a read error.
std::vector<std::string> complete_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
  std::vector<std::string> lines;
  std::vector<char> buf(tcnum::kMaxCorpusLineBytes + 2);
  while (gzgets(f, buf.data(), static_cast<int>(buf.size())) != nullptr) {
    std::string line(buf.data());
    if (line.empty() || line.back() != '\n') break;
    line.pop_back();
    lines.push_back(std::move(line));
  }
  gzclose(f);
  return lines;
}

}  // namespace

PartialCorpus::PartialCorpus(const std::string& target, const std::string& key, bool overwrite, bool resume)
    : target_(target), partial_(beside(target, ".partial")), key_(key) {
  struct stat st {};
  if (exists(target, &st) && !S_ISREG(st.st_mode)) {
    if (resume) throw std::runtime_error("--resume needs a regular file; '" + target + "' is not one");
    in_place_ = true;
    return;
  }
  if (exists(target, &st) && !overwrite) throw std::runtime_error("'" + target + "' exists; give --force to overwrite it");
  lock_ = std::make_unique<tcnum::fuzz::OutputLock>(target + ".lock", "the recording of '" + target + "'");
  const bool partial_exists = ::lstat(partial_.c_str(), &st) == 0;
  if (resume && !partial_exists)
    throw std::runtime_error("--resume: no interrupted recording to resume ('" + partial_ + "' does not exist)");
  if (partial_exists && overwrite && !resume && std::remove(partial_.c_str()) != 0)  // a symlink: the link only
    throw std::runtime_error("cannot remove '" + partial_ + "': " + std::strerror(errno));
  if (!partial_exists || (overwrite && !resume)) return;
  if (!resume)
    throw std::runtime_error("'" + partial_ + "' holds an interrupted recording; give --resume to continue it "
                             "(same options) or --force to discard it");
  keep_finished_chunks(complete_lines(partial_));
}

// Keeps the lines up to the last "# done" line, each finished chunk verified against its check.
void PartialCorpus::keep_finished_chunks(const std::vector<std::string>& lines) {
  std::size_t keep = 0;  // lines up to and including the last "# done" line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind(kKey, 0) == 0 && lines[i] != kKey + key_)
      throw std::runtime_error("--resume: '" + partial_ + "' was recorded by another command or device:\n  " +
                               lines[i].substr(kKey.size()) + "\nnot\n  " + key_);
    if (lines[i].rfind(kDone, 0) != 0) continue;
    const std::size_t at = lines[i].find(kCrc);
    const std::string chunk = lines[i].substr(kDone.size(), at == std::string::npos ? std::string::npos : at - kDone.size());
    const auto first = lines.begin() + static_cast<std::ptrdiff_t>(keep), last = lines.begin() + static_cast<std::ptrdiff_t>(i);
    if (at == std::string::npos || lines[i].substr(at + kCrc.size()) != chunk_check(first, last))
      throw std::runtime_error("--resume: '" + partial_ + "' is damaged: its finished chunk '" + chunk +
                               "' fails its check (" + (at == std::string::npos ? "none recorded" : "crc32 " + chunk_check(first, last) +
                               ", recorded " + lines[i].substr(at + kCrc.size())) +
                               "); nothing was changed: record again with --force");
    done_.insert(chunk);
    keep = i + 1;
  }
  kept_lines_.assign(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(keep));
  for (const std::string& l : kept_lines_) kept_cases_ += is_case(l);
}

PartialCorpus::~PartialCorpus() {  // CorpusWriter's destructor keeps what was written
  writer_.reset();
  if (lock_) lock_->release_and_remove();
}

void PartialCorpus::open() {
  if (writer_) return;
  if (in_place_) {
    writer_ = std::make_unique<tcnum::CorpusWriter>(target_);
    return;
  }
  if (kept_lines_.empty()) {
    writer_ = std::make_unique<tcnum::CorpusWriter>(partial_);
    writer_->comment(kKey.substr(2) + key_);
    return;
  }
  // Resuming: the finished chunks go to a scratch file, which then replaces the partial file
  // in one rename; a kill at any point leaves one of the two complete.
  const std::string scratch = beside(target_, ".partial.new");
  std::remove(scratch.c_str());  // a leftover (or a symlink) is replaced, never written through
  writer_ = std::make_unique<tcnum::CorpusWriter>(scratch);
  for (const std::string& l : kept_lines_) writer_->write(l);
  writer_->flush();
  if (std::rename(scratch.c_str(), partial_.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + scratch + "' to '" + partial_ + "': " + std::strerror(errno));
}

void PartialCorpus::comment(const std::string& text) {
  open();
  writer_->comment(text);
}

void PartialCorpus::write_chunk(const std::string& chunk, const std::vector<std::string>& lines) {
  open();
  for (const std::string& l : lines) writer_->write(l);
  writer_->write(kDone + chunk + kCrc + chunk_check(lines.begin(), lines.end()));
  writer_->flush();
  done_.insert(chunk);
}

void PartialCorpus::commit() {
  open();
  writer_->close();
  if (!in_place_ && std::rename(partial_.c_str(), target_.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + partial_ + "' to '" + target_ + "': " + std::strerror(errno));
}

}  // namespace numprobe
