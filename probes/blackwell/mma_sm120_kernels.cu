// sm_120a (RTX Blackwell) probe kernels: every mma.sync kind of tcnum's sm_120 catalog that the
// older sm_80/sm_89 kernels do not cover (kind::f8f6f4 with f32 or f16 C/D, kind::mxf8f6f4,
// kind::mxf4, kind::mxf4nvf4 block-scaled), one mma.sync per tile on raw registers that the host
// packed with sm120_fragments.hpp (WarpRegisters, lane-major). Block scaling needs the "a" target:
//   nvcc -gencode=arch=compute_120a,code=sm_120a -c probes/blackwell/mma_sm120_kernels.cu
// (.ci/run compiles this when nvcc is present; no RTX 50xx has run it yet: literature-only until the
// layout self-check in sm120_runner.cpp passes on one).
#include <cstdint>

#include "sm120_kernels.hpp"

namespace tcnum::sm120 {
namespace {

// Per tile: a 128 words, b 64, c/d 32 x (4 f32 | 2 f16x2) words, scale_a/scale_b 32 words.
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ long long first_warp() { return (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32; }
__device__ __forceinline__ long long warp_count() { return gridDim.x * static_cast<long long>(blockDim.x) / 32; }

// f32 C/D: one kernel body, the mma given as MMA(d, ta, tb, tc, scale_a, scale_b) below.
#define TCNUM_SM120_F32(FN, MMA)                                                                                 \
  __global__ void FN(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,                      \
                     const std::uint32_t* sa, const std::uint32_t* sb, std::uint32_t* d, long long tiles) {       \
    const int l = lane_id();                                                                                      \
    for (long long t = first_warp(); t < tiles; t += warp_count()) {                                              \
      const std::uint32_t* ta = a + t * 128 + l * 4;                                                              \
      const std::uint32_t* tb = b + t * 64 + l * 2;                                                               \
      const std::uint32_t* tc = c + t * 128 + l * 4;                                                              \
      const std::uint32_t scale_a = sa ? sa[t * 32 + l] : 0u, scale_b = sb ? sb[t * 32 + l] : 0u;               \
      (void)scale_a, (void)scale_b; /* the dense forms take no scales */                                         \
      float d0, d1, d2, d3;                                                                                       \
      MMA;                                                                                                        \
      std::uint32_t* td = d + t * 128 + l * 4;                                                                    \
      td[0] = __float_as_uint(d0), td[1] = __float_as_uint(d1), td[2] = __float_as_uint(d2),                      \
      td[3] = __float_as_uint(d3);                                                                                \
    }                                                                                                             \
  }

#define TCNUM_SM120_F32_OPERANDS                                                                                  \
  "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                                                                          \
      : "r"(ta[0]), "r"(ta[1]), "r"(ta[2]), "r"(ta[3]), "r"(tb[0]), "r"(tb[1]), "f"(__uint_as_float(tc[0])),      \
        "f"(__uint_as_float(tc[1])), "f"(__uint_as_float(tc[2])), "f"(__uint_as_float(tc[3]))

// D = A·B + C, dense kind::f8f6f4.
#define TCNUM_SM120_DENSE_F32(FN, PTX) \
  TCNUM_SM120_F32(FN, asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : TCNUM_SM120_F32_OPERANDS))

// Block-scaled: scale-a-data and scale-b-data with selectors {byte-id, thread-id} = {0, 0}.
#define TCNUM_SM120_SCALED(FN, PTX)                                                                              \
  TCNUM_SM120_F32(FN, asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, "  \
                                       "%15, {0, 0};"                                                              \
                                   : TCNUM_SM120_F32_OPERANDS, "r"(scale_a), "r"(scale_b)))

// The same with f16 C/D: two halves per register.
#define TCNUM_SM120_DENSE_F16(FN, PTX)                                                                          \
  __global__ void FN(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, const std::uint32_t*, \
                     const std::uint32_t*, std::uint32_t* d, long long tiles) {                                   \
    const int l = lane_id();                                                                                      \
    for (long long t = first_warp(); t < tiles; t += warp_count()) {                                              \
      const std::uint32_t* ta = a + t * 128 + l * 4;                                                              \
      const std::uint32_t* tb = b + t * 64 + l * 2;                                                               \
      const std::uint32_t* tc = c + t * 64 + l * 2;                                                               \
      std::uint32_t d0, d1;                                                                                       \
      asm volatile(PTX " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                                             \
                   : "=r"(d0), "=r"(d1)                                                                           \
                   : "r"(ta[0]), "r"(ta[1]), "r"(ta[2]), "r"(ta[3]), "r"(tb[0]), "r"(tb[1]), "r"(tc[0]), "r"(tc[1])); \
      d[t * 64 + l * 2] = d0, d[t * 64 + l * 2 + 1] = d1;                                                         \
    }                                                                                                             \
  }

TCNUM_SM120_DENSE_F32(dense_f32_e4m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e4m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16")
TCNUM_SM120_SCALED(mx8_e4m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e4m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e4m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e5m2.f16")
TCNUM_SM120_SCALED(mx8_e4m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e4m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e4m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e3m2.f16")
TCNUM_SM120_SCALED(mx8_e4m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e3m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e4m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e4m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m3.f16")
TCNUM_SM120_SCALED(mx8_e4m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e4m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e4m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m1.f16")
TCNUM_SM120_SCALED(mx8_e4m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e5m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e5m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e4m3.f16")
TCNUM_SM120_SCALED(mx8_e5m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e5m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e5m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16")
TCNUM_SM120_SCALED(mx8_e5m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e5m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e5m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e3m2.f16")
TCNUM_SM120_SCALED(mx8_e5m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e5m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e5m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m3.f16")
TCNUM_SM120_SCALED(mx8_e5m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e5m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e5m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m1.f16")
TCNUM_SM120_SCALED(mx8_e5m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e3m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e3m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e4m3.f16")
TCNUM_SM120_SCALED(mx8_e3m2_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e3m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e3m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e5m2.f16")
TCNUM_SM120_SCALED(mx8_e3m2_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e5m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e3m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e3m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16")
TCNUM_SM120_SCALED(mx8_e3m2_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e3m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e3m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m3.f16")
TCNUM_SM120_SCALED(mx8_e3m2_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e3m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e3m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m1.f16")
TCNUM_SM120_SCALED(mx8_e3m2_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16")
TCNUM_SM120_SCALED(mx8_e2m3_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e4m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e5m2.f16")
TCNUM_SM120_SCALED(mx8_e2m3_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e3m2.f16")
TCNUM_SM120_SCALED(mx8_e2m3_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16")
TCNUM_SM120_SCALED(mx8_e2m3_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16")
TCNUM_SM120_SCALED(mx8_e2m3_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m1.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m1_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m1_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e4m3.f16")
TCNUM_SM120_SCALED(mx8_e2m1_e4m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m1_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m1_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e5m2.f16")
TCNUM_SM120_SCALED(mx8_e2m1_e5m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e5m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m1_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m1_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16")
TCNUM_SM120_SCALED(mx8_e2m1_e3m2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m1_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m1_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m3.f16")
TCNUM_SM120_SCALED(mx8_e2m1_e2m3, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m3.f32.ue8m0")
TCNUM_SM120_DENSE_F32(dense_f32_e2m1_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32")
TCNUM_SM120_DENSE_F16(dense_f16_e2m1_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16")
TCNUM_SM120_SCALED(mx8_e2m1_e2m1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0")
TCNUM_SM120_SCALED(mxf4_2x, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0")
TCNUM_SM120_SCALED(nvf4_2x, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0")
TCNUM_SM120_SCALED(nvf4_4x, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")

}  // namespace

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = {
      {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e4m3.f32", dense_f32_e4m3_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e4m3.e4m3.f16", dense_f16_e4m3_e4m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0", mx8_e4m3_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e5m2.f32", dense_f32_e4m3_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e4m3.e5m2.f16", dense_f16_e4m3_e5m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0", mx8_e4m3_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e3m2.f32", dense_f32_e4m3_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e4m3.e3m2.f16", dense_f16_e4m3_e3m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e3m2.f32.ue8m0", mx8_e4m3_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m3.f32", dense_f32_e4m3_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e4m3.e2m3.f16", dense_f16_e4m3_e2m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0", mx8_e4m3_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m1.f32", dense_f32_e4m3_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f16.e4m3.e2m1.f16", dense_f16_e4m3_e2m1},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0", mx8_e4m3_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e4m3.f32", dense_f32_e5m2_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e5m2.e4m3.f16", dense_f16_e5m2_e4m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0", mx8_e5m2_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e5m2.f32", dense_f32_e5m2_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e5m2.e5m2.f16", dense_f16_e5m2_e5m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0", mx8_e5m2_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e3m2.f32", dense_f32_e5m2_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e5m2.e3m2.f16", dense_f16_e5m2_e3m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.f32.ue8m0", mx8_e5m2_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e2m3.f32", dense_f32_e5m2_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e5m2.e2m3.f16", dense_f16_e5m2_e2m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m3.f32.ue8m0", mx8_e5m2_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e2m1.f32", dense_f32_e5m2_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f16.e5m2.e2m1.f16", dense_f16_e5m2_e2m1},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1.f32.ue8m0", mx8_e5m2_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e4m3.f32", dense_f32_e3m2_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e3m2.e4m3.f16", dense_f16_e3m2_e4m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0", mx8_e3m2_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e5m2.f32", dense_f32_e3m2_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e3m2.e5m2.f16", dense_f16_e3m2_e5m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e5m2.f32.ue8m0", mx8_e3m2_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e3m2.f32", dense_f32_e3m2_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e3m2.e3m2.f16", dense_f16_e3m2_e3m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0", mx8_e3m2_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e2m3.f32", dense_f32_e3m2_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e3m2.e2m3.f16", dense_f16_e3m2_e2m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0", mx8_e3m2_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e2m1.f32", dense_f32_e3m2_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f16.e3m2.e2m1.f16", dense_f16_e3m2_e2m1},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0", mx8_e3m2_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e4m3.f32", dense_f32_e2m3_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m3.e4m3.f16", dense_f16_e2m3_e4m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e4m3.f32.ue8m0", mx8_e2m3_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e5m2.f32", dense_f32_e2m3_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m3.e5m2.f16", dense_f16_e2m3_e5m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0", mx8_e2m3_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e3m2.f32", dense_f32_e2m3_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m3.e3m2.f16", dense_f16_e2m3_e3m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0", mx8_e2m3_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e2m3.f32", dense_f32_e2m3_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m3.e2m3.f16", dense_f16_e2m3_e2m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0", mx8_e2m3_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e2m1.f32", dense_f32_e2m3_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m3.e2m1.f16", dense_f16_e2m3_e2m1},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m1.f32.ue8m0", mx8_e2m3_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e4m3.f32", dense_f32_e2m1_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m1.e4m3.f16", dense_f16_e2m1_e4m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0", mx8_e2m1_e4m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e5m2.f32", dense_f32_e2m1_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m1.e5m2.f16", dense_f16_e2m1_e5m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e5m2.f32.ue8m0", mx8_e2m1_e5m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e3m2.f32", dense_f32_e2m1_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m1.e3m2.f16", dense_f16_e2m1_e3m2},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0", mx8_e2m1_e3m2},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m3.f32", dense_f32_e2m1_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m1.e2m3.f16", dense_f16_e2m1_e2m3},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m3.f32.ue8m0", mx8_e2m1_e2m3},
      {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1.f32", dense_f32_e2m1_e2m1},
      {"mma.m16n8k32.kind::f8f6f4.f16.e2m1.e2m1.f16", dense_f16_e2m1_e2m1},
      {"mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0", mx8_e2m1_e2m1},
      {"mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", mxf4_2x},
      {"mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", nvf4_2x},
      {"mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", nvf4_4x},
  };
  return all;
}

cudaError_t launch(const Kernel& k, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                   const std::uint32_t* scale_a, const std::uint32_t* scale_b, std::uint32_t* d, long long tiles,
                   int blocks, cudaStream_t stream) {
  k.kernel<<<blocks, 128, 0, stream>>>(a, b, c, scale_a, scale_b, d, tiles);
  return cudaGetLastError();
}

}  // namespace tcnum::sm120
