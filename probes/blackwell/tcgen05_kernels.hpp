// Launch of the sm_100a tcgen05 block-scaled probe kernels (tcgen05_block_scale.cu).
#pragma once
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tcnum::tcgen05 {

// One CTA per tile; images as tcgen05_layout.hpp builds them (tiles in a row), C and D M×N (M = 128)
// row-major f32 bits. form: 0 mxf8f6f4 1X, 1 mxf4 2X, 2 mxf4nvf4 2X, 3 mxf4nvf4 4X.
cudaError_t launch_block_scaled(int form, const std::uint32_t* a_img, const std::uint32_t* b_img,
                                const std::uint32_t* sfa_img, const std::uint32_t* sfb_img, const std::uint32_t* c,
                                std::uint32_t* d, int tiles, int n, std::uint32_t idesc, cudaStream_t stream);

}  // namespace tcnum::tcgen05
