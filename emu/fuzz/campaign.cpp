// Fuzz campaigns (tcnum/fuzz/campaign.hpp): rounds of generated batches, device against model,
// signatures, checkpoints.
#include "tcnum/fuzz/campaign.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/classify.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/minimise.hpp"

namespace tcnum::fuzz {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kStateVersion = 2;  // 2: cases are the elements of whole tiles
constexpr std::size_t kEvalChunk = 2048;  // cases per mma_batch / mma_tiles call on one thread

void evaluate(const MmaPlan& plan, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
              const std::uint32_t* c, std::uint32_t* d, int threads) {
  const std::size_t K = static_cast<std::size_t>(plan.instruction.k);
  const std::size_t chunks = (count + kEvalChunk - 1) / kEvalChunk;
  parallel_for(chunks, threads, [&](std::size_t i) {
    const std::size_t first = i * kEvalChunk, n = std::min(kEvalChunk, count - first);
    mma_batch(plan, n, a + first * K, b + first * K, c + first, d + first);
  });
}

// Whole tiles (mma_tiles), a few per call, on `threads` threads.
void evaluate_tiles(const MmaPlan& plan, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                    const std::uint32_t* c, std::uint32_t* d, int threads) {
  const Instruction& in = plan.instruction;
  const std::size_t MK = std::size_t(in.m) * in.k, NK = std::size_t(in.n) * in.k, MN = std::size_t(in.m) * in.n;
  const std::size_t per = std::max<std::size_t>(1, kEvalChunk / MN), chunks = (tiles + per - 1) / per;
  parallel_for(chunks, threads, [&](std::size_t i) {
    const std::size_t first = i * per, n = std::min(per, tiles - first);
    mma_tiles(plan, n, a + first * MK, b + first * NK, c + first * MN, d + first * MN);
  });
}

std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

json read_json(const fs::path& p) {
  try {
    return json::parse(read_file(p));
  } catch (const json::exception& e) {
    throw std::runtime_error(p.string() + ": not valid JSON (" + e.what() + ")");
  }
}

std::vector<std::string> read_gz_lines(const fs::path& p) {
  std::vector<std::string> lines;
  if (!fs::exists(p)) return lines;
  gzFile f = gzopen(p.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + p.string());
  std::string line;
  char buf[4096];
  while (gzgets(f, buf, sizeof buf)) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      if (!line.empty() && line[0] != '#') lines.push_back(line);
      line.clear();
    }
  }
  int err = 0;
  const char* msg = gzerror(f, &err);
  gzclose(f);
  if (err != Z_OK && err != Z_STREAM_END) throw std::runtime_error(p.string() + ": " + msg);
  if (!line.empty() && line[0] != '#') lines.push_back(line);
  return lines;
}

std::string temp_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

void write_gz_atomically(const std::string& path, const std::string& header, const std::vector<std::string>& lines) {
  const std::string tmp = temp_name(path);
  gzFile f = gzopen(tmp.c_str(), "wb6");
  if (!f) throw std::runtime_error("cannot write " + tmp);
  bool ok = gzputs(f, header.c_str()) >= 0;
  for (const auto& l : lines) ok = ok && gzputs(f, l.c_str()) >= 0 && gzputc(f, '\n') >= 0;
  ok = gzclose(f) == Z_OK && ok;
  if (!ok) {
    fs::remove(tmp);
    throw std::runtime_error("writing " + tmp + " failed");
  }
  fs::rename(tmp, path);
}

// ---- the campaign state ----

struct PairState {
  std::uint64_t cases = 0, mismatches = 0, next_batch = 0;  // next_batch: this shard's local index
};

struct Signature {
  std::string instruction;
  std::string cls;  // a neighbouring model's change ("frac_bits=24") or a region class
  std::uint64_t count = 0;
  int dist = 0;              // the representative: the first case by (distribution, case index)
  std::uint64_t case_index = 0;
  std::string raw_line;      // the representative as found
  std::string line;          // the representative minimised ("" until minimised)
  std::string minimised_from;  // raw_line that `line` was minimised from
};

struct State {
  std::vector<PairState> pairs;
  std::map<std::string, Signature> signatures;  // by "instruction class"
  std::vector<std::string> raw_pending;  // found since the last checkpoint
  std::uint64_t raw_kept = 0;            // lines in raw.tcc.gz at the last checkpoint
  std::uint64_t raw_bytes = 0;           // its size then (a resumed run cuts it back to this)
  std::uint64_t raw_total = 0;
  std::uint64_t rounds = 0;
  double elapsed_s = 0;
  int sessions = 0;
  bool complete = false;
};

std::string signature_key(const std::string& instr, const std::string& cls) { return instr + " " + cls; }

json config_json(const CampaignConfig& cfg, const Model& model) {
  json instrs = json::array();
  for (const auto& in : cfg.instructions) instrs.push_back(in.name);
  return {{"instructions", instrs},
          {"distributions", cfg.distributions},
          {"seed", cfg.seed},
          {"cases_per_pair", cfg.cases},
          {"shard", cfg.shard},
          {"shards", cfg.shards},
          {"batch", cfg.batch},
          {"cases_are", "tile elements"},
          {"arch", cfg.arch},
          {"model", model.name},
          {"model_hash", hex64(fnv(model_to_json(model)))}};
}

json state_json(const State& s) {
  json pairs = json::array(), sigs = json::array();
  for (const auto& p : s.pairs) pairs.push_back({p.cases, p.mismatches, p.next_batch});
  for (const auto& [key, g] : s.signatures)
    sigs.push_back({{"instruction", g.instruction},
                    {"class", g.cls},
                    {"count", g.count},
                    {"dist", g.dist},
                    {"case", g.case_index},
                    {"raw", g.raw_line},
                    {"line", g.line},
                    {"minimised_from", g.minimised_from}});
  return {{"pairs", pairs},         {"signatures", sigs},   {"raw_kept", s.raw_kept},
          {"raw_bytes", s.raw_bytes}, {"raw_total", s.raw_total}, {"rounds", s.rounds},
          {"elapsed_s", s.elapsed_s}, {"sessions", s.sessions},   {"complete", s.complete}};
}

State state_from_json(const json& j, std::size_t pairs) {
  State s;
  for (const auto& p : j.at("pairs")) s.pairs.push_back({p.at(0), p.at(1), p.at(2)});
  if (s.pairs.size() != pairs) throw std::runtime_error("checkpoint: wrong number of (instruction, distribution) pairs");
  for (const auto& g : j.at("signatures")) {
    Signature sig;
    sig.instruction = g.at("instruction");
    sig.cls = g.at("class");
    sig.count = g.at("count");
    sig.dist = g.at("dist");
    sig.case_index = g.at("case");
    sig.raw_line = g.at("raw");
    sig.line = g.at("line");
    sig.minimised_from = g.at("minimised_from");
    s.signatures[signature_key(sig.instruction, sig.cls)] = sig;
  }
  s.raw_total = j.at("raw_total");
  s.raw_kept = j.at("raw_kept");
  s.raw_bytes = j.at("raw_bytes");
  s.rounds = j.at("rounds");
  s.elapsed_s = j.at("elapsed_s");
  s.sessions = j.at("sessions");
  s.complete = j.at("complete");
  return s;
}

// One (instruction, distribution) pair's share of a round, generated and run. Batch i holds
// tiles [first_tile[i], first_tile[i+1]); its cases are the first cases[i] elements of them.
struct Work {
  std::size_t pair = 0;
  std::vector<std::uint64_t> batches;   // global batch indices
  std::vector<std::size_t> first_tile;  // first tile of each batch in the buffers
  std::vector<std::size_t> cases;       // cases of each batch
  std::size_t n = 0, tiles = 0;         // cases and tiles in all
  std::vector<std::uint32_t> a, b, c, dev, emu;
};

class Campaign {
 public:
  Campaign(const CampaignConfig& cfg, const Model& model, Backend& device)
      : cfg_(cfg), model_(model), device_(device), threads_(resolve_threads(cfg.threads)) {
    if (cfg.instructions.empty()) throw std::invalid_argument("fuzz: no instructions");
    if (cfg.distributions.empty()) throw std::invalid_argument("fuzz: no distributions");
    for (const auto& d : cfg.distributions) distribution_description(d);  // validates the names
    if (cfg.shards < 1 || cfg.shard < 0 || cfg.shard >= cfg.shards)
      throw std::invalid_argument("fuzz: shard " + std::to_string(cfg.shard) + "/" + std::to_string(cfg.shards) +
                                  " is not I/N with 0 <= I < N");
    if (cfg.batch == 0 || cfg.batches_per_round == 0) throw std::invalid_argument("fuzz: batch sizes must be positive");
    if (cfg.cases == 0 && cfg.seconds <= 0) throw std::invalid_argument("fuzz: give a case count or a duration");
    if (cfg.out_dir.empty()) throw std::invalid_argument("fuzz: no output directory");
    for (const auto& in : cfg.instructions) plans_.push_back(compile_plan(model, in));
    for (const auto& in : cfg.instructions)
      for (const auto& d : cfg.distributions) pair_names_.emplace_back(in.name, d);
    dir_ = cfg.out_dir;
  }

  CampaignResult run(const std::function<void(const Progress&)>& on_progress) {
    open();
    const auto start = Clock::now();
    auto last_checkpoint = start;
    const double elapsed_before = state_.elapsed_s;
    const std::uint64_t cases_before = total_cases();
    bool out_of_time = false;
    // After every pair's run the state is exact: the place to checkpoint and to stop.
    const auto after_pair = [&] {
      const auto now = Clock::now();
      session_s_ = seconds(start, now);
      state_.elapsed_s = elapsed_before + session_s_;
      out_of_time = cfg_.seconds > 0 && session_s_ >= cfg_.seconds;  // per session
      if (on_progress) on_progress(progress(total_cases() - cases_before));
      if (!out_of_time && seconds(last_checkpoint, now) >= cfg_.checkpoint_seconds) {
        write_outputs(total_cases() - cases_before);
        last_checkpoint = Clock::now();
      }
      return out_of_time;
    };
    while (!state_.complete && !out_of_time) {
      std::vector<Work> works = round_plan();
      if (works.empty()) break;
      run_round(works, after_pair);
      ++state_.rounds;
      state_.complete = round_plan().empty();
    }
    state_.complete = round_plan().empty();
    session_s_ = seconds(start, Clock::now());
    state_.elapsed_s = elapsed_before + session_s_;
    write_outputs(total_cases() - cases_before);
    CampaignResult r;
    r.cases = total_cases();
    r.mismatches = total_mismatches();
    r.signatures = state_.signatures.size();
    r.complete = state_.complete && cfg_.cases > 0;
    r.elapsed_s = state_.elapsed_s;
    return r;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }

  void open() {
    fs::create_directories(dir_);
    const fs::path ckpt = dir_ / "checkpoint.json";
    const json want = config_json(cfg_, model_);
    if (!cfg_.resume) {
      if (fs::exists(ckpt) || fs::exists(dir_ / "summary.json"))
        throw std::runtime_error(dir_.string() + " already holds a campaign: pass --resume to continue it, or "
                                 "choose another --out");
      state_.pairs.assign(pair_names_.size(), {});
    } else if (!fs::exists(ckpt)) {
      throw std::runtime_error("--resume: " + ckpt.string() + " does not exist (nothing to resume)");
    } else {
      const json j = read_json(ckpt);
      if (j.value("version", 0) != kStateVersion) throw std::runtime_error(ckpt.string() + ": unknown version");
      json have = j.at("config");
      json want_cmp = want, have_cmp = have;
      if (want_cmp != have_cmp)
        throw std::runtime_error("--resume: " + ckpt.string() + " belongs to another campaign:\n  it has  " +
                                 have.dump() + "\n  now is  " + want.dump());
      state_ = state_from_json(j.at("state"), pair_names_.size());
      for (const auto& e : fs::directory_iterator(dir_))  // temporaries of a killed run
        if (e.path().filename().string().find(".tmp.") != std::string::npos) fs::remove(e.path());
      const fs::path raw = dir_ / "raw.tcc.gz";
      const std::uint64_t raw_size = fs::exists(raw) ? fs::file_size(raw) : 0;
      if (raw_size < state_.raw_bytes)
        throw std::runtime_error("--resume: " + raw.string() + " is shorter than its checkpoint says");
      if (raw_size > state_.raw_bytes) fs::resize_file(raw, state_.raw_bytes);  // found again after the checkpoint
    }
    ++state_.sessions;
  }

  std::uint64_t total_cases() const {
    std::uint64_t n = 0;
    for (const auto& p : state_.pairs) n += p.cases;
    return n;
  }
  std::uint64_t total_mismatches() const {
    std::uint64_t n = 0;
    for (const auto& p : state_.pairs) n += p.mismatches;
    return n;
  }

  // A batch is whole tiles: --batch cases rounded up to a multiple of the tile's M×N elements.
  std::uint64_t tile_cases(std::size_t pair) const {
    const Instruction& in = instr_of(pair);
    return static_cast<std::uint64_t>(in.m) * static_cast<std::uint64_t>(in.n);
  }
  std::uint64_t batch_cases(std::size_t pair) const {
    const std::uint64_t mn = tile_cases(pair);
    return std::max<std::uint64_t>(1, (cfg_.batch + mn - 1) / mn) * mn;
  }

  // This shard's batches of pair p in a --cases campaign (unbounded otherwise).
  std::uint64_t local_batches(std::size_t pair) const {
    if (cfg_.cases == 0) return UINT64_MAX;
    const std::uint64_t per = batch_cases(pair), total = (cfg_.cases + per - 1) / per, shards = cfg_.shards;
    const std::uint64_t shard = cfg_.shard;
    return total > shard ? (total - shard + shards - 1) / shards : 0;
  }

  std::vector<Work> round_plan() const {
    std::vector<Work> out;
    for (std::size_t p = 0; p < state_.pairs.size(); ++p) {
      const std::uint64_t limit = local_batches(p), per = batch_cases(p), mn = tile_cases(p);
      const std::uint64_t first = state_.pairs[p].next_batch;
      if (first >= limit) continue;
      const std::uint64_t last = std::min<std::uint64_t>(limit, first + cfg_.batches_per_round);
      Work w;
      w.pair = p;
      for (std::uint64_t l = first; l < last; ++l) {
        const std::uint64_t g = l * cfg_.shards + cfg_.shard;
        std::uint64_t n = per;
        if (cfg_.cases > 0) n = std::min<std::uint64_t>(n, cfg_.cases - g * per);
        w.batches.push_back(g);
        w.first_tile.push_back(w.tiles);
        w.cases.push_back(n);
        w.n += n;
        w.tiles += (n + mn - 1) / mn;
      }
      out.push_back(std::move(w));
    }
    return out;
  }

  const Instruction& instr_of(std::size_t pair) const { return cfg_.instructions[pair / cfg_.distributions.size()]; }
  const MmaPlan& plan_of(std::size_t pair) const { return plans_[pair / cfg_.distributions.size()]; }
  int dist_of(std::size_t pair) const { return static_cast<int>(pair % cfg_.distributions.size()); }

  void generate_work(Work& w) {
    const auto t0 = Clock::now();
    generate_cases(w);
    busy_.generate_s += seconds(t0, Clock::now());
  }

  void generate_cases(Work& w) const {
    const Instruction& in = instr_of(w.pair);
    const std::size_t MK = std::size_t(in.m) * in.k, NK = std::size_t(in.n) * in.k, MN = std::size_t(in.m) * in.n;
    w.a.resize(w.tiles * MK);
    w.b.resize(w.tiles * NK);
    w.c.resize(w.tiles * MN);
    w.dev.resize(w.tiles * MN);
    w.emu.resize(w.tiles * MN);
    const std::string& dist = cfg_.distributions[dist_of(w.pair)];
    const DatapathParams& params = plan_of(w.pair).params;
    parallel_for(w.batches.size(), threads_, [&](std::size_t i) {
      const std::size_t first = w.first_tile[i], tiles = (i + 1 < w.batches.size() ? w.first_tile[i + 1] : w.tiles) - first;
      generate_tiles(in, params, dist, batch_seed(cfg_.seed, in.name, dist, w.batches[i]), tiles,
                     w.a.data() + first * MK, w.b.data() + first * NK, w.c.data() + first * MN);
    });
  }

  // Generation of the next pair and the emulator overlap the device's run of this one.
  // `after_pair` returns true to stop the round.
  template <class AfterPair>
  void run_round(std::vector<Work>& works, AfterPair&& after_pair) {
    generate_work(works[0]);
    for (std::size_t i = 0; i < works.size(); ++i) {
      Work& w = works[i];
      const Instruction& in = instr_of(w.pair);
      auto on_device = std::async(std::launch::async, [&] {
        const auto t0 = Clock::now();
        device_.run_tiles(in, w.tiles, w.a.data(), w.b.data(), w.c.data(), w.dev.data());
        return seconds(t0, Clock::now());
      });
      // The next pair is generated while this one is emulated (both on every core: a stall in one,
      // e.g. a tile whose lanes fall back to the reference, leaves the cores to the other).
      std::future<void> next;
      if (i + 1 < works.size()) next = std::async(std::launch::async, [&] { generate_work(works[i + 1]); });
      const auto t0 = Clock::now();
      try {
        evaluate_tiles(plan_of(w.pair), w.tiles, w.a.data(), w.b.data(), w.c.data(), w.emu.data(), threads_);
        busy_.emulator_s += seconds(t0, Clock::now());
      } catch (...) {
        on_device.wait();
        if (next.valid()) next.wait();
        throw;
      }
      try {
        if (next.valid()) next.get();
      } catch (...) {
        on_device.wait();
        throw;
      }
      busy_.device_s += on_device.get();
      const auto t2 = Clock::now();
      busy_.wait_s += seconds(t0, t2);
      compare(w);
      busy_.compare_s += seconds(t2, Clock::now());
      w = Work{};  // keeps at most two pairs' buffers alive
      if (after_pair()) return;
    }
  }

  void compare(const Work& w) {
    PairState& ps = state_.pairs[w.pair];
    const Instruction& in = instr_of(w.pair);
    const std::size_t N = static_cast<std::size_t>(in.n), MN = in.m * N;
    const std::uint64_t per = batch_cases(w.pair);
    for (std::size_t bi = 0; bi < w.batches.size(); ++bi)
      for (std::size_t e = 0; e < w.cases[bi]; ++e) {
        const std::size_t at = w.first_tile[bi] * MN + e;  // element at of the buffers
        if (w.dev[at] == w.emu[at]) continue;
        found_mismatch(w, bi, e, per, at / MN, at % MN / N, at % N);
      }
    ps.cases += w.n;
    ps.next_batch += w.batches.size();
  }

  // Element (i, j) of tile t of the buffers: case e of batch bi.
  void found_mismatch(const Work& w, std::size_t bi, std::size_t e, std::uint64_t per, std::size_t t, std::size_t i,
                      std::size_t j) {
    PairState& ps = state_.pairs[w.pair];
    const Instruction& in = instr_of(w.pair);
    const std::size_t K = static_cast<std::size_t>(in.k), M = in.m, N = in.n, at = t * M * N + i * N + j;
    {
      ++ps.mismatches;
      const std::uint64_t case_index = w.batches[bi] * per + e;
      const std::span<const std::uint32_t> a(w.a.data() + (t * M + i) * K, K), b(w.b.data() + (t * N + j) * K, K);
      const std::uint32_t c = w.c[at], dev = w.dev[at], emu = w.emu[at];
      const std::string cls = explain(w.pair / cfg_.distributions.size(), a, b, c, emu, dev);
      const std::string line = format_case_line(cfg_.arch, in, {a.begin(), a.end()}, {b.begin(), b.end()}, c, dev);
      ++state_.raw_total;
      if (state_.raw_kept + state_.raw_pending.size() < cfg_.raw_limit) state_.raw_pending.push_back(line);
      Signature& sig = state_.signatures[signature_key(in.name, cls)];
      const int dist = dist_of(w.pair);
      if (sig.count == 0 || std::make_pair(dist, case_index) < std::make_pair(sig.dist, sig.case_index)) {
        sig.instruction = in.name;
        sig.cls = cls;
        sig.dist = dist;
        sig.case_index = case_index;
        sig.raw_line = line;
      }
      ++sig.count;
    }
  }

  // The signature class of a mismatch: the first neighbouring model that reproduces the device's
  // result, else the region the model assigns (classify.hpp).
  std::string explain(std::size_t instr, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                      std::uint32_t c, std::uint32_t model_d, std::uint32_t device_d) {
    if (neighbour_plans_.size() <= instr) neighbour_plans_.resize(cfg_.instructions.size());
    auto& plans = neighbour_plans_[instr];
    if (plans.empty())
      for (auto& n : neighbours(plans_[instr].params, cfg_.instructions[instr]))
        plans.emplace_back(n.change, compile_plan(n.params, cfg_.instructions[instr]));
    for (const auto& [change, plan] : plans)
      if (mma_element(plan, a, b, c) == device_d) return change;
    return std::string(class_name(classify(cfg_.instructions[instr], plans_[instr].params, a, b, c, model_d, device_d)));
  }

  void minimise_signatures() {
    for (auto& [key, sig] : state_.signatures) {
      if (sig.minimised_from == sig.raw_line) continue;
      std::string why;
      const auto kase = parse_case_line(sig.raw_line, why);
      if (!kase) throw std::logic_error("fuzz: a raw line does not parse: " + why);
      std::size_t which = 0;
      while (cfg_.instructions[which].name != sig.instruction) ++which;
      FuzzCase x{kase->a, kase->b, kase->c, kase->d, 0};
      const auto device = [this](const Instruction& in, std::size_t n, const std::uint32_t* a, const std::uint32_t* b,
                                 const std::uint32_t* c, std::uint32_t* d) { device_.run(in, n, a, b, c, d); };
      const FuzzCase m = minimise(plans_[which], device, x);
      sig.line = format_case_line(cfg_.arch, cfg_.instructions[which], m.a, m.b, m.c, m.device_d);
      sig.minimised_from = sig.raw_line;
    }
  }

  Progress progress(std::uint64_t session_cases) const {
    Progress p;
    p.cases = total_cases();
    p.mismatches = total_mismatches();
    p.signatures = state_.signatures.size();
    p.elapsed_s = state_.elapsed_s;
    p.cases_per_s = session_s_ > 0 ? static_cast<double>(session_cases) / session_s_ : 0;
    if (cfg_.seconds > 0) p.eta_s = std::max(0.0, cfg_.seconds - session_s_);
    if (cfg_.cases > 0 && p.cases_per_s > 0) {
      std::uint64_t left = 0;
      for (std::size_t pair = 0; pair < state_.pairs.size(); ++pair) {
        const std::uint64_t limit = local_batches(pair);
        left += (limit - std::min(limit, state_.pairs[pair].next_batch)) * batch_cases(pair);
      }
      const double eta = static_cast<double>(left) / p.cases_per_s;
      p.eta_s = p.eta_s < 0 ? eta : std::min(p.eta_s, eta);
    }
    return p;
  }

  json summary_json(std::uint64_t session_cases) const {
    json run = json::object();
    for (const auto& [k, v] : cfg_.run_info) run[k] = v;
    run["backend"] = device_.description();
    json counts = json::array(), sigs = json::array();
    for (std::size_t p = 0; p < state_.pairs.size(); ++p)
      counts.push_back({{"instruction", pair_names_[p].first},
                        {"distribution", pair_names_[p].second},
                        {"cases", state_.pairs[p].cases},
                        {"mismatches", state_.pairs[p].mismatches}});
    for (const auto& [key, g] : state_.signatures)
      sigs.push_back({{"instruction", g.instruction},
                      {"class", g.cls},
                      {"count", g.count},
                      {"first", {{"distribution", cfg_.distributions[g.dist]}, {"case", g.case_index}}},
                      {"line", g.line},
                      {"raw_line", g.raw_line}});
    const double rate = session_s_ > 0 ? static_cast<double>(session_cases) / session_s_ : 0;
    json out = {{"tool", "numprobe fuzz"},
            {"format", 1},
            {"run", run},
            {"config", config_json(cfg_, model_)},
            {"complete", state_.complete && cfg_.cases > 0},
            {"counts", counts},
            {"totals",
             {{"cases", total_cases()},
              {"mismatches", total_mismatches()},
              {"signatures", state_.signatures.size()},
              {"raw_kept", state_.raw_kept + state_.raw_pending.size()}}},
            {"signatures", sigs},
            {"timing",
             {{"elapsed_s", state_.elapsed_s},
              {"sessions", state_.sessions},
              {"rounds", state_.rounds},
              {"threads", threads_},
              {"simd", simd_path()},
              {"session_cases", session_cases},
              {"session_s", session_s_},
              {"cases_per_s", rate},
              {"device_s", busy_.device_s},
              {"emulator_s", busy_.emulator_s},
              {"generate_s", busy_.generate_s},
              {"compare_s", busy_.compare_s},
              {"device_pair_wall_s", busy_.wait_s}}}};
    for (const auto& [name, v] : device_.timing()) out["timing"][name] = v;
    return out;
  }

  // Raw mismatches are appended as one gzip member per checkpoint (readers see one stream); the
  // checkpoint records the size, so a resumed run drops whatever a killed one appended after it.
  void append_raw(const std::string& header) {
    const fs::path raw = dir_ / "raw.tcc.gz";
    const bool fresh = !fs::exists(raw);
    if (!fresh && state_.raw_pending.empty()) return;
    gzFile f = gzopen(raw.c_str(), fresh ? "wb6" : "ab6");
    if (!f) throw std::runtime_error("cannot write " + raw.string());
    bool ok = !fresh || gzputs(f, header.c_str()) >= 0;
    for (const auto& l : state_.raw_pending) ok = ok && gzputs(f, l.c_str()) >= 0 && gzputc(f, '\n') >= 0;
    ok = gzclose(f) == Z_OK && ok;
    if (!ok) throw std::runtime_error("appending to " + raw.string() + " failed");
    state_.raw_kept += state_.raw_pending.size();
    state_.raw_pending.clear();
    state_.raw_bytes = fs::file_size(raw);
  }

  void write_outputs(std::uint64_t session_cases) {
    minimise_signatures();
    const std::string header = "# numprobe fuzz raw mismatches: seed " + std::to_string(cfg_.seed) + ", shard " +
                               std::to_string(cfg_.shard) + "/" + std::to_string(cfg_.shards) + "\n";
    append_raw(header);
    std::ostringstream mm;
    mm << "# numprobe fuzz: one minimised mismatch per signature (instruction, class); the device's D\n";
    mm << "# model under test: " << model_.name << "; device: " << device_.description() << "\n";
    for (const auto& [key, g] : state_.signatures)
      mm << "# signature " << g.instruction << " " << g.cls << ": " << g.count << " raw mismatches, first "
         << cfg_.distributions[g.dist] << " case " << g.case_index << "\n"
         << g.line << "\n";
    write_file_atomically((dir_ / "mismatches.tcc").string(), mm.str());
    write_file_atomically((dir_ / "summary.json").string(), summary_json(session_cases).dump(1) + "\n");
    const json ckpt = {{"version", kStateVersion}, {"config", config_json(cfg_, model_)}, {"state", state_json(state_)}};
    write_file_atomically((dir_ / "checkpoint.json").string(), ckpt.dump() + "\n");
  }

  const CampaignConfig& cfg_;
  const Model& model_;
  Backend& device_;
  int threads_;
  fs::path dir_;
  std::vector<MmaPlan> plans_;
  std::vector<std::vector<std::pair<std::string, MmaPlan>>> neighbour_plans_;  // per instruction, built on demand
  std::vector<std::pair<std::string, std::string>> pair_names_;
  State state_;
  double session_s_ = 0;
  // Where this session's time went: the device's runs overlap the emulator and the generation
  // of the next pair; wait_s is from launching a pair on the device to having both results.
  struct {
    double device_s = 0, emulator_s = 0, generate_s = 0, wait_s = 0, compare_s = 0;
  } busy_;
};

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = temp_name(path);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << content;
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp);
      throw std::runtime_error("writing " + tmp + " failed");
    }
  }
  fs::rename(tmp, path);
}

EmuBackend::EmuBackend(Model device_model, int threads)
    : model_(std::move(device_model)), threads_(resolve_threads(threads)) {}

std::string EmuBackend::description() const { return "emu stand-in device: model " + model_.name; }

void EmuBackend::run(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
                     const std::uint32_t* c, std::uint32_t* d) {
  const MmaPlan plan = compile_plan(model_, in);
  evaluate(plan, count, a, b, c, d, threads_);
}

void EmuBackend::run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                           const std::uint32_t* c, std::uint32_t* d) {
  const MmaPlan plan = compile_plan(model_, in);
  evaluate_tiles(plan, tiles, a, b, c, d, threads_);
}

CampaignResult run_campaign(const CampaignConfig& config, const Model& model, Backend& device,
                            const std::function<void(const Progress&)>& on_progress) {
  Campaign c(config, model, device);
  return c.run(on_progress);
}

void merge_campaigns(const std::vector<std::string>& dirs, const std::string& out_dir) {
  if (dirs.empty()) throw std::invalid_argument("fuzz merge: no input directories");
  std::vector<json> sums;
  for (const auto& d : dirs) sums.push_back(read_json(fs::path(d) / "summary.json"));
  json base = sums[0].at("config");
  base.erase("shard");
  const int shards = base.at("shards");
  std::vector<bool> seen(static_cast<std::size_t>(shards), false);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    json c = sums[i].at("config");
    const int shard = c.at("shard");
    c.erase("shard");
    if (c != base)
      throw std::runtime_error("fuzz merge: " + dirs[i] + " is not a shard of the same campaign as " + dirs[0] +
                               " (seed, instructions, distributions, cases, model or shard count differ)");
    if (shard < 0 || shard >= shards || seen[shard])
      throw std::runtime_error("fuzz merge: shard " + std::to_string(shard) + " given twice or out of range (" +
                               dirs[i] + ")");
    seen[shard] = true;
  }
  const std::vector<std::string> dists = base.at("distributions");
  auto dist_index = [&](const std::string& d) { return std::find(dists.begin(), dists.end(), d) - dists.begin(); };

  json out = sums[0];
  out["config"] = base;
  json shard_list = json::array();
  for (const auto& s : sums) shard_list.push_back(s.at("config").at("shard"));
  out["config"]["shards_merged"] = shard_list;
  bool complete = std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
  std::map<std::pair<std::string, std::string>, std::pair<std::uint64_t, std::uint64_t>> counts;
  std::map<std::string, json> sigs;
  std::uint64_t cases = 0, mismatches = 0, raw_kept = 0;
  double elapsed_max = 0, rate_sum = 0, elapsed_sum = 0;
  for (const auto& s : sums) {
    complete = complete && s.at("complete").get<bool>();
    for (const auto& c : s.at("counts")) {
      auto& slot = counts[{c.at("instruction"), c.at("distribution")}];
      slot.first += c.at("cases").get<std::uint64_t>();
      slot.second += c.at("mismatches").get<std::uint64_t>();
    }
    for (const auto& g : s.at("signatures")) {
      const std::string key = g.at("instruction").get<std::string>() + " " + g.at("class").get<std::string>();
      auto it = sigs.find(key);
      if (it == sigs.end()) {
        sigs[key] = g;
        continue;
      }
      json& have = it->second;
      const auto order = [&](const json& x) {
        return std::make_pair(dist_index(x.at("first").at("distribution")), x.at("first").at("case").get<std::uint64_t>());
      };
      const std::uint64_t total = have.at("count").get<std::uint64_t>() + g.at("count").get<std::uint64_t>();
      if (order(g) < order(have)) have = g;
      have["count"] = total;
    }
    raw_kept += s.at("totals").at("raw_kept").get<std::uint64_t>();
    elapsed_max = std::max(elapsed_max, s.at("timing").at("elapsed_s").get<double>());
    elapsed_sum += s.at("timing").at("elapsed_s").get<double>();
    rate_sum += s.at("timing").at("cases_per_s").get<double>();
  }
  json count_rows = json::array();
  for (const auto& row : sums[0].at("counts")) {
    const auto& v = counts[{row.at("instruction"), row.at("distribution")}];
    count_rows.push_back({{"instruction", row.at("instruction")},
                          {"distribution", row.at("distribution")},
                          {"cases", v.first},
                          {"mismatches", v.second}});
    cases += v.first;
    mismatches += v.second;
  }
  json sig_rows = json::array();
  for (const auto& [key, g] : sigs) sig_rows.push_back(g);
  out["complete"] = complete;
  out["counts"] = count_rows;
  out["signatures"] = sig_rows;
  out["totals"] = {{"cases", cases}, {"mismatches", mismatches}, {"signatures", sigs.size()}, {"raw_kept", raw_kept}};
  out["timing"] = {{"shards", sums.size()},
                   {"elapsed_s_max", elapsed_max},
                   {"elapsed_s_sum", elapsed_sum},
                   {"cases_per_s_sum", rate_sum}};

  fs::create_directories(out_dir);
  std::vector<std::string> raw;
  for (const auto& d : dirs) {
    auto lines = read_gz_lines(fs::path(d) / "raw.tcc.gz");
    raw.insert(raw.end(), lines.begin(), lines.end());
  }
  write_gz_atomically((fs::path(out_dir) / "raw.tcc.gz").string(),
                      "# numprobe fuzz merge: raw mismatches of " + std::to_string(dirs.size()) + " shards\n", raw);
  std::ostringstream mm;
  mm << "# numprobe fuzz merge: one minimised mismatch per signature (instruction, class); the device's D\n";
  for (const auto& [key, g] : sigs)
    mm << "# signature " << key << ": " << g.at("count").get<std::uint64_t>() << " raw mismatches, first "
       << g.at("first").at("distribution").get<std::string>() << " case " << g.at("first").at("case") << "\n"
       << g.at("line").get<std::string>() << "\n";
  write_file_atomically((fs::path(out_dir) / "mismatches.tcc").string(), mm.str());
  write_file_atomically((fs::path(out_dir) / "summary.json").string(), out.dump(1) + "\n");
}

}  // namespace tcnum::fuzz
