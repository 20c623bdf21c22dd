// tcnum::device sparse runs: mma.sp tiles with metadata, the layout self-check that chooses the
// metadata layout, and cases packed into tiles (device.hpp).
#include <algorithm>
#include <map>
#include <mutex>
#include <random>

#include <cuda_runtime_api.h>

#include "runner_internal.hpp"
#include "sparse_layouts.hpp"
#include "sparse_mma_probe.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/probes/device.hpp"

namespace tcnum::device {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw DeviceError("CUDA error while " + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

void require_device(const Instruction& in, int device) {
  if (!in.sparse) throw DeviceError(in.name + ": not a sparse instruction");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "reading the properties of device " + std::to_string(device));
  const int sm = p.major * 10 + p.minor;
  if (sm < in.min_sm || sm > in.max_sm) throw DeviceError(in.name + " cannot run on sm_" + std::to_string(sm));
  check(cudaSetDevice(device), "selecting device " + std::to_string(device));
}

// Device buffers of one run, freed on every path.
struct Buffers {
  std::vector<void*> held;
  ~Buffers() {
    for (void* p : held) cudaFree(p);
  }
  template <class T>
  T* copy_in(const std::vector<T>& v, const std::string& what) {
    void* p = nullptr;
    check(cudaMalloc(&p, std::max<std::size_t>(v.size(), 1) * sizeof(T)), "allocating " + what);
    held.push_back(p);
    check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "copying " + what);
    return static_cast<T*>(p);
  }
};

// The metadata words of every tile: per 16-row warp slice, 32 lane words by `layout`.
std::vector<std::uint32_t> pack_words(const Instruction& in, const detail::SparseMetaLayout& layout, std::size_t tiles,
                                      const std::vector<std::uint8_t>& meta) {
  const std::size_t groups = static_cast<std::size_t>(sparse_meta_count(in));
  std::vector<std::uint32_t> words;
  words.reserve(tiles * static_cast<std::size_t>(in.m) * 2);
  for (std::size_t slice = 0; slice < tiles * static_cast<std::size_t>(in.m) / 16; ++slice) {
    const std::vector<std::uint32_t> w = detail::pack_sparse_meta(layout, static_cast<int>(groups), meta.data() + slice * 16 * groups);
    if (w.empty()) return {};
    words.insert(words.end(), w.begin(), w.end());
  }
  return words;
}

int element_bytes(Format f) {
  return f == Format::tf32 ? 4 : (f == Format::e4m3 || f == Format::e5m2 || f == Format::s8 || f == Format::u8) ? 1 : 2;
}

// wgmma.sp operands: A's stored rows as the lanes' registers, B as its shared-memory image.
void pack_wgmma(const Instruction& in, std::size_t tiles, const std::vector<std::uint32_t>& a,
                const std::vector<std::uint32_t>& b, std::vector<std::uint32_t>& regs, std::vector<unsigned char>& image) {
  const int eb = element_bytes(in.a_type), half = in.k / 2, n = in.n;
  regs.assign(tiles * 128 * 4, 0);
  image.assign(tiles * static_cast<std::size_t>(n) * 64, 0);
  for (std::size_t t = 0; t < tiles; ++t) {
    for (int lane = 0; lane < 128; ++lane)
      for (int j = 0; j < 4; ++j) {
        const int row = 16 * (lane >> 5) + ((lane & 31) >> 2) + 8 * (j & 1), kb = 4 * (lane & 3) + 16 * (j >> 1);
        std::uint32_t word = 0;
        for (int e = 0; e < 4 / eb; ++e) {
          const std::uint32_t v = a[(t * 64 + static_cast<std::size_t>(row)) * static_cast<std::size_t>(half) +
                                    static_cast<std::size_t>(kb / eb + e)];
          word |= eb == 4 ? v : (v & ((1u << (8 * eb)) - 1u)) << (8 * eb * e);
        }
        regs[(t * 128 + static_cast<std::size_t>(lane)) * 4 + static_cast<std::size_t>(j)] = word;
      }
    for (int col = 0; col < n; ++col)
      for (int kb = 0; kb < 64; ++kb) {
        const std::uint32_t v = b[(t * static_cast<std::size_t>(n) + static_cast<std::size_t>(col)) * static_cast<std::size_t>(in.k) +
                                  static_cast<std::size_t>(kb / eb)];
        const std::size_t pos = static_cast<std::size_t>((col >> 3) * 512 + (kb >> 4) * 128 + (col & 7) * 16 + (kb & 15));
        image[t * static_cast<std::size_t>(n) * 64 + pos] = static_cast<unsigned char>(v >> (8 * (kb % eb)));
      }
  }
}

// Whole tiles: a tiles × M×(K/2) stored A (row-major), b tiles × N×K ([n][k]), c tiles × M×N,
// meta tiles × M×groups; D tiles × M×N.
std::vector<std::uint32_t> run_sparse_tiles(const Instruction& in, const detail::SparseMetaLayout& layout,
                                            std::size_t tiles, const std::vector<std::uint32_t>& a,
                                            const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                            const std::vector<std::uint8_t>& meta, int device) {
  require_device(in, device);
  const std::vector<std::uint32_t> words = pack_words(in, layout, tiles, meta);
  if (words.empty()) throw DeviceError(std::string("metadata layout '") + layout.name + "' does not apply to " + in.name);
  Buffers buf;
  std::vector<std::uint32_t> d(tiles * static_cast<std::size_t>(in.m) * in.n);
  std::vector<std::uint32_t> zero(d.size(), 0);
  std::uint32_t* dd = buf.copy_in(zero, "D");
  if (in.family == Family::mma) {
    const detail::SparseKernel* k = detail::find_sparse_kernel(in.name);
    if (!k) throw DeviceError(in.name + ": no mma.sp probe kernel");
    check(k->launch(buf.copy_in(a, "A"), buf.copy_in(b, "B"), buf.copy_in(c, "C"), buf.copy_in(words, "the metadata"), dd,
                    static_cast<long long>(tiles), 4096, nullptr),
          "launching " + in.name);
  } else {
#ifdef TCNUM_SPARSE_WGMMA_PROBES
    const detail::SparseWgmmaKernel* k = detail::find_sparse_wgmma_kernel(in.name);
    if (!k) throw DeviceError(in.name + ": no wgmma.sp probe kernel (N = 8, 64 and 256 have one)");
    std::vector<std::uint32_t> regs;
    std::vector<unsigned char> image;
    pack_wgmma(in, tiles, a, b, regs, image);
    int* status = buf.copy_in(std::vector<int>{0}, "the status flag");
    check(k->launch(buf.copy_in(regs, "A"), buf.copy_in(image, "B"), buf.copy_in(c, "C"), buf.copy_in(words, "the metadata"),
                    dd, static_cast<int>(tiles), status, nullptr),
          "launching " + in.name);
    int flag = 0;
    check(cudaMemcpy(&flag, status, sizeof flag, cudaMemcpyDeviceToHost), "reading the status flag");
    if (flag) throw DeviceError(in.name + ": this binary has no sm_90a code for wgmma.sp");
#else
    throw DeviceError(in.name + ": this build has no wgmma.sp probe kernels (TCNUM_PROBE_ARCHS without 90a)");
#endif
  }
  check(cudaDeviceSynchronize(), "running " + in.name);
  check(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost), "copying D back");
  return d;
}

// Small integers, random valid metadata: every product and sum exact, so D must equal the
// exact sum of the selected products (computed by the probes' own codec). "" when it holds.
std::string check_layout(const Instruction& in, const detail::SparseMetaLayout& layout, int device) {
  const std::size_t tiles = in.family == Family::mma ? 24 : 3, M = static_cast<std::size_t>(in.m),
                    N = static_cast<std::size_t>(in.n), K = static_cast<std::size_t>(in.k), half = K / 2;
  const std::size_t groups = static_cast<std::size_t>(sparse_meta_count(in));
  std::mt19937 rng(12345);
  auto small = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::uint8_t valid16[] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe}, valid32[] = {0x4, 0xe};
  std::vector<std::uint32_t> a(tiles * M * half), b(tiles * N * K), c(tiles * M * N);
  std::vector<std::uint8_t> meta(tiles * M * groups);
  // Unsigned integer operands (u8) take |v|, as the dense self-check does.
  auto operand = [&](Format f) { return detail::small_int_bits(f, f == Format::u8 ? small(0, 4) : small(-4, 4)); };
  for (auto& v : a) v = operand(in.a_type);
  for (auto& v : b) v = operand(in.b_type);
  for (auto& v : c) v = detail::small_int_bits(in.c_type, small(-8, 8));
  for (auto& v : meta) v = sparse_group(in) == 2 ? valid32[small(0, 1)] : valid16[small(0, 5)];
  if (pack_words(in, layout, tiles, meta).empty()) return "layout does not apply";
  const std::vector<std::uint32_t> d = run_sparse_tiles(in, layout, tiles, a, b, c, meta, device);
  for (std::size_t t = 0; t < tiles; ++t)
    for (std::size_t i = 0; i < M; ++i) {
      const std::vector<int> pos = selected_positions(in, {meta.data() + (t * M + i) * groups, groups});
      for (std::size_t j = 0; j < N; ++j) {
        double want = detail::bits_value(in.c_type, c[(t * M + i) * N + j]);
        for (std::size_t s = 0; s < half; ++s)
          want += detail::bits_value(in.a_type, a[(t * M + i) * half + s]) *
                  detail::bits_value(in.b_type, b[(t * N + j) * K + static_cast<std::size_t>(pos[s])]);
        const double got = detail::bits_value(in.d_type, d[(t * M + i) * N + j]);
        if (got != want)
          return "tile " + std::to_string(t) + " (" + std::to_string(i) + ", " + std::to_string(j) + "): expected " +
                 std::to_string(want) + ", got " + std::to_string(got);
      }
    }
  return "";
}

}  // namespace

std::string sparse_layout(const Instruction& in, const RunOptions& opt, std::string* report) {
  static std::mutex mutex;
  static std::map<std::string, std::string> chosen;  // by instruction and device
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = in.name + "@" + std::to_string(opt.device);
  if (auto it = chosen.find(key); it != chosen.end()) return it->second;
  std::string tried;
  for (const auto& layout : detail::sparse_meta_layouts()) {
    const std::string why = check_layout(in, layout, opt.device);
    tried += std::string("\n  ") + layout.name + ": " + (why.empty() ? "PASS" : why);
    if (why.empty()) {
      if (report) *report = tried;
      return chosen[key] = layout.name;
    }
  }
  throw DeviceError(in.name + ": the layout self-check failed under every metadata layout:" + tried);
}

std::vector<std::uint32_t> run_sparse_cases(const Instruction& in, const std::vector<Case>& cases,
                                            const RunOptions& opt) {
  if (cases.empty()) return {};
  const std::string name = sparse_layout(in, opt, nullptr);
  const detail::SparseMetaLayout* layout = nullptr;
  for (const auto& l : detail::sparse_meta_layouts())
    if (name == l.name) layout = &l;
  const std::size_t M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n),
                    K = static_cast<std::size_t>(in.k), half = K / 2, P = std::min(M, N);
  const std::size_t groups = static_cast<std::size_t>(sparse_meta_count(in));
  const std::size_t tiles = (cases.size() + P - 1) / P;  // case i: row and column i % P of tile i / P
  std::vector<std::uint32_t> a(tiles * M * half, 0), b(tiles * N * K, 0), c(tiles * M * N, 0);
  std::vector<std::uint8_t> meta(tiles * M * groups, 0x4);  // padding rows: A = 0, a valid pattern
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& g = cases[i];
    (void)selected_positions(in, g.meta);  // throws on invalid metadata before anything runs
    if (g.a.size() != half || g.b.size() != K)
      throw std::invalid_argument(in.name + ": case " + std::to_string(i) + " needs " + std::to_string(half) +
                                  " stored A and " + std::to_string(K) + " B elements");
    const std::size_t t = i / P, j = i % P;
    std::copy(g.a.begin(), g.a.end(), a.begin() + static_cast<std::ptrdiff_t>((t * M + j) * half));
    std::copy(g.b.begin(), g.b.end(), b.begin() + static_cast<std::ptrdiff_t>((t * N + j) * K));
    std::copy(g.meta.begin(), g.meta.end(), meta.begin() + static_cast<std::ptrdiff_t>((t * M + j) * groups));
    c[(t * M + j) * N + j] = g.c;
  }
  const std::vector<std::uint32_t> d = run_sparse_tiles(in, *layout, tiles, a, b, c, meta, opt.device);
  std::vector<std::uint32_t> out(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) out[i] = d[((i / P) * M + i % P) * N + i % P];
  return out;
}

void run_sparse_logical_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                              const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt) {
  if (tiles == 0) return;
  const std::string name = sparse_layout(in, opt, nullptr);
  const detail::SparseMetaLayout* layout = nullptr;
  for (const auto& l : detail::sparse_meta_layouts())
    if (name == l.name) layout = &l;
  const std::size_t M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n),
                    K = static_cast<std::size_t>(in.k), MN = M * N;
  std::vector<std::uint32_t> as, bv(b, b + tiles * N * K), cv(c, c + tiles * MN);
  std::vector<std::uint8_t> meta;
  as.reserve(tiles * M * K / 2);
  for (std::size_t r = 0; r < tiles * M; ++r) {  // the canonical metadata of each row (tcnum/fuzz/sparse_tiles.hpp)
    const CompressedRow row = compress_sparse_a(in, {a + r * K, K});
    as.insert(as.end(), row.a.begin(), row.a.end());
    meta.insert(meta.end(), row.meta.begin(), row.meta.end());
  }
  const std::vector<std::uint32_t> out = run_sparse_tiles(in, *layout, tiles, as, bv, cv, meta, opt.device);
  std::copy(out.begin(), out.end(), d);
}

}  // namespace tcnum::device
