// The bytes of a corpus file after decompression, chunk by chunk (internal to the corpus
// reader). A plain file is passed through as read; a gzip file (it starts with 1f 8b) is
// inflated member by member. See docs/robustness.md, "The corpus reader".
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "tcnum/core/corpus.hpp"

namespace tcnum::detail {

class CorpusBytes {
 public:
  CorpusBytes(const std::string& path, GzipInflater inflater);  // throws std::runtime_error if unopenable
  ~CorpusBytes();
  CorpusBytes(const CorpusBytes&) = delete;
  CorpusBytes& operator=(const CorpusBytes&) = delete;

  enum class Result { chunk, end, error };
  // The next chunk (valid until the next call; never empty). On `error` `why` says what was
  // wrong (a read error, a truncated or corrupt gzip member, data after the last member) and
  // every later call returns `end`.
  Result next(std::string_view& chunk, std::string& why);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tcnum::detail
