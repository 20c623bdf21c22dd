// tcnum::device: device queries, run_tiles and run_cases (device.hpp).
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <cuda_runtime_api.h>

#include <chrono>

#include "mma_sync_probe.hpp"
#include "run_times.hpp"
#include "runner_internal.hpp"
#include "tcnum/core/parallel.hpp"
#include "shrink_to_fit.hpp"
#include "tcnum/probes/device.hpp"

// wgmma kernels live in wgmma_kernels.cu (its own author); CMake defines TCNUM_WGMMA_PROBES
// only when that file is part of the library.
#if defined(TCNUM_WGMMA_PROBES) && __has_include("wgmma_probe.hpp")
#include "wgmma_probe.hpp"
#define TCNUM_WITH_WGMMA 1
#endif

namespace tcnum::device {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{256} << 20;  // device memory per chunk, all buffers

void check(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  const std::string why = "CUDA error while " + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it, so that a later launch check does not see it
    throw DeviceOutOfMemory(why);
  }
  throw DeviceError(why);
}

struct DeviceBuffer {
  std::uint32_t* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
  }
  void alloc(std::size_t words, const std::string& what) {
    release();
    check(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(words, 1) * 4), "allocating " + what);
    capacity = std::max<std::size_t>(words, 1);
  }
  void reserve(std::size_t words, const std::string& what) {  // keeps the buffer when it is large enough
    if (p && capacity >= words) return;
    alloc(words, what);
  }
  std::size_t capacity = 0;
};

// mma.sync runs reuse their device buffers: a campaign makes thousands of runs, and cudaMalloc and
// cudaFree cost more than a run's copies. One set per device, used by one run at a time; kept
// until the process ends (never freed: the runtime may be gone by then).
struct Scratch {
  std::mutex mutex;
  DeviceBuffer a, b, c, d;
};
Scratch& scratch_of(int device) {
  static std::mutex mutex;
  static std::map<int, Scratch*> sets;
  std::lock_guard<std::mutex> lock(mutex);
  Scratch*& s = sets[device];
  if (!s) s = new Scratch;
  return *s;
}

// Read once per device and process: campaigns call run_tiles thousands of times.
cudaDeviceProp properties(int device) {
  static std::mutex mutex;
  static std::map<int, cudaDeviceProp> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  int count = 0;
  check(cudaGetDeviceCount(&count), "counting CUDA devices");
  if (device < 0 || device >= count)
    throw DeviceError("no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " present)");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "reading the properties of device " + std::to_string(device));
  return known.emplace(device, p).first->second;
}

std::string describe(const cudaDeviceProp& p, int device) {
  return "device " + std::to_string(device) + " (" + p.name + ", sm_" + std::to_string(p.major * 10 + p.minor) + ")";
}

// Refuses instructions the device cannot execute, before anything is launched.
cudaDeviceProp require_supported(const Instruction& in, int device) {
  const cudaDeviceProp p = properties(device);
  const int sm = p.major * 10 + p.minor;
  if (in.family == Family::tcgen05)
    throw DeviceError(in.name + ": no tcgen05 probe kernels exist yet (needs an sm_100a build)");
  if (sm < in.min_sm || sm > in.max_sm)
    throw DeviceError(in.name + " needs sm_" + std::to_string(in.min_sm) +
                      (in.max_sm < 1000 ? "..sm_" + std::to_string(in.max_sm) : std::string("+")) + "; " +
                      describe(p, device) + " cannot execute it");
  return p;
}

void require_sizes(const Instruction& in, int tiles, std::size_t a, std::size_t b, std::size_t c) {
  const auto t = static_cast<std::size_t>(tiles);
  if (tiles < 0 || a != t * in.m * in.k || b != t * in.n * in.k || c != t * in.m * in.n)
    throw std::invalid_argument(in.name + ": run_tiles wants tiles*M*K A, tiles*K*N B and tiles*M*N C words for " +
                                std::to_string(tiles) + " tiles; got " + std::to_string(a) + ", " + std::to_string(b) +
                                ", " + std::to_string(c));
}

std::vector<std::uint32_t> run_mma(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                   const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                   const cudaDeviceProp& props, int device, int max_blocks) {
  const detail::MmaKernel* k = detail::find_mma_kernel(in.name);
  if (!k) {
    std::string why = in.name + ": no mma.sync probe kernel";
    if (in.name == "mma.m8n8k4.f16.f16.f16.f32")
      why += " (ptxas of CUDA 13 rejects f16 D with f32 C for m8n8k4 on every target it supports, sm_75+)";
    throw DeviceError(why);
  }
  if (k->m != in.m || k->n != in.n || k->k != in.k) throw DeviceError(in.name + ": probe kernel shape mismatch");
  if (max_blocks <= 0) max_blocks = props.multiProcessorCount * 16;

  const std::size_t mk = std::size_t(in.m) * in.k, nk = std::size_t(in.n) * in.k, mn = std::size_t(in.m) * in.n;
  const std::size_t per_tile = (mk + nk + 2 * mn) * 4;
  const int wanted = static_cast<int>(std::min<std::size_t>(tiles, std::clamp<std::size_t>(kChunkBytes / per_tile, 1, 1 << 24)));
  const std::string dev = " on device " + std::to_string(device);
  Scratch& scratch = scratch_of(device);
  std::lock_guard<std::mutex> hold(scratch.mutex);
  DeviceBuffer &da = scratch.a, &db = scratch.b, &dc = scratch.c, &dd = scratch.d;
  bool retry = false;  // after an out-of-memory, the buffers kept from earlier runs are freed first
  const int chunk = detail::shrink_to_fit(wanted, [&](int n) {
    if (retry)
      for (DeviceBuffer* buf : {&da, &db, &dc, &dd}) buf->release();
    retry = true;
    da.reserve(n * mk, "A" + dev);
    db.reserve(n * nk, "B" + dev);
    dc.reserve(n * mn, "C" + dev);
    dd.reserve(n * mn, "D" + dev);
  });

  std::vector<std::uint32_t> d(std::size_t(tiles) * mn);
  detail::RunTimer timer;
  for (int t0 = 0; t0 < tiles; t0 += chunk) {
    const int n = std::min(chunk, tiles - t0);
    const std::string what = " for " + in.name + " (tiles " + std::to_string(t0) + ".." + std::to_string(t0 + n) + ")";
    check(cudaMemcpy(da.p, a.data() + t0 * mk, n * mk * 4, cudaMemcpyHostToDevice), "copying A" + what);
    check(cudaMemcpy(db.p, b.data() + t0 * nk, n * nk * 4, cudaMemcpyHostToDevice), "copying B" + what);
    check(cudaMemcpy(dc.p, c.data() + t0 * mn, n * mn * 4, cudaMemcpyHostToDevice), "copying C" + what);
    timer.lap(detail::RunPhase::copy_in);
    check(k->launch(da.p, db.p, dc.p, dd.p, n, max_blocks, nullptr), "launching the kernel" + what);
    check(cudaDeviceSynchronize(), "running the kernel" + what);
    timer.lap(detail::RunPhase::kernel);
    check(cudaMemcpy(d.data() + t0 * mn, dd.p, n * mn * 4, cudaMemcpyDeviceToHost), "copying D back" + what);
    timer.lap(detail::RunPhase::copy_out);
  }
  return d;
}

#ifdef TCNUM_WITH_WGMMA
std::vector<std::uint32_t> run_wgmma(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const RunOptions& opt) {
  const std::size_t mk = std::size_t(in.m) * in.k, nk = std::size_t(in.n) * in.k, mn = std::size_t(in.m) * in.n;
  int chunk = static_cast<int>(std::clamp<std::size_t>(kChunkBytes / ((mk + nk + 2 * mn) * 4), 1, 1 << 24));
  std::vector<std::uint32_t> d;
  d.reserve(std::size_t(tiles) * mn);
  for (int t0 = 0; t0 < tiles;) {
    std::vector<std::uint32_t> out;
    // run_wgmma_tiles allocates per call: out of memory shrinks this chunk and the ones after.
    chunk = detail::shrink_to_fit(std::min(chunk, tiles - t0), [&](int n) {
      auto part = [&](const std::vector<std::uint32_t>& v, std::size_t per) {
        return std::vector<std::uint32_t>(v.begin() + t0 * per, v.begin() + (t0 + n) * per);
      };
      out = detail::run_wgmma_tiles(in, n, part(a, mk), part(b, nk), part(c, mn), opt.a_source, opt.device);
    });
    if (out.size() != chunk * mn) throw DeviceError(in.name + ": wgmma probe returned a wrong number of words");
    d.insert(d.end(), out.begin(), out.end());
    t0 += chunk;
  }
  return d;
}
#endif

std::string nvml_driver_version() {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return {};
  std::string out;
  using Init = int (*)();
  using Get = int (*)(char*, unsigned);
  auto init = reinterpret_cast<Init>(dlsym(h, "nvmlInit_v2"));
  auto get = reinterpret_cast<Get>(dlsym(h, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(dlsym(h, "nvmlShutdown"));
  if (init && get && init() == 0) {
    char buf[96] = {};
    if (get(buf, sizeof buf) == 0) out = buf;
    if (shutdown) shutdown();
  }
  dlclose(h);
  return out;
}

std::string proc_driver_version() {  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(f, line)) return {};
  const auto pos = line.find("Kernel Module");
  if (pos == std::string::npos) return {};
  std::istringstream is(line.substr(pos + 13));
  std::string v;
  is >> v;
  return v;
}

std::string uuid_text(const cudaDeviceProp& p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  char buf[48];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  return buf;
}

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

bool available(std::string* why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (why_not) *why_not = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    return false;
  }
  if (count == 0) {
    if (why_not) *why_not = "no CUDA device";
    return false;
  }
  return true;
}

DeviceInfo info(int device) {
  const cudaDeviceProp p = properties(device);
  DeviceInfo out;
  out.name = p.name;
  out.sm = p.major * 10 + p.minor;
  int drv = 0, rt = 0;
  check(cudaDriverGetVersion(&drv), "reading the driver version");
  check(cudaRuntimeGetVersion(&rt), "reading the runtime version");
  out.driver = nvml_driver_version();
  if (out.driver.empty()) out.driver = proc_driver_version();
  if (out.driver.empty()) out.driver = "CUDA " + cuda_version(drv) + " driver";
  out.runtime = cuda_version(rt);
  out.uuid = uuid_text(p);
  return out;
}

namespace detail {

namespace {
std::mutex times_mutex;
RunTimes times;
long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void add_run_time(RunPhase phase, double seconds) {
  std::lock_guard<std::mutex> lock(times_mutex);
  (phase == RunPhase::pack ? times.pack_s : phase == RunPhase::copy_in ? times.copy_in_s
                                          : phase == RunPhase::kernel  ? times.kernel_s
                                                                       : times.copy_out_s) += seconds;
}

RunTimer::RunTimer() : last_ns_(now_ns()) {}

void RunTimer::lap(RunPhase phase) {
  const long long t = now_ns();
  add_run_time(phase, static_cast<double>(t - last_ns_) * 1e-9);
  last_ns_ = t;
}

std::vector<std::uint32_t> run_tiles_unchecked(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                               const std::vector<std::uint32_t>& b,
                                               const std::vector<std::uint32_t>& c, const RunOptions& opt,
                                               int max_blocks) {
  require_sizes(in, tiles, a.size(), b.size(), c.size());
  const cudaDeviceProp props = require_supported(in, opt.device);
  if (tiles == 0) return {};
  check(cudaSetDevice(opt.device), "selecting device " + std::to_string(opt.device));
  switch (in.family) {
    case Family::mma: return run_mma(in, tiles, a, b, c, props, opt.device, max_blocks);
    case Family::wgmma:
#ifdef TCNUM_WITH_WGMMA
      return run_wgmma(in, tiles, a, b, c, opt);
#else
      throw DeviceError(in.name + ": this build has no wgmma probe kernels (probes/wgmma_kernels.cu missing)");
#endif
    case Family::tcgen05:
    case Family::mfma: break;  // mfma: AMD's, no CUDA probe
  }
  throw DeviceError(in.name + ": no probe kernels for this instruction family");
}

}  // namespace detail

std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const RunOptions& opt) {
  require_sizes(in, tiles, a.size(), b.size(), c.size());
  detail::ensure_layout_checked(in, opt);
  return detail::run_tiles_unchecked(in, tiles, a, b, c, opt);
}

RunTimes run_times() {
  std::lock_guard<std::mutex> lock(detail::times_mutex);
  return detail::times;
}

void run_tiles(const Instruction& in, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
               const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt) {
  if (tiles > static_cast<std::size_t>(1) << 30) throw std::invalid_argument("run_tiles: too many tiles");
  if (in.sparse) return run_sparse_logical_tiles(in, tiles, a, b, c, d, opt);
  const std::size_t mk = std::size_t(in.m) * in.k, nk = std::size_t(in.n) * in.k, mn = std::size_t(in.m) * in.n;
  detail::RunTimer timer;
  const std::vector<std::uint32_t> ta(a, a + tiles * mk), tb(b, b + tiles * nk), tc(c, c + tiles * mn);
  timer.lap(detail::RunPhase::pack);
  const std::vector<std::uint32_t> td = run_tiles(in, static_cast<int>(tiles), ta, tb, tc, opt);
  detail::RunTimer back;
  std::copy(td.begin(), td.end(), d);
  back.lap(detail::RunPhase::pack);
}

// Case i -> tile i / P, diagonal element j = i % P (P = min(M, N)): row j of A, column j
// of B and C(j, j); everything else in the tile is +0.
void run_cases(const Instruction& in, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
               const std::uint32_t* c, std::uint32_t* d, const RunOptions& opt) {
  const std::size_t M = in.m, N = in.n, K = in.k, per_tile = std::min(M, N);
  const std::size_t tiles = (count + per_tile - 1) / per_tile;
  if (tiles > static_cast<std::size_t>(1) << 30) throw std::invalid_argument("run_cases: too many cases");
  if (tiles == 0) return;
  std::vector<std::uint32_t> ta(tiles * M * K), tb(tiles * N * K), tc(tiles * M * N);
  const std::size_t parts = static_cast<std::size_t>(std::min(tcnum::resolve_threads(0), 16));
  const auto spread = [&](auto&& fn) {  // fn(first, last) over [0, count) in `parts` parts
    tcnum::parallel_for(parts, static_cast<int>(parts),
                        [&](std::size_t t) { fn(count * t / parts, count * (t + 1) / parts); });
  };
  spread([&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const std::size_t t = i / per_tile, j = i % per_tile;
      std::copy(a + i * K, a + (i + 1) * K, ta.begin() + (t * M + j) * K);
      std::copy(b + i * K, b + (i + 1) * K, tb.begin() + (t * N + j) * K);
      tc[(t * M + j) * N + j] = c[i];
    }
  });
  const std::vector<std::uint32_t> td = run_tiles(in, static_cast<int>(tiles), ta, tb, tc, opt);
  spread([&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const std::size_t t = i / per_tile, j = i % per_tile;
      d[i] = td[(t * M + j) * N + j];
    }
  });
}

std::vector<std::uint32_t> run_cases(const Instruction& in, const std::vector<Case>& cases, const RunOptions& opt) {
  if (in.sparse) return run_sparse_cases(in, cases, opt);
  const std::size_t K = in.k;
  std::vector<std::uint32_t> a(cases.size() * K), b(cases.size() * K), c(cases.size()), d(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].a.size() != K || cases[i].b.size() != K)
      throw std::invalid_argument(in.name + ": case " + std::to_string(i) + " has " +
                                  std::to_string(cases[i].a.size()) + " A and " + std::to_string(cases[i].b.size()) +
                                  " B elements; K = " + std::to_string(K));
    std::copy(cases[i].a.begin(), cases[i].a.end(), a.begin() + i * K);
    std::copy(cases[i].b.begin(), cases[i].b.end(), b.begin() + i * K);
    c[i] = cases[i].c;
  }
  run_cases(in, cases.size(), a.data(), b.data(), c.data(), d.data(), opt);
  return d;
}

}  // namespace tcnum::device
