// The frozen reference generators (tcnum/reference/frozen_corpus_generators.hpp) must keep producing the same
// bits: the recorded corpora were drawn from them, and `numprobe record`/`check` redraw those
// cases from (instruction, distribution, seed). A changed hash here means a corpus can no longer
// be regenerated from its seed.
//
// Where the pinned hashes came from: this file's hash of the generators' output at commit
// ee09b94 (before the generators were renamed; Release build), printed by the test itself on a mismatch and
// confirmed by a second, separate run of the same test binary.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "generator_stream_hash.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"

using namespace tcnum;

namespace {

struct Pinned {
  const char* instruction;
  int sm;
  std::uint64_t hash;  // of every distribution's 24 cases from seed 2027, in distribution order
};

const Pinned kPinned[] = {
    {"mma.m16n8k16.f32.bf16.bf16.f32", 90, 0xa28874c41c39f8a0},
    {"mma.m16n8k16.f16.f16.f16.f16", 80, 0x1970148c927e176d},
    {"mma.m16n8k8.f32.tf32.tf32.f32", 80, 0xdde959f474bb0163},
    {"mma.m16n8k32.f32.e4m3.e5m2.f32", 89, 0x00eab1df7a73ea24},
    {"mma.m16n8k32.s32.s8.u8.s32", 80, 0xbc0ac9133c329c96},
    {"tcgen05.mma.m128n16k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.ue4m3", 100, 0x239ef45149e0c55d},
};

}  // namespace

TEST(FrozenGeneratorStream, EveryDistributionDrawsThePinnedBits) {
  for (const Pinned& p : kPinned) {
    const Instruction in = find_instruction(p.instruction, p.sm);
    StreamHash h;
    for (const std::string& dist : reference::frozen_v1::distribution_names()) {
      h.add_text(dist);
      for (const Case& c : reference::frozen_v1::generate(in, dist, 24, 2027)) h.add_case(c);
    }
    EXPECT_EQ(h.value(), p.hash) << p.instruction << ": now 0x" << std::hex << h.value();
  }
}
