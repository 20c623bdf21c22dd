// tcnum_dmma_probe: runs f64 DMMA (mma.m8n8k4.f64 on sm_80+, mma.m16n8k{4,8,16}.f64 on sm_90)
// on designed and random tiles and writes every tile's A, B, C and D as raw doubles, for the
// host-side analysis that decides between an IEEE FMA chain in k order and a fused sum
// (docs/models.md §8.6; tools/dmma_analyse.py, corpora/h100-f64). First a layout self-check:
// small integers, every result exact; the run stops if any element is wrong.
//
// Usage: tcnum_dmma_probe OUTDIR [TILES_PER_DISTRIBUTION] [SEED]
// Writes OUTDIR/<instruction>.f64 (per tile: A M×K row-major, B as N columns of K, C M×N, D M×N;
// doubles, little-endian) and prints one line per instruction.
#include <cuda_runtime_api.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kDistributions = 7;

// Fragment layouts (PTX ISA, "Matrix fragments for mma.m8n8k4 with .f64" and "mma.m16n8k4/k8/k16
// with .f64"): g = lane / 4, t = lane % 4. m8n8k4: A row g col t; B k t col g; C/D row g,
// cols 2t, 2t+1. m16n8kK: A element i row g + 8 (i & 1), col t + 4 (i >> 1); B element i k t + 4i,
// col g; C/D element i row g + 8 (i >> 1), col 2t + (i & 1).
template <int M, int K>
struct Shape {
  static constexpr int N = 8, a_elems = M * K / 32, b_elems = N * K / 32, c_elems = M * N / 32;
  __device__ static void a_pos(int lane, int i, int& r, int& c) {
    if (M == 8) r = lane >> 2, c = lane & 3;
    else r = (lane >> 2) + 8 * (i & 1), c = (lane & 3) + 4 * (i >> 1);
  }
  __device__ static void b_pos(int lane, int i, int& k, int& n) { k = (lane & 3) + 4 * i, n = lane >> 2; }
  __device__ static void c_pos(int lane, int i, int& r, int& c) {
    r = (lane >> 2) + 8 * (i >> 1), c = 2 * (lane & 3) + (i & 1);
  }
};

template <int M, int K>
__device__ void mma(const double* a, const double* b, const double* c, double* d) {
  if constexpr (M == 8) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d[0]), "=d"(d[1]) : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
  } else if constexpr (K == 4) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#endif
  } else if constexpr (K == 8) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]), "d"(c[1]), "d"(c[2]),
                   "d"(c[3]));
#endif
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
        "{%16,%17,%18,%19};"
        : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
          "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
#endif
  }
}

// One warp per tile.
template <int M, int K>
__global__ void tiles_kernel(const double* a, const double* b, const double* c, double* d, int tiles) {
  using S = Shape<M, K>;
  constexpr int N = S::N;
  const int lane = threadIdx.x & 31;
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (tile >= tiles) return;  // whole warps only: blockDim is a multiple of 32
  const double* ta = a + std::size_t(tile) * M * K;
  const double* tb = b + std::size_t(tile) * N * K;
  const double* tc = c + std::size_t(tile) * M * N;
  double ra[S::a_elems], rb[S::b_elems], rc[S::c_elems], rd[S::c_elems];
  for (int i = 0; i < S::a_elems; ++i) {
    int r, col;
    S::a_pos(lane, i, r, col);
    ra[i] = ta[r * K + col];
  }
  for (int i = 0; i < S::b_elems; ++i) {
    int k, n;
    S::b_pos(lane, i, k, n);
    rb[i] = tb[n * K + k];
  }
  for (int i = 0; i < S::c_elems; ++i) {
    int r, col;
    S::c_pos(lane, i, r, col);
    rc[i] = tc[r * N + col];
  }
  mma<M, K>(ra, rb, rc, rd);
  double* td = d + std::size_t(tile) * M * N;
  for (int i = 0; i < S::c_elems; ++i) {
    int r, col;
    S::c_pos(lane, i, r, col);
    td[r * N + col] = rd[i];
  }
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "CUDA error while %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

template <int M, int K>
std::vector<double> run(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c, int tiles) {
  double *da, *db, *dc, *dd;
  const std::size_t mn = std::size_t(tiles) * M * 8;
  check(cudaMalloc(&da, a.size() * 8), "malloc");
  check(cudaMalloc(&db, b.size() * 8), "malloc");
  check(cudaMalloc(&dc, c.size() * 8), "malloc");
  check(cudaMalloc(&dd, mn * 8), "malloc");
  check(cudaMemcpy(da, a.data(), a.size() * 8, cudaMemcpyHostToDevice), "copy A");
  check(cudaMemcpy(db, b.data(), b.size() * 8, cudaMemcpyHostToDevice), "copy B");
  check(cudaMemcpy(dc, c.data(), c.size() * 8, cudaMemcpyHostToDevice), "copy C");
  tiles_kernel<M, K><<<(tiles + 3) / 4, 128>>>(da, db, dc, dd, tiles);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "run");
  std::vector<double> d(mn);
  check(cudaMemcpy(d.data(), dd, mn * 8, cudaMemcpyDeviceToHost), "copy D");
  for (double* p : {da, db, dc, dd}) cudaFree(p);
  return d;
}

// Element values by distribution (the tile's index mod kDistributions):
// 0 normal N(0,1); 1 ties: ±2^e·{1, 1+2^-52, 1.5} with e from a set that makes products half an
//   ulp of C, or a quarter, or 2^-106 below (the FMA chain and a fused sum round them differently);
// 2 cancel: C = -(the row·column products summed in double), so D is what survives;
// 3 wide: random exponents in [-1100, 1100] (overflow to Inf, underflow to subnormal);
// 4 subnormal: factors near 2^-540, C subnormal; 5 special: p = 1/6 one of ±0, ±Inf, NaN, ±max,
//   ±min subnormal, ±min normal, else normal; 6 zeros: ±0, ±1, ±2^-600 factors, C ±0.
struct Gen {
  std::mt19937_64 g;
  explicit Gen(std::uint64_t s) : g(s) {}
  double uni() { return std::ldexp(static_cast<double>(g() >> 11), -53); }
  int below(int n) { return static_cast<int>(g() % static_cast<std::uint64_t>(n)); }
  double sign() { return (g() & 1) ? -1.0 : 1.0; }
  double normal() { return std::sqrt(-2 * std::log(uni() + 1e-300)) * std::cos(6.283185307179586 * uni()); }
  double special() {
    const double pool[] = {0.0, INFINITY, NAN, DBL_MAX, 4.9406564584124654e-324, DBL_MIN};
    const double v = pool[below(6)];
    return std::isnan(v) ? (g() & 1 ? -v : v) : sign() * v;
  }
  double element(int dist, bool is_c) {
    switch (dist) {
      case 0: return normal();
      case 1: {
        const double sig[] = {1.0, 1.0 + 0x1p-52, 1.5};
        const int ea[] = {0, -26, -27, -53, -54};
        const int ec[] = {0, 0, 1, -1};
        return sign() * std::ldexp(sig[below(3)], is_c ? ec[below(4)] : ea[below(5)]);
      }
      case 3: return sign() * std::ldexp(1.0 + uni(), below(2201) - 1100);
      case 4: return is_c ? sign() * std::ldexp(uni(), -1022) : sign() * std::ldexp(1.0 + uni(), -537 - below(6));
      case 5: return below(6) == 0 ? special() : normal();
      case 6: {
        const double pool[] = {0.0, 1.0, 0x1p-600};
        return is_c ? sign() * 0.0 : sign() * pool[below(3)];
      }
      default: return normal();
    }
  }
};

template <int M, int K>
bool probe(const char* name, const std::string& dir, int per_dist, std::uint64_t seed) {
  constexpr int N = 8;
  // Self-check: small integers, exact results.
  {
    const int tiles = 9;
    Gen gen(seed ^ 0x5e1f);
    std::vector<double> a(tiles * M * K), b(tiles * N * K), c(tiles * M * N);
    for (double& v : a) v = gen.below(9) - 4;
    for (double& v : b) v = gen.below(9) - 4;
    for (double& v : c) v = gen.below(17) - 8;
    const std::vector<double> d = run<M, K>(a, b, c, tiles);
    long bad = 0;
    for (int t = 0; t < tiles; ++t)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double want = c[(t * M + i) * N + j];
          for (int k = 0; k < K; ++k) want += a[(t * M + i) * K + k] * b[(t * N + j) * K + k];
          if (d[(t * M + i) * N + j] != want && ++bad <= 4)
            std::printf("%s: self-check tile %d (%d,%d): expected %g, got %g\n", name, t, i, j, want, d[(t * M + i) * N + j]);
        }
    if (bad) {
      std::printf("%s: layout self-check FAILED (%ld wrong)\n", name, bad);
      return false;
    }
  }
  const int tiles = per_dist * kDistributions;
  Gen gen(seed);
  std::vector<double> a(std::size_t(tiles) * M * K), b(std::size_t(tiles) * N * K), c(std::size_t(tiles) * M * N);
  for (int t = 0; t < tiles; ++t) {
    const int dist = t % kDistributions;
    for (int e = 0; e < M * K; ++e) a[std::size_t(t) * M * K + e] = gen.element(dist, false);
    for (int e = 0; e < N * K; ++e) b[std::size_t(t) * N * K + e] = gen.element(dist, false);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double& cv = c[(std::size_t(t) * M + i) * N + j];
        if (dist == 2) {
          double s = 0;
          for (int k = 0; k < K; ++k) s += a[(std::size_t(t) * M + i) * K + k] * b[(std::size_t(t) * N + j) * K + k];
          cv = -s;
        } else {
          cv = gen.element(dist, true);
        }
      }
  }
  const std::vector<double> d = run<M, K>(a, b, c, tiles);
  const std::string path = dir + "/" + name + ".f64";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::printf("cannot write %s\n", path.c_str());
    return false;
  }
  for (int t = 0; t < tiles; ++t) {
    std::fwrite(&a[std::size_t(t) * M * K], 8, M * K, f);
    std::fwrite(&b[std::size_t(t) * N * K], 8, N * K, f);
    std::fwrite(&c[std::size_t(t) * M * N], 8, M * N, f);
    std::fwrite(&d[std::size_t(t) * M * N], 8, M * N, f);
  }
  std::fclose(f);
  std::printf("%s: self-check passed; %d tiles (%d cases) written to %s\n", name, tiles, tiles * M * N, path.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tcnum_dmma_probe OUTDIR [TILES_PER_DISTRIBUTION] [SEED]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int per = argc > 2 ? std::atoi(argv[2]) : 100;
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  if (per <= 0) {
    std::fprintf(stderr, "tcnum_dmma_probe: TILES_PER_DISTRIBUTION must be positive\n");
    return 2;
  }
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "reading device 0");
  const int sm = p.major * 10 + p.minor;
  std::printf("device %s (sm_%d)\n", p.name, sm);
  bool ok = probe<8, 4>("mma.m8n8k4.f64.f64.f64.f64", dir, per, seed);
  if (sm >= 90) {
    ok &= probe<16, 4>("mma.m16n8k4.f64.f64.f64.f64", dir, per, seed + 1);
    ok &= probe<16, 8>("mma.m16n8k8.f64.f64.f64.f64", dir, per, seed + 2);
    ok &= probe<16, 16>("mma.m16n8k16.f64.f64.f64.f64", dir, per, seed + 3);
  }
  return ok ? 0 : 1;
}
