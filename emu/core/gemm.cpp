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
// Evaluation: A and B are decoded once into planes (signed significand, nominal exponent) in
// k_order and product-schedule order, and 16 columns at a time run through the compiled plan's
// fast kernel; a lane the kernel hands back (NaN/Inf, subnormal or overflowing result) is
// recomputed for that k-step by the reference datapath. Work is spread over threads by
// (row, 16-column group); every element is computed independently, so results do not depend on
// the thread count.
#include "tcnum/core/gemm.hpp"

#include <algorithm>
#include <functional>
#include <cmath>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "fast_kernel.hpp"

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

// The pool's worker count for `requested`, capped where threads would cost more than they save.
int thread_count(int requested, std::size_t tasks, std::size_t calls) {
  constexpr std::size_t kCallsPerThread = 4096;  // below this, threads cost more than they save
  return std::max(1, std::min<int>(resolve_threads(requested),
                                   static_cast<int>(std::min<std::size_t>(tasks, calls / kCallsPerThread))));
}

// The planes of one gemm call, kept per calling thread and reused by its next call (a kernel test
// calls gemm many times): no zero-filling and no fresh pages per call. Released after a call
// whose planes exceed kKeepBytes.
struct PlaneStore {
  std::vector<float> a_sig, a_near, b_sig, b_near;
  std::vector<std::int32_t> a_exp, b_exp, a_max, b_max;
  static constexpr std::size_t kKeepBytes = std::size_t{256} << 20;
  void reserve(std::size_t a_planes, std::size_t b_planes, std::size_t a_blocks, std::size_t b_blocks) {
    for (auto* v : {&a_sig, &a_near}) v->resize(std::max(v->size(), a_planes));
    for (auto* v : {&b_sig, &b_near}) v->resize(std::max(v->size(), b_planes));
    a_exp.resize(std::max(a_exp.size(), a_planes));
    b_exp.resize(std::max(b_exp.size(), b_planes));
    a_max.resize(std::max(a_max.size(), a_blocks));
    b_max.resize(std::max(b_max.size(), b_blocks));
  }
  std::size_t bytes() const {
    return 4 * (a_sig.size() + a_near.size() + b_sig.size() + b_near.size() + a_exp.size() + b_exp.size() + a_max.size() +
                b_max.size());
  }
};
PlaneStore& plane_store() {
  thread_local PlaneStore store;
  return store;
}
// Releases the calling thread's planes when they are large (run at the end of every gemm call).
struct PlaneStoreTrim {
  ~PlaneStoreTrim() {
    if (plane_store().bytes() > PlaneStore::kKeepBytes) plane_store() = PlaneStore{};
  }
};

}  // namespace

// The one GEMM driver; `scales` is null for instructions without block scaling.
static std::vector<std::uint32_t> gemm_impl(const Model& model, const Instruction& in, int m, int n, int k,
                                     const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                     const std::vector<std::uint32_t>& c, const BlockScales* scales,
                                     const GemmOptions& opt) {
  // --- Validation ---------------------------------------------------------------------------
  check_formats(in);  // once: storage_mask, decode and the kernels index the format table unchecked
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
  if (in.block_scaled() != (scales != nullptr))
    fail(in, in.block_scaled() ? "a block-scaled instruction needs its scale tensors (gemm with BlockScales)"
                               : "not a block-scaled instruction: no scale tensors");
  std::size_t KS = 0;  // scales per row of A / column of B
  std::vector<std::uint32_t> scale_bt;  // B's scales transposed: column j's contiguous
  if (scales) {
    if (k % in.k != 0)
      fail(in, "K = " + std::to_string(k) + " must be a multiple of in.k = " + std::to_string(in.k) +
                   " for a block-scaled instruction");
    KS = K / static_cast<std::size_t>(in.scale_block);
    check_size("scale_a", scales->a, M, KS, "M×(K/scale_block)");
    check_size("scale_b", scales->b, KS, N, "(K/scale_block)×N");
    check_storage(in, "scale_a", in.scale_type, scales->a, KS);
    check_storage(in, "scale_b", in.scale_type, scales->b, N);
    scale_bt.resize(N * KS);
    for (std::size_t s = 0; s < KS; ++s)
      for (std::size_t j = 0; j < N; ++j) scale_bt[j * KS + s] = scales->b[s * N + j];
  }

  const int ik = in.k;
  const int steps = (k - 1) / ik + 1;  // not (k + ik - 1) / ik: that wraps for K near INT_MAX
  const std::string steps_text = std::to_string(steps) + " (K = " + std::to_string(k) + ", in.k = " + std::to_string(ik) + ")";

  if (!opt.k_order.empty()) {
    if (opt.k_order.size() != static_cast<std::size_t>(steps))
      fail(in, "k_order has " + std::to_string(opt.k_order.size()) + " entries, expected one per k-step: " + steps_text);
    std::vector<bool> seen(opt.k_order.size(), false);
    for (std::size_t t = 0; t < opt.k_order.size(); ++t) {
      const int s = opt.k_order[t];
      if (s < 0 || s >= steps)
        fail(in, "k_order[" + std::to_string(t) + "] = " + std::to_string(s) + " is not a k-step index 0.." +
                     std::to_string(steps - 1));
      if (seen[static_cast<std::size_t>(s)])
        fail(in, "k_order is not a permutation: step " + std::to_string(s) + " appears twice");
      seen[static_cast<std::size_t>(s)] = true;
    }
  }
  if (opt.split_k < 1 || opt.split_k > steps)
    fail(in, "split_k = " + std::to_string(opt.split_k) + " must be in 1..steps, steps = " + steps_text);

  const DatapathParams& params = model.params_for(in);  // once per call; throws if no rule
  std::vector<std::uint32_t> d(M * N);
  if (M == 0 || N == 0) return d;  // before anything sized by K: an empty D needs none of it

  std::vector<int> order(static_cast<std::size_t>(steps));
  if (opt.k_order.empty()) std::iota(order.begin(), order.end(), 0);
  else order = opt.k_order;

  const std::size_t Kp = static_cast<std::size_t>(steps) * static_cast<std::size_t>(ik);  // K padded with zeros
  const std::uint32_t a_zero = zero_bits(in.a_type, false), b_zero = zero_bits(in.b_type, false);

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
  // One k-step through the reference datapath (order position t).
  auto reference_step = [&](std::size_t i, std::size_t j, int t, bool from_c, std::uint32_t acc) {
    const std::size_t off = static_cast<std::size_t>(order[static_cast<std::size_t>(t)]) * ikz;
    thread_local std::vector<std::uint32_t> arow, bcol;  // this k-step's A row and B column, zero-padded
    arow.resize(ikz);
    bcol.resize(ikz);
    for (std::size_t kk = 0; kk < ikz; ++kk) {
      arow[kk] = off + kk < K ? a[i * K + off + kk] : a_zero;
      bcol[kk] = off + kk < K ? b[(off + kk) * N + j] : b_zero;
    }
    if (scales) {
      const std::size_t per = static_cast<std::size_t>(in.scales_per_row()), s0 = off / static_cast<std::size_t>(in.scale_block);
      return mma_element_reference(params, from_c ? in : chained, arow, bcol, acc, {scales->a.data() + i * KS + s0, per},
                                   {scale_bt.data() + j * KS + s0, per});
    }
    return mma_element_reference(params, from_c ? in : chained, arow, bcol, acc);
  };
  // The split-K reduction of one element's slice results (first = slice 0's).
  auto reduce = [&](std::uint32_t first, const std::uint32_t* rest) {
    double sum = to_double(d_type, first);  // f16 and fp32 values are exact in fp32
    for (int s = 1; s < split; ++s) sum = add_f32(sum, to_double(d_type, rest[s - 1]));
    return encode(d_type, sum, Rounding::nearest_even);  // NaN -> canonical; f16: RNE, overflow -> Inf
  };

  const MmaPlan first = compile_plan(params, in), rest = compile_plan(params, chained);
  const PlaneStoreTrim trim_planes_on_return;
  const bool fast = opt.path == GemmOptions::Path::fast && first.fast && rest.fast;
  const std::size_t calls = M * N * static_cast<std::size_t>(steps);

  if (!fast) {
    auto element = [&](std::size_t i, std::size_t j) -> std::uint32_t {
      auto run_slice = [&](int s, std::uint32_t acc, bool from_c) {
        for (int t = slice_begin[s]; t < slice_begin[s + 1]; ++t)
          acc = reference_step(i, j, t, from_c && t == slice_begin[s], acc);
        return acc;
      };
      const std::uint32_t head = run_slice(0, c[i * N + j], true);
      if (split == 1) return head;
      std::vector<std::uint32_t> tail(static_cast<std::size_t>(split) - 1);
      for (int s = 1; s < split; ++s) tail[static_cast<std::size_t>(s) - 1] = run_slice(s, d_zero, false);
      return reduce(head, tail.data());
    };
    parallel_for(M, thread_count(opt.threads, M, calls), [&](std::size_t i) {
      for (std::size_t j = 0; j < N; ++j) d[i * N + j] = element(i, j);
    });
    return d;
  }

  // --- Planes: decoded once, in k_order position and product-schedule order. -----------------
  using detail::kLanes;
  const std::size_t groups = (N + kLanes - 1) / kLanes, row_groups = (M + kLanes - 1) / kLanes;
  const float a_scale = std::ldexp(1.0f, first.product_shift);
  const std::size_t blocks = first.blocks.size(), S = static_cast<std::size_t>(steps);
  PlaneStore& store = plane_store();
  store.reserve(M * Kp, groups * Kp * kLanes, M * S * blocks, groups * S * blocks * kLanes);
  float *a_sig = store.a_sig.data(), *a_near = store.a_near.data(), *b_sig = store.b_sig.data(), *b_near = store.b_near.data();
  std::int32_t *a_exp = store.a_exp.data(), *b_exp = store.b_exp.data(), *a_max = store.a_max.data(), *b_max = store.b_max.data();
  // Source k of order position t, slot kk (the plan's schedule within a k-step).
  auto source_k = [&](std::size_t t, std::size_t kk) {
    return static_cast<std::size_t>(order[t]) * ikz + static_cast<std::size_t>(first.schedule[kk]);
  };
  const detail::PreparePlanesFn prepare = detail::kernels().prepare_planes;
  const int plane_threads = thread_count(opt.threads, row_groups + groups, calls);
  // A: 16 rows at a time as the 16 lanes, then each row's planes scattered to [row][k].
  parallel_for(row_groups, plane_threads, [&](std::size_t rg) {
    std::vector<std::uint32_t> raw(ikz * kLanes);
    std::vector<float> sig(ikz * kLanes), near(ikz * kLanes);
    std::vector<std::int32_t> exp(ikz * kLanes), top(blocks * kLanes);
    const std::size_t i0 = rg * kLanes, rows = std::min<std::size_t>(kLanes, M - i0);
    for (std::size_t t = 0; t < S; ++t) {
      for (std::size_t kk = 0; kk < ikz; ++kk) {
        const std::size_t src = source_k(t, kk);
        for (std::size_t l = 0; l < kLanes; ++l)
          raw[kk * kLanes + l] = l < rows && src < K ? a[(i0 + l) * K + src] : a_zero;
      }
      prepare(first, in.a_type, first.a_seen, a_scale, raw.data(), sig.data(), exp.data(), near.data(), top.data());
      for (std::size_t l = 0; l < rows; ++l) {
        const std::size_t at = (i0 + l) * Kp + t * ikz;
        for (std::size_t kk = 0; kk < ikz; ++kk) {
          a_sig[at + kk] = sig[kk * kLanes + l];
          a_exp[at + kk] = exp[kk * kLanes + l];
          a_near[at + kk] = near[kk * kLanes + l];
        }
        for (std::size_t bi = 0; bi < blocks; ++bi) a_max[((i0 + l) * S + t) * blocks + bi] = top[bi * kLanes + l];
      }
    }
  });
  // B: 16 columns at a time, already in the kernel's [k][lane] layout.
  parallel_for(groups, plane_threads, [&](std::size_t g) {
    std::vector<std::uint32_t> raw(ikz * kLanes);
    const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, N - j0);
    for (std::size_t t = 0; t < S; ++t) {
      for (std::size_t kk = 0; kk < ikz; ++kk) {
        const std::size_t src = source_k(t, kk);
        for (std::size_t l = 0; l < kLanes; ++l) raw[kk * kLanes + l] = l < lanes && src < K ? b[src * N + j0 + l] : b_zero;
      }
      const std::size_t at = (g * Kp + t * ikz) * kLanes;
      prepare(first, in.b_type, first.b_seen, 1.0f, raw.data(), b_sig + at, b_exp + at, b_near + at,
              b_max + ((g * S + t) * blocks) * kLanes);
    }
  });

  const detail::GemmChainFn chain = detail::kernels().gemm_chain;
  // Runs rows [i0, i0 + rows) (rows <= 4, in lockstep) × the 16 lanes of group g through order
  // positions [t, t_end) of slice s; lanes the kernel hands back take the reference for that one
  // step, then the kernel resumes. acc: rows × 16 values.
  auto advance = [&](std::size_t i0, int rows, std::size_t g, std::uint32_t* acc, int s, int t, int t_end) {
    const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, N - j0);
    while (t < t_end) {
      const bool from_c = s == 0 && t == 0;  // only the very first step of slice 0 takes C
      const std::size_t at = static_cast<std::size_t>(t) * ikz, ts = static_cast<std::size_t>(t);
      detail::OperandPlanes a_rows[detail::kMaxChainRows];
      for (int r = 0; r < rows; ++r) {
        const std::size_t i = i0 + static_cast<std::size_t>(r), ao = i * Kp + at;
        a_rows[r] = {a_sig + ao, a_near + ao, a_exp + ao, a_max + (i * S + ts) * blocks};
      }
      const std::size_t bo = (g * Kp + at) * kLanes;
      const detail::OperandPlanes b_planes{b_sig + bo, b_near + bo, b_exp + bo, b_max + (g * S + ts) * blocks * kLanes};
      std::uint32_t failed[detail::kMaxChainRows] = {};
      t += chain(from_c ? first : rest, rest, rows, t_end - t, a_rows, b_planes, acc, failed);
      if (t == t_end) break;
      for (int r = 0; r < rows; ++r)
        for (std::size_t l = 0; l < lanes; ++l)
          if ((failed[r] >> l) & 1u) {
            std::uint32_t& x = acc[static_cast<std::size_t>(r) * kLanes + l];
            x = reference_step(i0 + static_cast<std::size_t>(r), j0 + l, t, s == 0 && t == 0, x);
          }
      ++t;
    }
  };
  // Cache blocking: a task is up to kRows rows × one group of 16 columns; the k-steps go in
  // chunks whose B planes (about 16 KiB) stay in L1 while every row of the task runs them.
  constexpr std::size_t kRows = 16;
  const int chunk = std::max(1, static_cast<int>(16384 / (ikz * kLanes * 8)));
  const std::size_t row_blocks = (M + kRows - 1) / kRows;
  const auto tail = static_cast<std::size_t>(split - 1);
  auto task = [&](std::size_t task_index) {
    const std::size_t g = task_index % groups, i0 = task_index / groups * kRows, rows = std::min(kRows, M - i0);
    const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, N - j0);
    std::uint32_t acc[kRows][kLanes], result[kRows][kLanes];
    std::vector<std::uint32_t> partial(rows * kLanes * tail);
    for (int s = 0; s < split; ++s) {
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t l = 0; l < kLanes; ++l) acc[r][l] = s == 0 && l < lanes ? c[(i0 + r) * N + j0 + l] : d_zero;
      for (int t0 = slice_begin[s]; t0 < slice_begin[s + 1]; t0 += chunk) {
        const int t1 = std::min(t0 + chunk, slice_begin[s + 1]);
        for (std::size_t r = 0; r < rows; r += detail::kMaxChainRows)
          advance(i0 + r, static_cast<int>(std::min<std::size_t>(detail::kMaxChainRows, rows - r)), g, acc[r], s, t0, t1);
      }
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t l = 0; l < lanes; ++l) {
          if (s == 0) result[r][l] = acc[r][l];
          else partial[(r * kLanes + l) * tail + static_cast<std::size_t>(s - 1)] = acc[r][l];
        }
    }
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t l = 0; l < lanes; ++l)
        d[(i0 + r) * N + j0 + l] = split == 1 ? result[r][l] : reduce(result[r][l], partial.data() + (r * kLanes + l) * tail);
  };
  parallel_for(row_blocks * groups, thread_count(opt.threads, row_blocks * groups, calls / kRows), task);
  return d;
}

std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const GemmOptions& opt) {
  return gemm_impl(model, in, m, n, k, a, b, c, nullptr, opt);
}

std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const BlockScales& scales,
                                const GemmOptions& opt) {
  return gemm_impl(model, in, m, n, k, a, b, c, &scales, opt);
}

}  // namespace tcnum
