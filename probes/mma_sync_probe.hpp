// Internal: the table of mma.sync probe kernels (mma_sync_kernels.cu) used by the runner.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

namespace tcnum::device::detail {

// One probe kernel: executes one mma.sync per tile on raw bits, tiles laid out as in run_tiles.
struct MmaKernel {
  const char* name;  // catalog name, e.g. "mma.m16n8k16.f32.f16.f16.f32"
  int min_arch;      // compiled only for targets >= this (80, 89); older targets trap
  int m, n, k;
  // Launches on `stream`, grid capped at max_blocks blocks (grid-stride over tiles);
  // returns the launch error.
  cudaError_t (*launch)(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                        std::uint32_t* d, long long tiles, int max_blocks, cudaStream_t stream);
};

// nullptr when no probe kernel exists for that name.
const MmaKernel* find_mma_kernel(std::string_view name);
const std::vector<MmaKernel>& mma_kernels();

}  // namespace tcnum::device::detail
