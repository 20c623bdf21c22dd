// Internal to the probes: the Hopper wgmma.mma_async probe kernels (probes/wgmma_kernels.cu).
// probes/runner.cpp dispatches Family::wgmma here (run_wgmma).
#pragma once
#include <cstdint>
#include <vector>

#include "tcnum/probes/device.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::device::detail {

// Runs `tiles` independent wgmma.mma_async tiles, one warpgroup per tile, D = A*B + C
// (scale-d = 1, no negation, both operands K-major: imm-trans-a = imm-trans-b = 0).
//
//   a: tiles × 64×K row-major          (raw bits of in.a_type in the low bits of each word)
//   b: tiles × N×K, b[n][k] = B(k, n)   (raw bits of in.b_type)
//   c: tiles × 64×N row-major           (raw bits of in.d_type: fp32, or fp16 in the low 16 bits)
//   returns D: tiles × 64×N row-major   (raw bits as the device wrote them; fp16 zero-extended)
//
// Bits above an operand's storage width are ignored (tf32 passes all 32 bits to the device).
// `in`: family wgmma, m = 64, n, k = 16 (f16, bf16), 8 (tf32) or 32 (e4m3/e5m2 in any mix),
// d_type == c_type = fp32, or fp16 for f16 and fp8 inputs. Every N that PTX allows is supported:
// a multiple of 8 from 8 to 256. a_source picks the SS form (A through a shared-memory
// descriptor) or the RS form (A in registers).
//
// Throws std::invalid_argument for an instruction or sizes it cannot run, and DeviceError when
// the device is not sm_90 (Hopper), when the binary lacks sm_90a code, or when a CUDA call fails.
std::vector<std::uint32_t> run_wgmma_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                           const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                           ASource a_source, int device);

}  // namespace tcnum::device::detail
