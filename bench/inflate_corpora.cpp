// The inflate-only baseline of replay (docs/benchmarks.md, "Replay"): every gzip file named is
// read whole and inflated member by member with libdeflate, as the corpus reader does, and the
// bytes are counted; nothing is parsed.
//   inflate_corpora FILE.gz...
#include <libdeflate.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> inflater(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  constexpr std::size_t kOut = std::size_t{256} << 20;
  const auto out = std::make_unique_for_overwrite<char[]>(kOut);  // untouched pages cost nothing
  std::size_t total = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary | std::ios::ate);
    std::vector<char> in(static_cast<std::size_t>(file.tellg()));
    file.seekg(0).read(in.data(), static_cast<std::streamsize>(in.size()));
    for (std::size_t at = 0; at < in.size();) {
      std::size_t used = 0, produced = 0;
      if (libdeflate_gzip_decompress_ex(inflater.get(), in.data() + at, in.size() - at, out.get(), kOut, &used,
                                        &produced) != LIBDEFLATE_SUCCESS) {
        std::fprintf(stderr, "%s: not gzip, corrupt, or a member above 256 MiB\n", argv[i]);
        return 1;
      }
      at += used;
      total += produced;
    }
  }
  std::printf("%zu bytes inflated\n", total);
  return 0;
}
