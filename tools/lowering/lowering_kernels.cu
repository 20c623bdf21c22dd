// Compile-only kernels whose SASS shows how ptxas lowers (1) the wmma calls of Khattak &
// Mikaitis' validation kernels (m16n16k16 f16/bf16, m16n16k8 tf32; A row-major, B col-major,
// C/D col-major), (2) their fp8 mma.sync.m16n8k32 and (3) mma.m8n8k4 (CUDA-core code on
// sm_80+). Used by check_lowering.sh; docs/models.md quotes the result.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <class In, class Frag, int K, class Acc>
__device__ void wmma_case(const In* a, const In* b, Acc* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, K, Frag, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, K, Frag, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, K, Acc> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_col_major);
}
__global__ void k_f16_f32(const half* a, const half* b, float* c) { wmma_case<half, half, 16>(a, b, c); }
__global__ void k_f16_f16(const half* a, const half* b, half* c) { wmma_case<half, half, 16>(a, b, c); }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__global__ void k_bf16_f32(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  wmma_case<__nv_bfloat16, __nv_bfloat16, 16>(a, b, c);
}
__global__ void k_tf32_f32(const float* a, const float* b, float* c) {
  wmma_case<float, wmma::precision::tf32, 8>(a, b, c);
}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 890
__global__ void k_e4m3_f32(const unsigned* a, const unsigned* b, float* d) {
  const int t = threadIdx.x;
  float r[4];
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3])
      : "r"(a[4*t]), "r"(a[4*t+1]), "r"(a[4*t+2]), "r"(a[4*t+3]), "r"(b[2*t]), "r"(b[2*t+1]),
        "f"(d[4*t]), "f"(d[4*t+1]), "f"(d[4*t+2]), "f"(d[4*t+3]));
  for (int i = 0; i < 4; ++i) d[4*t+i] = r[i];
}
__global__ void k_e5m2_f16(const unsigned* a, const unsigned* b, unsigned* d) {
  const int t = threadIdx.x;
  unsigned r[2];
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
      : "=r"(r[0]), "=r"(r[1])
      : "r"(a[4*t]), "r"(a[4*t+1]), "r"(a[4*t+2]), "r"(a[4*t+3]), "r"(b[2*t]), "r"(b[2*t+1]),
        "r"(d[2*t]), "r"(d[2*t+1]));
  d[2*t] = r[0]; d[2*t+1] = r[1];
}
#endif
__global__ void k_m8n8k4_f32(const unsigned* a, const unsigned* b, float* d) {
  const int t = threadIdx.x;
  float r[8];
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};\n"
      : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]), "=f"(r[4]), "=f"(r[5]), "=f"(r[6]), "=f"(r[7])
      : "r"(a[2*t]), "r"(a[2*t+1]), "r"(b[2*t]), "r"(b[2*t+1]),
        "f"(d[8*t]), "f"(d[8*t+1]), "f"(d[8*t+2]), "f"(d[8*t+3]), "f"(d[8*t+4]), "f"(d[8*t+5]), "f"(d[8*t+6]), "f"(d[8*t+7]));
  for (int i = 0; i < 8; ++i) d[8*t+i] = r[i];
}
__global__ void k_m8n8k4_f16(const unsigned* a, const unsigned* b, unsigned* d) {
  const int t = threadIdx.x;
  unsigned r[4];
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(a[2*t]), "r"(a[2*t+1]), "r"(b[2*t]), "r"(b[2*t+1]), "r"(d[4*t]), "r"(d[4*t+1]), "r"(d[4*t+2]), "r"(d[4*t+3]));
  for (int i = 0; i < 4; ++i) d[4*t+i] = r[i];
}
