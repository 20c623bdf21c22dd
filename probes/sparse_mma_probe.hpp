// Internal: the table of mma.sp::ordered_metadata probe kernels (sparse_mma_kernels.cu).
#pragma once
#include <cstdint>
#include <string_view>

#include <cuda_runtime_api.h>

namespace tcnum::device::detail {

// One probe kernel: one mma.sp per tile (16×8, logical K), sparsity selector 0.
//   a: tiles × 16×(K/2) stored A (row-major), b: tiles × 8×K ([n][k]), c, d: tiles × 16×8
//   (row-major), meta: tiles × 32 metadata words, one per lane.
struct SparseKernel {
  const char* name;  // catalog name, e.g. "mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32"
  int min_arch;
  int k;
  cudaError_t (*launch)(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                        const std::uint32_t* meta, std::uint32_t* d, long long tiles, int max_blocks,
                        cudaStream_t stream);
};

const SparseKernel* find_sparse_kernel(std::string_view name);  // nullptr when none

// One wgmma.mma_async.sp probe kernel (sparse_wgmma_kernels.cu, sm_90a; N = 8, 64, 256):
//   a: tiles × 128 lanes × 4 A register words, b: tiles × the N×64-byte shared-memory image,
//   c, d: tiles × 64×N row-major, meta: tiles × 128 lane words. *status = 1 when the binary has
//   no sm_90a code.
struct SparseWgmmaKernel {
  const char* name;  // "wgmma.mma_async.sp.m64n64k32.f32.bf16.bf16"
  int n;
  cudaError_t (*launch)(const std::uint32_t* a, const void* b, const std::uint32_t* c, const std::uint32_t* meta,
                        std::uint32_t* d, int tiles, int* status, cudaStream_t stream);
};

// nullptr when none, or when this build has no wgmma.sp kernels (TCNUM_SPARSE_WGMMA_PROBES unset).
const SparseWgmmaKernel* find_sparse_wgmma_kernel(std::string_view name);

}  // namespace tcnum::device::detail
