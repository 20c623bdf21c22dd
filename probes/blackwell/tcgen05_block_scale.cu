// sm_100a (B200) probe kernels for tcgen05.mma's block-scaled kinds: one CTA of 128 threads per tile
// copies the tile's images (tcgen05_layout.hpp) into shared memory, C into tensor memory, the scales
// into tensor memory (tcgen05.cp .32x128b.warpx4), issues one
//   tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale.scale_vec::{1X,2X,4X}
// with D = A·B + C, and reads D back with tcgen05.ld. Compile-only here (.ci/run, when nvcc is present):
//   nvcc -gencode=arch=compute_100a,code=sm_100a -c probes/blackwell/tcgen05_block_scale.cu
// No B200 has run it: literature-only until tcgen05_runner.cpp's layout self-check passes on one.
#include <cstdint>

#include "tcgen05_kernels.hpp"
#include "tcgen05_layout.hpp"

namespace tcnum::tcgen05 {
namespace {

constexpr int kThreads = 128;   // four warps: warp w owns tensor-memory lanes 32w..32w+31 (rows of D)
constexpr int kTmemColumns = 512;
constexpr int kScaleAColumn = 256, kScaleBColumn = 260;  // after D's (at most 256) f32 columns

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void wait_parity(std::uint32_t bar, std::uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra wait_%=;\n}\n"
      :: "r"(bar), "r"(parity) : "memory");
}

// Form: 0 mxf8f6f4 1X, 1 mxf4 2X, 2 mxf4nvf4 2X, 3 mxf4nvf4 4X (types and scale type are in idesc).
template <int Form>
__device__ __forceinline__ void issue_mma(std::uint32_t d, std::uint64_t adesc, std::uint64_t bdesc, std::uint32_t idesc,
                                         std::uint32_t sfa, std::uint32_t sfb) {
#define TCNUM_TCGEN05_MMA(KIND)                                                                          \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n tcgen05.mma.cta_group::1." KIND                \
               " [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(d), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(sfa), \
               "r"(sfb) : "memory")
  if constexpr (Form == 0) TCNUM_TCGEN05_MMA("kind::mxf8f6f4.block_scale.scale_vec::1X");
  if constexpr (Form == 1) TCNUM_TCGEN05_MMA("kind::mxf4.block_scale.scale_vec::2X");
  if constexpr (Form == 2) TCNUM_TCGEN05_MMA("kind::mxf4nvf4.block_scale.scale_vec::2X");
  if constexpr (Form == 3) TCNUM_TCGEN05_MMA("kind::mxf4nvf4.block_scale.scale_vec::4X");
#undef TCNUM_TCGEN05_MMA
}

template <int Form>
__global__ void __launch_bounds__(kThreads) block_scaled_tile(const std::uint32_t* a_img, const std::uint32_t* b_img,
                                                              const std::uint32_t* sfa_img, const std::uint32_t* sfb_img,
                                                              const std::uint32_t* c, std::uint32_t* d, int n,
                                                              std::uint32_t idesc) {
  __shared__ alignas(1024) std::uint32_t sa[128 * kRowBytes / 4];
  __shared__ alignas(1024) std::uint32_t sb[256 * kRowBytes / 4];
  __shared__ alignas(128) std::uint32_t ssfa[kChunkBytes / 4];
  __shared__ alignas(128) std::uint32_t ssfb[2 * kChunkBytes / 4];
  __shared__ alignas(8) std::uint64_t mbar;
  __shared__ std::uint32_t tmem_slot;
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32;
  const long long t = blockIdx.x;
  const int chunks = (n + 127) / 128, bwords = n * kRowBytes / 4;
  for (int i = tid; i < 128 * kRowBytes / 4; i += kThreads) sa[i] = a_img[t * (128 * kRowBytes / 4) + i];
  for (int i = tid; i < bwords; i += kThreads) sb[i] = b_img[t * bwords + i];
  for (int i = tid; i < kChunkBytes / 4; i += kThreads) ssfa[i] = sfa_img[t * (kChunkBytes / 4) + i];
  for (int i = tid; i < chunks * kChunkBytes / 4; i += kThreads) ssfb[i] = sfb_img[t * chunks * (kChunkBytes / 4) + i];
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(shared_address(&tmem_slot)),
                 "r"(kTmemColumns) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&mbar)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the generic-proxy stores, seen by tcgen05
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const std::uint32_t tmem = tmem_slot, lane_base = static_cast<std::uint32_t>(32 * warp) << 16;

  // C into D's columns: thread tid holds row tid.
  for (int col = 0; col < n; col += 8) {
    const std::uint32_t* src = c + (t * 128 + tid) * n + col;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"r"(
                     tmem + lane_base + static_cast<std::uint32_t>(col)),
                 "r"(src[0]), "r"(src[1]), "r"(src[2]), "r"(src[3]), "r"(src[4]), "r"(src[5]), "r"(src[6]), "r"(src[7])
                 : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (tid == 0) {
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + kScaleAColumn),
                 "l"(smem_descriptor(shared_address(ssfa), 0, 128)) : "memory");
    for (int ch = 0; ch < chunks; ++ch)
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + kScaleBColumn + 4 * ch),
                   "l"(smem_descriptor(shared_address(ssfb + ch * kChunkBytes / 4), 0, 128)) : "memory");
    issue_mma<Form>(tmem, smem_descriptor(shared_address(sa), 128, 256), smem_descriptor(shared_address(sb), 128, 256),
                    idesc, tmem + kScaleAColumn, tmem + kScaleBColumn);
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                     shared_address(&mbar)) : "memory");
  }
  wait_parity(shared_address(&mbar), 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  for (int col = 0; col < n; col += 8) {
    std::uint32_t v[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
                 : "r"(tmem + lane_base + static_cast<std::uint32_t>(col)) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int j = 0; j < 8; ++j) d[(t * 128 + tid) * n + col + j] = v[j];
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem), "r"(kTmemColumns) : "memory");
}

}  // namespace

cudaError_t launch_block_scaled(int form, const std::uint32_t* a_img, const std::uint32_t* b_img,
                                const std::uint32_t* sfa_img, const std::uint32_t* sfb_img, const std::uint32_t* c,
                                std::uint32_t* d, int tiles, int n, std::uint32_t idesc, cudaStream_t stream) {
  switch (form) {
    case 0: block_scaled_tile<0><<<tiles, kThreads, 0, stream>>>(a_img, b_img, sfa_img, sfb_img, c, d, n, idesc); break;
    case 1: block_scaled_tile<1><<<tiles, kThreads, 0, stream>>>(a_img, b_img, sfa_img, sfb_img, c, d, n, idesc); break;
    case 2: block_scaled_tile<2><<<tiles, kThreads, 0, stream>>>(a_img, b_img, sfa_img, sfb_img, c, d, n, idesc); break;
    case 3: block_scaled_tile<3><<<tiles, kThreads, 0, stream>>>(a_img, b_img, sfa_img, sfb_img, c, d, n, idesc); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace tcnum::tcgen05
