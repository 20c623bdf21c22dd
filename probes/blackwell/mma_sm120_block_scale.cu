// sm_120a (RTX Blackwell) probe kernel for the NVFP4 block-scaled mma.sync: one warp runs
// mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// on raw registers and writes D's raw bits back. Not built by CMake yet (no runner, no layout
// self-check): compile-only, so that it stays valid PTX for the day an RTX 50xx is available:
//   nvcc -gencode=arch=compute_120a,code=sm_120a -c probes/blackwell/mma_sm120_block_scale.cu
// (-arch=sm_120 is refused by ptxas: block scaling needs the "a" target). Register contents per
// thread follow the PTX ISA's m16n8k64 e2m1 fragment layout; scale-a-data/scale-b-data hold the
// four ue4m3 scales of a row of A / column of B, selected by {byte-id, thread-id} = {0, 0}.
#include <cstdint>

__global__ void mma_mxf4nvf4_scale_vec_4x(const std::uint32_t* a, const std::uint32_t* b, const float* c,
                                          const std::uint32_t* scale_a, const std::uint32_t* scale_b, float* d) {
  const int t = threadIdx.x;
  const std::uint32_t a0 = a[t * 4], a1 = a[t * 4 + 1], a2 = a[t * 4 + 2], a3 = a[t * 4 + 3];
  const std::uint32_t b0 = b[t * 2], b1 = b[t * 2 + 1];
  const float c0 = c[t * 4], c1 = c[t * 4 + 1], c2 = c[t * 4 + 2], c3 = c[t * 4 + 3];
  const std::uint32_t sfa = scale_a[t], sfb = scale_b[t];
  float d0, d1, d2, d3;
  asm volatile(
      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {0, 0}, %15, {0, 0};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3), "r"(sfa), "r"(sfb));
  d[t * 4] = d0;
  d[t * 4 + 1] = d1;
  d[t * 4 + 2] = d2;
  d[t * 4 + 3] = d3;
}
