// The GEMM oracle: an M×N×K product computed as a kernel built from one MMA instruction would.
//
// Per output element (i, j):
//   * the K/in.k k-steps are taken in opt.k_order (default ascending) and cut into split_k
//     contiguous slices; slice s has steps/split_k steps, plus one for the first
//     steps % split_k slices (balanced: no slice is ever empty);
//   * within a slice each k-step is one mma_element call whose C is the previous step's D,
//     i.e. the running value lives in D's format (f16 accumulators stay f16 between steps).
//     Slice 0 starts from C (in in.c_type), the others from +0. Where an instruction has
//     C and D of different types (sm_70 m8n8k4 mixed), steps after a slice's first take the
//     running D as C in D's own type, as a kernel keeping the accumulator in registers does;
//   * with split_k > 1 the slice results are summed in slice order with IEEE fp32
//     round-to-nearest-even additions, then rounded (RNE) to D's format if D is f16.
//     NaN results are written as D's canonical NaN.
//
// Rows are spread over threads (std::thread::hardware_concurrency(), or TCNUM_THREADS from
// the environment); every element is computed independently, so results do not depend on
// the thread count.
#include "tcnum/core/gemm.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "tcnum/core/dot.hpp"

namespace tcnum {
namespace {

[[noreturn]] void fail(const Instruction& in, const std::string& why) {
  throw std::invalid_argument("tcnum::gemm(" + in.name + "): " + why);
}

std::string hex(std::uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

// Every raw element must fit its format's storage (catches e.g. f32 bits passed as f16).
void check_storage(const Instruction& in, const char* what, Format f, const std::vector<std::uint32_t>& v,
                   std::size_t cols) {
  const std::uint32_t mask = storage_mask(f);
  for (std::size_t i = 0; i < v.size(); ++i)
    if ((v[i] & ~mask) != 0)
      fail(in, std::string(what) + "[" + std::to_string(i / cols) + "][" + std::to_string(i % cols) + "] = " +
                   hex(v[i]) + " does not fit " + std::string(name_of(f)) + " (" +
                   std::to_string(spec(f).storage_bits) + "-bit storage)");
}

// fp32 round-to-nearest-even sum of two values held exactly in doubles. Each input is an
// fp32 (or f16) value, so the double sum never overflows nor goes subnormal, and rounding
// it first to double then to fp32 equals one correct rounding (53 >= 2·24 + 2).
double add_f32(double x, double y) { return to_double(Format::fp32, encode(Format::fp32, x + y)); }

int thread_count(std::size_t rows, std::size_t calls) {
  int want = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("TCNUM_THREADS")) {
    const int v = std::atoi(env);
    if (v > 0) want = v;
  }
  constexpr std::size_t kCallsPerThread = 4096;  // below this, threads cost more than they save
  want = std::max(1, std::min<int>(want, static_cast<int>(std::min<std::size_t>(rows, calls / kCallsPerThread))));
  return want;
}

}  // namespace

std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const GemmOptions& opt) {
  // --- Validation ---------------------------------------------------------------------------
  if (in.k <= 0) fail(in, "instruction has k = " + std::to_string(in.k));
  if (m < 0 || n < 0) fail(in, "M and N must not be negative (M = " + std::to_string(m) + ", N = " + std::to_string(n) + ")");
  if (k <= 0) fail(in, "K must be positive (K = " + std::to_string(k) + ")");
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  auto check_size = [&](const char* what, const std::vector<std::uint32_t>& v, std::size_t rows, std::size_t cols,
                        const char* shape) {
    if (v.size() != rows * cols)
      fail(in, std::string(what) + " has " + std::to_string(v.size()) + " elements, expected " + shape + " = " +
                   std::to_string(rows) + "×" + std::to_string(cols) + " = " + std::to_string(rows * cols));
  };
  check_size("A", a, M, K, "M×K");
  check_size("B", b, K, N, "K×N");
  check_size("C", c, M, N, "M×N");
  check_storage(in, "A", in.a_type, a, K);
  check_storage(in, "B", in.b_type, b, N);
  check_storage(in, "C", in.c_type, c, N);

  const int ik = in.k;
  const int steps = (k + ik - 1) / ik;
  const std::string steps_text = std::to_string(steps) + " (K = " + std::to_string(k) + ", in.k = " + std::to_string(ik) + ")";

  std::vector<int> order(static_cast<std::size_t>(steps));
  if (opt.k_order.empty()) {
    std::iota(order.begin(), order.end(), 0);
  } else {
    if (opt.k_order.size() != order.size())
      fail(in, "k_order has " + std::to_string(opt.k_order.size()) + " entries, expected one per k-step: " + steps_text);
    std::vector<bool> seen(order.size(), false);
    for (std::size_t t = 0; t < opt.k_order.size(); ++t) {
      const int s = opt.k_order[t];
      if (s < 0 || s >= steps)
        fail(in, "k_order[" + std::to_string(t) + "] = " + std::to_string(s) + " is not a k-step index 0.." +
                     std::to_string(steps - 1));
      if (seen[static_cast<std::size_t>(s)])
        fail(in, "k_order is not a permutation: step " + std::to_string(s) + " appears twice");
      seen[static_cast<std::size_t>(s)] = true;
    }
    order = opt.k_order;
  }
  if (opt.split_k < 1 || opt.split_k > steps)
    fail(in, "split_k = " + std::to_string(opt.split_k) + " must be in 1..steps, steps = " + steps_text);

  const DatapathParams& params = model.params_for(in);  // once per call; throws if no rule
  std::vector<std::uint32_t> d(M * N);
  if (M == 0 || N == 0) return d;

  // --- Operands laid out for contiguous k-steps: A M×Kp, B transposed N×Kp, zero-padded. ----
  const std::size_t Kp = static_cast<std::size_t>(steps) * static_cast<std::size_t>(ik);
  const std::uint32_t a_zero = zero_bits(in.a_type, false), b_zero = zero_bits(in.b_type, false);
  std::vector<std::uint32_t> ap(M * Kp, a_zero), bt(N * Kp, b_zero);
  for (std::size_t i = 0; i < M; ++i) std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(i * K), K, ap.begin() + static_cast<std::ptrdiff_t>(i * Kp));
  for (std::size_t kk = 0; kk < K; ++kk)
    for (std::size_t j = 0; j < N; ++j) bt[j * Kp + kk] = b[kk * N + j];

  // Steps after the first of a slice: C is the running D, in D's type.
  Instruction chained = in;
  chained.c_type = in.d_type;

  // Slice boundaries in k_order positions: balanced, the first steps % split_k one longer.
  const int split = opt.split_k;
  std::vector<int> slice_begin(static_cast<std::size_t>(split) + 1, 0);
  for (int s = 0; s < split; ++s) slice_begin[s + 1] = slice_begin[s] + steps / split + (s < steps % split ? 1 : 0);

  const Format d_type = in.d_type;
  const std::uint32_t d_zero = zero_bits(d_type, false);
  const std::size_t ikz = static_cast<std::size_t>(ik);

  auto element = [&](std::size_t i, std::size_t j) -> std::uint32_t {
    const std::uint32_t* arow = ap.data() + i * Kp;
    const std::uint32_t* bcol = bt.data() + j * Kp;
    auto run_slice = [&](int s, std::uint32_t acc, bool from_c) {
      for (int t = slice_begin[s]; t < slice_begin[s + 1]; ++t) {
        const std::size_t off = static_cast<std::size_t>(order[static_cast<std::size_t>(t)]) * ikz;
        acc = mma_element(params, (from_c && t == slice_begin[s]) ? in : chained, {arow + off, ikz}, {bcol + off, ikz},
                          acc);
      }
      return acc;
    };
    const std::uint32_t first = run_slice(0, c[i * N + j], true);
    if (split == 1) return first;
    double sum = to_double(d_type, first);  // f16 and fp32 values are exact in fp32
    for (int s = 1; s < split; ++s) sum = add_f32(sum, to_double(d_type, run_slice(s, d_zero, false)));
    return encode(d_type, sum, Rounding::nearest_even);  // NaN -> canonical; f16: RNE, overflow -> Inf
  };

  auto rows = [&](std::size_t r0, std::size_t r1) {
    for (std::size_t i = r0; i < r1; ++i)
      for (std::size_t j = 0; j < N; ++j) d[i * N + j] = element(i, j);
  };

  const int threads = thread_count(M, M * N * static_cast<std::size_t>(steps));
  if (threads == 1) {
    rows(0, M);
    return d;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads) - 1);
  auto chunk = [&](int t) {
    const std::size_t r0 = M * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t r1 = M * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    try {
      rows(r0, r1);
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(chunk, t);
    } catch (const std::system_error&) {
      chunk(t);  // no thread to be had: do its rows here
    }
  }
  chunk(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return d;
}

}  // namespace tcnum
