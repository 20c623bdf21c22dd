// libFuzzer: whole corpus files (plain or gzip) through CorpusReader. Besides "no crash, no
// leak, no UB": the reader ends (a bounded number of calls), line numbers never go back, every
// case it returns formats back to a line that parses to the same case, and both gzip inflaters
// (libdeflate where built with it, zlib) give the same cases and errors.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tcnum/core/corpus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = [] {
    char name[] = "/tmp/tcnum_fuzz_corpus_XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(name);
  }();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();

  // Every event in order, for both inflaters (libdeflate's whole members and zlib's stream).
  auto read = [&](tcnum::GzipInflater inflater) {
    tcnum::CorpusReader reader(path, inflater);
    tcnum::CorpusCase k;
    std::string why, events;
    std::size_t calls = 0, last_line = 0;
    while (true) {
      const auto st = reader.next(k, why);
      // Each call consumes at least one byte of the (decompressed) file or ends; deflate expands
      // at most 1032:1, so a gzip of `size` bytes holds fewer than 1032·size + 18 of them (a
      // 77-byte gzip of 106 short lines once tripped a bound of size + 2).
      if (++calls > 1032 * size + 20) std::abort();
      if (reader.line_number() < last_line) std::abort();
      last_line = reader.line_number();
      if (st == tcnum::CorpusReader::Status::end) break;
      events += std::to_string(reader.line_number()) + (st == tcnum::CorpusReader::Status::case_read ? " case " : " malformed: " + why) + "\n";
      if (st != tcnum::CorpusReader::Status::case_read) continue;
      const std::string line = tcnum::format_case_line(k.arch, k.instruction, k.a, k.b, k.c, k.d, k.scale_a, k.scale_b);
      events += line + "\n";
      std::string why_again;
      const auto again = tcnum::parse_case_line(line, why_again);
      if (!again || again->a != k.a || again->b != k.b || again->c != k.c || again->d != k.d ||
          again->scale_a != k.scale_a || again->scale_b != k.scale_b || again->instruction.name != k.instruction.name)
        std::abort();
    }
    return events;
  };
  if (read(tcnum::GzipInflater::best) != read(tcnum::GzipInflater::zlib)) std::abort();
  return 0;
}
