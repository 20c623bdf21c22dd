// Probe kernels for mma.sp::ordered_metadata (sparse A; the float and the s8/u8 integer forms):
// one instruction per tile, raw bits in, raw bits out, sparsity selector 0. Fragment layouts (PTX
// ISA 9.7.14.6.2): the stored A (M × K/2) has the layout of the dense m16n8k(K/2) A of the same
// type, B and C/D those of the dense m16n8kK. The metadata register of every lane is given per
// tile by the host (32 words, in lane order), which packs it by one of the candidate layouts
// (sparse_layouts.hpp); the layout self-check finds the one that holds.
#include <algorithm>

#include "sparse_mma_probe.hpp"

namespace tcnum::device::detail {
namespace {

#if defined(__CUDA_ARCH__)
constexpr int kArch = __CUDA_ARCH__;
#else
constexpr int kArch = 1 << 30;
#endif

constexpr int kThreads = 128;

// A fragment of m16n8kK with BITS-bit elements (groupID g = lane/4, t = lane%4): register r
// holds row g + 8*(r&1), columns t*epr + [0, epr) + (r/2)*4*epr. B: register r holds column g,
// rows t*epr + [0, epr) + r*4*epr. C/D: element e at row g + 8*(e/2), column 2t + e%2.
template <int K, int BITS>
struct Frag {
  static constexpr int epr = 32 / BITS;
  static constexpr int elems = 16 * K / 32;  // A elements per lane (16 rows)
  __device__ static void a_pos(int lane, int e, int& row, int& col) {
    const int r = e / epr, s = e % epr;
    row = (lane >> 2) + 8 * (r & 1);
    col = (lane & 3) * epr + s + (r >> 1) * 4 * epr;
  }
  __device__ static void b_pos(int lane, int e, int& k, int& n) {
    const int r = e / epr, s = e % epr;
    k = (lane & 3) * epr + s + r * 4 * epr;
    n = lane >> 2;
  }
};

#define TCNUM_SP_ASM_2_2_4(I)                                                                          \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11}, %12, 0x0;"                        \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                       \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), \
                 "r"(e))
#define TCNUM_SP_ASM_2_2_2(I)                                                                          \
  asm volatile(I " {%0,%1}, {%2,%3}, {%4,%5}, {%6,%7}, %8, 0x0;"                                       \
               : "=r"(d[0]), "=r"(d[1])                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(e))
#define TCNUM_SP_ASM_4_4_4(I)                                                                          \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, %16, 0x0;"          \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), \
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e))
#define TCNUM_SP_ASM_4_4_2(I)                                                                          \
  asm volatile(I " {%0,%1}, {%2,%3,%4,%5}, {%6,%7,%8,%9}, {%10,%11}, %12, 0x0;"                         \
               : "=r"(d[0]), "=r"(d[1])                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), \
                 "r"(c[0]), "r"(c[1]), "r"(e))
// One op: K (logical), element bits, C/D bits, registers of A, B, C/D, first arch; SAT is ""
// or ".satfinite" (integer forms), spelled after the shape in the name, after .row.col in PTX.
#define TCNUM_SP_OP_SAT(ID, SHAPE, SAT, D, A, B, C, K_, AB, CB, MINARCH, NA, NB, NC)                  \
  struct ID {                                                                                         \
    static constexpr int K = K_, abits = AB, cbits = CB, min_arch = MINARCH, na = NA, nb = NB, nc = NC; \
    static constexpr const char* name = "mma.sp::ordered_metadata." #SHAPE SAT "." #D "." #A "." #B "." #C; \
    template <int = 0>                                                                                \
    __device__ static void run(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,  \
                               std::uint32_t* d, std::uint32_t e) {                                   \
      TCNUM_SP_ASM_##NA##_##NB##_##NC("mma.sp::ordered_metadata.sync.aligned." #SHAPE ".row.col" SAT "." #D "." #A \
                                      "." #B "." #C);                                                 \
    }                                                                                                 \
  };
#define TCNUM_SP_OP(ID, SHAPE, D, A, B, C, K_, AB, CB, MINARCH, NA, NB, NC) \
  TCNUM_SP_OP_SAT(ID, SHAPE, "", D, A, B, C, K_, AB, CB, MINARCH, NA, NB, NC)
// Integer mma.sp (s8/u8 -> s32, sm_80+): m16n8k32 (2 A, 2 B registers) and m16n8k64 (4, 4), wrap
// (W) and .satfinite (S).
#define TCNUM_SP_INT(A, B)                                                                               \
  TCNUM_SP_OP_SAT(S16832_W_##A##_##B, m16n8k32, "", s32, A, B, s32, 32, 8, 32, 80, 2, 2, 4)            \
  TCNUM_SP_OP_SAT(S16832_S_##A##_##B, m16n8k32, ".satfinite", s32, A, B, s32, 32, 8, 32, 80, 2, 2, 4)  \
  TCNUM_SP_OP_SAT(S16864_W_##A##_##B, m16n8k64, "", s32, A, B, s32, 64, 8, 32, 80, 4, 4, 4)            \
  TCNUM_SP_OP_SAT(S16864_S_##A##_##B, m16n8k64, ".satfinite", s32, A, B, s32, 64, 8, 32, 80, 4, 4, 4)

// clang-format off
TCNUM_SP_OP(S16816_f32_f16,  m16n8k16, f32, f16,  f16,  f32, 16, 16, 32, 80, 2, 2, 4)
TCNUM_SP_OP(S16816_f16_f16,  m16n8k16, f16, f16,  f16,  f16, 16, 16, 16, 80, 2, 2, 2)
TCNUM_SP_OP(S16816_f32_bf16, m16n8k16, f32, bf16, bf16, f32, 16, 16, 32, 80, 2, 2, 4)
TCNUM_SP_OP(S16832_f32_f16,  m16n8k32, f32, f16,  f16,  f32, 32, 16, 32, 80, 4, 4, 4)
TCNUM_SP_OP(S16832_f16_f16,  m16n8k32, f16, f16,  f16,  f16, 32, 16, 16, 80, 4, 4, 2)
TCNUM_SP_OP(S16832_f32_bf16, m16n8k32, f32, bf16, bf16, f32, 32, 16, 32, 80, 4, 4, 4)
TCNUM_SP_OP(S1688_tf32,      m16n8k8,  f32, tf32, tf32, f32, 8,  32, 32, 80, 2, 2, 4)
TCNUM_SP_OP(S16816_tf32,     m16n8k16, f32, tf32, tf32, f32, 16, 32, 32, 80, 4, 4, 4)
TCNUM_SP_OP(S16864_e4m3_e4m3, m16n8k64, f32, e4m3, e4m3, f32, 64, 8, 32, 89, 4, 4, 4)
TCNUM_SP_OP(S16864_e4m3_e5m2, m16n8k64, f32, e4m3, e5m2, f32, 64, 8, 32, 89, 4, 4, 4)
TCNUM_SP_OP(S16864_e5m2_e4m3, m16n8k64, f32, e5m2, e4m3, f32, 64, 8, 32, 89, 4, 4, 4)
TCNUM_SP_OP(S16864_e5m2_e5m2, m16n8k64, f32, e5m2, e5m2, f32, 64, 8, 32, 89, 4, 4, 4)
TCNUM_SP_INT(s8, s8)
TCNUM_SP_INT(s8, u8)
TCNUM_SP_INT(u8, s8)
TCNUM_SP_INT(u8, u8)
// clang-format on

template <int BITS, int N>
__device__ void pack(std::uint32_t (&r)[N], int e, std::uint32_t v) {
  constexpr std::uint32_t mask = BITS == 32 ? 0xffffffffu : (1u << BITS) - 1u;
  r[e * BITS / 32] |= (v & mask) << (e * BITS % 32);
}

// a: tiles × 16×(K/2) stored A, row-major; b: tiles × 8×K ([n][k]); c, d: tiles × 16×8
// row-major; meta: tiles × 32 lane words.
template <class Op>
__global__ void __launch_bounds__(kThreads) sparse_tiles(const std::uint32_t* __restrict__ a,
                                                         const std::uint32_t* __restrict__ b,
                                                         const std::uint32_t* __restrict__ c,
                                                         const std::uint32_t* __restrict__ meta,
                                                         std::uint32_t* __restrict__ d, long long tiles) {
  constexpr int K = Op::K, KA = K / 2;
  using FA = Frag<KA, Op::abits>;
  using FB = Frag<K, Op::abits>;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  for (long long t = warp; t < tiles; t += warps) {
    const std::uint32_t* ta = a + t * (16 * KA);
    const std::uint32_t* tb = b + t * (8 * K);
    const std::uint32_t* tc = c + t * 128;
    std::uint32_t ra[Op::na] = {}, rb[Op::nb] = {}, rc[Op::nc] = {}, rd[Op::nc] = {};
#pragma unroll
    for (int e = 0; e < FA::elems; ++e) {
      int row, col;
      FA::a_pos(lane, e, row, col);
      pack<Op::abits>(ra, e, ta[row * KA + col]);
    }
#pragma unroll
    for (int e = 0; e < 8 * K / 32; ++e) {
      int k, n;
      FB::b_pos(lane, e, k, n);
      pack<Op::abits>(rb, e, tb[n * K + k]);
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) pack<Op::cbits>(rc, e, tc[((lane >> 2) + 8 * (e >> 1)) * 8 + 2 * (lane & 3) + (e & 1)]);
    const std::uint32_t me = meta[t * 32 + lane];
    if constexpr (Op::min_arch * 10 <= kArch) {
      Op::template run<>(ra, rb, rc, rd, me);
    } else {
      __trap();
    }
    std::uint32_t* td = d + t * 128;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      constexpr std::uint32_t mask = Op::cbits == 32 ? 0xffffffffu : 0xffffu;
      td[((lane >> 2) + 8 * (e >> 1)) * 8 + 2 * (lane & 3) + (e & 1)] =
          (rd[e * Op::cbits / 32] >> (e * Op::cbits % 32)) & mask;
    }
  }
}

template <class Op>
cudaError_t launch(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, const std::uint32_t* meta,
                   std::uint32_t* d, long long tiles, int max_blocks, cudaStream_t stream) {
  if (tiles <= 0) return cudaSuccess;
  constexpr int warps_per_block = kThreads / 32;
  const long long blocks =
      std::max(1LL, std::min<long long>((tiles + warps_per_block - 1) / warps_per_block, std::max(1, max_blocks)));
  sparse_tiles<Op><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, c, meta, d, tiles);
  return cudaGetLastError();
}

template <class Op>
SparseKernel entry() {
  return {Op::name, Op::min_arch, Op::K, &launch<Op>};
}

}  // namespace

const SparseKernel* find_sparse_kernel(std::string_view name) {
  static const SparseKernel all[] = {
      entry<S16816_f32_f16>(),   entry<S16816_f16_f16>(),   entry<S16816_f32_bf16>(),  entry<S16832_f32_f16>(),
      entry<S16832_f16_f16>(),   entry<S16832_f32_bf16>(),  entry<S1688_tf32>(),       entry<S16816_tf32>(),
      entry<S16864_e4m3_e4m3>(), entry<S16864_e4m3_e5m2>(), entry<S16864_e5m2_e4m3>(), entry<S16864_e5m2_e5m2>(),
#define TCNUM_SP_INT_ENTRIES(A, B)                                                                     \
  entry<S16832_W_##A##_##B>(), entry<S16832_S_##A##_##B>(), entry<S16864_W_##A##_##B>(), entry<S16864_S_##A##_##B>()
      TCNUM_SP_INT_ENTRIES(s8, s8), TCNUM_SP_INT_ENTRIES(s8, u8), TCNUM_SP_INT_ENTRIES(u8, s8),
      TCNUM_SP_INT_ENTRIES(u8, u8),
#undef TCNUM_SP_INT_ENTRIES
  };
  for (const SparseKernel& k : all)
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace tcnum::device::detail
