// Fuzz campaigns (tcnum/fuzz/campaign.hpp): rounds of generated batches, device against model,
// signatures, checkpoints.
#include "tcnum/fuzz/campaign.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
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

#include "tcnum/core/build_info.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/fuzz/classify.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/fuzz/minimise.hpp"
#include "tcnum/fuzz/output_lock.hpp"
#include "tcnum/fuzz/scales.hpp"
#include "tcnum/fuzz/sparse_tiles.hpp"

namespace tcnum::fuzz {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kStateVersion = 3;  // 2: cases are the elements of whole tiles; 3: a checksum over the state
constexpr std::uintmax_t kMaxJsonBytes = 256u << 20;  // checkpoint.json, summary.json
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

// The plan of an instruction: a sparse one's is that of its selected products (sparse_tiles.hpp).
MmaPlan plan_for(const DatapathParams& p, const Instruction& in) {
  return compile_plan(p, in.sparse ? selected_form(in) : in);
}

// Whole tiles (mma_tiles), a few per call, on `threads` threads. `in`: the campaign's
// instruction (a sparse one's tiles hold A's logical rows; the plan is of its selected form).
void evaluate_tiles(const MmaPlan& plan, const Instruction& in, std::size_t tiles, const std::uint32_t* a,
                    const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* d, int threads) {
  const std::size_t MK = std::size_t(in.m) * in.k, NK = std::size_t(in.n) * in.k, MN = std::size_t(in.m) * in.n;
  const std::size_t per = std::max<std::size_t>(1, kEvalChunk / MN), chunks = (tiles + per - 1) / per;
  parallel_for(chunks, threads, [&](std::size_t i) {
    const std::size_t first = i * per, n = std::min(per, tiles - first);
    if (in.sparse)
      sparse_mma_tiles(plan, in, n, a + first * MK, b + first * NK, c + first * MN, d + first * MN);
    else
      mma_tiles(plan, n, a + first * MK, b + first * NK, c + first * MN, d + first * MN);
  });
}

// Block-scaled tiles: every element through the reference datapath with its row's and column's
// scales (sa: tiles × M × S, sb: tiles × N × S; S = in.scales_per_row()).
void evaluate_tiles_scaled(const MmaPlan& plan, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                           const std::uint32_t* c, const std::uint32_t* sa, const std::uint32_t* sb, std::uint32_t* d,
                           int threads) {
  const Instruction& in = plan.instruction;
  const std::size_t M = in.m, N = in.n, K = in.k, S = static_cast<std::size_t>(in.scales_per_row());
  parallel_for(tiles, threads, [&](std::size_t t) {
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j)
        d[(t * M + i) * N + j] = mma_element(plan, {a + (t * M + i) * K, K}, {b + (t * N + j) * K, K}, c[(t * M + i) * N + j],
                                             {sa + (t * M + i) * S, S}, {sb + (t * N + j) * S, S});
  });
}

// A sparse case's stored row, metadata and selected B (for lines and neighbouring models).
struct SparseView {
  CompressedRow row;
  std::vector<std::uint32_t> b_sel;
};
SparseView sparse_view(const Instruction& in, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  SparseView v{compress_sparse_a(in, a), {}};
  v.b_sel = gather_selected(in, v.row.meta, b);
  return v;
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
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw std::runtime_error("cannot read " + p.string() + ": not a regular file");
  if (fs::file_size(p, ec) > kMaxJsonBytes)
    throw std::runtime_error(p.string() + ": larger than " + std::to_string(kMaxJsonBytes >> 20) + " MiB, not a campaign file");
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
  const std::string msg = gzerror(f, &err);  // a copy: gzclose frees the message
  const int closed = gzclose(f);
  if (err != Z_OK && err != Z_STREAM_END)  // zlib's message starts with the path
    throw std::runtime_error(msg.rfind(p.string(), 0) == 0 ? msg : p.string() + ": " + msg);
  if (closed != Z_OK) throw std::runtime_error(p.string() + ": not a whole gzip file (truncated or corrupt)");
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

// Counts the case lines (not comments) of one chunk of inflated bytes.
struct LineCounter {
  std::uint64_t lines = 0;
  bool at_start = true, comment = false;
  void add(const unsigned char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (at_start) comment = p[i] == '#' || p[i] == '\n';
      at_start = p[i] == '\n';
      if (at_start && !comment) ++lines;
    }
  }
};

// The case lines in the first `bytes` bytes of a gzip file, which must be whole members
// (std::runtime_error otherwise: the file was cut or damaged inside its recorded part).
std::uint64_t case_lines_in_whole_members(const fs::path& p, std::uint64_t bytes) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
  std::vector<unsigned char> in(1 << 16), out(1 << 16);
  LineCounter count;
  std::uint64_t left = bytes;
  bool in_member = false, bad = false;
  for (;;) {
    if (z.avail_in == 0) {
      if (left == 0) break;
      f.read(reinterpret_cast<char*>(in.data()), static_cast<std::streamsize>(std::min<std::uint64_t>(left, in.size())));
      const std::size_t got = static_cast<std::size_t>(f.gcount());
      if (got == 0) break;
      left -= got;
      z.next_in = in.data();
      z.avail_in = static_cast<uInt>(got);
    }
    if (!in_member) in_member = inflateReset(&z) == Z_OK;
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int ret = inflate(&z, Z_NO_FLUSH);
    count.add(out.data(), out.size() - z.avail_out);
    if (ret == Z_STREAM_END) in_member = false;
    else if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_in == 0)) bad = true;
    if (bad) break;
  }
  inflateEnd(&z);
  if (bad || in_member || left > 0)
    throw std::runtime_error(p.string() + ": its first " + std::to_string(bytes) +
                             " bytes (the part the checkpoint recorded) are not whole, valid gzip members");
  return count.lines;
}

// Writes all of `data` to fd (EINTR and short writes retried); false on an error (errno set).
bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot sync " + path + ": " + why);
  }
  ::close(fd);
}

void sync_directory_of(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path().string();
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the rename itself is atomic
  ::fsync(fd);
  ::close(fd);
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

// The state as stored; types are checked here (json::type_error), ranges and consistency by
// Campaign::check_state.
State state_from_json(const json& j) {
  State s;
  for (const auto& p : j.at("pairs")) {
    if (!p.is_array() || p.size() != 3) throw std::runtime_error("pairs: each entry must be [cases, mismatches, next batch]");
    s.pairs.push_back({p.at(0).get<std::uint64_t>(), p.at(1).get<std::uint64_t>(), p.at(2).get<std::uint64_t>()});
  }
  for (const auto& g : j.at("signatures")) {
    Signature sig;
    sig.instruction = g.at("instruction").get<std::string>();
    sig.cls = g.at("class").get<std::string>();
    sig.count = g.at("count").get<std::uint64_t>();
    sig.dist = g.at("dist").get<int>();
    sig.case_index = g.at("case").get<std::uint64_t>();
    sig.raw_line = g.at("raw").get<std::string>();
    sig.line = g.at("line").get<std::string>();
    sig.minimised_from = g.at("minimised_from").get<std::string>();
    if (!s.signatures.emplace(signature_key(sig.instruction, sig.cls), sig).second)
      throw std::runtime_error("signatures: " + signature_key(sig.instruction, sig.cls) + " appears twice");
  }
  s.raw_total = j.at("raw_total").get<std::uint64_t>();
  s.raw_kept = j.at("raw_kept").get<std::uint64_t>();
  s.raw_bytes = j.at("raw_bytes").get<std::uint64_t>();
  s.rounds = j.at("rounds").get<std::uint64_t>();
  s.elapsed_s = j.at("elapsed_s").get<double>();
  s.sessions = j.at("sessions").get<int>();
  s.complete = j.at("complete").get<bool>();
  return s;
}

// The checkpoint's checksum: over the state's serialisation (nlohmann sorts keys, so a parsed
// state serialises to the same text).
std::string state_checksum(const json& state) { return hex64(fnv(state.dump())); }

// One (instruction, distribution) pair's share of a round, generated and run. Batch i holds
// tiles [first_tile[i], first_tile[i+1]); its cases are the first cases[i] elements of them.
struct Work {
  std::size_t pair = 0;
  std::vector<std::uint64_t> batches;   // global batch indices
  std::vector<std::size_t> first_tile;  // first tile of each batch in the buffers
  std::vector<std::size_t> cases;       // cases of each batch
  std::size_t n = 0, tiles = 0;         // cases and tiles in all
  std::vector<std::uint32_t> a, b, c, dev, emu;
  std::vector<std::uint32_t> sa, sb;  // block-scaled: the scales of every row of A, column of B
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
    check_ranges(cfg);
    check_unique(cfg);
    if (cfg.out_dir.empty()) throw std::invalid_argument("fuzz: no output directory");
    for (const auto& in : cfg.instructions) plans_.push_back(plan_for(model.params_for(in), in));
    for (const auto& in : cfg.instructions)
      for (const auto& d : cfg.distributions) pair_names_.emplace_back(in.name, d);
    dir_ = cfg.out_dir;
  }

  static void check_ranges(const CampaignConfig& cfg) {
    const auto need = [](bool ok, const std::string& what) {
      if (!ok) throw std::invalid_argument("fuzz: " + what);
    };
    need(cfg.batch >= 1 && cfg.batch <= (1u << 24), "batch must be in 1..16777216, got " + std::to_string(cfg.batch));
    need(cfg.batches_per_round >= 1 && cfg.batches_per_round <= 65536,
         "batches per round must be in 1..65536, got " + std::to_string(cfg.batches_per_round));
    need(cfg.cases <= kMaxCasesPerPair, "cases must be in 1.." + std::to_string(kMaxCasesPerPair) + " per instruction x distribution, got " + std::to_string(cfg.cases));
    need(std::isfinite(cfg.seconds) && cfg.seconds >= 0 && cfg.seconds <= 1e9, "the duration must be a finite number of seconds");
    need(cfg.cases > 0 || cfg.seconds > 0, "give a case count or a duration");
    need(std::isfinite(cfg.checkpoint_seconds) && cfg.checkpoint_seconds >= 0 && cfg.checkpoint_seconds <= 1e9,
         "checkpoint interval must be a finite number of seconds >= 0");
    need(cfg.threads >= 0 && cfg.threads <= 4096, "threads must be in 0..4096 (0: every core), got " + std::to_string(cfg.threads));
    need(cfg.raw_limit <= 1000000000, "raw limit must be at most 10^9");
    need(!(cfg.resume && cfg.force), "resume and force exclude each other");
  }

  // The same instruction or distribution twice would run the same cases twice and count them twice.
  static void check_unique(const CampaignConfig& cfg) {
    for (std::size_t i = 0; i < cfg.instructions.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (cfg.instructions[i].name == cfg.instructions[j].name)
          throw std::invalid_argument("fuzz: instruction " + cfg.instructions[i].name + " is given twice");
    for (std::size_t i = 0; i < cfg.distributions.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (cfg.distributions[i] == cfg.distributions[j])
          throw std::invalid_argument("fuzz: distribution " + cfg.distributions[i] + " is given twice");
  }

  CampaignResult run(const std::function<void(const Progress&)>& on_progress) {
    open();
    const auto start = Clock::now();
    auto last_checkpoint = start;
    const double elapsed_before = state_.elapsed_s;
    const std::uint64_t cases_before = total_cases();
    bool out_of_time = false, interrupted = false;
    // After every pair's run the state is exact: the place to checkpoint and to stop.
    const auto after_pair = [&] {
      const auto now = Clock::now();
      session_s_ = seconds(start, now);
      state_.elapsed_s = elapsed_before + session_s_;
      interrupted = cfg_.stop != nullptr && cfg_.stop->load();
      out_of_time = (cfg_.seconds > 0 && session_s_ >= cfg_.seconds) || interrupted;  // per session
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
    r.interrupted = interrupted && !r.complete;
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
    lock_.emplace((dir_ / "campaign.lock").string(), "campaign directory " + dir_.string());
    if (!cfg_.resume) start_fresh();
    else resume_from_checkpoint();
    ++state_.sessions;
  }

  // The files of a campaign; any of them (even raw.tcc.gz alone, from a run killed before its
  // first checkpoint) means the directory is taken.
  static constexpr const char* kOutputs[] = {"checkpoint.json", "summary.json", "mismatches.tcc", "raw.tcc.gz"};

  void remove_temporaries() const {  // of a killed run
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) fs::remove(e.path());
  }

  void start_fresh() {
    for (const char* name : kOutputs) {
      if (!fs::exists(fs::symlink_status(dir_ / name))) continue;
      if (cfg_.force) {
        fs::remove(dir_ / name);
        continue;
      }
      const bool partial = !fs::exists(dir_ / "checkpoint.json");
      throw std::runtime_error(dir_.string() + (partial ? " holds the start of a campaign killed before its first checkpoint ("
                                                         : " already holds a campaign (") +
                               name + "): " + (partial ? "" : "pass --resume to continue it, ") +
                               "pass --force to discard it and start again, or choose another --out");
    }
    remove_temporaries();
    state_.pairs.assign(pair_names_.size(), {});
  }

  void resume_from_checkpoint() {
    const fs::path ckpt = dir_ / "checkpoint.json";
    if (!fs::exists(ckpt))
      throw std::runtime_error("--resume: " + ckpt.string() + " does not exist (nothing to resume)" +
                               (fs::exists(dir_ / "raw.tcc.gz") ? "; the run was killed before its first checkpoint: "
                                                                  "start it again with --force"
                                                                : ""));
    const json j = read_json(ckpt);
    const json want = config_json(cfg_, model_);
    if (!j.is_object() || !j.contains("config") || j.at("config") != want)
      throw std::runtime_error("--resume: " + ckpt.string() + " belongs to another campaign:\n  it has  " +
                               (j.is_object() && j.contains("config") ? j.at("config").dump() : "no config") +
                               "\n  now is  " + want.dump());
    const std::string had = j.value("device", std::string());
    if (!cfg_.device_identity.empty() && had != cfg_.device_identity)
      throw std::runtime_error("--resume: " + dir_.string() + " holds results of another device:\n  it has  " +
                               (had.empty() ? "none recorded" : had) + "\n  now is  " + cfg_.device_identity +
                               "\nits cases would be mixed with this one's: resume on the same kind of device, or start "
                               "another --out");
    try {
      state_ = load_state(j);
    } catch (const std::exception& e) {
      throw std::runtime_error("--resume: " + ckpt.string() + " is damaged: " + e.what() +
                               "\nit cannot be resumed: restore it (and raw.tcc.gz) from a copy, or start again with --force");
    }
    remove_temporaries();
    fs::resize_file(dir_ / "raw.tcc.gz", state_.raw_bytes);  // drops what was found again after the checkpoint
  }

  State load_state(const json& j) const {
    if (j.value("version", 0) != kStateVersion)
      throw std::runtime_error("version " + j.value("version", json()).dump() + ", not " + std::to_string(kStateVersion) +
                               " (written by another numprobe: resume it with that build)");
    const json& st = j.at("state");
    if (j.value("checksum", std::string()) != state_checksum(st))
      throw std::runtime_error("its checksum does not match its state (edited, or damaged)");
    State s;
    try {
      s = state_from_json(st);
    } catch (const json::exception& e) {
      throw std::runtime_error(std::string("a field has the wrong type or is missing (") + e.what() + ")");
    }
    check_state(s);
    check_raw(s);
    return s;
  }

  [[noreturn]] static void bad_state(const std::string& why) { throw std::runtime_error(why); }

  // Every number in range and consistent with the configuration and with the others.
  void check_state(const State& s) const {
    if (s.pairs.size() != pair_names_.size()) bad_state("wrong number of (instruction, distribution) pairs");
    std::uint64_t mismatches = 0;
    bool all_done = true;
    for (std::size_t p = 0; p < s.pairs.size(); ++p) check_pair(s.pairs[p], p, mismatches, all_done);
    std::uint64_t counted = 0;
    for (const auto& [key, g] : s.signatures) counted += check_signature(g);
    if (counted != mismatches) bad_state("the signatures count " + std::to_string(counted) + " mismatches, the pairs " + std::to_string(mismatches));
    if (s.raw_total != mismatches) bad_state("raw_total " + std::to_string(s.raw_total) + " is not the mismatch count " + std::to_string(mismatches));
    if (s.raw_kept > s.raw_total) bad_state("raw_kept exceeds raw_total");
    if (!std::isfinite(s.elapsed_s) || s.elapsed_s < 0) bad_state("elapsed_s is not a duration");
    if (s.sessions < 1) bad_state("sessions must be at least 1");
    if (s.complete && !(cfg_.cases > 0 && all_done)) bad_state("complete, but batches are left");
  }

  void check_pair(const PairState& ps, std::size_t p, std::uint64_t& mismatches, bool& all_done) const {
    const std::string name = "pair " + std::to_string(p) + " (" + pair_names_[p].first + " " + pair_names_[p].second + ")";
    const std::uint64_t limit = cfg_.cases > 0 ? local_batches(p) : kMaxCasesPerPair / batch_cases(p);
    if (ps.next_batch > limit) bad_state(name + ": next batch " + std::to_string(ps.next_batch) + " is past its last, " + std::to_string(limit));
    if (ps.cases != cases_before(p, ps.next_batch))
      bad_state(name + ": " + std::to_string(ps.cases) + " cases, but " + std::to_string(ps.next_batch) + " batches hold " +
                std::to_string(cases_before(p, ps.next_batch)));
    if (ps.mismatches > ps.cases) bad_state(name + ": more mismatches than cases");
    mismatches += ps.mismatches;
    all_done = all_done && ps.next_batch == limit;
  }

  std::uint64_t check_signature(const Signature& g) const {
    const std::string name = "signature " + signature_key(g.instruction, g.cls);
    if (std::none_of(cfg_.instructions.begin(), cfg_.instructions.end(), [&](const Instruction& in) { return in.name == g.instruction; }))
      bad_state(name + ": not an instruction of this campaign");
    if (g.dist < 0 || static_cast<std::size_t>(g.dist) >= cfg_.distributions.size())
      bad_state(name + ": dist " + std::to_string(g.dist) + " is not an index of the " + std::to_string(cfg_.distributions.size()) + " distributions");
    if (g.count == 0) bad_state(name + ": count 0");
    if (cfg_.cases > 0 && g.case_index >= cfg_.cases) bad_state(name + ": case " + std::to_string(g.case_index) + " is past --cases");
    std::string why;
    if (!parse_case_line(g.raw_line, why)) bad_state(name + ": its raw line does not parse: " + why);
    if (!g.line.empty() && !parse_case_line(g.line, why)) bad_state(name + ": its line does not parse: " + why);
    return g.count;
  }

  // raw.tcc.gz holds at least the recorded bytes, and they are whole members of raw_kept lines.
  void check_raw(const State& s) const {
    const fs::path raw = dir_ / "raw.tcc.gz";
    const std::uint64_t size = fs::is_regular_file(raw) ? fs::file_size(raw) : 0;
    if (size < s.raw_bytes) bad_state(raw.string() + " is shorter (" + std::to_string(size) + " bytes) than recorded (" + std::to_string(s.raw_bytes) + ")");
    const std::uint64_t lines = case_lines_in_whole_members(raw, s.raw_bytes);
    if (lines != s.raw_kept) bad_state(raw.string() + " holds " + std::to_string(lines) + " lines in its recorded part, not " + std::to_string(s.raw_kept));
  }

  // The cases of this shard's first `next` batches of a pair (the last batch of a --cases
  // campaign may be short).
  std::uint64_t cases_before(std::size_t pair, std::uint64_t next) const {
    const std::uint64_t per = batch_cases(pair);
    std::uint64_t n = next * per;
    if (cfg_.cases == 0 || next == 0 || next != local_batches(pair)) return n;
    const std::uint64_t total = (cfg_.cases + per - 1) / per;
    if ((total - 1) % static_cast<std::uint64_t>(cfg_.shards) == static_cast<std::uint64_t>(cfg_.shard)) n -= total * per - cfg_.cases;
    return n;
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
    w.sa.resize(w.tiles * in.m * static_cast<std::size_t>(in.scales_per_row()));
    w.sb.resize(w.tiles * in.n * static_cast<std::size_t>(in.scales_per_row()));
    const std::string& dist = cfg_.distributions[dist_of(w.pair)];
    const DatapathParams& params = plan_of(w.pair).params;
    parallel_for(w.batches.size(), threads_, [&](std::size_t i) {
      const std::size_t first = w.first_tile[i], tiles = (i + 1 < w.batches.size() ? w.first_tile[i + 1] : w.tiles) - first;
      const std::uint64_t seed = batch_seed(cfg_.seed, in.name, dist, w.batches[i]);
      const auto gen = in.sparse ? &generate_sparse_tiles : &generate_tiles;
      gen(in, params, dist, seed, tiles, w.a.data() + first * MK, w.b.data() + first * NK, w.c.data() + first * MN);
      if (in.block_scaled())
        generate_scales(in, dist, seed, tiles, w.sa.data() + first * in.m * in.scales_per_row(),
                        w.sb.data() + first * in.n * in.scales_per_row());
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
        if (in.block_scaled())
          device_.run_tiles_scaled(in, w.tiles, w.a.data(), w.b.data(), w.c.data(), w.sa.data(), w.sb.data(), w.dev.data());
        else
          device_.run_tiles(in, w.tiles, w.a.data(), w.b.data(), w.c.data(), w.dev.data());
        return seconds(t0, Clock::now());
      });
      // The next pair is generated while this one is emulated (both on every core: a stall in one,
      // e.g. a tile whose lanes fall back to the reference, leaves the cores to the other).
      std::future<void> next;
      if (i + 1 < works.size()) next = std::async(std::launch::async, [&] { generate_work(works[i + 1]); });
      const auto t0 = Clock::now();
      try {
        if (in.block_scaled())
          evaluate_tiles_scaled(plan_of(w.pair), w.tiles, w.a.data(), w.b.data(), w.c.data(), w.sa.data(), w.sb.data(),
                                w.emu.data(), threads_);
        else
          evaluate_tiles(plan_of(w.pair), in, w.tiles, w.a.data(), w.b.data(), w.c.data(), w.emu.data(), threads_);
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
      const std::size_t S = static_cast<std::size_t>(in.scales_per_row());
      const std::vector<std::uint32_t> sa(w.sa.begin() + (t * M + i) * S, w.sa.begin() + (t * M + i + 1) * S),
          sb(w.sb.begin() + (t * N + j) * S, w.sb.begin() + (t * N + j + 1) * S);
      std::string cls, line;
      if (in.sparse) {  // the stored row and its metadata; the selected products for the neighbours
        const SparseView v = sparse_view(in, a, b);
        cls = explain(w.pair / cfg_.distributions.size(), v.row.a, v.b_sel, c, emu, dev);
        line = format_case_line(cfg_.arch, in, v.row.a, {b.begin(), b.end()}, c, dev, {}, {}, v.row.meta);
      } else {
        cls = explain(w.pair / cfg_.distributions.size(), a, b, c, emu, dev, sa, sb);
        line = format_case_line(cfg_.arch, in, {a.begin(), a.end()}, {b.begin(), b.end()}, c, dev, sa, sb);
      }
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
  // result, else the region the model assigns (classify.hpp). Sparse: a and b are the selected
  // products, judged as the dense selected form.
  // Block-scaled cases (scales given): the neighbouring models only (classify has no scales), else
  // "block_scaled"; integer cases: "integer".
  std::string explain(std::size_t instr, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                      std::uint32_t c, std::uint32_t model_d, std::uint32_t device_d, std::span<const std::uint32_t> sa = {},
                      std::span<const std::uint32_t> sb = {}) {
    if (neighbour_plans_.size() <= instr) neighbour_plans_.resize(cfg_.instructions.size());
    auto& plans = neighbour_plans_[instr];
    const Instruction& in = plans_[instr].instruction;  // the selected form of a sparse instruction
    if (in.integer()) return "integer";  // exact sums: no neighbouring model, no float region
    if (plans.empty())
      for (auto& n : neighbours(plans_[instr].params, in)) plans.emplace_back(n.change, compile_plan(n.params, in));
    const bool scaled = in.block_scaled();
    for (const auto& [change, plan] : plans)
      if ((scaled ? mma_element(plan, a, b, c, sa, sb) : mma_element(plan, a, b, c)) == device_d) return change;
    if (scaled) return "block_scaled";
    return std::string(class_name(classify(in, plans_[instr].params, a, b, c, model_d, device_d)));
  }

  void minimise_signatures() {
    for (auto& [key, sig] : state_.signatures) {
      if (sig.minimised_from == sig.raw_line) continue;
      std::string why;
      const auto kase = parse_case_line(sig.raw_line, why);
      if (!kase) throw std::logic_error("fuzz: a raw line does not parse: " + why);
      std::size_t which = 0;
      while (cfg_.instructions[which].name != sig.instruction) ++which;
      // minimise() moves no scales, edits dense rows and simplifies floats: a block-scaled, sparse
      // or integer raw case stands.
      const Instruction& raw_in = cfg_.instructions[which];
      if (raw_in.block_scaled() || raw_in.sparse || raw_in.integer()) {
        sig.line = sig.raw_line;
        sig.minimised_from = sig.raw_line;
        continue;
      }
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
    if (!ok) throw std::runtime_error("appending to " + raw.string() + " failed: " + std::strerror(errno));
    sync_file(raw.string());  // on disk before the checkpoint that counts it
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
    const json state = state_json(state_);
    const json ckpt = {{"version", kStateVersion},
                       {"config", config_json(cfg_, model_)},
                       {"state", state},
                       {"checksum", state_checksum(state)},
                       {"device", cfg_.device_identity}};
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
  std::optional<OutputLock> lock_;
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
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  const bool ok = write_all(fd, content.data(), content.size()) && ::fsync(fd) == 0;
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    fs::remove(tmp);
    throw std::runtime_error("writing " + path + " failed: " + std::strerror(ok ? errno : err));
  }
  fs::rename(tmp, path);
  sync_directory_of(path);
}

EmuBackend::EmuBackend(Model device_model, int threads)
    : model_(std::move(device_model)), threads_(resolve_threads(threads)) {}

std::string EmuBackend::description() const { return "emu stand-in device: model " + model_.name; }

void EmuBackend::run(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
                     const std::uint32_t* c, std::uint32_t* d) {
  if (in.sparse) {  // cases as one-row tiles are not a sparse form's layout: element by element
    for (std::size_t t = 0; t < count; ++t) {
      const std::size_t K = static_cast<std::size_t>(in.k);
      const SparseView v = sparse_view(in, {a + t * K, K}, {b + t * K, K});
      d[t] = mma_element(model_.params_for(in), selected_form(in), v.row.a, v.b_sel, c[t]);
    }
    return;
  }
  const MmaPlan plan = compile_plan(model_, in);
  evaluate(plan, count, a, b, c, d, threads_);
}

void EmuBackend::run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                           const std::uint32_t* c, std::uint32_t* d) {
  evaluate_tiles(plan_for(model_.params_for(in), in), in, tiles, a, b, c, d, threads_);
}

void EmuBackend::run_tiles_scaled(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                                  const std::uint32_t* c, const std::uint32_t* scale_a, const std::uint32_t* scale_b,
                                  std::uint32_t* d) {
  const MmaPlan plan = compile_plan(model_, in);
  evaluate_tiles_scaled(plan, tiles, a, b, c, scale_a, scale_b, d, threads_);
}

void Backend::run_tiles_scaled(const Instruction& in, std::size_t, const std::uint32_t*, const std::uint32_t*,
                               const std::uint32_t*, const std::uint32_t*, const std::uint32_t*, std::uint32_t*) {
  throw std::invalid_argument(in.name + ": " + description() + " cannot run block-scaled instructions (scale vectors)");
}

CampaignResult run_campaign(const CampaignConfig& config, const Model& model, Backend& device,
                            const std::function<void(const Progress&)>& on_progress) {
  Campaign c(config, model, device);
  return c.run(on_progress);
}

namespace {

// Whether two paths name one directory (however spelled: trailing slash, symlink, "a/../a").
bool same_directory(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// The merge's output is not one of its inputs, nor any campaign's directory, nor (unless
// `overwrite`) a directory that holds a merge's files already.
void check_merge_output(const std::vector<std::string>& dirs, const std::string& out_dir, bool overwrite) {
  for (const auto& d : dirs)
    if (same_directory(d, out_dir))
      throw std::runtime_error("fuzz merge: --out " + out_dir + " is the input " + d +
                               ": merging into a shard would overwrite it; choose another --out");
  if (fs::exists(fs::path(out_dir) / "checkpoint.json"))
    throw std::runtime_error("fuzz merge: --out " + out_dir +
                             " holds a campaign (checkpoint.json), not a merge; choose another --out");
  if (overwrite) return;
  for (const char* name : {"summary.json", "mismatches.tcc", "raw.tcc.gz"})
    if (fs::exists(fs::symlink_status(fs::path(out_dir) / name)))
      throw std::runtime_error("fuzz merge: --out " + out_dir + " holds a merge already (" + name +
                               "); give --force to overwrite it, or choose another --out");
}

// A shard's raw mismatches, which must be the count its summary states.
std::vector<std::string> shard_raw_lines(const std::string& dir, const json& summary) {
  auto lines = read_gz_lines(fs::path(dir) / "raw.tcc.gz");
  const auto kept = summary.at("totals").at("raw_kept").get<std::uint64_t>();
  if (lines.size() != kept)
    throw std::runtime_error("fuzz merge: " + dir + "/raw.tcc.gz holds " + std::to_string(lines.size()) +
                             " raw mismatches, its summary.json says " + std::to_string(kept));
  return lines;
}

std::uint64_t add_checked(std::uint64_t a, std::uint64_t b, const std::string& what) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw std::runtime_error("fuzz merge: " + what + " overflows 64 bits (a damaged summary.json)");
  return r;
}

}  // namespace

static void merge_summaries(const std::vector<std::string>& dirs, const std::string& out_dir, bool overwrite);

void merge_campaigns(const std::vector<std::string>& dirs, const std::string& out_dir, bool overwrite) {
  try {
    merge_summaries(dirs, out_dir, overwrite);
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("fuzz merge: a shard's summary.json lacks a field or has one of the wrong type (") +
                             e.what() + ")");
  }
}

static void merge_summaries(const std::vector<std::string>& dirs, const std::string& out_dir, bool overwrite) {
  if (dirs.empty()) throw std::invalid_argument("fuzz merge: no input directories");
  check_merge_output(dirs, out_dir, overwrite);
  std::vector<json> sums;
  for (const auto& d : dirs) {
    sums.push_back(read_json(fs::path(d) / "summary.json"));
    if (!sums.back().is_object() || sums.back().value("format", 0) != 1 || sums.back().value("tool", "") != "numprobe fuzz")
      throw std::runtime_error("fuzz merge: " + d + "/summary.json is not a summary of numprobe fuzz (format 1)");
  }
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
  json shard_list = json::array(), builds = json::array();
  for (const auto& s : sums) {
    shard_list.push_back(s.at("config").at("shard"));
    const json build = s.at("run").value("build", json());
    if (std::find(builds.begin(), builds.end(), build) == builds.end()) builds.push_back(build);
  }
  if (builds.size() > 1) out["run"]["build"] = builds;  // every shard's build named, not the first one's
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
      slot.first = add_checked(slot.first, c.at("cases").get<std::uint64_t>(), "a case count");
      slot.second = add_checked(slot.second, c.at("mismatches").get<std::uint64_t>(), "a mismatch count");
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
      const std::uint64_t total = add_checked(have.at("count").get<std::uint64_t>(), g.at("count").get<std::uint64_t>(), "a signature count");
      if (order(g) < order(have)) have = g;
      have["count"] = total;
    }
    raw_kept = add_checked(raw_kept, s.at("totals").at("raw_kept").get<std::uint64_t>(), "raw_kept");
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
    cases = add_checked(cases, v.first, "the case total");
    mismatches = add_checked(mismatches, v.second, "the mismatch total");
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

  std::vector<std::string> raw;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    auto lines = shard_raw_lines(dirs[i], sums[i]);
    raw.insert(raw.end(), lines.begin(), lines.end());
  }
  fs::create_directories(out_dir);
  OutputLock lock((fs::path(out_dir) / "campaign.lock").string(), "merge directory " + out_dir);
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
