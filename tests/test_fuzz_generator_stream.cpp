// The MPFR-free generators (tcnum/fuzz/generators.hpp) must keep producing the same bits for a
// (instruction, model, distribution, seed): a campaign's findings name their batch seed and are
// redrawn from it (numprobe fuzz --resume, shards, merge; docs/fuzz.md).
//
// Where the pinned hashes came from: this file's hash of the generators' output at commit
// ee09b94 (Release build), printed by the test itself on a mismatch and confirmed by a second,
// separate run of the test binary. The integer instructions are left out: these generators
// draw only floating-point cases.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "generator_stream_hash.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/fuzz/generators.hpp"

using namespace tcnum;

namespace {

struct Pinned {
  const char* instruction;
  int sm;
  std::uint64_t cases_hash;  // every distribution's 24 cases from seed 2027, in distribution order
  std::uint64_t tiles_hash;  // every distribution's 2 tiles from seed 2027
};

const Pinned kPinned[] = {
    {"mma.m16n8k16.f32.bf16.bf16.f32", 90, 0x39ef8fc35c3d4a88, 0x9e3bbfc2b71e1302},
    {"mma.m16n8k16.f16.f16.f16.f16", 80, 0xd41470266d0bac8e, 0x70f2fc02472d7916},
    {"mma.m16n8k8.f32.tf32.tf32.f32", 80, 0x308b658f7bd6a29f, 0x4f2ebb328341cb9a},
    {"mma.m16n8k32.f32.e4m3.e5m2.f32", 89, 0xd5e1e4a32253274d, 0x180b66cd2f6d65ef},
    {"wgmma.m64n8k32.f16.e5m2.e4m3", 90, 0x9c9217ef31e9e944, 0x3955ddf447c89565},
};

// A fixed model, not a built-in one: `boundary` reads the model, and the stream must not move
// when a built-in model is refined.
const DatapathParams kModel{};

std::uint64_t cases_hash(const Instruction& in) {
  StreamHash h;
  const std::size_t n = 24, k = static_cast<std::size_t>(in.k);
  for (const std::string& dist : fuzz::distribution_names()) {
    std::vector<std::uint32_t> a(n * k), b(n * k), c(n);
    fuzz::generate(in, kModel, dist, 2027, n, a.data(), b.data(), c.data());
    h.add_text(dist), h.add_words(a), h.add_words(b), h.add_words(c);
  }
  return h.value();
}

std::uint64_t tiles_hash(const Instruction& in) {
  StreamHash h;
  const std::size_t tiles = 2, m = static_cast<std::size_t>(in.m), n = static_cast<std::size_t>(in.n),
                    k = static_cast<std::size_t>(in.k);
  for (const std::string& dist : fuzz::distribution_names()) {
    std::vector<std::uint32_t> a(tiles * m * k), b(tiles * k * n), c(tiles * m * n);
    fuzz::generate_tiles(in, kModel, dist, 2027, tiles, a.data(), b.data(), c.data());
    h.add_text(dist), h.add_words(a), h.add_words(b), h.add_words(c);
  }
  return h.value();
}

}  // namespace

TEST(FuzzGeneratorStream, EveryDistributionDrawsThePinnedBits) {
  for (const Pinned& p : kPinned) {
    const Instruction in = find_instruction(p.instruction, p.sm);
    EXPECT_EQ(cases_hash(in), p.cases_hash) << p.instruction << ": cases now 0x" << std::hex << cases_hash(in);
    EXPECT_EQ(tiles_hash(in), p.tiles_hash) << p.instruction << ": tiles now 0x" << std::hex << tiles_hash(in);
  }
}
