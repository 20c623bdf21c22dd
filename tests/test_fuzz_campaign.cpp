// Fuzz campaigns against a stand-in device (a model that differs from sm_90 in one parameter):
// the difference is found, minimised, reported once, replays; resume after kill -9 and shards
// give exactly the uninterrupted run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "tcnum/core/corpus.hpp"
#include "tcnum/fuzz/campaign.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/minimise.hpp"
#include "fuzz_campaign_config.hpp"

using namespace tcnum;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const char* kBf16 = "mma.m16n8k16.f32.bf16.bf16.f32";

fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("tcnum_fuzz_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// sm_90 with one rule in front: bf16 inputs keep 24 fraction bits instead of 25.
Model bf16_keeps_24_bits() {
  Model m = builtin_model(90);
  m.name = "sm_90-bf16-F24";
  ModelRule r = m.rules.back();
  r.family.reset();
  r.inputs = InputClass::bf16;
  r.d_type.reset();
  r.params.frac_bits = 24;
  m.rules.insert(m.rules.begin(), r);
  return m;
}

Model negative_zeros() {
  Model m = builtin_model(90);
  m.name = "sm_90-negative-zeros";
  for (auto& r : m.rules) r.params.negative_zero_results = true;
  return m;
}

fuzz::CampaignConfig config(const fs::path& dir, std::vector<std::string> instrs, std::uint64_t cases) {
  fuzz::CampaignConfig c = test::small_campaign(dir, test::sm90_instructions(instrs), cases, 7, 1024);
  c.batches_per_round = 4;
  return c;
}

json summary(const fs::path& dir) { return json::parse(std::ifstream(dir / "summary.json")); }

// What must not depend on how the campaign was cut up (timing and run info may).
json outcome(const json& s) { return {s.at("counts"), s.at("signatures"), s.at("totals"), s.at("complete")}; }

ReplayTally replay(const fs::path& file, const Model* m) {
  return replay_file(file.string(), m, [](const ReplayIssue&) {});
}

void expect_found_once(const Model& device_model, const std::string& expected_class) {
  const fs::path dir = fresh_dir(device_model.name);
  fuzz::EmuBackend device(device_model, 2);
  const auto r = fuzz::run_campaign(config(dir, {kBf16}, 20000), builtin_model(90), device);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.cases, 7u * 20000u);
  ASSERT_GT(r.mismatches, 0u) << device_model.name << " not found within 140000 cases";
  const json s = summary(dir);
  ASSERT_EQ(s.at("signatures").size(), 1u) << s.at("signatures").dump(1);
  EXPECT_EQ(s.at("signatures")[0].at("class"), expected_class);
  EXPECT_EQ(s.at("signatures")[0].at("count"), r.mismatches);
  // The minimised line fails against the model under test and passes against the device's.
  const auto against_sm90 = replay(dir / "mismatches.tcc", nullptr);
  const auto against_device = replay(dir / "mismatches.tcc", &device_model);
  EXPECT_EQ(against_sm90.failed, 1u);
  EXPECT_EQ(against_device.passed, 1u);
  EXPECT_EQ(against_device.failed, 0u);
  // Every raw mismatch is a device result and fails against sm_90.
  const auto raw_sm90 = replay(dir / "raw.tcc.gz", nullptr);
  const auto raw_device = replay(dir / "raw.tcc.gz", &device_model);
  EXPECT_EQ(raw_sm90.failed, r.mismatches);
  EXPECT_EQ(raw_sm90.passed, 0u);
  EXPECT_EQ(raw_device.passed, r.mismatches);
  // Minimised: at most a product or two and C.
  CorpusReader reader((dir / "mismatches.tcc").string());
  CorpusCase k;
  std::string why;
  ASSERT_EQ(reader.next(k, why), CorpusReader::Status::case_read) << why;
  fuzz::FuzzCase x{k.a, k.b, k.c, k.d, 0};
  EXPECT_LE(fuzz::complexity(k.instruction, x).terms, 3) << s.at("signatures")[0].at("line");
}

}  // namespace

TEST(FuzzCampaign, FindsBf16KeepingOneBitLessOnceMinimisedAndReplayable) {
  expect_found_once(bf16_keeps_24_bits(), "frac_bits=24");
}

TEST(FuzzCampaign, FindsNegativeZeroResultsOnceMinimisedAndReplayable) {
  expect_found_once(negative_zeros(), "negative_zero_results=true");
}

TEST(FuzzCampaign, TheModelAgainstItselfFindsNothing) {
  const fs::path dir = fresh_dir("same");
  fuzz::EmuBackend device(builtin_model(90), 2);
  const auto r = fuzz::run_campaign(config(dir,
                                           {"mma.m16n8k8.f32.tf32.tf32.f32", "mma.m16n8k32.f16.e4m3.e5m2.f16",
                                            "mma.m16n8k16.f16.f16.f16.f16", "wgmma.m64n16k32.f32.e5m2.e5m2"},
                                           3000),
                                    builtin_model(90), device);
  EXPECT_EQ(r.cases, 4u * 7u * 3000u);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(summary(dir).at("totals").at("cases"), r.cases);
}

TEST(FuzzCampaign, ShardsMergedEqualTheUnshardedRun) {
  const Model dev = bf16_keeps_24_bits();
  fuzz::EmuBackend device(dev, 2);
  const std::vector<std::string> instrs{kBf16, "mma.m16n8k8.f32.bf16.bf16.f32"};
  const fs::path whole = fresh_dir("whole"), s0 = fresh_dir("s0"), s1 = fresh_dir("s1"), merged = fresh_dir("merged");
  fuzz::run_campaign(config(whole, instrs, 9000), builtin_model(90), device);
  for (int i = 0; i < 2; ++i) {
    auto c = config(i == 0 ? s0 : s1, instrs, 9000);
    c.shard = i;
    c.shards = 2;
    fuzz::run_campaign(c, builtin_model(90), device);
  }
  EXPECT_NE(outcome(summary(s0)), outcome(summary(whole)));
  fuzz::merge_campaigns({s0.string(), s1.string()}, merged.string());
  EXPECT_EQ(outcome(summary(merged)), outcome(summary(whole)));
  EXPECT_EQ(replay(merged / "raw.tcc.gz", &dev).passed, summary(whole).at("totals").at("mismatches"));
  // A shard given twice is refused.
  EXPECT_THROW(fuzz::merge_campaigns({s0.string(), s0.string()}, fresh_dir("twice").string()), std::runtime_error);
}

TEST(FuzzCampaign, KillNineThenResumeEqualsTheUninterruptedRun) {
  const Model dev = bf16_keeps_24_bits();
  const std::vector<std::string> instrs{kBf16, "mma.m16n8k16.f32.f16.f16.f32"};
  const fs::path whole = fresh_dir("uncut"), cut = fresh_dir("cut");
  auto c = config(whole, instrs, 30000);
  c.checkpoint_seconds = 0;  // a checkpoint after every pair: a kill lands between or inside them
  {
    fuzz::EmuBackend device(dev, 2);
    fuzz::run_campaign(c, builtin_model(90), device);
  }
  const double full_s = summary(whole).at("timing").at("elapsed_s");
  std::mt19937_64 rng(std::random_device{}());
  const auto delay = std::chrono::microseconds(
      static_cast<long>(std::uniform_real_distribution<double>(0.1, 0.8)(rng) * full_s * 1e6));
  c.out_dir = cut.string();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    fuzz::EmuBackend device(dev, 2);
    fuzz::run_campaign(c, builtin_model(90), device);
    ::_exit(0);
  }
  std::this_thread::sleep_for(delay);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  SCOPED_TRACE("killed after " + std::to_string(delay.count()) + " us of a " + std::to_string(full_s) + " s run");
  c.resume = fs::exists(cut / "checkpoint.json");
  fuzz::EmuBackend device(dev, 2);
  if (!c.resume) fs::remove_all(cut);  // killed before its first checkpoint: nothing to resume
  fuzz::run_campaign(c, builtin_model(90), device);
  EXPECT_EQ(outcome(summary(cut)), outcome(summary(whole)));
  EXPECT_EQ(replay(cut / "raw.tcc.gz", &dev).passed, summary(whole).at("totals").at("mismatches"));
}

TEST(FuzzCampaign, NoSilentOverwriteAndNoResumeOfAnotherCampaign) {
  const fs::path dir = fresh_dir("guard");
  fuzz::EmuBackend device(builtin_model(90), 2);
  auto c = config(dir, {kBf16}, 1000);
  fuzz::run_campaign(c, builtin_model(90), device);
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::runtime_error);  // no --resume
  c.resume = true;
  c.seed = 8;
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::runtime_error);  // another seed
  c.seed = 7;
  const auto r = fuzz::run_campaign(c, builtin_model(90), device);  // complete: resuming adds nothing
  EXPECT_EQ(r.cases, 7u * 1000u);
}

TEST(FuzzMinimise, KeepsTheMismatchAndNeverGrows) {
  const Model dev = bf16_keeps_24_bits();
  const Instruction in = find_instruction(kBf16, 90);
  const MmaPlan model = compile_plan(builtin_model(90), in), device = compile_plan(dev, in);
  const fuzz::DeviceEval eval = [&](const Instruction&, std::size_t n, const std::uint32_t* a, const std::uint32_t* b,
                                    const std::uint32_t* c, std::uint32_t* d) { mma_batch(device, n, a, b, c, d); };
  const std::size_t n = 4096;
  std::vector<std::uint32_t> a(n * 16), b(n * 16), c(n), dm(n), dd(n);
  fuzz::generate(in, model.params, "spread", 4, n, a.data(), b.data(), c.data());
  mma_batch(model, n, a.data(), b.data(), c.data(), dm.data());
  eval(in, n, a.data(), b.data(), c.data(), dd.data());
  int checked = 0;
  for (std::size_t i = 0; i < n && checked < 10; ++i) {
    if (dm[i] == dd[i]) continue;
    ++checked;
    fuzz::FuzzCase x{{a.begin() + i * 16, a.begin() + (i + 1) * 16}, {b.begin() + i * 16, b.begin() + (i + 1) * 16},
                     c[i], dd[i], dm[i]};
    const fuzz::FuzzCase m = fuzz::minimise(model, eval, x);
    EXPECT_LE(fuzz::complexity(in, m), fuzz::complexity(in, x));
    EXPECT_NE(mma_element(model, m.a, m.b, m.c), mma_element(device, m.a, m.b, m.c));
  }
  EXPECT_EQ(checked, 10);
}

namespace {

// The checkpoint's checksum as the campaign computes it: FNV-1a over the state's serialisation.
std::string checksum_of(const json& state) {
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : state.dump()) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

struct Damage {
  std::string name, expect;                // what is changed; a part of the error it must give
  std::function<void(json& state)> edit;
  bool fix_checksum = true;                // false: the checksum is what must catch it
};

}  // namespace

// Issue 23, D14 and D26: --resume trusted every number of checkpoint.json (one changed digit gave
// a "complete" campaign that skipped batches, or raw.tcc.gz cut inside a gzip member; a
// signature's dist indexed the distributions unchecked: garbage or SIGSEGV). Now every damage is
// an error naming what is wrong, and nothing in the directory is touched. The checksum catches
// an edit; the range and consistency checks catch one whose checksum was recomputed.
TEST(FuzzCheckpoint, ADamagedCheckpointIsAnErrorAndNothingIsTouched) {
  const Model dev = bf16_keeps_24_bits();
  fuzz::EmuBackend device(dev, 2);
  const fs::path base = fresh_dir("ckpt_base");
  const auto c = config(base, {kBf16}, 20000);
  ASSERT_GT(fuzz::run_campaign(c, builtin_model(90), device).mismatches, 0u);
  const auto u64 = [](const json& v) { return v.get<std::uint64_t>(); };
  const std::vector<Damage> damages = {
      {"raw_bytes - 100, checksum not updated", "checksum does not match",
       [&](json& s) { s["raw_bytes"] = u64(s["raw_bytes"]) - 100; }, false},
      {"raw_bytes - 100", "not whole, valid gzip members", [&](json& s) { s["raw_bytes"] = u64(s["raw_bytes"]) - 100; }},
      {"raw_bytes + 1", "is shorter", [&](json& s) { s["raw_bytes"] = u64(s["raw_bytes"]) + 1; }},
      {"raw_kept + 1", "raw_kept exceeds raw_total", [&](json& s) { s["raw_kept"] = u64(s["raw_kept"]) + 1; }},
      {"raw_kept - 1", "lines in its recorded part", [&](json& s) { s["raw_kept"] = u64(s["raw_kept"]) - 1; }},
      {"next batch + 100", "is past its last", [&](json& s) { s["pairs"][0][2] = u64(s["pairs"][0][2]) + 100; }},
      {"next batch - 1", "batches hold", [&](json& s) { s["pairs"][0][2] = u64(s["pairs"][0][2]) - 1; }},
      {"cases + 1", "batches hold", [&](json& s) { s["pairs"][1][0] = u64(s["pairs"][1][0]) + 1; }},
      {"mismatches + 1", "mismatches", [&](json& s) { s["pairs"][0][1] = u64(s["pairs"][0][1]) + 1; }},
      {"signature dist one past the end", "is not an index", [](json& s) { s["signatures"][0]["dist"] = 7; }},
      {"signature dist 99", "is not an index", [](json& s) { s["signatures"][0]["dist"] = 99; }},
      {"signature dist -1", "is not an index", [](json& s) { s["signatures"][0]["dist"] = -1; }},
      {"signature of another instruction", "not an instruction of this campaign",
       [](json& s) { s["signatures"][0]["instruction"] = "mma.m16n8k8.f32.bf16.bf16.f32"; }},
      {"signature raw line", "does not parse", [](json& s) { s["signatures"][0]["raw"] = "sm_90 garbage"; }},
      {"a count as a string", "wrong type", [](json& s) { s["pairs"][0][0] = "12"; }},
      {"pairs missing", "wrong type or is missing", [](json& s) { s.erase("pairs"); }},
      {"raw_total + 1", "raw_total", [&](json& s) { s["raw_total"] = u64(s["raw_total"]) + 1; }},
      {"sessions 0", "sessions", [](json& s) { s["sessions"] = 0; }},
  };
  for (const auto& d : damages) {
    SCOPED_TRACE(d.name);
    const fs::path dir = fresh_dir("ckpt_damaged");
    fs::copy(base, dir, fs::copy_options::recursive);
    json ck = json::parse(std::ifstream(dir / "checkpoint.json"));
    d.edit(ck["state"]);
    if (d.fix_checksum) ck["checksum"] = checksum_of(ck["state"]);
    std::ofstream(dir / "checkpoint.json") << ck.dump();
    const std::string raw = bytes_of(dir / "raw.tcc.gz"), sum = bytes_of(dir / "summary.json");
    auto r = c;
    r.out_dir = dir.string();
    r.resume = true;
    try {
      fuzz::run_campaign(r, builtin_model(90), device);
      ADD_FAILURE() << "resumed from a damaged checkpoint";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(d.expect), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
    }
    EXPECT_EQ(bytes_of(dir / "raw.tcc.gz"), raw);
    EXPECT_EQ(bytes_of(dir / "summary.json"), sum);
  }
  // The undamaged checkpoint resumes (the checks refuse nothing valid).
  auto r = c;
  r.resume = true;
  EXPECT_TRUE(fuzz::run_campaign(r, builtin_model(90), device).complete);
}

// Issue 23, D25 and D16: an instruction or distribution given twice ran the same cases twice and
// counted them twice; a case count near 2^64 wrapped to a "complete" campaign of 0 cases.
TEST(FuzzCheckpoint, DuplicatePairsAndOutOfRangeValuesAreRefused) {
  fuzz::EmuBackend device(builtin_model(90), 2);
  auto c = config(fresh_dir("dups"), {kBf16, kBf16}, 1000);
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::invalid_argument);
  c = config(fresh_dir("dups"), {kBf16}, 1000);
  c.distributions = {"normal", "normal"};
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::invalid_argument);
  for (std::uint64_t cases : {UINT64_MAX, fuzz::kMaxCasesPerPair + 1}) {
    c = config(fresh_dir("huge"), {kBf16}, cases);
    EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::invalid_argument) << cases;
  }
  c = config(fresh_dir("nan"), {kBf16}, 1000);
  c.checkpoint_seconds = std::nan("");
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::invalid_argument);
  c.checkpoint_seconds = 30;
  c.seconds = std::nan("");
  EXPECT_THROW(fuzz::run_campaign(c, builtin_model(90), device), std::invalid_argument);
}
