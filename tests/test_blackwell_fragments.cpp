// The sm_120 register fragments (probes/blackwell/sm120_fragments.hpp), checked without a GPU: the
// packer places every element of A, B, C and every scale exactly once, where the PTX ISA's
// fragment formulas (restated here lane by lane: groupID = lane / 4, threadID_in_group = lane % 4)
// put it, in the container the kind prescribes (FP4 in bits 5..2 of a byte under f8f6f4, two
// nibbles per byte under mxf4*); D unpacks from the same places.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "../probes/blackwell/sm120_fragments.hpp"
#include "../probes/blackwell/tcgen05_layout.hpp"

namespace {

using namespace tcnum;

std::vector<Instruction> sm120_kinds() {
  std::vector<Instruction> v;
  for (const Instruction& in : instructions_for(120))
    if (!in.kind.empty()) v.push_back(in);
  return v;
}

// Distinct codes per element so that any misplacement shows: element e's code is e mod 2^bits,
// avoiding 0 where possible (the formats' whole code range is used).
std::uint32_t code_of(Format f, int e) { return static_cast<std::uint32_t>(e * 7 + 1) & storage_mask(f); }

TEST(Sm120Fragments, EveryKindIsCovered) { EXPECT_EQ(sm120_kinds().size(), 78u); }

TEST(Sm120Fragments, PackedRegistersFollowThePtxFormulas) {
  for (const Instruction& in : sm120_kinds()) {
    SCOPED_TRACE(in.name);
    const int M = in.m, N = in.n, K = in.k, S = in.scales_per_row();
    std::vector<std::uint32_t> a(M * K), b(N * K), c(M * N), sa(M * S), sb(N * S);
    for (int i = 0; i < M * K; ++i) a[i] = code_of(in.a_type, i);
    for (int i = 0; i < N * K; ++i) b[i] = code_of(in.b_type, i + 3);
    for (int i = 0; i < M * N; ++i) c[i] = 0x10000u * static_cast<std::uint32_t>(i) + static_cast<std::uint32_t>(i + 1);
    for (int i = 0; i < M * S; ++i) sa[i] = static_cast<std::uint32_t>(0x40 + i);
    for (int i = 0; i < N * S; ++i) sb[i] = static_cast<std::uint32_t>(0x90 + i);
    const sm120::WarpRegisters w = sm120::pack(in, a.data(), b.data(), c.data(), sa.data(), sb.data());
    const bool nibbles = K == 64;
    const int per = nibbles ? 8 : 4, width = 32 / per;
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 4; ++reg)
        for (int i = 0; i < per; ++i) {
          // A: a0 row g, a1 row g+8, a2 row g and the upper half of K, a3 row g+8 and the upper half.
          const int row = g + 8 * (reg % 2), k = t * per + i + (K / 2) * (reg / 2);
          const std::uint32_t field = (w.a[lane * 4 + reg] >> (i * width)) & ((1u << width) - 1u);
          std::uint32_t want = a[row * K + k];
          if (in.a_type == Format::e2m1 && !nibbles) want <<= 2;  // central 4 bits of the byte
          ASSERT_EQ(field, want) << "A lane " << lane << " reg " << reg << " element " << i;
        }
      for (int reg = 0; reg < 2; ++reg)
        for (int i = 0; i < per; ++i) {
          const int col = g, k = t * per + i + (K / 2) * reg;
          const std::uint32_t field = (w.b[lane * 2 + reg] >> (i * width)) & ((1u << width) - 1u);
          std::uint32_t want = b[col * K + k];
          if (in.b_type == Format::e2m1 && !nibbles) want <<= 2;
          ASSERT_EQ(field, want) << "B lane " << lane << " reg " << reg << " element " << i;
        }
      // C: c0, c1 = row g, cols 2t, 2t+1; c2, c3 = row g+8 (f16: halves of c0 and c1).
      for (int x = 0; x < 4; ++x) {
        const int row = g + 8 * (x / 2), col = 2 * t + x % 2;
        const std::uint32_t got = in.c_type == Format::fp16 ? (w.c[lane * 2 + x / 2] >> (16 * (x % 2))) & 0xffffu
                                                            : w.c[lane * 4 + x];
        const std::uint32_t want = in.c_type == Format::fp16 ? c[row * N + col] & 0xffffu : c[row * N + col];
        ASSERT_EQ(got, want) << "C lane " << lane << " element " << x;
      }
      // Scales: lane 4r holds row r's, lane 4r+1 row r+8's; lane 4c column c's; byte j = block j.
      for (int j = 0; j < S; ++j) {
        const std::uint32_t byte_a = (w.scale_a[lane] >> (8 * j)) & 0xffu, byte_b = (w.scale_b[lane] >> (8 * j)) & 0xffu;
        EXPECT_EQ(byte_a, t < 2 ? sa[(g + 8 * t) * S + j] : 0u) << "scale A lane " << lane << " byte " << j;
        EXPECT_EQ(byte_b, t == 0 ? sb[g * S + j] : 0u) << "scale B lane " << lane << " byte " << j;
      }
    }
  }
}

TEST(Sm120Fragments, DUnpacksFromTheAccumulatorSlots) {
  for (const Instruction& in : sm120_kinds()) {
    // D laid out in registers with the same formulas as C; unpack_d must return M×N row-major.
    const int regs = in.d_type == Format::fp16 ? 2 : 4;
    std::vector<std::uint32_t> d(32 * regs, 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int x = 0; x < 4; ++x) {
        const int row = lane / 4 + 8 * (x / 2), col = 2 * (lane % 4) + x % 2;
        const auto v = static_cast<std::uint32_t>(row * 8 + col + 1);
        if (regs == 2) d[lane * 2 + x / 2] |= v << (16 * (x % 2));
        else d[lane * 4 + x] = v;
      }
    const std::vector<std::uint32_t> out = sm120::unpack_d(in, d.data());
    for (int i = 0; i < 16 * 8; ++i) ASSERT_EQ(out[i], static_cast<std::uint32_t>(i + 1)) << in.name;
  }
}

TEST(Sm120Fragments, NoTwoElementsShareABitAndEveryRegisterBitIsUsed) {
  for (const Instruction& in : sm120_kinds()) {
    const int per = sm120::per_register(in), width = 32 / per;
    std::set<std::tuple<int, int, int>> seen;
    for (int r = 0; r < in.m; ++r)
      for (int k = 0; k < in.k; ++k) {
        const sm120::Slot s = sm120::a_slot(in, r, k);
        ASSERT_TRUE(s.lane >= 0 && s.lane < 32 && s.reg >= 0 && s.reg < 4 && s.bit + width <= 32) << in.name;
        ASSERT_TRUE(seen.insert({s.lane, s.reg, s.bit}).second) << in.name << " A(" << r << "," << k << ")";
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(32 * 4 * per)) << in.name;
  }
}

// tcgen05 images: every element's byte (or nibble) and every scale's byte is written once, at the
// canonical no-swizzle K-major place (8-row × 16-byte core matrices, LBO 128, SBO 256) and the
// 32-lane scale chunk (row r, block j at 16·(r % 32) + 4·(r / 32 % 4) + j), restated here.
TEST(Tcgen05Images, ElementsAndScalesLandOnceWhereTheLayoutSays) {
  int checked = 0;
  for (const Instruction& in : instructions_for(100)) {
    if (!tcgen05::supported(in) || (in.n != 16 && in.n != 256)) continue;
    SCOPED_TRACE(in.name);
    ++checked;
    const int M = in.m, N = in.n, K = in.k, S = in.scales_per_row();
    std::vector<std::uint32_t> a(M * K), b(N * K), sa(M * S), sb(N * S);
    for (int i = 0; i < M * K; ++i) a[i] = code_of(in.a_type, i);
    for (int i = 0; i < N * K; ++i) b[i] = code_of(in.b_type, i + 5);
    for (int i = 0; i < M * S; ++i) sa[i] = static_cast<std::uint32_t>(i % 251 + 1);
    for (int i = 0; i < N * S; ++i) sb[i] = static_cast<std::uint32_t>(i % 241 + 2);
    const tcgen05::Images im = tcgen05::images(in, a.data(), b.data(), sa.data(), sb.data());
    ASSERT_EQ(im.a.size(), 128u * 32u);
    ASSERT_EQ(im.b.size(), static_cast<std::size_t>(N) * 32u);
    const bool nib = K == 64;
    auto element = [&](const std::vector<std::uint8_t>& img, int r, int k) -> std::uint32_t {
      const int kbyte = nib ? k / 2 : k;
      const int at = (r / 8) * 256 + (kbyte / 16) * 128 + (r % 8) * 16 + kbyte % 16;
      const std::uint8_t byte = img[static_cast<std::size_t>(at)];
      return nib ? (k % 2 ? byte >> 4 : byte & 0xfu) : byte;
    };
    for (int r = 0; r < M; ++r)
      for (int k = 0; k < K; ++k) ASSERT_EQ(element(im.a, r, k), a[r * K + k]) << "A " << r << "," << k;
    for (int r = 0; r < N; ++r)
      for (int k = 0; k < K; ++k) ASSERT_EQ(element(im.b, r, k), b[r * K + k]) << "B " << r << "," << k;
    std::vector<int> used_a(im.scale_a.size()), used_b(im.scale_b.size());
    for (int r = 0; r < M; ++r)
      for (int j = 0; j < S; ++j) {
        const int at = 512 * (r / 128) + 16 * (r % 32) + 4 * (r / 32 % 4) + j;
        EXPECT_EQ(im.scale_a[at], sa[r * S + j]);
        EXPECT_EQ(++used_a[at], 1);
      }
    for (int r = 0; r < N; ++r)
      for (int j = 0; j < S; ++j) {
        const int at = 512 * (r / 128) + 16 * (r % 32) + 4 * (r / 32 % 4) + j;
        EXPECT_EQ(im.scale_b[at], sb[r * S + j]);
        EXPECT_EQ(++used_b[at], 1);
      }
    // The instruction descriptor: N >> 3 at bit 17, M >> 7 at bit 27, ue8m0 flag at bit 23.
    const std::uint32_t id = tcgen05::instruction_descriptor(in);
    EXPECT_EQ((id >> 17) & 0x3fu, static_cast<std::uint32_t>(N >> 3));
    EXPECT_EQ((id >> 27) & 0x3u, 1u);
    EXPECT_EQ((id >> 23) & 1u, in.scale_type == Format::ue8m0 ? 1u : 0u);
  }
  EXPECT_GE(checked, 8);  // mxf8f6f4 fp8 pairs, mxf4, both mxf4nvf4 forms, at N = 16 and 256
  const std::uint64_t desc = tcgen05::smem_descriptor(0x1230, 128, 256);
  EXPECT_EQ(desc & 0x3fffu, 0x123u);
  EXPECT_EQ((desc >> 16) & 0x3fffu, 8u);
  EXPECT_EQ((desc >> 32) & 0x3fffu, 16u);
  EXPECT_EQ((desc >> 46) & 0x7u, 1u);
}

}  // namespace
