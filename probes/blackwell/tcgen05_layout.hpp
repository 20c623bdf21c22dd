// Operand images of the sm_100a tcgen05.mma block-scaled probe (tcgen05_block_scale.cu): the bytes
// the kernel copies verbatim into shared memory, where the shared-memory descriptors and the
// tcgen05.cp of the scales read them. Plain C++ (no CUDA), so that tests/test_blackwell_fragments.cpp
// checks without a GPU that every element and scale lands in exactly one byte/nibble.
// Literature-only until the layout self-check has passed on a B200.
//
// Layouts (PTX ISA 9.x, "Shared Memory Matrix Layout" / "Shared memory descriptor", no swizzle,
// K-major; "tcgen05.cp"; "Block Scaling" and "Scale Factor A/B ID"; the scale-factor chunk as
// CUTLASS's Sm1xxBlockScaledBasicChunk describes it):
//  - A (M = 128 rows) and B (N rows) are K-major with 32 bytes per row (32 fp8 elements, or 64 e2m1
//    packed two per byte, low nibble first): core matrices of 8 rows × 16 bytes, 128 contiguous bytes
//    each, row r at byte 16·(r % 8) inside its core matrix; core matrix (r / 8, kb) at byte
//    256·(r / 8) + 128·kb for the 16-byte K half kb. Hence leading-dimension byte offset (between
//    the two K halves) 128, stride-dimension byte offset (between 8-row groups) 256.
//  - Scales of 128 rows (A, or B's columns 0..127 and 128..255): one 512-byte chunk, 32 lanes × 16
//    bytes; row r's scale of k-block j at byte 16·(r % 32) + 4·(r / 32) + j. tcgen05.cp .32x128b.warpx4
//    copies it to every 32-lane quadrant of tensor memory, 4 columns; the mma reads row r's word
//    r / 32 (SFA_ID / SFB_ID = 0: scale j in byte j).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

#if defined(__CUDACC__)
#define TCNUM_TCGEN05_HD __host__ __device__
#else
#define TCNUM_TCGEN05_HD
#endif

namespace tcnum::tcgen05 {

inline constexpr int kRowBytes = 32;     // one row of A or B: K = 32 (8-bit) or 64 (packed e2m1)
inline constexpr int kChunkBytes = 512;  // the scales of 128 rows

inline bool nibble_packed(const Instruction& in) { return in.k == 64; }

// Byte offset of row r's byte `kbyte` (0..31) in an A or B image.
inline int element_byte(int r, int kbyte) { return 256 * (r / 8) + 128 * (kbyte / 16) + 16 * (r % 8) + kbyte % 16; }
// Byte of row r's scale j in its rows' scale image (chunk r / 128).
inline int scale_byte(int r, int j) { return kChunkBytes * (r / 128) + 16 * (r % 32) + 4 * ((r % 128) / 32) + j; }

inline int scale_chunks(int rows) { return (rows + 127) / 128; }

// Shared-memory descriptor fields (no swizzle): start address >> 4 in bits 0-13, leading byte offset
// >> 4 in 16-29, stride byte offset >> 4 in 32-45, the fixed 0b001 in 46-48. Operands: LBO 128 (the
// two K halves), SBO 256 (8-row groups); a scale chunk (tcgen05.cp source, 32 rows × 16 bytes): SBO 128.
TCNUM_TCGEN05_HD inline std::uint64_t smem_descriptor(std::uint32_t address, std::uint32_t lbo, std::uint32_t sbo) {
  return ((address & 0x3ffffu) >> 4) | (std::uint64_t{(lbo & 0x3ffffu) >> 4} << 16) |
         (std::uint64_t{(sbo & 0x3ffffu) >> 4} << 32) | (std::uint64_t{1} << 46);
}

// Instruction descriptor of the block-scaled kinds (PTX ISA, "Instruction descriptor format for
// .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4"): SFB_ID in bits 4-5, atype 7-9, btype 10-12, N >> 3
// in 17-22, scale type in 23 (1: ue8m0, 0: ue4m3), M >> 7 in 27-28, SFA_ID in 29-30; K-major A and B
// (transpose bits 15, 16 clear); dense; D f32 implied by the kind.
inline std::uint32_t type_code(const Instruction& in, Format f) {
  if (in.kind != "mxf8f6f4") return 1;  // mxf4*: e2m1
  switch (f) {
    case Format::e4m3: return 0;
    case Format::e5m2: return 1;
    case Format::e2m3: return 3;
    case Format::e3m2: return 4;
    case Format::e2m1: return 5;
    default: throw std::invalid_argument("tcgen05: no type code for " + std::string(name_of(f)));
  }
}
inline std::uint32_t instruction_descriptor(const Instruction& in) {
  return type_code(in, in.a_type) << 7 | type_code(in, in.b_type) << 10 | static_cast<std::uint32_t>(in.n >> 3) << 17 |
         (in.scale_type == Format::ue8m0 ? 1u : 0u) << 23 | static_cast<std::uint32_t>(in.m >> 7) << 27;
}

// The probe's scope: M = 128, fp8 elements under mxf8f6f4 (FP6/FP4 there need the padded packing of the
// PTX ISA's "Packing format used for matrix A and B by .kind::mxf8f6f4 in shared memory", given as
// figures only), e2m1 under mxf4/mxf4nvf4.
inline bool supported(const Instruction& in) {
  if (in.family != Family::tcgen05 || !in.block_scaled() || in.m != 128) return false;
  if (in.kind == "mxf8f6f4")
    return (in.a_type == Format::e4m3 || in.a_type == Format::e5m2) && (in.b_type == Format::e4m3 || in.b_type == Format::e5m2);
  return true;
}

// Images of one tile: A (M×K row-major codes), B (N×K, column j's K codes contiguous), scales M × S
// and N × S (S = in.scales_per_row()).
struct Images {
  std::vector<std::uint8_t> a, b, scale_a, scale_b;
};

inline Images images(const Instruction& in, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* scale_a,
                     const std::uint32_t* scale_b) {
  if (!supported(in)) throw std::invalid_argument("tcgen05 probe: " + in.name + " is outside the probe's scope");
  Images im;
  im.a.assign(static_cast<std::size_t>(in.m) * kRowBytes, 0);
  im.b.assign(static_cast<std::size_t>(in.n) * kRowBytes, 0);
  im.scale_a.assign(static_cast<std::size_t>(kChunkBytes * scale_chunks(in.m)), 0);
  im.scale_b.assign(static_cast<std::size_t>(kChunkBytes * scale_chunks(in.n)), 0);
  auto put = [&](std::vector<std::uint8_t>& img, int r, int k, std::uint32_t code) {
    if (nibble_packed(in)) {
      std::uint8_t& byte = img[static_cast<std::size_t>(element_byte(r, k / 2))];
      byte = static_cast<std::uint8_t>(k % 2 ? (byte & 0x0fu) | (code & 0xfu) << 4 : (byte & 0xf0u) | (code & 0xfu));
    } else {
      img[static_cast<std::size_t>(element_byte(r, k))] = static_cast<std::uint8_t>(code);
    }
  };
  for (int r = 0; r < in.m; ++r)
    for (int k = 0; k < in.k; ++k) put(im.a, r, k, a[r * in.k + k]);
  for (int r = 0; r < in.n; ++r)
    for (int k = 0; k < in.k; ++k) put(im.b, r, k, b[r * in.k + k]);
  const int s = in.scales_per_row();
  for (int r = 0; r < in.m; ++r)
    for (int j = 0; j < s; ++j) im.scale_a[static_cast<std::size_t>(scale_byte(r, j))] = static_cast<std::uint8_t>(scale_a[r * s + j]);
  for (int r = 0; r < in.n; ++r)
    for (int j = 0; j < s; ++j) im.scale_b[static_cast<std::size_t>(scale_byte(r, j))] = static_cast<std::uint8_t>(scale_b[r * s + j]);
  return im;
}

}  // namespace tcnum::tcgen05
