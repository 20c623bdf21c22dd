// Register fragments of sm_120's (RTX Blackwell) mma.sync kinds: where each element of A, B, C/D
// and each scale of a block-scaled form sits in the 32 lanes' registers. Plain C++ (no CUDA): the
// runner packs tiles with it, and tests/test_blackwell_fragments.cpp checks, without a GPU, that it
// places every element exactly once. On an RTX 50xx the layout self-check (sm120_runner.cpp) then
// confirms it against the hardware. Literature-only until that has run.
//
// Sources (PTX ISA 9.x, "Matrix Fragments for mma.m16n8k32" / "mma.m16n8k64", and the mma
// description of .kind): g = lane / 4, t = lane % 4;
//  - m16n8k32 (kind::f8f6f4, kind::mxf8f6f4), one element per byte: A a0 = row g, k 4t..4t+3 (byte 0
//    first), a1 = row g+8, a2 = row g with k + 16, a3 = row g+8 with k + 16; B b0 = col g, k 4t..4t+3,
//    b1 = k + 16. FP4 in such a byte sits in bits 5..2 ("central 4 bits"), FP6 in bits 5..0.
//  - m16n8k64 (kind::mxf4, kind::mxf4nvf4), two e2m1 per byte, low nibble first, no padding: A a0 = row
//    g, k 8t..8t+7, a1 = row g+8, a2 = row g with k + 32, a3 = row g+8 with k + 32; B b0 = col g,
//    k 8t..8t+7, b1 = k + 32.
//  - C/D (f32): c0, c1 = row g, cols 2t, 2t+1; c2, c3 = row g+8. f16 C/D: two halves per register,
//    c0 = row g (cols 2t low half, 2t+1 high half), c1 = row g+8.
//  - Scales (scale-a-data / scale-b-data with selectors {byte-id, thread-id} = {0, 0}): row r of A
//    (r < 8) from lane 4r, row r + 8 from lane 4r + 1; column c of B from lane 4c; the scale of k-block
//    j is byte j of that lane's register (1X: byte 0; 2X: bytes 0, 1; 4X: bytes 0..3).
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::sm120 {

inline constexpr int kLanes = 32;

// One element's place: lane, register (of its operand) and the bit offset of its container.
struct Slot {
  int lane = 0, reg = 0, bit = 0;
};

inline bool nibble_packed(const Instruction& in) { return in.k == 64; }  // mxf4, mxf4nvf4: two e2m1 per byte

// A register holds 4 (8-bit containers) or 8 (packed e2m1) consecutive k of one row/column.
inline int per_register(const Instruction& in) { return nibble_packed(in) ? 8 : 4; }

// A's element (row, k): A has 4 registers per lane.
inline Slot a_slot(const Instruction& in, int row, int k) {
  const int per = per_register(in), half_k = in.k / 2;  // k + 16 (k32) or k + 32 (k64): registers 2, 3
  const int t = (k % half_k) / per, within = k % per;
  return {4 * (row % 8) + t, (row / 8) + 2 * (k / half_k), within * (32 / per)};
}

// B's element (col, k): B has 2 registers per lane.
inline Slot b_slot(const Instruction& in, int col, int k) {
  const int per = per_register(in), half_k = in.k / 2;
  return {4 * col + (k % half_k) / per, k / half_k, (k % per) * (32 / per)};
}

// C's and D's element (row, col): f32, one per register (4 registers), or f16, two per register (2).
inline Slot cd_slot(Format f, int row, int col) {
  const int lane = 4 * (row % 8) + col / 2;
  if (f == Format::fp16) return {lane, row / 8, 16 * (col % 2)};
  return {lane, 2 * (row / 8) + col % 2, 0};
}
inline int cd_registers(Format f) { return f == Format::fp16 ? 2 : 4; }

// Scale j of A's row: lane and byte (selectors {0, 0}); of B's column likewise.
inline Slot scale_a_slot(int row, int j) { return {4 * (row % 8) + row / 8, 0, 8 * j}; }
inline Slot scale_b_slot(int col, int j) { return {4 * col, 0, 8 * j}; }

// The bits an element code takes in its container: FP4 shifted into bits 5..2 of a byte under
// kind::f8f6f4/mxf8f6f4, as is otherwise (FP6 in the low 6 bits, fp8 the whole byte, packed FP4 a nibble).
inline std::uint32_t container(const Instruction& in, Format f, std::uint32_t code) {
  if (f == Format::e2m1 && !nibble_packed(in)) return (code & 0xfu) << 2;
  return code & storage_mask(f);
}
inline std::uint32_t from_container(const Instruction& in, Format f, std::uint32_t bits) {
  if (f == Format::e2m1 && !nibble_packed(in)) return (bits >> 2) & 0xfu;
  return bits & storage_mask(f);
}

// One tile's registers, lane-major: a[lane * 4 + reg], b[lane * 2 + reg], c/d[lane * cd_registers + reg],
// scale_a/scale_b[lane].
struct WarpRegisters {
  std::vector<std::uint32_t> a, b, c, scale_a, scale_b;
};

// Tile operands as tcnum's runners hold them: A M×K row-major, B N×K (column j's K elements
// contiguous), C M×N row-major; scales M × (K / scale_block) and N × (K / scale_block).
inline WarpRegisters pack(const Instruction& in, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                          const std::uint32_t* scale_a, const std::uint32_t* scale_b) {
  if (in.m != 16 || in.n != 8 || (in.k != 32 && in.k != 64))
    throw std::invalid_argument("sm120::pack: " + in.name + " is not an m16n8k32/k64 mma");
  WarpRegisters w;
  w.a.assign(kLanes * 4, 0);
  w.b.assign(kLanes * 2, 0);
  w.c.assign(static_cast<std::size_t>(kLanes * cd_registers(in.c_type)), 0);
  w.scale_a.assign(kLanes, 0);
  w.scale_b.assign(kLanes, 0);
  const int per = per_register(in), width = 32 / per;
  const std::uint32_t mask = width == 32 ? ~0u : (1u << width) - 1u;
  auto put = [&](std::vector<std::uint32_t>& regs, int nregs, Slot s, std::uint32_t v, std::uint32_t m) {
    std::uint32_t& r = regs[static_cast<std::size_t>(s.lane * nregs + s.reg)];
    r = (r & ~(m << s.bit)) | ((v & m) << s.bit);
  };
  for (int i = 0; i < in.m; ++i)
    for (int k = 0; k < in.k; ++k) put(w.a, 4, a_slot(in, i, k), container(in, in.a_type, a[i * in.k + k]), mask);
  for (int j = 0; j < in.n; ++j)
    for (int k = 0; k < in.k; ++k) put(w.b, 2, b_slot(in, j, k), container(in, in.b_type, b[j * in.k + k]), mask);
  const std::uint32_t cmask = in.c_type == Format::fp16 ? 0xffffu : ~0u;
  for (int i = 0; i < in.m; ++i)
    for (int j = 0; j < in.n; ++j) put(w.c, cd_registers(in.c_type), cd_slot(in.c_type, i, j), c[i * in.n + j], cmask);
  const int nsc = in.scales_per_row();
  for (int i = 0; i < in.m; ++i)
    for (int s = 0; s < nsc; ++s) put(w.scale_a, 1, scale_a_slot(i, s), scale_a[i * nsc + s], 0xffu);
  for (int j = 0; j < in.n; ++j)
    for (int s = 0; s < nsc; ++s) put(w.scale_b, 1, scale_b_slot(j, s), scale_b[j * nsc + s], 0xffu);
  return w;
}

// D's registers of one tile (lane-major, cd_registers(in.d_type) per lane) -> M×N row-major raw bits.
inline std::vector<std::uint32_t> unpack_d(const Instruction& in, const std::uint32_t* d) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(in.m * in.n));
  const int nregs = cd_registers(in.d_type);
  for (int i = 0; i < in.m; ++i)
    for (int j = 0; j < in.n; ++j) {
      const Slot s = cd_slot(in.d_type, i, j);
      const std::uint32_t r = d[s.lane * nregs + s.reg];
      out[static_cast<std::size_t>(i * in.n + j)] = in.d_type == Format::fp16 ? (r >> s.bit) & 0xffffu : r;
    }
  return out;
}

}  // namespace tcnum::sm120
