// The GEMM oracle: an M×N×K product computed as a kernel built from one MMA instruction would,
// an interpreter of the call's schedule (tcnum/core/schedule.hpp; GemmOptions{k_order, split_k}
// are a special case).
//
// Per output element (i, j):
//   * K is cut into slices and each slice into k-steps (ResolvedSchedule); a k-step is one
//     mma_element call over [begin, begin + length) of K, zero-padded to in.k;
//   * a chain of k-steps feeds each step's D to the next step as C, i.e. the running value lives
//     in D's format (f16 accumulators stay f16 between steps). A slice is one chain, or with
//     promotion several chains whose results are added in fp32. The first chain of slice 0
//     starts from C (in in.c_type) unless C enters after the reduction; every other chain from
//     +0. Where an instruction has C and D of different types (sm_70 m8n8k4 mixed), steps after
//     a chain's first take the running D as C in D's own type, as a kernel keeping the
//     accumulator in registers does;
//   * the slices' partials are reduced (sequentially or by the schedule's tree, in fp32 or D's
//     format), C is added if it enters there, and the sum is rounded (RNE) to D's format.
//     NaN results are written as D's canonical NaN.
//
// validate() checks the operands, call_schedule() resolves the schedule, lay_out_chains() flattens
// it into k-steps and chains; run_fast (gemm_fast.cpp) or run_reference computes every chain, and
// GemmCall::combine (gemm_reduction.cpp) reduces an element's chain results.
#include "tcnum/core/gemm.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tcnum/core/parallel.hpp"
#include "tcnum/core/plan.hpp"
#include "fast_kernel.hpp"
#include "gemm_call.hpp"

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

// Every raw element must fit its format's storage (catches e.g. f32 bits passed as f16). The
// bits outside the mask of every element are OR-ed first (by the SIMD kernels); only a call with
// a bad element looks for the first one.
void check_storage(const Instruction& in, const char* what, Format f, const std::vector<std::uint32_t>& v,
                   std::size_t cols) {
  const std::uint32_t outside = ~storage_mask(f);
  if (detail::kernels().or_masked(v.data(), v.size(), outside) == 0) return;
  for (std::size_t i = 0; i < v.size(); ++i)
    if ((v[i] & outside) != 0)
      fail(in, std::string(what) + "[" + std::to_string(i / cols) + "][" + std::to_string(i % cols) + "] = " +
                   hex(v[i]) + " does not fit " + std::string(name_of(f)) + " (" +
                   std::to_string(spec(f).storage_bits) + "-bit storage)");
}

void check_size(const Instruction& in, const char* what, const std::vector<std::uint32_t>& v, std::size_t rows,
                std::size_t cols, const char* shape) {
  if (v.size() != rows * cols)
    fail(in, std::string(what) + " has " + std::to_string(v.size()) + " elements, expected " + shape + " = " +
                 std::to_string(rows) + "×" + std::to_string(cols) + " = " + std::to_string(rows * cols));
}

// Sizes, storage and the scale tensors of one call (throws naming the operand).
void validate(const Instruction& in, int m, int n, int k, const std::vector<std::uint32_t>& a,
              const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c, const BlockScales* scales) {
  check_formats(in);  // once: storage_mask, decode and the kernels index the format table unchecked
  if (in.k <= 0) fail(in, "instruction has k = " + std::to_string(in.k));
  if (m < 0 || n < 0) fail(in, "M and N must not be negative (M = " + std::to_string(m) + ", N = " + std::to_string(n) + ")");
  if (k <= 0) fail(in, "K must be positive (K = " + std::to_string(k) + ")");
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  check_size(in, "A", a, M, K, "M×K");
  check_size(in, "B", b, K, N, "K×N");
  check_size(in, "C", c, M, N, "M×N");
  check_storage(in, "A", in.a_type, a, K);
  check_storage(in, "B", in.b_type, b, N);
  check_storage(in, "C", in.c_type, c, N);
  if (in.block_scaled() != (scales != nullptr))
    fail(in, in.block_scaled() ? "a block-scaled instruction needs its scale tensors (gemm with BlockScales)"
                               : "not a block-scaled instruction: no scale tensors");
  if (!scales) return;
  if (k % in.k != 0)
    fail(in, "K = " + std::to_string(k) + " must be a multiple of in.k = " + std::to_string(in.k) +
                 " for a block-scaled instruction");
  const std::size_t KS = K / static_cast<std::size_t>(in.scale_block);
  check_size(in, "scale_a", scales->a, M, KS, "M×(K/scale_block)");
  check_size(in, "scale_b", scales->b, KS, N, "(K/scale_block)×N");
  check_storage(in, "scale_a", in.scale_type, scales->a, KS);
  check_storage(in, "scale_b", in.scale_type, scales->b, N);
}

// The schedule a call runs: opt.schedule, or the one GemmOptions{k_order, split_k} stand for.
// An empty D (M or N = 0) only checks it, in time independent of K.
ResolvedSchedule call_schedule(const Instruction& in, int k, const GemmOptions& opt, bool empty_d) {
  if (opt.schedule && (!opt.k_order.empty() || opt.split_k != 1))
    fail(in, "give either a schedule or k_order/split_k, not both (a schedule has its own k_order and split_k)");
  const Schedule s = opt.schedule ? *opt.schedule : schedule_from_options(opt);
  ResolvedSchedule r;
  try {
    if (empty_d) {
      check_schedule(s, in, k);
      return {};
    }
    r = resolve_schedule(s, in, k);
  } catch (const std::invalid_argument& e) {
    fail(in, e.what());
  }
  // Integer MMA: k-steps chained through D (exact, wrapped or clamped per step); a reduction of
  // slices or promoted chains would be a float one, which no integer kernel does.
  if (in.integer() && (r.slices.size() > 1 || r.source.promotion > 0 || r.source.c_entry != CEntry::first_slice))
    fail(in, "integer MMA takes one slice of k-steps chained through D (no split-K, promotion or C after a reduction)");
  return r;
}

// The slices' k-steps flattened in run order, and the chains they form (promotion cuts a slice
// into chains of `promotion` steps; only the first chain of slice 0 takes C, if C enters there).
void lay_out_chains(detail::GemmCall& call) {
  const ResolvedSchedule& s = call.schedule;
  for (std::size_t slice = 0; slice < s.slices.size(); ++slice) {
    const int begin = static_cast<int>(call.steps.size()), len = static_cast<int>(s.slices[slice].size());
    call.steps.insert(call.steps.end(), s.slices[slice].begin(), s.slices[slice].end());
    const int per = s.source.promotion > 0 ? s.source.promotion : len;
    for (int p = 0; p < len; p += per)
      call.chains.push_back({begin + p, begin + std::min(p + per, len), static_cast<int>(slice),
                             s.source.c_entry == CEntry::first_slice && slice == 0 && p == 0});
  }
}

// The reference datapath for every element and k-step (the oracle the fast engine is tested against).
void run_reference(const detail::GemmCall& call, std::uint32_t* d) {
  const std::size_t n_chains = call.chains.size();
  parallel_for(call.M, detail::thread_count(call.threads, call.M, call.M * call.N * call.steps.size()), [&](std::size_t i) {
    std::vector<std::uint32_t> results(n_chains);
    for (std::size_t j = 0; j < call.N; ++j) {
      for (std::size_t ch = 0; ch < n_chains; ++ch) {
        const detail::Chain& chain = call.chains[ch];
        std::uint32_t acc = chain.from_c ? call.c[i * call.N + j] : call.d_zero;
        for (int t = chain.begin; t < chain.end; ++t) acc = call.reference_step(i, j, t, chain.from_c && t == chain.begin, acc);
        results[ch] = acc;
      }
      d[i * call.N + j] = call.combine(results.data(), call.c[i * call.N + j]);
    }
  });
}

std::vector<std::uint32_t> tf32_rounded(const std::vector<std::uint32_t>& v, Tf32Operands mode) {
  std::vector<std::uint32_t> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), mode == Tf32Operands::nearest_away ? round_tf32_away : round_tf32);
  return out;
}

// A's columns (by_columns, A is rows × k) or B's rows (B is k × cols) reordered so that k-slot t
// of every tile holds logical k tile·⌊t/T⌋ + order[t mod T]: the schedule's tile_k_order.
std::vector<std::uint32_t> tile_permuted(const std::uint32_t* x, std::size_t rows, std::size_t k, std::size_t cols,
                                         const std::vector<int>& order, bool by_columns) {
  const std::size_t tile = order.size();
  std::vector<std::uint32_t> out(by_columns ? rows * k : k * cols);
  for (std::size_t t = 0; t < k; ++t) {
    const std::size_t from = t - t % tile + static_cast<std::size_t>(order[t % tile]);
    if (by_columns)
      for (std::size_t i = 0; i < rows; ++i) out[i * k + t] = x[i * k + from];
    else
      std::copy(x + from * cols, x + (from + 1) * cols, out.begin() + static_cast<std::ptrdiff_t>(t * cols));
  }
  return out;
}

// Operands the schedule transforms before the MMAs see them (kept alive for the call).
struct OperandCopies {
  std::vector<std::uint32_t> a, b;
};

// call.a / call.b: the operands as given, or tf32 operands rounded (RNE or ties away) and the
// k-slots of each tile filled as tile_k_order says, where the schedule asks.
void set_operands(detail::GemmCall& call, const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                  OperandCopies& copies) {
  const Schedule& s = call.schedule.source;
  const bool round = s.tf32_operands != Tf32Operands::truncate;
  if (round && call.in.a_type == Format::tf32) copies.a = tf32_rounded(a, s.tf32_operands);
  if (round && call.in.b_type == Format::tf32) copies.b = tf32_rounded(b, s.tf32_operands);
  call.a = copies.a.empty() ? a.data() : copies.a.data();
  call.b = copies.b.empty() ? b.data() : copies.b.data();
  if (s.tile_k_order.empty()) return;
  copies.a = tile_permuted(call.a, call.M, call.K, 0, s.tile_k_order, true);
  copies.b = tile_permuted(call.b, 0, call.K, call.N, s.tile_k_order, false);
  call.a = copies.a.data(), call.b = copies.b.data();
}

}  // namespace

// The one GEMM driver, an interpreter of the call's schedule; `scales` is null for instructions
// without block scaling.
static std::vector<std::uint32_t> gemm_impl(const Model& model, const Instruction& in, int m, int n, int k,
                                            const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                            const std::vector<std::uint32_t>& c, const BlockScales* scales,
                                            const GemmOptions& opt) {
  validate(in, m, n, k, a, b, c, scales);
  detail::GemmCall call(in, model.params_for(in));  // once per call; throws if no rule
  call.M = static_cast<std::size_t>(m), call.N = static_cast<std::size_t>(n), call.K = static_cast<std::size_t>(k);
  call.ik = static_cast<std::size_t>(in.k);
  std::vector<std::uint32_t> d(call.M * call.N);
  call.schedule = call_schedule(in, k, opt, d.empty());
  if (d.empty()) return d;  // nothing sized by K was built: an empty D needs none of it

  OperandCopies copies;
  set_operands(call, a, b, copies);
  call.c = c.data();
  call.scales = scales;
  if (scales) {
    call.scales_per_k = call.K / static_cast<std::size_t>(in.scale_block);
    call.scale_bt.resize(call.N * call.scales_per_k);
    for (std::size_t s = 0; s < call.scales_per_k; ++s)
      for (std::size_t j = 0; j < call.N; ++j) call.scale_bt[j * call.scales_per_k + s] = scales->b[s * call.N + j];
  }
  call.a_zero = zero_bits(in.a_type, false), call.b_zero = zero_bits(in.b_type, false);
  call.d_zero = zero_bits(in.d_type, false);
  call.threads = opt.threads;
  lay_out_chains(call);

  const MmaPlan first = compile_plan(call.params, in), rest = compile_plan(call.params, call.chained);
  if (opt.path == GemmOptions::Path::fast && first.fast && rest.fast) detail::run_fast(call, first, rest, d.data());
  else run_reference(call, d.data());
  return d;
}

std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const GemmOptions& opt) {
  if (opt.schedule && !opt.schedule->regions.empty()) return detail::gemm_by_regions(model, in, m, n, k, a, b, c, opt);
  return gemm_impl(model, in, m, n, k, a, b, c, nullptr, opt);
}

std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const BlockScales& scales,
                                const GemmOptions& opt) {
  if (opt.schedule && !opt.schedule->regions.empty())
    fail(in, "schedule regions are not supported with block scales (each region would need its scales cut too)");
  return gemm_impl(model, in, m, n, k, a, b, c, &scales, opt);
}

}  // namespace tcnum
