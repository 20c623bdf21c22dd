// Probe kernels: one mma.sync.aligned per tile, on raw bits, D written back as raw bits.
// Fragment layouts follow the PTX ISA ("Matrix fragments for mma.m16n8k*", and the quadpair
// layout of mma.m8n8k4). Every operand travels as .b32 registers ("r" constraints) so no
// float conversion can touch the bits on the way in or out.
#include <algorithm>

#include "mma_sync_probe.hpp"

namespace tcnum::device::detail {
namespace {

#if defined(__CUDA_ARCH__)
constexpr int kArch = __CUDA_ARCH__;
#else
constexpr int kArch = 1 << 30;  // host pass: device bodies are never emitted
#endif

constexpr int kThreads = 128;  // 4 warps per block, one tile (m8n8k4: four) per warp and step

// mma.m16n8kK with ABITS-bit A/B elements. groupID g = lane/4, thread-in-group t = lane%4.
// A: register r holds row g + 8*(r&1), columns t*epr + [0, epr) + (r/2)*4*epr.
// B: register r holds column g, rows t*epr + [0, epr) + r*4*epr.
// C/D: element e at row g + 8*(e/2), column 2t + e%2 (f16: two per register, same order).
template <int K_, int ABITS>
struct M16N8 {
  static constexpr int M = 16, N = 8, K = K_, tiles_per_warp = 1;
  static constexpr int a_elems = M * K / 32, b_elems = N * K / 32, c_elems = 4;
  static constexpr int epr = 32 / ABITS;
  __device__ static int sub(int) { return 0; }
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
  template <int BITS>
  __device__ static void cd_pos(int lane, int e, int& row, int& col) {
    row = (lane >> 2) + 8 * (e >> 1);
    col = 2 * (lane & 3) + (e & 1);
  }
};

// Integer mma.m8n8k16 (s8/u8) and mma.m8n8k32 (s4/u4): one register of A and of B per thread.
// A: row g, columns t*epr + [0, epr); B: column g, rows t*epr + [0, epr); C/D (s32): row g,
// columns 2t, 2t + 1 (PTX ISA, "Matrix fragments for mma.m8n8k16" and "mma.m8n8k32").
template <int K_, int ABITS>
struct M8N8I {
  static constexpr int M = 8, N = 8, K = K_, tiles_per_warp = 1;
  static constexpr int a_elems = M * K / 32, b_elems = N * K / 32, c_elems = 2;
  static constexpr int epr = 32 / ABITS;
  __device__ static int sub(int) { return 0; }
  __device__ static void a_pos(int lane, int e, int& row, int& col) { row = lane >> 2, col = (lane & 3) * epr + e; }
  __device__ static void b_pos(int lane, int e, int& k, int& n) { k = (lane & 3) * epr + e, n = lane >> 2; }
  template <int BITS>
  __device__ static void cd_pos(int lane, int e, int& row, int& col) {
    row = lane >> 2, col = 2 * (lane & 3) + e;
  }
};

// mma.m8n8k4 (row.col): each quadpair q (lanes 4q..4q+3 and 16+4q..16+4q+3) computes its
// own 8x8x4 product, so one warp runs four tiles. i = lane%4 + 4*(lane/16) is the index in
// the quadpair: A row i / B column i, elements k = 0..3.
struct M8N8K4 {
  static constexpr int M = 8, N = 8, K = 4, tiles_per_warp = 4;
  static constexpr int a_elems = 4, b_elems = 4, c_elems = 8;
  __device__ static int sub(int lane) { return (lane >> 2) & 3; }
  __device__ static int qp_index(int lane) { return (lane & 3) + 4 * (lane >> 4); }
  __device__ static void a_pos(int lane, int e, int& row, int& col) { row = qp_index(lane), col = e; }
  __device__ static void b_pos(int lane, int e, int& k, int& n) { k = e, n = qp_index(lane); }
  template <int BITS>
  __device__ static void cd_pos(int lane, int e, int& row, int& col) {
    if constexpr (BITS == 16) {  // thread i holds row i, columns 0..7
      row = qp_index(lane), col = e;
    } else {  // f32: 2x2 blocks spread over the quadpair (PTX ISA m8n8k4 .f32 accumulators)
      row = (lane & 1) + (e & 2) + 4 * (lane >> 4);
      col = (e & 4) + (lane & 2) + (e & 1);
    }
  }
};

// Inline-PTX bodies, named by register counts A_B_C_D; operands are d, a, b, c.
#define TCNUM_D(i) "=r"(d[i])
#define TCNUM_A(i) "r"(a[i])
#define TCNUM_B(i) "r"(b[i])
#define TCNUM_C(i) "r"(c[i])
#define TCNUM_ASM_2_1_4_4(I)                                                                         \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                                  \
               : TCNUM_D(0), TCNUM_D(1), TCNUM_D(2), TCNUM_D(3)                                    \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_B(0), TCNUM_C(0), TCNUM_C(1), TCNUM_C(2), TCNUM_C(3))
#define TCNUM_ASM_2_1_2_2(I)                                                                         \
  asm volatile(I " {%0,%1}, {%2,%3}, {%4}, {%5,%6};"                                                \
               : TCNUM_D(0), TCNUM_D(1)                                                             \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_B(0), TCNUM_C(0), TCNUM_C(1))
#define TCNUM_ASM_4_2_4_4(I)                                                                         \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                      \
               : TCNUM_D(0), TCNUM_D(1), TCNUM_D(2), TCNUM_D(3)                                    \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_A(2), TCNUM_A(3), TCNUM_B(0), TCNUM_B(1), TCNUM_C(0), \
                 TCNUM_C(1), TCNUM_C(2), TCNUM_C(3))
#define TCNUM_ASM_4_2_2_2(I)                                                                         \
  asm volatile(I " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                                       \
               : TCNUM_D(0), TCNUM_D(1)                                                             \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_A(2), TCNUM_A(3), TCNUM_B(0), TCNUM_B(1), TCNUM_C(0), \
                 TCNUM_C(1))
#define TCNUM_ASM_1_1_2_2(I)                                                                         \
  asm volatile(I " {%0,%1}, {%2}, {%3}, {%4,%5};"                                                   \
               : TCNUM_D(0), TCNUM_D(1)                                                             \
               : TCNUM_A(0), TCNUM_B(0), TCNUM_C(0), TCNUM_C(1))
#define TCNUM_ASM_2_2_8_8(I)                                                                         \
  asm volatile(I " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};" \
               : TCNUM_D(0), TCNUM_D(1), TCNUM_D(2), TCNUM_D(3), TCNUM_D(4), TCNUM_D(5), TCNUM_D(6),  \
                 TCNUM_D(7)                                                                         \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_B(0), TCNUM_B(1), TCNUM_C(0), TCNUM_C(1), TCNUM_C(2), \
                 TCNUM_C(3), TCNUM_C(4), TCNUM_C(5), TCNUM_C(6), TCNUM_C(7))
#define TCNUM_ASM_2_2_4_4(I)                                                                         \
  asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};"                               \
               : TCNUM_D(0), TCNUM_D(1), TCNUM_D(2), TCNUM_D(3)                                    \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_B(0), TCNUM_B(1), TCNUM_C(0), TCNUM_C(1), TCNUM_C(2), \
                 TCNUM_C(3))
#define TCNUM_ASM_2_2_4_8(I)                                                                         \
  asm volatile(I " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};"              \
               : TCNUM_D(0), TCNUM_D(1), TCNUM_D(2), TCNUM_D(3), TCNUM_D(4), TCNUM_D(5), TCNUM_D(6),  \
                 TCNUM_D(7)                                                                         \
               : TCNUM_A(0), TCNUM_A(1), TCNUM_B(0), TCNUM_B(1), TCNUM_C(0), TCNUM_C(1), TCNUM_C(2), \
                 TCNUM_C(3))

// One op: catalog name and PTX text from the same tokens. run() is a template so that its
// asm is only emitted where the kernel's arch guard instantiates it.
#define TCNUM_MMA_OP(ID, SHAPE, D, A, B, C, LAYOUT, AB, CB, DB, MINARCH, NA, NB, NC, ND)            \
  struct ID {                                                                                       \
    using L = LAYOUT;                                                                               \
    static constexpr int abits = AB, cbits = CB, dbits = DB, min_arch = MINARCH;                    \
    static constexpr int na = NA, nb = NB, nc = NC, nd = ND;                                        \
    static constexpr const char* name = "mma." #SHAPE "." #D "." #A "." #B "." #C;                  \
    static_assert(L::a_elems * AB == NA * 32 && L::b_elems * AB == NB * 32);                         \
    static_assert(L::c_elems * CB == NC * 32 && L::c_elems * DB == ND * 32);                         \
    template <int = 0>                                                                              \
    __device__ static void run(const std::uint32_t* a, const std::uint32_t* b,                      \
                               const std::uint32_t* c, std::uint32_t* d) {                          \
      TCNUM_ASM_##NA##_##NB##_##NC##_##ND("mma.sync.aligned." #SHAPE ".row.col." #D "." #A "." #B   \
                                          "." #C);                                                  \
    }                                                                                               \
  };

// Integer mma: s32 C and D, SAT "" or ".satfinite" (after the layouts, as PTX spells it; the
// catalog name puts it after the shape).
#define TCNUM_INT_OP(ID, SHAPE, SAT, A, B, LAYOUT, AB, MINARCH, NA, NB, NC)                          \
  struct ID {                                                                                       \
    using L = LAYOUT;                                                                               \
    static constexpr int abits = AB, cbits = 32, dbits = 32, min_arch = MINARCH;                    \
    static constexpr int na = NA, nb = NB, nc = NC, nd = NC;                                        \
    static constexpr const char* name = "mma." #SHAPE SAT ".s32." #A "." #B ".s32";                 \
    static_assert(L::a_elems * AB == NA * 32 && L::b_elems * AB == NB * 32 && L::c_elems == NC);    \
    template <int = 0>                                                                              \
    __device__ static void run(const std::uint32_t* a, const std::uint32_t* b,                      \
                               const std::uint32_t* c, std::uint32_t* d) {                          \
      TCNUM_ASM_##NA##_##NB##_##NC##_##NC("mma.sync.aligned." #SHAPE ".row.col" SAT ".s32." #A "." #B \
                                          ".s32");                                                  \
    }                                                                                               \
  };

// clang-format off
using K8h = M16N8<8, 16>;
using K16h = M16N8<16, 16>;
using K4t = M16N8<4, 32>;
using K8t = M16N8<8, 32>;
using K32q = M16N8<32, 8>;
using K16q = M16N8<16, 8>;
// m8n8k4: .f16.f16.f16.f32 (f16 D from f32 C) is rejected by ptxas for every sm_75+ target.
TCNUM_MMA_OP(M884_f32_f16_f32, m8n8k4, f32, f16, f16, f32, M8N8K4, 16, 32, 32, 80, 2, 2, 8, 8)
TCNUM_MMA_OP(M884_f16_f16_f16, m8n8k4, f16, f16, f16, f16, M8N8K4, 16, 16, 16, 80, 2, 2, 4, 4)
TCNUM_MMA_OP(M884_f32_f16_f16, m8n8k4, f32, f16, f16, f16, M8N8K4, 16, 16, 32, 80, 2, 2, 4, 8)
// f16/bf16 (dtype must equal ctype for m16n8k8/k16)
TCNUM_MMA_OP(M1688_f32_f16,   m16n8k8,  f32, f16,  f16,  f32, K8h,  16, 32, 32, 80, 2, 1, 4, 4)
TCNUM_MMA_OP(M1688_f16_f16,   m16n8k8,  f16, f16,  f16,  f16, K8h,  16, 16, 16, 80, 2, 1, 2, 2)
TCNUM_MMA_OP(M1688_f32_bf16,  m16n8k8,  f32, bf16, bf16, f32, K8h,  16, 32, 32, 80, 2, 1, 4, 4)
TCNUM_MMA_OP(M16816_f32_f16,  m16n8k16, f32, f16,  f16,  f32, K16h, 16, 32, 32, 80, 4, 2, 4, 4)
TCNUM_MMA_OP(M16816_f16_f16,  m16n8k16, f16, f16,  f16,  f16, K16h, 16, 16, 16, 80, 4, 2, 2, 2)
TCNUM_MMA_OP(M16816_f32_bf16, m16n8k16, f32, bf16, bf16, f32, K16h, 16, 32, 32, 80, 4, 2, 4, 4)
// tf32: the full 32-bit registers as given (the low 13 bits are not cleared)
TCNUM_MMA_OP(M1684_tf32, m16n8k4, f32, tf32, tf32, f32, K4t, 32, 32, 32, 80, 2, 1, 4, 4)
TCNUM_MMA_OP(M1688_tf32, m16n8k8, f32, tf32, tf32, f32, K8t, 32, 32, 32, 80, 4, 2, 4, 4)
// fp8 (sm_89+): m16n8k32 and m16n8k16, f32 or f16 accumulators (dtype == ctype)
#define TCNUM_FP8_OPS(A, B)                                                                                 \
  TCNUM_MMA_OP(M16832_f32_##A##_##B, m16n8k32, f32, A, B, f32, K32q, 8, 32, 32, 89, 4, 2, 4, 4)   \
  TCNUM_MMA_OP(M16832_f16_##A##_##B, m16n8k32, f16, A, B, f16, K32q, 8, 16, 16, 89, 4, 2, 2, 2)   \
  TCNUM_MMA_OP(M16816_f32_##A##_##B, m16n8k16, f32, A, B, f32, K16q, 8, 32, 32, 89, 2, 1, 4, 4)   \
  TCNUM_MMA_OP(M16816_f16_##A##_##B, m16n8k16, f16, A, B, f16, K16q, 8, 16, 16, 89, 2, 1, 2, 2)
TCNUM_FP8_OPS(e4m3, e4m3)
TCNUM_FP8_OPS(e4m3, e5m2)
TCNUM_FP8_OPS(e5m2, e4m3)
TCNUM_FP8_OPS(e5m2, e5m2)
// Integer (sm_75+ m8n8, sm_80+ m16n8): every signedness pair, wrap and .satfinite.
using K16b = M8N8I<16, 8>;
using K32n = M8N8I<32, 4>;
using K32s4 = M16N8<32, 4>;
using K64s4 = M16N8<64, 4>;
#define TCNUM_INT_SAT_OPS(ID, SHAPE, A, B, LAYOUT, AB, MINARCH, NA, NB, NC)          \
  TCNUM_INT_OP(ID##_wrap, SHAPE, "", A, B, LAYOUT, AB, MINARCH, NA, NB, NC)          \
  TCNUM_INT_OP(ID##_sat, SHAPE, ".satfinite", A, B, LAYOUT, AB, MINARCH, NA, NB, NC)
#define TCNUM_INT_OPS(A, B, N4A, N4B)                                                          \
  TCNUM_INT_SAT_OPS(I8816_##A##_##B, m8n8k16, A##8, B##8, K16b, 8, 75, 1, 1, 2)              \
  TCNUM_INT_SAT_OPS(I16816_##A##_##B, m16n8k16, A##8, B##8, K16q, 8, 80, 2, 1, 4)            \
  TCNUM_INT_SAT_OPS(I16832_##A##_##B, m16n8k32, A##8, B##8, K32q, 8, 80, 4, 2, 4)            \
  TCNUM_INT_SAT_OPS(I8832_##A##_##B, m8n8k32, N4A, N4B, K32n, 4, 75, 1, 1, 2)                \
  TCNUM_INT_SAT_OPS(I16832n_##A##_##B, m16n8k32, N4A, N4B, K32s4, 4, 80, 2, 1, 4)            \
  TCNUM_INT_SAT_OPS(I16864_##A##_##B, m16n8k64, N4A, N4B, K64s4, 4, 80, 4, 2, 4)
TCNUM_INT_OPS(s, s, s4, s4)
TCNUM_INT_OPS(s, u, s4, u4)
TCNUM_INT_OPS(u, s, u4, s4)
TCNUM_INT_OPS(u, u, u4, u4)
// clang-format on

template <int BITS, int N>
__device__ void pack(std::uint32_t (&r)[N], int e, std::uint32_t v) {
  constexpr std::uint32_t mask = BITS == 32 ? 0xffffffffu : (1u << BITS) - 1u;
  r[e * BITS / 32] |= (v & mask) << (e * BITS % 32);
}

template <int BITS, int N>
__device__ std::uint32_t unpack(const std::uint32_t (&r)[N], int e) {
  constexpr std::uint32_t mask = BITS == 32 ? 0xffffffffu : (1u << BITS) - 1u;
  return (r[e * BITS / 32] >> (e * BITS % 32)) & mask;
}

// Grid-stride over tiles, one warp-wide step at a time (the loop bound is warp-uniform, as
// mma.sync.aligned requires). Lanes whose m8n8k4 quadpair has no tile left compute on a
// copy of a live tile and store nothing.
template <class Op>
__global__ void __launch_bounds__(kThreads) mma_tiles(const std::uint32_t* __restrict__ a,
                                                      const std::uint32_t* __restrict__ b,
                                                      const std::uint32_t* __restrict__ c,
                                                      std::uint32_t* __restrict__ d, long long tiles) {
  using L = typename Op::L;
  constexpr int M = L::M, N = L::N, K = L::K, TPW = L::tiles_per_warp;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  for (long long base = warp * TPW; base < tiles; base += warps * TPW) {
    const long long t = base + L::sub(lane);
    const bool live = t < tiles;
    const long long src = live ? t : base;
    const std::uint32_t* ta = a + src * (M * K);
    const std::uint32_t* tb = b + src * (N * K);
    const std::uint32_t* tc = c + src * (M * N);
    std::uint32_t ra[Op::na] = {}, rb[Op::nb] = {}, rc[Op::nc] = {}, rd[Op::nd] = {};
#pragma unroll
    for (int e = 0; e < L::a_elems; ++e) {
      int row, col;
      L::a_pos(lane, e, row, col);
      pack<Op::abits>(ra, e, ta[row * K + col]);
    }
#pragma unroll
    for (int e = 0; e < L::b_elems; ++e) {
      int k, n;
      L::b_pos(lane, e, k, n);
      pack<Op::abits>(rb, e, tb[n * K + k]);
    }
#pragma unroll
    for (int e = 0; e < L::c_elems; ++e) {
      int row, col;
      L::template cd_pos<Op::cbits>(lane, e, row, col);
      pack<Op::cbits>(rc, e, tc[row * N + col]);
    }
    if constexpr (Op::min_arch * 10 <= kArch) {
      Op::template run<>(ra, rb, rc, rd);
    } else {
      __trap();  // not compiled for this target; the runner refuses such devices first
    }
    if (live) {
      std::uint32_t* td = d + t * (M * N);
#pragma unroll
      for (int e = 0; e < L::c_elems; ++e) {
        int row, col;
        L::template cd_pos<Op::dbits>(lane, e, row, col);
        td[row * N + col] = unpack<Op::dbits>(rd, e);
      }
    }
  }
}

template <class Op>
cudaError_t launch(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d,
                   long long tiles, int max_blocks, cudaStream_t stream) {
  if (tiles <= 0) return cudaSuccess;
  constexpr int warps_per_block = kThreads / 32;
  const long long warps = (tiles + Op::L::tiles_per_warp - 1) / Op::L::tiles_per_warp;
  const long long blocks = std::max(1LL, std::min<long long>((warps + warps_per_block - 1) / warps_per_block,
                                                            std::max(1, max_blocks)));
  mma_tiles<Op><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, c, d, tiles);
  return cudaGetLastError();
}

template <class Op>
MmaKernel entry() {
  return {Op::name, Op::min_arch, Op::L::M, Op::L::N, Op::L::K, &launch<Op>};
}

#define TCNUM_INT_SAT_ENTRIES(ID) entry<ID##_wrap>(), entry<ID##_sat>()
#define TCNUM_INT_ENTRIES(A, B)                                                                       \
  TCNUM_INT_SAT_ENTRIES(I8816_##A##_##B), TCNUM_INT_SAT_ENTRIES(I16816_##A##_##B),                    \
      TCNUM_INT_SAT_ENTRIES(I16832_##A##_##B), TCNUM_INT_SAT_ENTRIES(I8832_##A##_##B),                \
      TCNUM_INT_SAT_ENTRIES(I16832n_##A##_##B), TCNUM_INT_SAT_ENTRIES(I16864_##A##_##B)

#define TCNUM_FP8_ENTRIES(A, B)                                                                      \
  entry<M16832_f32_##A##_##B>(), entry<M16832_f16_##A##_##B>(), entry<M16816_f32_##A##_##B>(),       \
      entry<M16816_f16_##A##_##B>()

}  // namespace

const std::vector<MmaKernel>& mma_kernels() {
  static const std::vector<MmaKernel> all = {
      entry<M884_f32_f16_f32>(),  entry<M884_f16_f16_f16>(),  entry<M884_f32_f16_f16>(),
      entry<M1688_f32_f16>(),     entry<M1688_f16_f16>(),     entry<M1688_f32_bf16>(),
      entry<M16816_f32_f16>(),    entry<M16816_f16_f16>(),    entry<M16816_f32_bf16>(),
      entry<M1684_tf32>(),        entry<M1688_tf32>(),        TCNUM_FP8_ENTRIES(e4m3, e4m3),
      TCNUM_FP8_ENTRIES(e4m3, e5m2), TCNUM_FP8_ENTRIES(e5m2, e4m3), TCNUM_FP8_ENTRIES(e5m2, e5m2),
      TCNUM_INT_ENTRIES(s, s), TCNUM_INT_ENTRIES(s, u), TCNUM_INT_ENTRIES(u, s), TCNUM_INT_ENTRIES(u, u),
  };
  return all;
}

const MmaKernel* find_mma_kernel(std::string_view name) {
  for (const MmaKernel& k : mma_kernels())
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace tcnum::device::detail
