// The GEMM driver's fast engine: A and B decoded once into planes in run order and
// product-schedule order, then 16 columns at a time through the compiled plan's chain kernel;
// a lane the kernel hands back (NaN/Inf, subnormal or overflowing result) is recomputed for that
// k-step by the reference datapath. Work is spread over threads by (row block, 16-column group);
// every element is computed independently, so results do not depend on the thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "tcnum/core/parallel.hpp"
#include "fast_kernel.hpp"
#include "gemm_call.hpp"

namespace tcnum::detail {
namespace {

// The planes of one gemm call, kept per calling thread and reused by its next call (a kernel test
// calls gemm many times): no zero-filling and no fresh pages per call. Released after a call
// whose planes exceed kKeepBytes.
struct PlaneStore {
  std::vector<float> a_sig, a_near, b_sig, b_near;
  std::vector<std::int32_t> a_exp, b_exp, a_max, b_max;
  std::vector<std::uint32_t> a_pairs, b_pairs;  // OperandPlanes::exp_pairs
  static constexpr std::size_t kKeepBytes = std::size_t{256} << 20;
  void reserve(std::size_t a_planes, std::size_t b_planes, std::size_t a_blocks, std::size_t b_blocks,
               std::size_t a_pair_words, std::size_t b_pair_words) {
    for (auto* v : {&a_sig, &a_near}) v->resize(std::max(v->size(), a_planes));
    for (auto* v : {&b_sig, &b_near}) v->resize(std::max(v->size(), b_planes));
    a_exp.resize(std::max(a_exp.size(), a_planes));
    b_exp.resize(std::max(b_exp.size(), b_planes));
    a_max.resize(std::max(a_max.size(), a_blocks));
    b_max.resize(std::max(b_max.size(), b_blocks));
    a_pairs.resize(std::max(a_pairs.size(), a_pair_words));
    b_pairs.resize(std::max(b_pairs.size(), b_pair_words));
  }
  std::size_t bytes() const {
    return 4 * (a_sig.size() + a_near.size() + b_sig.size() + b_near.size() + a_exp.size() + b_exp.size() + a_max.size() +
                b_max.size() + a_pairs.size() + b_pairs.size());
  }
};
// Copies n <= kLanes values: a full group of 16 as one fixed-size copy (inlined, where a copy of
// run-time length is a call to memmove per 64 bytes).
void copy_lanes(const std::uint32_t* from, std::size_t n, std::uint32_t* to) {
  if (n == kLanes) std::memcpy(to, from, kLanes * sizeof *from);
  else std::copy_n(from, n, to);
}

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

// The decoded operands: per k-step position t of the call's steps, in.k slots in the plan's
// product-schedule order; A as [row group][t·k + slot][row in group], B as
// [group][t·k + slot][lane]: both as prepare_planes writes 16 operands, so nothing is scattered.
// The groups are decoded inside the same parallel loop as the chains (one dispatch per call, no
// barrier): the loop's first indices decode (decode_task), and a chain task that finds a group
// still being decoded waits for that group alone (need_a / need_b).
class Planes {
 public:
  Planes(const GemmCall& call, const MmaPlan& plan)
      : call_(call),
        plan_(plan),
        a_state_(std::make_unique<std::atomic<int>[]>(row_groups())),
        b_state_(std::make_unique<std::atomic<int>[]>(groups())),
        a_special_(row_groups()),
        b_special_(groups()) {
    const std::size_t S = call.steps.size(), blocks = plan.blocks.size(), Kp = S * call.ik;
    store_.reserve(row_groups() * Kp * kLanes, groups() * Kp * kLanes, row_groups() * S * blocks * kLanes,
                   groups() * S * blocks * kLanes, row_groups() * kp2() * kLanes, groups() * kp2() * kLanes);
    sources_.resize(Kp);
    for (std::size_t t = 0; t < S; ++t)
      for (std::size_t kk = 0; kk < call.ik; ++kk) sources_[t * call.ik + kk] = source_k(t, kk);
  }
  std::size_t groups() const { return (call_.N + kLanes - 1) / kLanes; }
  // The decoding tasks: A's row groups, then B's groups.
  std::size_t decode_tasks() const { return row_groups() + groups(); }
  void decode_task(std::size_t index) {
    if (index < row_groups()) need_a(index * kLanes);
    else need_b(index - row_groups());
  }
  // Row i's row group and column group g decoded (by this thread, or waited for).
  void need_a(std::size_t i) { need(a_state_[i / kLanes], [&] { decode_a(i / kLanes); }); }
  void need_b(std::size_t g) { need(b_state_[g], [&] { decode_b(g); }); }
  // Whether some operand of row i's row group or of column group g is NaN/Inf (after need_a/need_b).
  bool any_special(std::size_t i, std::size_t g) const { return a_special_[i / kLanes] || b_special_[g]; }
  // Row i's planes at k-step t (its lane of its row group's), and group g's.
  OperandPlanes a_at(std::size_t i, std::size_t t) const {
    const std::size_t rg = i / kLanes, l = i % kLanes, o = (rg * kp() + t * call_.ik) * kLanes + l;
    return {store_.a_sig.data() + o, store_.a_near.data() + o, store_.a_exp.data() + o,
            store_.a_max.data() + (rg * call_.steps.size() + t) * plan_.blocks.size() * kLanes + l,
            store_.a_pairs.data() + (rg * kp2() + t * ik2()) * kLanes + l};
  }
  OperandPlanes b_at(std::size_t g, std::size_t t) const {
    const std::size_t o = (g * kp() + t * call_.ik) * kLanes;
    return {store_.b_sig.data() + o, store_.b_near.data() + o, store_.b_exp.data() + o,
            store_.b_max.data() + (g * call_.steps.size() + t) * plan_.blocks.size() * kLanes,
            store_.b_pairs.data() + (g * kp2() + t * ik2()) * kLanes};
  }

 private:
  enum State : int { kTodo = 0, kDecoding, kReady, kFailed };
  // Decodes unless another thread has (or is: then waits for it; a decode waits on nothing, so
  // this cannot deadlock). A failed decode fails every task that needs it.
  template <class Decode>
  static void need(std::atomic<int>& state, Decode&& decode) {
    int s = state.load(std::memory_order_acquire);
    if (s == kReady) return;
    if (s == kTodo && state.compare_exchange_strong(s, kDecoding, std::memory_order_acq_rel)) {
      try {
        decode();
      } catch (...) {
        state.store(kFailed, std::memory_order_release);
        state.notify_all();
        throw;
      }
      state.store(kReady, std::memory_order_release);
      state.notify_all();
      return;
    }
    while ((s = state.load(std::memory_order_acquire)) == kDecoding) state.wait(kDecoding, std::memory_order_acquire);
    if (s == kFailed) throw std::runtime_error("gemm: decoding the operand planes failed on another thread");
  }
  std::size_t row_groups() const { return (call_.M + kLanes - 1) / kLanes; }
  std::size_t kp() const { return call_.steps.size() * call_.ik; }
  // exp_pairs' words per k-step and per call.
  std::size_t ik2() const { return (call_.ik + 1) / 2; }
  std::size_t kp2() const { return call_.steps.size() * ik2(); }
  // Source k of step t, slot kk; K where the slot is padding.
  std::size_t source_k(std::size_t t, std::size_t kk) const {
    const KStep& st = call_.steps[t];
    const int slot = plan_.schedule[kk];
    return slot < st.length ? static_cast<std::size_t>(st.begin + slot) : call_.K;
  }
  // The decoded block scales of step t's operands ([kk][lane], like the raw operands), or null
  // for an instruction without them; scale_of(l, s): lane l's raw scale at scale index s.
  struct StepScales {
    std::vector<float> sig;
    std::vector<std::int32_t> exp;
    ScalePlanes planes{};
  };
  template <class ScaleOf>
  const ScalePlanes* step_scales(std::size_t t, std::size_t lanes, StepScales& out, ScaleOf scale_of) const {
    if (!call_.scales) return nullptr;
    const auto per_scale = static_cast<std::size_t>(call_.in.scale_block);
    out.sig.resize(call_.ik * kLanes), out.exp.resize(call_.ik * kLanes);
    for (std::size_t kk = 0; kk < call_.ik; ++kk) {
      const std::size_t src = source_k(t, kk);
      for (std::size_t l = 0; l < kLanes; ++l) {
        const PlaneValue v = l < lanes && src < call_.K ? scale_value(call_.in.scale_type, scale_of(l, src / per_scale))
                                                        : PlaneValue{0.0f, kZeroExponent};  // padding: no term
        out.sig[kk * kLanes + l] = v.significand, out.exp[kk * kLanes + l] = v.exponent;
      }
    }
    out.planes = {out.sig.data(), out.exp.data()};
    return &out.planes;
  }
  // A: 16 rows at a time as the 16 lanes, in place. The raw operands are gathered a chunk of
  // k-steps at a time (KernelSet::gather_rows: a hardware gather per k-slot with AVX-512, else
  // row by row).
  void decode_a(std::size_t rg) {
    const std::size_t ik = call_.ik, S = call_.steps.size(), K = call_.K;
    std::vector<std::uint32_t> raw;
    StepScales scales;
    const std::size_t i0 = rg * kLanes, rows = std::min<std::size_t>(kLanes, call_.M - i0);
    const float a_scale = std::ldexp(1.0f, plan_.product_shift);
    const auto scale_a = [&](std::size_t l, std::size_t s) { return call_.scales->a[(i0 + l) * call_.scales_per_k + s]; };
    bool special = false;  // written once: the groups' flags share cache lines across threads
    for (std::size_t t0 = 0; t0 < S; t0 += steps_per_gather()) {
      const std::size_t t1 = std::min(S, t0 + steps_per_gather());
      raw.resize((t1 - t0) * ik * kLanes);
      kernels().gather_rows(call_.a + i0 * K, K, static_cast<int>(rows), sources_.data() + t0 * ik, (t1 - t0) * ik, K,
                            call_.a_zero, raw.data());
      for (std::size_t t = t0; t < t1; ++t) {
        const std::size_t at = (rg * kp() + t * ik) * kLanes;
        special |= kernels().prepare_planes(plan_, OperandSide::a, call_.in.a_type, plan_.a_seen, a_scale,
                                            raw.data() + (t - t0) * ik * kLanes, step_scales(t, rows, scales, scale_a),
                                            store_.a_sig.data() + at, store_.a_exp.data() + at,
                                            store_.a_near.data() + at,
                                            store_.a_max.data() + ((rg * S + t) * plan_.blocks.size()) * kLanes,
                                            store_.a_pairs.data() + (rg * kp2() + t * ik2()) * kLanes);
      }
    }
    a_special_[rg] = special;
  }
  // B: 16 columns at a time, already in the kernel's [k][lane] layout (a k-slot's 16 operands
  // are contiguous in B's row).
  void decode_b(std::size_t g) {
    const std::size_t ik = call_.ik, S = call_.steps.size(), K = call_.K, N = call_.N;
    std::vector<std::uint32_t> raw(ik * kLanes);
    StepScales scales;
    const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, N - j0);
    const auto scale_b = [&](std::size_t l, std::size_t s) { return call_.scales->b[s * N + j0 + l]; };
    bool special = false;
    for (std::size_t t = 0; t < S; ++t) {
      std::fill(raw.begin(), raw.end(), call_.b_zero);
      for (std::size_t kk = 0; kk < ik; ++kk) {
        const std::size_t src = sources_[t * ik + kk];
        if (src < K) copy_lanes(call_.b + src * N + j0, lanes, raw.data() + kk * kLanes);
      }
      const std::size_t at = (g * kp() + t * ik) * kLanes;
      special |= kernels().prepare_planes(plan_, OperandSide::b, call_.in.b_type, plan_.b_seen, 1.0f, raw.data(),
                                          step_scales(t, lanes, scales, scale_b), store_.b_sig.data() + at,
                                          store_.b_exp.data() + at, store_.b_near.data() + at,
                                          store_.b_max.data() + ((g * S + t) * plan_.blocks.size()) * kLanes,
                                          store_.b_pairs.data() + (g * kp2() + t * ik2()) * kLanes);
    }
    b_special_[g] = special;
  }
  // k-steps per gather of A: a buffer of about 64 KiB.
  std::size_t steps_per_gather() const { return std::max<std::size_t>(1, 16384 / (call_.ik * kLanes)); }

  const GemmCall& call_;
  const MmaPlan& plan_;
  PlaneStore& store_ = plane_store();
  std::unique_ptr<std::atomic<int>[]> a_state_, b_state_;  // State per row group / column group
  std::vector<std::uint8_t> a_special_, b_special_;          // per group: an operand is NaN/Inf
  std::vector<std::size_t> sources_;  // source_k(t, kk) at t·ik + kk
};

// Runs rows [i0, i0 + rows) (rows <= KernelSet::chain_rows, in lockstep) × the 16 lanes of group g
// through k-steps [t, t_end); the step at `c_step` (or none: -1) takes C. Lanes the kernel hands
// back take the reference for that one step, then the kernel resumes. acc: rows × 16 values.
void advance(const GemmCall& call, const Planes& planes, const MmaPlan& first, const MmaPlan& rest, std::size_t i0,
             int rows, std::size_t g, std::uint32_t* acc, int c_step, int t, int t_end) {
  const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, call.N - j0);
  while (t < t_end) {
    const auto ts = static_cast<std::size_t>(t);
    OperandPlanes a_rows[kMaxChainRows];
    for (int r = 0; r < rows; ++r) a_rows[r] = planes.a_at(i0 + static_cast<std::size_t>(r), ts);
    std::uint32_t failed[kMaxChainRows] = {};
    t += kernels().gemm_chain(t == c_step ? first : rest, rest, rows, t_end - t, a_rows, planes.b_at(g, ts), acc, failed,
                              !planes.any_special(i0, g));
    if (t == t_end) break;
    for (int r = 0; r < rows; ++r)
      for (std::size_t l = 0; l < lanes; ++l)
        if ((failed[r] >> l) & 1u) {
          std::uint32_t& x = acc[static_cast<std::size_t>(r) * kLanes + l];
          x = call.reference_step(i0 + static_cast<std::size_t>(r), j0 + l, t, t == c_step, x);
        }
    ++t;
  }
}

}  // namespace

int thread_count(int requested, std::size_t tasks, std::size_t calls) {
  constexpr std::size_t kCallsPerThread = 4096;  // below this, threads cost more than they save
  return std::max(1, std::min<int>(resolve_threads(requested),
                                   static_cast<int>(std::min<std::size_t>(tasks, calls / kCallsPerThread))));
}

void run_fast(const GemmCall& call, const MmaPlan& first, const MmaPlan& rest, std::uint32_t* d) {
  const PlaneStoreTrim trim_planes_on_return;
  Planes planes(call, first);
  const std::size_t M = call.M, N = call.N, groups = planes.groups(), n_chains = call.chains.size();
  // Cache blocking: a task is up to kRows rows × one group of 16 columns; the k-steps go in
  // chunks of 512 k (B planes of about 50 KiB, in L1 and L2) that every row of the task runs in
  // turn. Chunks of 16 KiB (L1 alone) cost 3–5 % more at 512³ (more calls, each ≈ 50 ns of setup).
  constexpr std::size_t kRows = 16;
  static_assert(kRows == kLanes, "a task's rows are one row group of A's planes");
  const int chunk = std::max(1, static_cast<int>(65536 / (call.ik * kLanes * 8)));
  const std::size_t row_blocks = (M + kRows - 1) / kRows;
  const bool single = call.single_chain();
  const auto chain_rows = static_cast<std::size_t>(kernels().chain_rows);
  auto task = [&](std::size_t task_index) {
    const std::size_t g = task_index % groups, i0 = task_index / groups * kRows, rows = std::min(kRows, M - i0);
    const std::size_t j0 = g * kLanes, lanes = std::min<std::size_t>(kLanes, N - j0);
    planes.need_a(i0);  // kRows == kLanes: the task's rows are one row group
    planes.need_b(g);
    std::uint32_t acc[kRows][kLanes];
    std::vector<std::uint32_t> results(single ? 0 : rows * kLanes * n_chains);  // [row][lane][chain]
    for (std::size_t ch = 0; ch < n_chains; ++ch) {
      const Chain& chain = call.chains[ch];
      for (std::size_t r = 0; r < rows; ++r) {  // a row's lanes: C's columns, then D's zero (padding)
        const std::size_t from_c = chain.from_c ? lanes : 0;
        copy_lanes(call.c + (i0 + r) * N + j0, from_c, acc[r]);
        std::fill(acc[r] + from_c, acc[r] + kLanes, call.d_zero);
      }
      const int c_step = chain.from_c ? chain.begin : -1;
      for (int t0 = chain.begin; t0 < chain.end; t0 += chunk) {
        const int t1 = std::min(t0 + chunk, chain.end);
        for (std::size_t r = 0; r < rows; r += chain_rows)
          advance(call, planes, first, rest, i0 + r, static_cast<int>(std::min(chain_rows, rows - r)), g,
                  acc[r], c_step, t0, t1);
      }
      for (std::size_t r = 0; r < rows; ++r) {
        if (single) copy_lanes(acc[r], lanes, d + (i0 + r) * N + j0);  // D is the one chain's result
        else
          for (std::size_t l = 0; l < lanes; ++l) results[(r * kLanes + l) * n_chains + ch] = acc[r][l];
      }
    }
    if (single) return;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t l = 0; l < lanes; ++l)
        d[(i0 + r) * N + j0 + l] = call.combine(results.data() + (r * kLanes + l) * n_chains, call.c[(i0 + r) * N + j0 + l]);
  };
  const std::size_t calls = M * N * call.steps.size(), decoding = planes.decode_tasks();
  // Decoding first: a chain task that needed a group no task had claimed would decode it while
  // the other threads' tasks of the same row block waited for it (measured: 1.91 busy threads of
  // 2 at 512³, against 1.94 with all groups decoded before the chains).
  parallel_for(decoding + row_blocks * groups, thread_count(call.threads, row_blocks * groups, calls / kRows),
               [&](std::size_t index) { index < decoding ? planes.decode_task(index) : task(index - decoding); });
}

}  // namespace tcnum::detail
