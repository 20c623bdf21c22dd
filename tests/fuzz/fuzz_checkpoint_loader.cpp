// libFuzzer: checkpoint.json text through `fuzz --resume` (run_campaign with resume), on a fixed
// small campaign whose raw.tcc.gz is restored before every input. An input that parses as JSON
// with a "state" gets its checksum recomputed, so the range and consistency checks behind the
// checksum are reached (the input plays a forger, not only a damaged disk). Besides "no crash,
// no UB": the only exceptions are std::runtime_error and std::invalid_argument, and a resumed
// campaign that completes has exactly the campaign's case count. With TCNUM_FUZZ_WRITE_SEED=FILE
// the fixed campaign's own (valid) checkpoint is written to FILE (the seed); TCNUM_FUZZ_VERBOSE
// prints each refusal.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tcnum/fuzz/campaign.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::uint64_t kCases = 3000;

std::string checksum_of(const json& state) {  // the campaign's: FNV-1a over the state's dump
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : state.dump()) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

tcnum::Model device_model() {  // sm_90 with bf16 keeping 24 fraction bits: mismatches to record
  tcnum::Model m = tcnum::builtin_model(90);
  m.name = "fuzz-checkpoint-device";
  for (auto& r : m.rules)
    if (r.params.frac_bits == 25) r.params.frac_bits = 24;
  return m;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

struct Fixture {
  fs::path base, dir;
  tcnum::fuzz::CampaignConfig config;
  tcnum::fuzz::EmuBackend device{device_model(), 1};
  std::string raw;

  Fixture() {
    base = fs::temp_directory_path() / ("tcnum_fuzz_checkpoint_" + std::to_string(::getpid()));
    fs::remove_all(base);
    config.instructions = {tcnum::find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90)};
    config.distributions = {"normal", "cancel"};
    config.seed = 5;
    config.cases = kCases;
    config.threads = 1;
    config.batch = 512;
    config.batches_per_round = 2;
    config.out_dir = (base / "campaign").string();
    tcnum::fuzz::run_campaign(config, tcnum::builtin_model(90), device);
    raw = bytes_of(base / "campaign" / "raw.tcc.gz");
    if (const char* seed = std::getenv("TCNUM_FUZZ_WRITE_SEED"))
      std::ofstream(seed, std::ios::binary) << bytes_of(base / "campaign" / "checkpoint.json");
    dir = base / "resumed";
    config.out_dir = dir.string();
    config.resume = true;
  }
  ~Fixture() { fs::remove_all(base); }
};

std::string with_checksum(const std::string& text) {
  try {
    json j = json::parse(text);
    if (j.is_object() && j.contains("state")) j["checksum"] = checksum_of(j["state"]);
    return j.dump();
  } catch (const json::exception&) {
    return text;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fx;
  fs::remove_all(fx.dir);
  fs::create_directories(fx.dir);
  std::ofstream(fx.dir / "raw.tcc.gz", std::ios::binary) << fx.raw;
  std::ofstream(fx.dir / "checkpoint.json", std::ios::binary)
      << with_checksum(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto r = tcnum::fuzz::run_campaign(fx.config, tcnum::builtin_model(90), fx.device);
    if (r.complete && r.cases != kCases * fx.config.distributions.size()) std::abort();
  } catch (const std::runtime_error& e) {
    if (std::getenv("TCNUM_FUZZ_VERBOSE")) std::fprintf(stderr, "%s\n", e.what());
  } catch (const std::invalid_argument& e) {
    if (std::getenv("TCNUM_FUZZ_VERBOSE")) std::fprintf(stderr, "%s\n", e.what());
  }
  return 0;
}
