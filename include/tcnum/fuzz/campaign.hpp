// Fuzz campaigns: device (or a stand-in) against the emulator, case by case, bit for bit;
// deterministic, sharded, checkpointed and resumable; mismatches shrunk and de-duplicated.
//
// A case is one output element of a tile of the instruction (generate_tiles): a tile of
// m16n8k16 holds 128 cases, one of wgmma m64n256 16,384, and the emulator computes every one
// (mma_tiles). Work is cut into batches of whole tiles per (instruction, distribution) pair:
// `batch` cases rounded up to a multiple of M×N; batch g of a pair holds its cases
// [g·B, (g+1)·B), drawn with batch_seed(seed, instruction, distribution, g). Shard I of N runs the batches g ≡ I (mod N), so shards partition the cases
// of the unsharded campaign exactly. A round takes the next `batches_per_round` batches of every
// pair; checkpoints are written between rounds, so a resumed campaign redoes at most the round
// that was cut and counts every case once.
//
// Outputs in the campaign directory (each written to a temporary file and renamed into place):
//   summary.json       run info, counts per instruction × distribution, signatures, throughput
//   mismatches.tcc     one minimised case per signature (replays with `numprobe replay`, and fails
//                      against the model under test)
//   raw.tcc.gz         every raw mismatch (up to raw_limit; the count of all is in the summary)
//   checkpoint.json    the state --resume continues from (with a checksum over it; every field is
//                      range- and consistency-checked on resume, raw.tcc.gz's recorded prefix too)
//   campaign.lock      the lock of the process that owns the directory (output_lock.hpp)
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::fuzz {

// The device side of a comparison. run() may be called from one thread at a time.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string description() const = 0;
  // count cases: a, b count×K raw elements, c count; writes d (count raw results).
  virtual void run(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
                   const std::uint32_t* c, std::uint32_t* d) = 0;
  // Whole tiles, every element a case: a tiles × M×K row-major, b tiles × K×N column-major
  // (column j of B at j·K), c and d tiles × M×N row-major (the layout of mma_tiles and
  // generate_tiles: tile level, docs/architecture.md "B's layout").
  virtual void run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                         const std::uint32_t* c, std::uint32_t* d) = 0;
  // Block-scaled instructions: as run_tiles, with the scales of every row of A (scale_a: tiles ×
  // M × S, S = in.scales_per_row()) and column of B (scale_b: tiles × N × S). The default refuses
  // (std::invalid_argument): a backend that can run them overrides it.
  virtual void run_tiles_scaled(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                                const std::uint32_t* c, const std::uint32_t* scale_a, const std::uint32_t* scale_b,
                                std::uint32_t* d);
  // Where the backend's time went (seconds by name, for summary.json), if it measures that.
  virtual std::vector<std::pair<std::string, double>> timing() const { return {}; }
};

// A stand-in device: `device_model` plays the GPU (CI tests of the campaign machinery).
class EmuBackend : public Backend {
 public:
  EmuBackend(Model device_model, int threads);
  std::string description() const override;
  void run(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
           const std::uint32_t* c, std::uint32_t* d) override;
  void run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                 const std::uint32_t* c, std::uint32_t* d) override;
  void run_tiles_scaled(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                        const std::uint32_t* c, const std::uint32_t* scale_a, const std::uint32_t* scale_b,
                        std::uint32_t* d) override;

 private:
  Model model_;
  int threads_;
};

// The largest case count per instruction × distribution (a year at 30 M cases/s; far from any
// overflow of batch indices or totals).
inline constexpr std::uint64_t kMaxCasesPerPair = 1000000000000000ull;

struct CampaignConfig {
  std::vector<Instruction> instructions;
  std::vector<std::string> distributions;
  std::uint64_t seed = 1;
  std::uint64_t cases = 0;   // per instruction × distribution (all shards together); 0: no limit
  double seconds = 0;        // this session stops after the round that reaches it; 0: no limit
  int shard = 0, shards = 1;
  std::string out_dir;
  bool resume = false;       // continue from out_dir/checkpoint.json; else out_dir must hold no campaign
  bool force = false;        // (not with resume) discard a campaign or a partial one in out_dir, start again
  int threads = 0;           // 0: every core
  std::size_t batch = 16384;
  std::size_t batches_per_round = 16;
  double checkpoint_seconds = 30;
  std::size_t raw_limit = 1000000;
  std::string arch = "sm_90";  // the arch written into corpus lines
  // The kind of device the results come from (a GPU product, a stand-in model and its hash);
  // stored in the checkpoint, and a resume on another kind is refused ("": not checked).
  std::string device_identity;
  // When set (a signal handler may set it), the session ends after the pair that is running,
  // with its outputs and checkpoint written: a consistent state that --resume continues.
  const std::atomic<bool>* stop = nullptr;
  // Shown in summary.json under "run" (device, driver, build, backend, ...).
  std::vector<std::pair<std::string, std::string>> run_info;
};

struct Progress {
  std::uint64_t cases = 0, mismatches = 0, signatures = 0;
  double elapsed_s = 0, cases_per_s = 0, eta_s = -1;  // eta -1: unknown
};

struct CampaignResult {
  std::uint64_t cases = 0, mismatches = 0, signatures = 0;
  bool complete = false;  // every case of a --cases campaign ran (time-limited: false)
  bool interrupted = false;  // ended early by CampaignConfig::stop
  double elapsed_s = 0;
};

// Throws std::invalid_argument for a bad configuration (a value out of range, an instruction or
// distribution given twice), and std::runtime_error when out_dir is locked by another process,
// already holds a campaign or the start of one (without resume or force), or its checkpoint is
// damaged, inconsistent with raw.tcc.gz or belongs to another configuration.
CampaignResult run_campaign(const CampaignConfig& config, const Model& model, Backend& device,
                            const std::function<void(const Progress&)>& on_progress = {});

// Shard outputs -> one report in out_dir: counts summed, signatures joined (the first case of
// each across shards represents it), raw mismatches concatenated. Throws std::runtime_error when
// the inputs are not shards of one campaign (different seed, instructions, distributions, case
// count or model; a shard twice), when out_dir is one of them or holds a campaign, when it holds
// a merge's files already and !overwrite, or when a shard's raw.tcc.gz cannot be read whole.
void merge_campaigns(const std::vector<std::string>& dirs, const std::string& out_dir, bool overwrite = false);

// Writes `content` to path through a temporary file in the same directory and a rename, so a
// reader sees the old or the new file, never a part; the data is synced before the rename.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tcnum::fuzz
