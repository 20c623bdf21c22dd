// The table of sm_120a probe kernels (mma_sm120_kernels.cu), by catalog name.
#pragma once
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

namespace tcnum::sm120 {

// One mma.sync per tile; operands as WarpRegisters (sm120_fragments.hpp) of `tiles` tiles in a row.
using KernelFn = void (*)(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                          const std::uint32_t* scale_a, const std::uint32_t* scale_b, std::uint32_t* d, long long tiles);

struct Kernel {
  const char* name;  // catalog name, e.g. "mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1.f32"
  KernelFn kernel;
};

const std::vector<Kernel>& kernels();

// Launches `blocks` blocks of 4 warps (a grid-stride loop over the tiles); returns the launch error.
cudaError_t launch(const Kernel& k, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                   const std::uint32_t* scale_a, const std::uint32_t* scale_b, std::uint32_t* d, long long tiles,
                   int blocks, cudaStream_t stream);

}  // namespace tcnum::sm120
