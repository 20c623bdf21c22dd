// AMD's CDNA MFMA family in the catalog: gfx architecture names, the instructions each target
// lists, default_instruction, the FNUZ fp8 formats and the built-in models' rules
// (docs/models.md §10). The datapath's laws for these models: tests/test_datapath_laws.cpp (e).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

using namespace tcnum;

TEST(AmdMfma, ArchitecturesParseAndPrintByTheirGfxNames) {
  EXPECT_EQ(parse_arch("gfx908"), 908);
  EXPECT_EQ(parse_arch("gfx90a"), 910);
  EXPECT_EQ(parse_arch("gfx942"), 942);
  for (int a : {908, 910, 942}) {
    EXPECT_TRUE(is_amd_arch(a));
    EXPECT_EQ(parse_arch(arch_name(a)), a);
  }
  EXPECT_EQ(arch_name(90), "sm_90");
  EXPECT_FALSE(is_amd_arch(90));
  for (const char* bad : {"sm_942", "gfx910", "gfx950", "gfx9420", "GFX942"}) EXPECT_THROW(parse_arch(bad), std::invalid_argument) << bad;
}

TEST(AmdMfma, EachTargetListsItsOwnFamilyOnly) {
  std::set<std::string> gfx942;
  for (const Instruction& in : instructions_for(942)) {
    EXPECT_EQ(in.family, Family::mfma) << in.name;
    EXPECT_EQ(in.d_type, Format::fp32);
    gfx942.insert(in.name);
  }
  EXPECT_EQ(gfx942.size(), 25u);
  EXPECT_TRUE(gfx942.contains("v_mfma_f32_32x32x8_f16") && gfx942.contains("v_mfma_f32_16x16x32_fp8_bf8"));
  EXPECT_EQ(instructions_for(908).size(), 5u);
  EXPECT_EQ(instructions_for(910).size(), 5u);
  for (int sm : {80, 90, 100})
    for (const Instruction& in : instructions_for(sm)) EXPECT_NE(in.family, Family::mfma) << in.name;
  const Instruction fp8 = find_instruction("v_mfma_f32_16x16x32_fp8_bf8", 942);
  EXPECT_EQ(fp8.a_type, Format::e4m3fnuz);
  EXPECT_EQ(fp8.b_type, Format::e5m2fnuz);
  EXPECT_EQ(fp8.k, 32);
  EXPECT_EQ(find_instruction("v_mfma_f32_16x16x8_xf32", 942).a_type, Format::tf32);
  EXPECT_THROW(find_instruction("v_mfma_f32_32x32x8_f16", 908), UnknownInstruction);  // not modelled there
  EXPECT_THROW(find_instruction("mma.m16n8k16.f32.f16.f16.f32", 942), UnknownInstruction);
  EXPECT_THROW(find_instruction("v_mfma_f32_32x32x8_f16", 90), UnknownInstruction);
}

TEST(AmdMfma, DefaultInstructionKnowsTheFamily) {
  EXPECT_EQ(default_instruction(Format::fp16, 942).name, "v_mfma_f32_16x16x16_f16");
  EXPECT_EQ(default_instruction(Format::bf16, 942).name, "v_mfma_f32_16x16x16_bf16");
  EXPECT_EQ(default_instruction(Format::fp32, 942).name, "v_mfma_f32_16x16x4_f32");
  EXPECT_EQ(default_instruction(Format::tf32, 942).name, "v_mfma_f32_16x16x8_xf32");
  EXPECT_EQ(default_instruction(OperandFormats{Format::e5m2fnuz, Format::e4m3fnuz, Format::fp32, std::nullopt}, 942).name,
            "v_mfma_f32_16x16x32_bf8_fp8");
  EXPECT_EQ(default_instruction(Format::fp32, 908).name, "v_mfma_f32_16x16x4f32");
  try {
    (void)default_instruction(Format::fp16, 908);
    ADD_FAILURE() << "gfx908 has no modelled f16 MFMA";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gfx908 has no matrix-core instruction"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)default_instruction(Format::fp32, 90), std::invalid_argument);  // no f32 inputs on NVIDIA
}

TEST(AmdMfma, FnuzFormatsHaveNoInfNoNegativeZeroAndOneNaN) {
  for (Format f : {Format::e4m3fnuz, Format::e5m2fnuz}) {
    EXPECT_TRUE(decode(f, 0x80).is_nan()) << name_of(f);
    EXPECT_EQ(canonical_nan(f), 0x80u);
    int nans = 0;
    for (std::uint32_t v = 0; v < 256; ++v) {
      const Decoded d = decode(f, v);
      nans += d.is_nan();
      EXPECT_FALSE(d.is_inf());
      if (d.is_zero()) {
        EXPECT_EQ(v, 0u);
      }
    }
    EXPECT_EQ(nans, 1);
    EXPECT_EQ(encode(f, -0.0), 0u);                 // no -0: +0
    EXPECT_EQ(encode(f, -1e-30), 0u);               // an underflow too
    EXPECT_EQ(encode(f, 1e30), 0x80u);              // an overflow is the NaN
    EXPECT_EQ(max_finite_bits(f, false), 0x7fu);
  }
  EXPECT_EQ(to_double(Format::e4m3fnuz, 0x7f), 240.0);
  EXPECT_EQ(to_double(Format::e5m2fnuz, 0x7f), 57344.0);
  EXPECT_EQ(to_double(Format::e4m3fnuz, 0x08), 0x1p-7);  // bias 8: the smallest normal
  EXPECT_EQ(to_double(Format::e5m2fnuz, 0x01), 0x1p-17);  // bias 16: the smallest subnormal
}

TEST(AmdMfma, BuiltInModelsAreLiteratureOnlyDataWithTheirSource) {
  for (int arch : {908, 910, 942}) {
    const Model& m = builtin_model(arch);
    EXPECT_EQ(m.name, arch_name(arch));
    for (const ModelRule& r : m.rules) {
      EXPECT_FALSE(r.validated);
      EXPECT_NE(r.source.find("MMA-Sim"), std::string::npos);
    }
    for (const Instruction& in : instructions_for(arch)) EXPECT_NO_THROW((void)m.rule_for(in)) << in.name;
    EXPECT_EQ(model_to_json(model_from_json(model_to_json(m))), model_to_json(m));
  }
  const DatapathParams& fp8 = builtin_model(942).params_for(find_instruction("v_mfma_f32_32x32x16_fp8_fp8", 942));
  EXPECT_EQ(fp8.addend, AddendEntry::after_products);
  EXPECT_EQ(fp8.product_split, 2);
  EXPECT_EQ(fp8.addend_drop_binades, 25);
  EXPECT_EQ(fp8.block_size, 16);
}

// C dropped 26 binades below the fp8 products but kept 25 below (MMA-Sim: ec >= max_e - 25).
TEST(AmdMfma, Fp8DropsCMoreThan25BinadesBelowTheProducts) {
  const Instruction in = find_instruction("v_mfma_f32_16x16x32_fp8_fp8", 942);
  std::vector<std::uint32_t> a(32, 0), b(32, 0);
  a[0] = b[0] = 0x40;  // 1.0 in e4m3fnuz (bias 8): product 1, exponent 0
  const auto c_at = [](int e) { return static_cast<std::uint32_t>(127 + e) << 23; };
  const Model& m = builtin_model(942);
  DatapathParams keep = m.params_for(in);
  keep.addend_drop_binades.reset();
  // Positive C within 24 bits of E = 0 is floored away (2^-25) or kept (2^-24, making a tie: even).
  EXPECT_EQ(mma_element(m, in, a, b, c_at(-25)), 0x3f800000u);
  EXPECT_EQ(mma_element(m, in, a, b, c_at(-24) | 1), 0x3f800000u);
  // Negative C: dropped (26 binades below) leaves 1; kept (25 below) is floored to -2^-24: 1 - 2^-24.
  const std::uint32_t neg25 = c_at(-25) | 0x80000000u, neg26 = c_at(-26) | 0x80000000u;
  EXPECT_EQ(mma_element(m, in, a, b, neg26), 0x3f800000u);
  EXPECT_EQ(mma_element(m, in, a, b, neg25), 0x3f7fffffu);
  EXPECT_EQ(mma_element(keep, in, a, b, neg26), 0x3f7fffffu);
}
