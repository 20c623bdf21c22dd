// The catalog's one default instruction (tcnum::default_instruction) and its notion of an
// architecture's own instructions (tcnum::is_native): laws over every architecture, and the
// facts they encode (docs/models.md, docs/probes.md).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tcnum/core/instruction.hpp"

namespace {

using namespace tcnum;

const Format kInputs[] = {Format::fp16, Format::bf16, Format::tf32, Format::e4m3, Format::e5m2};

TEST(DefaultInstruction, IsAnAvailableNativeInstructionOfTheTypesWithTheLargestK) {
  int found = 0;
  for (int sm : known_archs())
    for (Format dtype : kInputs)
      for (Format acc : {Format::fp32, Format::fp16}) {
        Instruction in;
        try {
          in = default_instruction(dtype, sm, acc);
        } catch (const std::invalid_argument&) {
          for (const Instruction& other : instructions_for(sm))  // none exists
            EXPECT_FALSE(other.a_type == dtype && other.b_type == dtype && other.d_type == acc) << other.name;
          continue;
        }
        ++found;
        const std::string where = "sm_" + std::to_string(sm) + " " + in.name;
        EXPECT_TRUE(is_native(in, sm)) << where;
        EXPECT_EQ(in.a_type, dtype) << where;
        EXPECT_EQ(in.b_type, dtype) << where;
        EXPECT_EQ(in.d_type, acc) << where;
        for (const Instruction& other : instructions_for(sm))  // no larger K in its family
          if (other.family == in.family && other.a_type == dtype && other.b_type == dtype && other.d_type == acc &&
              is_native(other, sm))
            EXPECT_LE(other.k, in.k) << where << " vs " << other.name;
        // Restricting to its own family and K changes nothing.
        EXPECT_EQ(default_instruction(dtype, sm, acc, in.family, in.k).name, in.name) << where;
      }
  EXPECT_GT(found, 30);
}

TEST(DefaultInstruction, ArchitectureFacts) {
  // Volta's m8n8k4 is sm_70's own; Turing keeps it only for compatibility.
  EXPECT_EQ(default_instruction(Format::fp16, 70).name, "mma.m8n8k4.f32.f16.f16.f16");
  EXPECT_EQ(default_instruction(Format::fp16, 75).name, "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_FALSE(is_native(parse_instruction("mma.m8n8k4.f32.f16.f16.f32"), 75));
  EXPECT_TRUE(is_native(parse_instruction("mma.m8n8k4.f32.f16.f16.f32"), 70));
  // fp8 runs on wgmma on sm_90 (its fp8 mma is f16 HMMA), on tcgen05 on sm_100, on mma on sm_89/120.
  EXPECT_EQ(default_instruction(Format::e4m3, 89).family, Family::mma);
  EXPECT_EQ(default_instruction(Format::e4m3, 90).name, "wgmma.m64n8k32.f32.e4m3.e4m3");
  EXPECT_EQ(default_instruction(Format::e5m2, 100).family, Family::tcgen05);
  EXPECT_EQ(default_instruction(Format::e4m3, 120).name, "mma.m16n8k32.f32.e4m3.e4m3.f32");
  // Every input takes the architecture's own family: wgmma on sm_90, tcgen05 on sm_100, mma
  // elsewhere; the largest K, the smallest M and N.
  EXPECT_EQ(default_instruction(Format::bf16, 90).name, "wgmma.m64n8k16.f32.bf16.bf16");
  EXPECT_EQ(default_instruction(Format::tf32, 90).name, "wgmma.m64n8k8.f32.tf32.tf32");
  EXPECT_EQ(default_instruction(Format::fp16, 100).name, "tcgen05.mma.m64n8k16.f32.f16.f16");
  EXPECT_EQ(default_instruction(Format::bf16, 80).name, "mma.m16n8k16.f32.bf16.bf16.f32");
  EXPECT_EQ(default_instruction(Format::bf16, 120).name, "mma.m16n8k16.f32.bf16.bf16.f32");
  EXPECT_EQ(default_instruction(Format::bf16, 90, Format::fp32, Family::mma, 8).name, "mma.m16n8k8.f32.bf16.bf16.f32");
}

TEST(DefaultInstruction, MixedInputsAndAGivenC) {
  EXPECT_EQ(default_instruction(OperandFormats{Format::e4m3, Format::e5m2, Format::fp32, std::nullopt}, 90).name,
            "wgmma.m64n8k32.f32.e4m3.e5m2");
  EXPECT_EQ(default_instruction(OperandFormats{Format::e5m2, Format::e4m3, Format::fp32, std::nullopt}, 89).name,
            "mma.m16n8k32.f32.e5m2.e4m3.f32");
  // Volta's m8n8k4 comes with C in f16 or f32: a given C picks it; none takes the first.
  EXPECT_EQ(default_instruction(OperandFormats{Format::fp16, Format::fp16, Format::fp32, Format::fp32}, 70).name,
            "mma.m8n8k4.f32.f16.f16.f32");
  EXPECT_EQ(default_instruction(OperandFormats{Format::fp16, Format::fp16, Format::fp32, Format::fp16}, 70).name,
            "mma.m8n8k4.f32.f16.f16.f16");
  // Every choice has the formats asked for, on every architecture.
  for (int sm : known_archs())
    for (Format a : kInputs)
      for (Format b : kInputs) {
        for (Format d : {Format::fp32, Format::fp16}) {
          const OperandFormats f{a, b, d, d};
          try {
            const Instruction in = default_instruction(f, sm);
            EXPECT_TRUE(in.a_type == a && in.b_type == b && in.d_type == d && in.c_type == d) << in.name;
            EXPECT_TRUE(is_native(in, sm)) << in.name;
          } catch (const std::invalid_argument&) {
            for (const Instruction& other : instructions_for(sm))
              EXPECT_FALSE(other.a_type == a && other.b_type == b && other.d_type == d && other.c_type == d) << other.name;
          }
        }
      }
  try {
    default_instruction(OperandFormats{Format::e4m3, Format::bf16, Format::fp32, std::nullopt}, 90);
    ADD_FAILURE() << "no e4m3 × bf16 instruction";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("e4m3 × bf16 inputs"), std::string::npos) << e.what();
  }
}

TEST(DefaultInstruction, SaysWhyThereIsNone) {
  try {
    default_instruction(Format::e4m3, 80);
    ADD_FAILURE() << "sm_80 has no fp8 instruction";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("e4m3 needs sm_89 or later"), std::string::npos) << e.what();
  }
  try {
    default_instruction(Format::bf16, 80, Format::fp16);
    ADD_FAILURE() << "bf16 accumulates in f32 only";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bf16 accumulates in: f32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(default_instruction(Format::fp16, 80, Format::fp32, Family::wgmma), std::invalid_argument);
}

}  // namespace
