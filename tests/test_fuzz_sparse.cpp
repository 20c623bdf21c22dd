// Fuzz campaigns on sparse forms (tcnum/fuzz/sparse_tiles.hpp): the model against itself finds
// nothing; a stand-in device whose sparse datapath counts blocks in logical K is found, and its
// mismatch lines are sparse corpus lines (stored A and metadata) that replay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/campaign.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/sparse_tiles.hpp"
#include "fuzz_campaign_config.hpp"

using namespace tcnum;
namespace fs = std::filesystem;

namespace {

const char* kSparseBf16 = "mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32";

fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("tcnum_fuzz_sparse_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

fuzz::CampaignConfig config(const fs::path& dir, std::vector<std::string> instrs, std::uint64_t cases) {
  fuzz::CampaignConfig c = test::small_campaign(dir, test::sm90_instructions(instrs), cases, 5, 512);
  c.batches_per_round = 4;
  return c;
}

ReplayTally replay(const fs::path& file, const Model* m) { return replay_file(file.string(), m, [](const ReplayIssue&) {}); }

TEST(FuzzSparse, GeneratedTilesAreSparseAndKeepTheSelectedStructure) {
  const Instruction in = find_instruction(kSparseBf16, 90);
  const std::size_t tiles = 3, M = 16, N = 8, K = 32;
  std::vector<std::uint32_t> a(tiles * M * K), b(tiles * N * K), c(tiles * M * N), d(tiles * M * N);
  fuzz::generate_sparse_tiles(in, builtin_model(90).params_for(in), "spread", 3, tiles, a.data(), b.data(), c.data());
  for (std::size_t r = 0; r < tiles * M; ++r) EXPECT_NO_THROW(compress_sparse_a(in, {a.data() + r * K, K}));
  const MmaPlan plan = compile_plan(builtin_model(90).params_for(in), selected_form(in));
  fuzz::sparse_mma_tiles(plan, in, tiles, a.data(), b.data(), c.data(), d.data());
  for (std::size_t t = 0; t < tiles; ++t)
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const CompressedRow row = compress_sparse_a(in, {a.data() + (t * M + i) * K, K});
        EXPECT_EQ(d[(t * M + i) * N + j], sparse_element(builtin_model(90).params_for(in), in, row.a,
                                                         {b.data() + (t * N + j) * K, K}, c[(t * M + i) * N + j], row.meta));
      }
}

TEST(FuzzSparse, TheModelAgainstItselfFindsNothing) {
  const fs::path dir = fresh_dir("same");
  fuzz::EmuBackend device(builtin_model(90), 2);
  const auto r = fuzz::run_campaign(
      config(dir, {kSparseBf16, "mma.sp::ordered_metadata.m16n8k64.f32.e4m3.e5m2.f32", "wgmma.mma_async.sp.m64n8k16.f32.tf32.tf32"},
             2048),
      builtin_model(90), device);
  EXPECT_EQ(r.cases, 3u * 7u * 2048u);
  EXPECT_EQ(r.mismatches, 0u);
}

TEST(FuzzSparse, BlocksInLogicalKAreFoundAsReplayableSparseLines) {
  Model dev = builtin_model(90);
  dev.name = "sm_90-sparse-logical-blocks";
  ModelRule r = dev.rules.back();  // f16/bf16: F = 25, 16-product blocks
  r.family.reset();
  r.inputs = InputClass::bf16;
  r.d_type.reset();
  r.sparse = true;
  r.params.block_size = 8;  // the dense 16 counted in logical K: 8 selected products
  dev.rules.insert(dev.rules.begin(), r);
  const fs::path dir = fresh_dir("logical");
  fuzz::EmuBackend device(dev, 2);
  const auto res = fuzz::run_campaign(config(dir, {kSparseBf16}, 4096), builtin_model(90), device);
  ASSERT_GT(res.mismatches, 0u);
  const auto raw_sm90 = replay(dir / "raw.tcc.gz", nullptr), raw_dev = replay(dir / "raw.tcc.gz", &dev);
  EXPECT_EQ(raw_sm90.failed, res.mismatches);
  EXPECT_EQ(raw_dev.passed, res.mismatches);
  const auto sig_sm90 = replay(dir / "mismatches.tcc", nullptr), sig_dev = replay(dir / "mismatches.tcc", &dev);
  EXPECT_GE(sig_sm90.failed, 1u);
  EXPECT_EQ(sig_sm90.passed, 0u);
  EXPECT_EQ(sig_dev.failed, 0u);
  CorpusReader reader((dir / "mismatches.tcc").string());
  CorpusCase k;
  std::string why;
  ASSERT_EQ(reader.next(k, why), CorpusReader::Status::case_read) << why;
  EXPECT_TRUE(k.instruction.sparse);
  EXPECT_EQ(k.a.size(), 16u);
  EXPECT_EQ(k.meta.size(), 8u);
}

}  // namespace
