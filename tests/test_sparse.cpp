// Sparse A (mma.sp::ordered_metadata, wgmma.mma_async.sp): catalog, metadata, the laws of the
// datapath over the selected products, corpus lines (tcnum/core/sparse.hpp, docs/corpus-format.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <random>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/integer_mma.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace tcnum {
namespace {

std::vector<std::uint8_t> random_meta(const Instruction& in, std::mt19937& rng) {
  const std::uint8_t v16[] = {0x4, 0x8, 0x9, 0xc, 0xd, 0xe}, v32[] = {0x4, 0xe};
  std::vector<std::uint8_t> m(static_cast<std::size_t>(sparse_meta_count(in)));
  for (auto& v : m) v = sparse_group(in) == 2 ? v32[rng() % 2] : v16[rng() % 6];
  return m;
}

// A saturating integer sparse form of logical K = 64: 32 stored elements, 2:4, the dense K = 32 form.
void expect_saturating_sparse_k64(const char* name, int sm) {
  const Instruction in = find_instruction(name, sm);
  EXPECT_TRUE(in.sparse && in.saturate && in.integer()) << name;
  EXPECT_EQ(in.a_elements(), 32) << name;
  EXPECT_EQ(sparse_group(in), 4) << name;
  EXPECT_EQ(selected_form(in).k, 32) << name;
}

TEST(SparseCatalog, NamesAsPtxSpellsThemOnTheirArchitectures) {
  const Instruction mma = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 80);
  EXPECT_TRUE(mma.sparse);
  EXPECT_EQ(mma.k, 32);
  EXPECT_EQ(mma.a_elements(), 16);
  const Instruction wg = find_instruction("wgmma.mma_async.sp.m64n128k32.f32.bf16.bf16", 90);
  EXPECT_TRUE(wg.sparse);
  EXPECT_EQ(wg.family, Family::wgmma);
  EXPECT_EQ(find_instruction("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32", 89).k, 64);
  EXPECT_THROW(find_instruction("mma.sp::ordered_metadata.m16n8k64.f32.e4m3.e4m3.f32", 80), UnknownInstruction);
  EXPECT_THROW(find_instruction("wgmma.mma_async.sp.m64n64k32.f32.f16.f16", 80), UnknownInstruction);
  // fp8 mma.sp has f32 accumulators only (ptxas 13.0)
  EXPECT_THROW(find_instruction("mma.sp::ordered_metadata.m16n8k64.f16.e4m3.e4m3.f16", 90), UnknownInstruction);
  for (const Instruction& in : instructions_for(90)) EXPECT_FALSE(in.sparse) << in.name;
  std::size_t mma_sp = 0, wg_sp = 0;
  for (const Instruction& in : sparse_instructions_for(90)) (in.family == Family::mma ? mma_sp : wg_sp)++;
  EXPECT_EQ(mma_sp, 12u + 32u);  // 12 float forms; s8/u8 (m16n8k32, k64) and s4/u4 (k64, k128) pairs × wrap/satfinite
  EXPECT_EQ(wg_sp, 32u * 12u + 18u * 8u);  // 12 float type combinations at every N; s8/u8 pairs × wrap/satfinite at 18 N
  expect_saturating_sparse_k64("wgmma.mma_async.sp.sync.aligned.m64n48k64.satfinite.s32.u8.s8", 90);
  EXPECT_THROW(find_instruction("wgmma.mma_async.sp.m64n40k64.s32.s8.s8", 90), UnknownInstruction);
  EXPECT_EQ(sparse_instructions_for(80).size(), 8u + 32u);
}

// Integer mma.sp (sm_80+): s8/u8 at m16n8k32 and m16n8k64, s4/u4 at m16n8k64 and m16n8k128 (4:8 in
// pairs), wrap and .satfinite; D is the exact integer rule over the selected products (docs/models.md
// §9), on every architecture that has it.
TEST(SparseCatalog, IntegerMmaSpIsTheExactRuleOverTheSelectedProducts) {
  expect_saturating_sparse_k64("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32", 80);
  EXPECT_THROW(find_instruction("mma.sp::ordered_metadata.m16n8k32.s32.s8.s8.s32", 75), UnknownInstruction);
  const Instruction nib = find_instruction("mma.sp::ordered_metadata.m16n8k128.satfinite.s32.u4.s4.s32", 80);
  EXPECT_EQ(sparse_group(nib), 8);
  EXPECT_EQ(sparse_meta_count(nib), 16);
  EXPECT_EQ(selected_form(nib).k, 64);
  EXPECT_THROW(find_instruction("mma.sp::ordered_metadata.m16n8k32.s32.s4.s4.s32", 90), UnknownInstruction);
  EXPECT_THROW(find_instruction("mma.sp::ordered_metadata.m16n8k16.s32.s8.s8.s32", 90), UnknownInstruction);
  std::mt19937 rng(26);
  std::size_t checked = 0;
  for (int sm : {80, 86, 89, 90, 100, 120})
    for (const Instruction& sp : sparse_instructions_for(sm)) {
      if (!sp.integer() || sp.family != Family::mma) continue;
      const DatapathParams p = builtin_model(sm).params_for(sp);
      for (int t = 0; t < 200; ++t) {
        std::vector<std::uint32_t> a(static_cast<std::size_t>(sp.a_elements())), b(static_cast<std::size_t>(sp.k));
        const std::uint32_t mask = sparse_group(sp) == 8 ? 0xfu : 0xffu, low = mask / 2 + 1;  // 0x80 or 0x8: the minimum
        for (auto& v : a) v = t < 20 ? mask : rng() & mask;  // the first cases at the operands' ends
        for (auto& v : b) v = t < 20 ? (t % 2 ? low : mask) : rng() & mask;
        const std::int64_t c = t % 3 == 0 ? std::int64_t{INT32_MAX} - (rng() % 3000000) : std::int64_t{INT32_MIN} + (rng() % 3000000);
        const std::vector<std::uint8_t> meta = random_meta(sp, rng);
        const std::vector<int> pos = selected_positions(sp, meta);
        std::int64_t sum = c;
        for (std::size_t s = 0; s < a.size(); ++s)
          sum += integer_value(sp.a_type, a[s]) * integer_value(sp.b_type, b[static_cast<std::size_t>(pos[s])]);
        const std::int64_t want = sp.saturate ? std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX)
                                              : static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
        const std::uint32_t cb = static_cast<std::uint32_t>(c);
        ASSERT_EQ(sparse_element(p, sp, a, b, cb, meta), static_cast<std::uint32_t>(want)) << sp.name << " sm_" << sm << " case " << t;
        ++checked;
      }
    }
  EXPECT_EQ(checked, 6u * 32u * 200u);
}

// tcgen05.mma.sp (sm_100a): kind::f16, tf32, f8f6f4 and i8 with twice the dense K; each is the dense
// kind's rule over the selected products, not validated (no Blackwell device).
TEST(SparseCatalog, Tcgen05SparseIsTheDenseKindOverTheSelectedProducts) {
  const Instruction bf = find_instruction("tcgen05.mma.sp.m128n256k32.f32.bf16.bf16", 100);
  EXPECT_TRUE(bf.sparse);
  EXPECT_EQ(bf.family, Family::tcgen05);
  EXPECT_EQ(sparse_group(find_instruction("tcgen05.mma.sp.m64n8k16.f32.tf32.tf32", 100)), 2);
  EXPECT_EQ(find_instruction("tcgen05.mma.sp.m128n64k64.kind::f8f6f4.f16.e2m1.e3m2", 100).a_elements(), 32);
  EXPECT_TRUE(find_instruction("tcgen05.mma.sp.m64n24k64.kind::i8.satfinite.s32.s8.u8", 100).saturate);
  EXPECT_THROW(find_instruction("tcgen05.mma.sp.m128n8k64.kind::i8.s32.s8.s8", 100), UnknownInstruction);  // M = 128: N step 16
  EXPECT_THROW(find_instruction("tcgen05.mma.sp.m64n8k32.f32.f16.f16", 90), UnknownInstruction);
  EXPECT_THROW(find_instruction("tcgen05.mma.sp.m64n8k32.f32.f16.f16", 120), UnknownInstruction);
  EXPECT_THROW(find_instruction("tcgen05.mma.sp.m128n64k128.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.ue8m0", 100),
               UnknownInstruction);  // block-scaled kinds: not modelled sparse
  std::size_t tc = 0;
  for (const Instruction& in : sparse_instructions_for(100)) tc += in.family == Family::tcgen05;
  EXPECT_EQ(tc, 48u * (3u + 1u + 50u) + 34u * 8u);  // per (M, N): 3 f16, 1 tf32, 25 f8f6f4 pairs × 2 D; i8 at its 34 shapes
  const Model& m = builtin_model(100);
  std::mt19937 rng(100);
  std::size_t checked = 0;
  for (const Instruction& in : sparse_instructions_for(100)) {
    if (in.family != Family::tcgen05 || in.n != 64) continue;
    std::string name = in.name;  // the dense form: "tcgen05.mma.sp.mMnNkK" -> "tcgen05.mma.mMnNk(K/2)"
    name.replace(name.find(".sp."), 4, ".");
    const std::string k = "k" + std::to_string(in.k) + ".";
    name.replace(name.find(k), k.size(), "k" + std::to_string(in.k / 2) + ".");
    const Instruction dense = find_instruction(name, 100);
    EXPECT_TRUE(m.validations_for(in).empty()) << in.name;
    const DatapathParams p = m.params_for(in), pd = m.params_for(dense);
    const std::size_t h = static_cast<std::size_t>(dense.k), count = 40;
    std::vector<std::uint32_t> a(count * h), b(count * h), c(count);
    fuzz::generate(dense, pd, "normal", 5, count, a.data(), b.data(), c.data());
    for (std::size_t t = 0; t < count; ++t) {
      const std::span<const std::uint32_t> as(a.data() + t * h, h), bs(b.data() + t * h, h);
      const std::vector<std::uint8_t> meta = random_meta(in, rng);
      std::vector<std::uint32_t> bl(static_cast<std::size_t>(in.k), is_integer(in.b_type) ? 1u : encode(in.b_type, 1.0));
      const std::vector<int> pos = selected_positions(in, meta);
      for (std::size_t s = 0; s < h; ++s) bl[static_cast<std::size_t>(pos[s])] = bs[s];
      ASSERT_EQ(sparse_element(p, in, as, bl, c[t], meta), mma_element(pd, dense, as, bs, c[t])) << in.name << " case " << t;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u * 54u * 40u + 2u * 8u * 40u);  // M = 64 and 128 at N = 64 (i8 too)
}

TEST(SparseMetadata, ValidPatternsAndPositions) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k16.f32.f16.f16.f32", 90);
  for (std::uint32_t v = 0; v < 16; ++v)
    EXPECT_EQ(valid_sparse_meta(in, v), v == 0x4 || v == 0x8 || v == 0x9 || v == 0xc || v == 0xd || v == 0xe) << v;
  const std::vector<std::uint8_t> meta = {0x4, 0xe, 0x9, 0xc};
  EXPECT_EQ(selected_positions(in, meta), (std::vector<int>{0, 1, 6, 7, 9, 10, 12, 15}));
  const Instruction tf = find_instruction("mma.sp::ordered_metadata.m16n8k8.f32.tf32.tf32.f32", 90);
  EXPECT_EQ(selected_positions(tf, std::vector<std::uint8_t>{0x4, 0xe, 0xe, 0x4}), (std::vector<int>{0, 3, 5, 6}));
  EXPECT_FALSE(valid_sparse_meta(tf, 0x8));
}

TEST(SparseMetadata, InvalidPatternsAreRejectedWithTheGroup) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k16.f32.f16.f16.f32", 90);
  try {
    (void)selected_positions(in, std::vector<std::uint8_t>{0x4, 0x4, 0x5, 0x4});  // 0x5: indices 1, 1
    FAIL() << "accepted an invalid pattern";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("metadata value 5 (group 2) is not a valid 2:4 pattern"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(selected_positions(in, std::vector<std::uint8_t>{0x4, 0x4, 0x4}), std::invalid_argument);  // count
  EXPECT_THROW(selected_positions(in, std::vector<std::uint8_t>{0x4, 0x4, 0x6, 0x4}), std::invalid_argument);  // 2 > 1
}

TEST(SparseMetadata, CompressKeepsNonZerosAndChecksThePattern) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k16.f32.f16.f16.f32", 90);
  std::vector<std::uint32_t> a(16, 0);
  a[1] = 0x3c00, a[3] = 0x4000, a[4] = 0x8000 /* -0 */, a[9] = 0x3c00;
  const CompressedRow row = compress_sparse_a(in, a);
  EXPECT_EQ(row.meta, (std::vector<std::uint8_t>{0xd, 0x4, 0x4, 0x4}));  // (1,3) (0,1) (1 and the lowest zero: 0,1) (0,1)
  EXPECT_EQ(expand_sparse_a(in, row.a, row.meta), std::vector<std::uint32_t>(
                                                      {0, 0x3c00, 0, 0x4000, 0x8000, 0, 0, 0, 0, 0x3c00, 0, 0, 0, 0, 0, 0}));
  a[2] = 0x3c00;  // three non-zeros in group 0
  try {
    (void)compress_sparse_a(in, a);
    FAIL() << "accepted a row that is not 2:4 sparse";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("group 0 (k = 0..3) has more than 2 non-zero elements"), std::string::npos)
        << e.what();
  }
}

// The law: a sparse instruction under a rule equals the dense datapath of that rule over its
// K/2 selected products; with the dropped rows of B finite and the block counted in products it
// also equals the dense instruction of logical K on the expanded A with blocks of twice as many
// logical elements (every 2:4 group holds two products). Random cases of every distribution.
// s4/u4 (4:8 in pairs): a metadata value indexes two of a group's four pairs of elements.
TEST(SparseMetadata, NibbleFormsSelectPairs) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k64.s32.s4.s4.s32", 90);
  std::vector<std::uint8_t> meta(8, 0x4);
  meta[1] = 0x9, meta[7] = 0xe;
  const std::vector<int> pos = selected_positions(in, meta);
  ASSERT_EQ(pos.size(), 32u);
  EXPECT_EQ(std::vector<int>(pos.begin(), pos.begin() + 8), (std::vector<int>{0, 1, 2, 3, 10, 11, 12, 13}));
  EXPECT_EQ(std::vector<int>(pos.end() - 4, pos.end()), (std::vector<int>{60, 61, 62, 63}));
  meta[3] = 0x3;
  try {
    selected_positions(in, meta);
    ADD_FAILURE() << "invalid metadata accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4:8 in pairs"), std::string::npos) << e.what();
  }
  std::vector<std::uint32_t> a(64, 0);
  a[5] = 0x7, a[6] = 0x9;  // group 0: pairs 2 and 3 hold non-zeros
  a[9] = 0x1;              // group 1: pair 0 only, so pair 1 is filled in
  const CompressedRow row = compress_sparse_a(in, a);
  ASSERT_EQ(row.a.size(), 32u);
  EXPECT_EQ(row.meta[0], 0xe);
  EXPECT_EQ(row.meta[1], 0x4);
  EXPECT_EQ(std::vector<std::uint32_t>(row.a.begin(), row.a.begin() + 4), (std::vector<std::uint32_t>{0, 0x7, 0x9, 0}));
  EXPECT_EQ(expand_sparse_a(in, row.a, row.meta), a);
  a[0] = 0x2;  // a third pair in group 0
  EXPECT_THROW(compress_sparse_a(in, a), std::invalid_argument);
}

TEST(SparseLaws, SelectedProductsEqualTheDenseFormOnTheExpandedA) {
  std::mt19937 rng(7);
  for (int sm : {80, 89, 90}) {
    for (const Instruction& in : sparse_instructions_for(sm)) {
      if (in.family == Family::wgmma && in.n != 64) continue;
      const DatapathParams p = builtin_model(sm).params_for(in);
      const Instruction sel = selected_form(in);
      const std::size_t h = static_cast<std::size_t>(sel.k), count = 200;
      for (const std::string dist : {"normal", "spread", "cancel", "subnorm"}) {
        std::vector<std::uint32_t> a(count * h), b(count * h), c(count);
        fuzz::generate(sel, p, dist, 11, count, a.data(), b.data(), c.data());
        for (std::size_t t = 0; t < count; ++t) {
          const std::span<const std::uint32_t> as(a.data() + t * h, h), bs(b.data() + t * h, h);
          const std::vector<std::uint8_t> meta = random_meta(in, rng);
          const std::uint32_t one = is_integer(in.b_type) ? 1u : encode(in.b_type, 1.0);  // the dropped rows of B
          std::vector<std::uint32_t> bl(static_cast<std::size_t>(in.k), one);
          const std::vector<int> pos = selected_positions(in, meta);
          for (std::size_t s = 0; s < h; ++s) bl[static_cast<std::size_t>(pos[s])] = bs[s];
          const std::uint32_t want = mma_element(p, sel, as, bs, c[t]);
          ASSERT_EQ(sparse_element(p, in, as, bl, c[t], meta), want) << in.name << " " << dist << " case " << t;
          if (p.k_passes != 1 || p.block_size <= 0) continue;
          Instruction dense = in;
          dense.sparse = false;
          DatapathParams logical = p;
          logical.block_size = 2 * p.block_size;  // the same products per block, counted in logical K
          ASSERT_EQ(mma_element(logical, dense, expand_sparse_a(in, {as.begin(), as.end()}, meta), bl, c[t]), want)
              << in.name << " " << dist << " case " << t;
        }
      }
    }
  }
}

TEST(SparseLaws, BoxAndSingleCaseAgree) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 90);
  std::mt19937 rng(3);
  std::vector<Case> cases(50);
  for (auto& g : cases) {
    g.meta = random_meta(in, rng);
    for (int k = 0; k < 16; ++k) g.a.push_back(encode(Format::bf16, std::ldexp(1.0 + (rng() % 8) / 8.0, -(int)(rng() % 20))));
    for (int k = 0; k < 32; ++k) g.b.push_back(encode(Format::bf16, (rng() % 2 ? -1.0 : 1.0) * (1.0 + (rng() % 16) / 16.0)));
    g.c = encode(Format::fp32, 1.0);
  }
  const Model& m = builtin_model(90);
  const std::vector<std::uint32_t> d = emulator_box(m).cases(in, cases);
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(d[i], emulate_case(m.params_for(in), in, cases[i])) << i;
  cases[3].meta[2] = 0x3;
  EXPECT_THROW(emulator_box(m).cases(in, cases), std::invalid_argument);
}

TEST(SparseCorpus, LinesRoundTripAndReplay) {
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k16.f32.f16.f16.f32", 90);
  std::vector<std::uint32_t> a(8, 0x3c00), b(16, 0x3c00);
  const std::vector<std::uint8_t> meta = {0x4, 0xe, 0x9, 0xd};
  b[2] = 0x7c00;  // +Inf in a dropped row (group 0 keeps k = 0, 1)
  const std::uint32_t d = sparse_element(builtin_model(90).params_for(in), in, a, b, 0, meta);
  EXPECT_EQ(d, encode(Format::fp32, 8.0));
  const std::string line = format_case_line("sm_90", in, a, b, 0, d, {}, {}, std::vector<std::uint8_t>(meta));
  EXPECT_EQ(line.substr(line.size() - 5), " 4e9d");
  std::string why;
  const auto k = parse_case_line(line, why);
  ASSERT_TRUE(k) << why;
  EXPECT_EQ(k->a, a);
  EXPECT_EQ(k->b, b);
  EXPECT_EQ(k->meta, meta);
  EXPECT_THROW(format_case_line("sm_90", in, a, b, 0, d, {}, {}, {0x4, 0x4, 0x4, 0x7}), std::invalid_argument);
  EXPECT_THROW(format_case_line("sm_90", in, b, b, 0, d, {}, {}, std::vector<std::uint8_t>(meta)), std::invalid_argument);
}

TEST(SparseCorpus, MalformedMetadataIsAMalformedLine) {
  const std::string head = "sm_90 mma.sp::ordered_metadata.m16n8k16.f32.f16.f16.f32 " + std::string(32, '0') + " " +
                           std::string(64, '0') + " 00000000 00000000";
  std::string why;
  EXPECT_TRUE(parse_case_line(head + " 4e9d", why)) << why;
  EXPECT_FALSE(parse_case_line(head + " 4e5d", why));
  EXPECT_NE(why.find("META: metadata value 5 (group 2) is not a valid 2:4 pattern"), std::string::npos) << why;
  EXPECT_FALSE(parse_case_line(head + " 4e9", why));
  EXPECT_NE(why.find("META: expected 4 hex digits"), std::string::npos) << why;
  EXPECT_FALSE(parse_case_line(head + " 4E9d", why));
  EXPECT_NE(why.find("not a lowercase hex digit"), std::string::npos) << why;
  EXPECT_FALSE(parse_case_line(head, why));  // 6 fields
  EXPECT_NE(why.find("sparse instruction: expected 7 fields"), std::string::npos) << why;
  EXPECT_FALSE(parse_case_line("sm_90 mma.m16n8k16.f32.f16.f16.f32 " + std::string(64, '0') + " " + std::string(64, '0') +
                                   " 00000000 00000000 4e9d",
                               why));  // a dense line with metadata
  EXPECT_NE(why.find("expected 6 fields"), std::string::npos) << why;
}

TEST(SparseModel, RulesMatchBySparsityAndRoundTripJson) {
  Model m = builtin_model(90);
  const Instruction in = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 90);
  ModelRule r{Family::mma, InputClass::bf16, std::nullopt, m.params_for(in), "test", false, {}, true};
  r.params.block_size = 4;
  m.rules.insert(m.rules.begin(), r);
  EXPECT_EQ(m.params_for(in).block_size, 4);
  EXPECT_EQ(m.params_for(find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90)).block_size, 16);
  const Model back = model_from_json(model_to_json(m));
  EXPECT_EQ(back.rules.front().sparse, std::optional<bool>(true));
  EXPECT_EQ(back.params_for(in).block_size, 4);
  EXPECT_THROW(compile_plan(m.params_for(in), in), std::invalid_argument);  // no plan of its own
}

}  // namespace
}  // namespace tcnum

namespace tcnum {
namespace {

// The designed inputs recorded on the H100 (corpora/h100-sparse/designed/designed.tcc.gz, probes/
// sparse_designed.cpp): one large product at stored position p, small ones at the others. The
// built-in rule (one dense datapath over the K/2 selected products) reproduces every case; blocks
// counted in logical K (half as many products) fail wherever the small products precede the large
// one in a block of their own; B's dropped rows (+Inf, NaN) are never read; a stored zero facing
// +Inf gives NaN.
TEST(SparseEvidence, DesignedInputsRefuteBlocksInLogicalK) {
  CorpusReader reader(std::string(TCNUM_SOURCE_DIR) + "/corpora/h100-sparse/designed/designed.tcc.gz");
  CorpusCase k;
  std::string why;
  std::map<std::string, int> halved_wrong, seen;
  std::size_t cases = 0;
  while (reader.next(k, why) == CorpusReader::Status::case_read) {
    const Instruction& in = k.instruction;
    const DatapathParams p = builtin_model(90).params_for(in);
    DatapathParams halved = p;
    halved.block_size = p.block_size / 2;
    EXPECT_EQ(emulate_case(p, in, k), k.d) << in.name << " case " << seen[in.name];
    halved_wrong[in.name] += emulate_case(halved, in, k) != k.d;
    const int h = in.a_elements(), i = seen[in.name]++;
    if (i == h || i == h + 1) EXPECT_TRUE(std::isfinite(to_double(in.d_type, k.d))) << in.name << ": a dropped row was read";
    if (i == h + 2) EXPECT_TRUE(std::isnan(to_double(in.d_type, k.d))) << in.name << ": 0 · Inf was not NaN";
    ++cases;
  }
  EXPECT_EQ(cases, 785u);
  for (const auto& [name, wrong] : halved_wrong) {
    const Instruction in = find_instruction(name, 90);
    if (in.a_elements() > builtin_model(90).params_for(in).block_size / 2 && in.a_type != Format::tf32)
      EXPECT_EQ(wrong, in.a_elements() / 2) << name;  // the large product in the second half
  }
}

}  // namespace
}  // namespace tcnum
