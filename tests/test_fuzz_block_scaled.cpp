// Fuzz campaigns on block-scaled instructions (kind::mxf8f6f4, mxf4, mxf4nvf4 on sm_120):
// generate_scales draws valid scale patterns per distribution (extreme exponents and NaN
// included), a campaign of the model against itself finds nothing, and a stand-in device whose
// block-scaled rule keeps fewer bits is found, with its scales in the mismatch lines (which
// replay against the device's model and fail against the built-in one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tcnum/core/corpus.hpp"
#include "tcnum/fuzz/campaign.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/scales.hpp"
#include "fuzz_campaign_config.hpp"

using namespace tcnum;
namespace fs = std::filesystem;

namespace {

const char* kMxf8 = "mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0";
const char* kNvf4 = "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3";

fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("tcnum_fuzz_scaled_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// Per distribution: only valid patterns (bit 7 of ue4m3 clear), NaN only under special, the
// extremes where the distribution promises them, one scale per row under cancel.
TEST(FuzzScales, EveryDistributionDrawsItsScales) {
  for (const char* name : {kMxf8, kNvf4}) {
    const Instruction in = find_instruction(name, 120);
    const int S = in.scales_per_row();
    const std::size_t tiles = 64;
    for (const std::string& dist : fuzz::distribution_names()) {
      std::vector<std::uint32_t> sa(tiles * in.m * S), sb(tiles * in.n * S);
      fuzz::generate_scales(in, dist, 11, tiles, sa.data(), sb.data());
      std::vector<std::uint32_t> again(sa.size()), againb(sb.size());
      fuzz::generate_scales(in, dist, 11, tiles, again.data(), againb.data());
      EXPECT_EQ(sa, again) << dist;  // reproducible
      std::set<std::uint32_t> seen(sa.begin(), sa.end());
      seen.insert(sb.begin(), sb.end());
      const std::uint32_t nan = canonical_nan(in.scale_type), top = max_finite_bits(in.scale_type, false);
      for (std::uint32_t v : seen) EXPECT_EQ(v & ~storage_mask(in.scale_type), 0u) << dist;
      if (in.scale_type == Format::ue4m3) {
        for (std::uint32_t v : seen) EXPECT_LT(v, 0x80u) << dist;
      }
      EXPECT_EQ(seen.count(nan) > 0, dist == "special") << name << " " << dist;
      if (dist == "special" || dist == "boundary") {
        EXPECT_TRUE(seen.count(top)) << name << " " << dist;
      }
      if (dist == "spread") {  // both ends of the exponent range
        const double lo = to_double(in.scale_type, *seen.begin()), hi = to_double(in.scale_type, *seen.rbegin());
        EXPECT_LE(lo, in.scale_type == Format::ue8m0 ? 0x1p-110 : 0x1p-6) << name;
        EXPECT_GE(hi, in.scale_type == Format::ue8m0 ? 0x1p110 : 256.0) << name;
      }
      if (dist == "cancel") {
        for (std::size_t r = 0; r < sa.size() / S; ++r)
          EXPECT_TRUE(std::all_of(sa.begin() + r * S, sa.begin() + (r + 1) * S, [&](std::uint32_t v) { return v == sa[r * S]; }));
      }
      if (dist == "randbits") {
        EXPECT_GT(seen.size(), 40u) << name;
      }
    }
  }
  EXPECT_THROW(fuzz::generate_scales(find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90), "normal", 1, 1, nullptr, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      fuzz::generate_scales(find_instruction(kMxf8, 120), "bogus", 1, 1, nullptr, nullptr), std::invalid_argument);
}

fuzz::CampaignConfig config(const fs::path& dir, std::uint64_t cases) {
  fuzz::CampaignConfig c =
      test::small_campaign(dir, {find_instruction(kMxf8, 120), find_instruction(kNvf4, 120)}, cases, 3, 1024);
  c.arch = "sm_120";
  return c;
}

TEST(FuzzScales, TheModelAgainstItselfFindsNothing) {
  const fs::path dir = fresh_dir("self");
  fuzz::EmuBackend device(builtin_model(120), 2);
  const auto r = fuzz::run_campaign(config(dir, 2048), builtin_model(120), device);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.cases, 2u * 7u * 2048u);
  EXPECT_EQ(r.mismatches, 0u);
  fs::remove_all(dir);
}

// sm_120 whose mxf4 groups keep 30 bits instead of 35: found, filed, its lines carry scales.
TEST(FuzzScales, AStandInThatKeepsFewerBitsIsFoundWithItsScales) {
  Model dev = builtin_model(120);
  dev.name = "sm_120-mxf4-F30";
  for (auto& r : dev.rules)
    if (r.inputs == InputClass::mxf4) r.params.frac_bits = 30;
  const fs::path dir = fresh_dir("f30");
  fuzz::EmuBackend device(dev, 2);
  const auto r = fuzz::run_campaign(config(dir, 4096), builtin_model(120), device);
  ASSERT_GT(r.mismatches, 0u);
  const auto raw_builtin = replay_file((dir / "raw.tcc.gz").string(), nullptr, [](const ReplayIssue&) {});
  const auto raw_device = replay_file((dir / "raw.tcc.gz").string(), &dev, [](const ReplayIssue&) {});
  EXPECT_EQ(raw_builtin.failed, r.mismatches);
  EXPECT_EQ(raw_device.passed, r.mismatches);
  const auto mm = replay_file((dir / "mismatches.tcc").string(), &dev, [](const ReplayIssue&) {});
  EXPECT_GT(mm.passed, 0u);
  EXPECT_EQ(mm.failed, 0u);
  CorpusReader reader((dir / "raw.tcc.gz").string());
  CorpusCase k;
  std::string why;
  ASSERT_EQ(reader.next(k, why), CorpusReader::Status::case_read) << why;
  EXPECT_EQ(k.instruction.name, kNvf4);  // the mxf8f6f4 rule is unchanged
  EXPECT_EQ(k.scale_a.size(), 4u);
  fs::remove_all(dir);
}

// A backend without scales refuses block-scaled instructions with a clear message.
TEST(FuzzScales, ABackendWithoutScalesRefuses) {
  struct NoScales : fuzz::Backend {
    std::string description() const override { return "a test backend"; }
    void run(const Instruction&, std::size_t, const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
             std::uint32_t*) override {}
    void run_tiles(const Instruction&, std::size_t, const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
                   std::uint32_t*) override {}
  } device;
  const fs::path dir = fresh_dir("refuse");
  try {
    fuzz::run_campaign(config(dir, 1024), builtin_model(120), device);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run block-scaled"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
