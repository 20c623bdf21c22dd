// Chain matrix multiplication study (include/tcnum/studies/chain.hpp; docs/chain-study.md).
#include "tcnum/studies/chain.hpp"

#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/parallel.hpp"
#include "tcnum/reference/normal.hpp"

namespace tcnum::chain {
namespace {

// The pool, with MPFR's per-thread constant caches and mpz pool freed as each worker ends.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& fn) {
  tcnum::parallel_for(count, resolve_threads(threads), fn, [] { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); });
}

bool is_fp8(Format f) { return f == Format::e4m3 || f == Format::e5m2; }

std::uint64_t fnv1a(std::span<const std::uint32_t> words) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint32_t w : words)
    for (int byte = 0; byte < 4; ++byte) h = (h ^ ((w >> (8 * byte)) & 0xffu)) * 1099511628211ull;
  return h;
}

// Correctly rounded fp32 arithmetic through double: a product of two floats is exact in double,
// and double rounding of a float sum through double is innocuous (53 >= 2*24 + 2). So no FMA
// contraction or x87 excess precision can change the baseline.
float mul32(float a, float b) { return static_cast<float>(static_cast<double>(a) * static_cast<double>(b)); }
float add32(float a, float b) { return static_cast<float>(static_cast<double>(a) + static_cast<double>(b)); }

// ---- MPFR helpers -------------------------------------------------------------------------------

struct MpfrValue {
  mpfr_t v;
  MpfrValue() { mpfr_init2(v, MPFR_PREC_MIN); mpfr_set_zero(v, 1); }
  ~MpfrValue() { mpfr_clear(v); }
  MpfrValue(const MpfrValue&) = delete;
  MpfrValue& operator=(const MpfrValue&) = delete;
};

// Sets x to the double d exactly.
void set_exact(mpfr_t x, double d) {
  mpfr_set_prec(x, 53);
  mpfr_set_d(x, d, MPFR_RNDN);
  const mpfr_prec_t p = std::max<mpfr_prec_t>(mpfr_min_prec(x), MPFR_PREC_MIN);
  mpfr_prec_round(x, p, MPFR_RNDN);  // exact: p bits suffice
}

// Scratch space for exact dot products of one thread.
struct DotScratch {
  std::vector<MpfrValue> products;
  std::vector<mpfr_ptr> ptrs;
  explicit DotScratch(int k) : products(static_cast<std::size_t>(k)), ptrs(static_cast<std::size_t>(k)) {}
};

// out = sum_i a[i*as] * b[i*bs], exactly (out's precision is set to what the sum needs).
void exact_dot(mpfr_ptr out, int k, const mpfr_srcptr* a, std::size_t as, const mpfr_srcptr* b, std::size_t bs,
               DotScratch& s) {
  unsigned long used = 0;
  mpfr_exp_t hi = 0, lo = 0;
  bool nan = false, pos_inf = false, neg_inf = false;
  for (int i = 0; i < k; ++i) {
    mpfr_srcptr x = a[static_cast<std::size_t>(i) * as];
    mpfr_srcptr y = b[static_cast<std::size_t>(i) * bs];
    if (mpfr_nan_p(x) || mpfr_nan_p(y)) {
      nan = true;
      continue;
    }
    if (mpfr_inf_p(x) || mpfr_inf_p(y)) {  // IEEE: Inf·0 is NaN, Inf + -Inf is NaN
      if (mpfr_zero_p(x) || mpfr_zero_p(y)) nan = true;
      (mpfr_signbit(x) != mpfr_signbit(y) ? neg_inf : pos_inf) = true;
      continue;
    }
    if (mpfr_zero_p(x) || mpfr_zero_p(y)) continue;
    mpfr_ptr p = s.products[used].v;
    mpfr_set_prec(p, std::max<mpfr_prec_t>(mpfr_min_prec(x) + mpfr_min_prec(y), MPFR_PREC_MIN));
    if (mpfr_mul(p, x, y, MPFR_RNDN) != 0) throw std::logic_error("chain: inexact MPFR product");
    const mpfr_exp_t top = mpfr_get_exp(p);
    const mpfr_exp_t bottom = top - mpfr_min_prec(p);
    hi = used == 0 ? top : std::max(hi, top);
    lo = used == 0 ? bottom : std::min(lo, bottom);
    s.ptrs[used] = p;
    ++used;
  }
  if (nan || (pos_inf && neg_inf)) {
    mpfr_set_nan(out);
    return;
  }
  if (pos_inf || neg_inf) {
    mpfr_set_inf(out, neg_inf ? -1 : 1);
    return;
  }
  if (used == 0) {
    mpfr_set_prec(out, MPFR_PREC_MIN);
    mpfr_set_zero(out, 1);
    return;
  }
  const mpfr_prec_t need = static_cast<mpfr_prec_t>(hi - lo) + std::bit_width(used) + 2;
  mpfr_set_prec(out, std::max<mpfr_prec_t>(need, MPFR_PREC_MIN));
  if (mpfr_sum(out, s.ptrs.data(), used, MPFR_RNDN) != 0) throw std::logic_error("chain: inexact MPFR sum");
  if (!mpfr_zero_p(out))
    mpfr_prec_round(out, std::max<mpfr_prec_t>(mpfr_min_prec(out), MPFR_PREC_MIN), MPFR_RNDN);
}

// ---- per-tensor scaling and conversion ------------------------------------------------------------

double max_finite(Format f) { return to_double(f, max_finite_bits(f, false)); }

struct Quantized {
  std::vector<std::uint32_t> bits;
  float scale_inv = 1.0f;
  bool saturated = false;
};

// Converts fp32-representable values to f, with the chosen per-tensor scaling.
Quantized quantize(std::span<const double> values, Format f, Scaling scaling) {
  Quantized q;
  q.bits.resize(values.size());
  float scale = 1.0f;
  if (scaling != Scaling::none) {
    double amax = 0;
    for (double v : values)
      if (std::isfinite(v)) amax = std::max(amax, std::fabs(v));
    if (amax > 0) {
      scale = static_cast<float>(max_finite(f)) / static_cast<float>(amax);
      if (scaling == Scaling::pow2) {
        int e = 0;
        std::frexp(scale, &e);  // scale = m·2^e, m in [0.5, 1)
        scale = std::ldexp(1.0f, e - 1);
      }
      if (!std::isfinite(scale) || scale == 0) scale = 1.0f;
    }
  }
  q.scale_inv = 1.0f / scale;
  const bool sat = is_fp8(f);
  const double maxf = max_finite(f);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = scaling == Scaling::none ? values[i] : static_cast<double>(mul32(static_cast<float>(values[i]), scale));
    q.bits[i] = encode(f, x, Rounding::nearest_even, sat);
    // satfinite clamped what RNE alone would have rounded past max finite
    if (sat && std::isfinite(x) && std::fabs(x) > maxf && encode(f, x, Rounding::nearest_even, false) != q.bits[i])
      q.saturated = true;
  }
  return q;
}

// Block scaling (Scaling::block, chain.hpp): the K dimension of A (m×k) is its columns, of B
// (k×n) its rows; one scale per `in.scale_block` elements along K of each row of A / column of B.
struct BlockQuantized {
  std::vector<std::uint32_t> bits, scales;
  float scale_inv = 1.0f;  // 1 / the per-tensor scale (NVFP4), 1 for MX
  bool saturated = false;
};

BlockQuantized quantize_blocks(std::span<const double> values, int rows, int cols, bool k_is_cols, Format elem,
                               const Instruction& in) {
  const int kdim = k_is_cols ? cols : rows, outer = k_is_cols ? rows : cols, v = in.scale_block, nb = kdim / v;
  auto at = [&](int o, int kk) { return k_is_cols ? static_cast<std::size_t>(o) * cols + kk : static_cast<std::size_t>(kk) * cols + o; };
  auto scale_at = [&](int o, int b) { return k_is_cols ? static_cast<std::size_t>(o) * nb + b : static_cast<std::size_t>(b) * outer + o; };
  BlockQuantized q;
  q.bits.resize(values.size());
  q.scales.resize(static_cast<std::size_t>(outer) * nb);
  const bool nvfp4 = in.scale_type == Format::ue4m3;
  const double elem_max = max_finite(elem);
  double global = 1.0;  // NVFP4's per-tensor scale: the largest block scale lands on ue4m3's max
  if (nvfp4) {
    double amax = 0;
    for (double x : values)
      if (std::isfinite(x)) amax = std::max(amax, std::fabs(x));
    if (amax > 0) global = static_cast<double>(static_cast<float>(max_finite(Format::ue4m3) * elem_max / amax));
    if (!std::isfinite(global) || global == 0) global = 1.0;
    q.scale_inv = static_cast<float>(1.0 / global);
  }
  for (int o = 0; o < outer; ++o)
    for (int b = 0; b < nb; ++b) {
      double amax = 0;
      for (int kk = b * v; kk < (b + 1) * v; ++kk)
        if (std::isfinite(values[at(o, kk)])) amax = std::max(amax, std::fabs(values[at(o, kk)]));
      double scale = 1.0;  // what one element code is worth times
      std::uint32_t sbits = 0;
      if (nvfp4) {
        sbits = encode(Format::ue4m3, amax / elem_max * global, Rounding::nearest_even, true);
        scale = to_double(Format::ue4m3, sbits) / global;
      } else {
        // OCP MX v1.0 §6.3: X = 2^(floor(log2 amax) - emax of the element format).
        int e = 0;
        if (amax > 0) {
          std::frexp(amax, &e);  // amax = m·2^e, m in [0.5, 1): floor(log2 amax) = e - 1
          e = std::clamp(e - 1 - spec(elem).emax(), -127, 127);
        }
        sbits = static_cast<std::uint32_t>(e + 127);
        scale = std::ldexp(1.0, e);
      }
      q.scales[scale_at(o, b)] = sbits;
      for (int kk = b * v; kk < (b + 1) * v; ++kk) {
        const double x = scale > 0 ? values[at(o, kk)] / scale : 0.0;
        q.bits[at(o, kk)] = encode(elem, x, Rounding::nearest_even, true);
        // satfinite clamped what RNE alone would have rounded past max finite (half an ulp beyond it)
        if (std::fabs(x) >= elem_max + std::ldexp(1.0, spec(elem).emax() - spec(elem).frac_bits - 1)) q.saturated = true;
      }
    }
  return q;
}

// ---- the trial state ------------------------------------------------------------------------------

struct TrialState {
  NormalStream rng;  // N(0,1), tcnum/reference/normal.hpp
  std::vector<double> low;       // D_{n-1} of the tensor-core chain (A at n = 1), fp32 (or D-format) values
  std::vector<float> ref32;      // FP32 CPU chain
  std::vector<MpfrValue> exact;  // exact chain
  std::vector<double> b_ref;     // this link's B as the references see it
  std::vector<double> b_low;     // this link's B before conversion (fp32 or low values)
  float alpha = 1.0f;            // dequantisation factor of this link
  bool saturated = false;
  explicit TrialState(std::uint64_t seed) : rng(seed) {}
};

// One drawn value: the fp32 value and what the references use.
double draw(NormalStream& rng, Init init, Format low_format) {
  const double x = rng();
  if (init == Init::fp32) return static_cast<double>(static_cast<float>(x));
  return to_double(low_format, encode(low_format, x, Rounding::nearest_even, is_fp8(low_format)));
}

}  // namespace

// ---- public helpers -------------------------------------------------------------------------------

std::string_view name_of(Init i) { return i == Init::low ? "low" : "fp32"; }
std::string_view name_of(Scaling s) {
  switch (s) {
    case Scaling::none: return "none";
    case Scaling::amax: return "amax";
    case Scaling::pow2: return "pow2";
    case Scaling::block: return "block";
  }
  return "?";
}

std::optional<Init> parse_init(std::string_view s) {
  if (s == "low") return Init::low;
  if (s == "fp32") return Init::fp32;
  return std::nullopt;
}

std::optional<Scaling> parse_scaling(std::string_view s) {
  if (s == "none") return Scaling::none;
  if (s == "amax") return Scaling::amax;
  if (s == "pow2") return Scaling::pow2;
  if (s == "block") return Scaling::block;
  return std::nullopt;
}

Instruction study_instruction(Format dtype, Family family, int sm) {
  const bool paper_shape = family == Family::mma && (dtype == Format::fp16 || dtype == Format::bf16 || dtype == Format::tf32);
  return tcnum::default_instruction(dtype, sm, Format::fp32, family, paper_shape ? 8 : 0);
}

std::uint64_t trial_seed(std::uint64_t seed, int trial) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(trial) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double relative_l2_error(std::span<const double> low, std::span<const double> ref) {
  if (low.size() != ref.size())
    throw std::invalid_argument("relative_l2_error: the result has " + std::to_string(low.size()) +
                                " values and the reference " + std::to_string(ref.size()));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < low.size(); ++i) {
    if (!std::isfinite(low[i])) return std::numeric_limits<double>::quiet_NaN();
    const double d = low[i] - ref[i];
    num += d * d;
    den += low[i] * low[i];
  }
  return den > 0 ? std::sqrt(num) / std::sqrt(den) : (num > 0 ? std::numeric_limits<double>::infinity() : 0.0);
}

namespace {

// The configuration with K defaulted to the instruction's, or an error naming what is wrong.
Config checked_config(const Config& cfg_in) {
  Config cfg = cfg_in;
  const Instruction& in = cfg.instr;
  if (cfg.k == 0) cfg.k = in.k;
  if (cfg.rows <= 0 || cfg.k <= 0 || cfg.max_len <= 0 || cfg.trials <= 0)
    throw std::invalid_argument("chain: rows, k, max_len and trials must be positive");
  if (cfg.k % in.k != 0)
    throw std::invalid_argument("chain: K = " + std::to_string(cfg.k) + " is not a multiple of " + in.name + "'s K");
  if (in.block_scaled() != (cfg.scaling == Scaling::block))
    throw std::invalid_argument("chain: " + in.name +
                                (in.block_scaled() ? " is block-scaled: it takes --scaling block only"
                                                   : " is not block-scaled: --scaling block needs a kind::mx* instruction"));
  return cfg;
}

// One link's GEMM: A (and every D) is m×k, B is k×n with n = k; sizes in elements.
struct LinkShape {
  int m, k, n;
  std::size_t a, b, d;
  explicit LinkShape(const Config& cfg)
      : m(cfg.rows), k(cfg.k), n(cfg.k), a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n),
        d(static_cast<std::size_t>(m) * n) {}
};

// Each trial's A: drawn in A's format (init low) or fp32, and its copies for the references.
std::vector<std::unique_ptr<TrialState>> initial_states(const Config& cfg, const LinkShape& shape) {
  std::vector<std::unique_ptr<TrialState>> states(static_cast<std::size_t>(cfg.trials));
  parallel_for(states.size(), cfg.threads, [&](std::size_t t) {
    auto s = std::make_unique<TrialState>(trial_seed(cfg.seed, static_cast<int>(t)));
    s->low.resize(shape.a);
    for (auto& v : s->low) v = draw(s->rng, cfg.init, cfg.instr.a_type);
    if (cfg.fp32_reference) s->ref32.assign(s->low.begin(), s->low.end());
    if (cfg.exact_reference) {
      s->exact = std::vector<MpfrValue>(shape.a);
      for (std::size_t i = 0; i < shape.a; ++i) set_exact(s->exact[i].v, s->low[i]);
    }
    states[t] = std::move(s);
  });
  return states;
}

// The operands of all trials' GEMMs of one link, in the input formats, as batched_gemm takes them.
struct LinkBatch {
  std::vector<std::uint32_t> a, b;
  BatchScales scales;
};

// Draws trial t's B and writes its A and B, converted to the input formats, into the batch.
void convert_operands(const Config& cfg, const LinkShape& shape, std::size_t t, TrialState& s, LinkBatch& batch) {
  const Instruction& in = cfg.instr;
  s.b_low.resize(shape.b);
  for (auto& v : s.b_low) v = draw(s.rng, cfg.init, in.b_type);
  const auto a_at = static_cast<std::ptrdiff_t>(t * shape.a), b_at = static_cast<std::ptrdiff_t>(t * shape.b);
  if (cfg.scaling == Scaling::block) {
    const BlockQuantized qa = quantize_blocks(s.low, shape.m, shape.k, true, in.a_type, in);
    const BlockQuantized qb = quantize_blocks(s.b_low, shape.k, shape.n, false, in.b_type, in);
    std::copy(qa.bits.begin(), qa.bits.end(), batch.a.begin() + a_at);
    std::copy(qb.bits.begin(), qb.bits.end(), batch.b.begin() + b_at);
    std::copy(qa.scales.begin(), qa.scales.end(), batch.scales.a.begin() + static_cast<std::ptrdiff_t>(t * qa.scales.size()));
    std::copy(qb.scales.begin(), qb.scales.end(), batch.scales.b.begin() + static_cast<std::ptrdiff_t>(t * qb.scales.size()));
    s.alpha = mul32(qa.scale_inv, qb.scale_inv);
    s.saturated = qa.saturated || qb.saturated;
    return;
  }
  const Quantized qa = quantize(s.low, in.a_type, cfg.scaling);
  const Quantized qb = quantize(s.b_low, in.b_type, cfg.scaling);
  std::copy(qa.bits.begin(), qa.bits.end(), batch.a.begin() + a_at);
  std::copy(qb.bits.begin(), qb.bits.end(), batch.b.begin() + b_at);
  s.alpha = mul32(qa.scale_inv, qb.scale_inv);
  s.saturated = qa.saturated || qb.saturated;
}

// The tensor core's D as values, dequantised by the link's alpha when the inputs were scaled.
std::vector<double> dequantised(const Config& cfg, std::span<const std::uint32_t> d, float alpha) {
  std::vector<double> low(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    double v = to_double(cfg.instr.d_type, d[i]);
    if (cfg.scaling != Scaling::none) v = static_cast<double>(mul32(static_cast<float>(v), alpha));
    low[i] = v;
  }
  return low;
}

// One link of the FP32 CPU chain: ref32 = ref32 · B, each product and sum rounded to fp32.
void advance_fp32_chain(const LinkShape& shape, TrialState& s) {
  const int m = shape.m, n = shape.n, k = shape.k;
  std::vector<float> next(shape.d);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int q = 0; q < k; ++q)
        acc = add32(acc, mul32(s.ref32[static_cast<std::size_t>(i) * k + q],
                               static_cast<float>(s.b_low[static_cast<std::size_t>(q) * n + j])));
      next[static_cast<std::size_t>(i) * n + j] = acc;
    }
  s.ref32 = std::move(next);
}

// One link of the exact chain: exact = exact · B, in MPFR without rounding.
void advance_exact_chain(const LinkShape& shape, TrialState& s) {
  const int m = shape.m, n = shape.n, k = shape.k;
  std::vector<MpfrValue> bex(shape.b);
  for (std::size_t i = 0; i < shape.b; ++i) set_exact(bex[i].v, s.b_low[i]);
  std::vector<mpfr_srcptr> araw(shape.a), braw(shape.b);
  for (std::size_t i = 0; i < shape.a; ++i) araw[i] = s.exact[i].v;
  for (std::size_t i = 0; i < shape.b; ++i) braw[i] = bex[i].v;
  std::vector<MpfrValue> next(shape.d);
  DotScratch scratch(k);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      exact_dot(next[static_cast<std::size_t>(i) * n + j].v, k, &araw[static_cast<std::size_t>(i) * k], 1,
                &braw[static_cast<std::size_t>(j)], static_cast<std::size_t>(n), scratch);
  s.exact = std::move(next);
}

// Σ (x - exact)² and Σ x², each difference rounded once to double.
struct ErrorSums {
  double num = 0, den = 0;
};
ErrorSums error_sums_against_exact(std::span<const double> x, const std::vector<MpfrValue>& exact) {
  ErrorSums sums;
  mpfr_t diff;
  mpfr_init2(diff, 53);
  for (std::size_t i = 0; i < x.size(); ++i) {
    mpfr_set_d(diff, x[i], MPFR_RNDN);  // exact: x is a double
    mpfr_sub(diff, diff, exact[i].v, MPFR_RNDN);
    const double e = mpfr_get_d(diff, MPFR_RNDN);
    sums.num += e * e;
    sums.den += x[i] * x[i];
  }
  mpfr_clear(diff);
  return sums;
}

// The errors against the exact chain, of the tensor core's D and (both references on) of the FP32 chain.
void record_exact_errors(const Config& cfg, const TrialState& s, std::span<const double> low, bool finite, Link& out) {
  const ErrorSums tc = finite ? error_sums_against_exact(low, s.exact) : ErrorSums{};
  if (cfg.fp32_reference) {
    const std::vector<double> ref(s.ref32.begin(), s.ref32.end());
    const ErrorSums base = error_sums_against_exact(ref, s.exact);
    out.baseline_err_exact = base.den > 0 ? std::sqrt(base.num) / std::sqrt(base.den) : 0.0;
  }
  out.rel_err_exact = !finite        ? std::numeric_limits<double>::quiet_NaN()
                      : tc.den > 0   ? std::sqrt(tc.num) / std::sqrt(tc.den)
                                     : (tc.num > 0 ? std::numeric_limits<double>::infinity() : 0.0);
}

// Trial t's link: its D's hash and overflow, the references advanced one link and the errors against them.
void measure_link(const Config& cfg, const LinkShape& shape, int link, std::span<const std::uint32_t> d, TrialState& s,
                  Trial& tr) {
  Link& out = tr.links[static_cast<std::size_t>(link - 1)];
  out.d_hash = fnv1a(d);
  out.saturated = s.saturated;
  std::vector<double> low = dequantised(cfg, d, s.alpha);
  const bool finite = std::all_of(low.begin(), low.end(), [](double v) { return std::isfinite(v); });
  out.overflow = !finite;
  if (!finite && tr.first_overflow == 0) tr.first_overflow = link;
  if (cfg.fp32_reference) {
    advance_fp32_chain(shape, s);
    const std::vector<double> ref(s.ref32.begin(), s.ref32.end());
    out.rel_err_fp32 = relative_l2_error(low, ref);
  }
  if (cfg.exact_reference) {
    advance_exact_chain(shape, s);
    record_exact_errors(cfg, s, low, finite, out);
  }
  s.low = std::move(low);
}

}  // namespace

Result run(const Config& cfg_in, const BlackBox& box, const Progress& progress) {
  const Config cfg = checked_config(cfg_in);
  const Instruction& in = cfg.instr;
  const LinkShape shape(cfg);
  const std::size_t trials = static_cast<std::size_t>(cfg.trials);

  Result result;
  result.config = cfg;
  result.trials.resize(trials);
  for (auto& t : result.trials) t.links.resize(static_cast<std::size_t>(cfg.max_len));

  std::vector<std::unique_ptr<TrialState>> states = initial_states(cfg, shape);
  LinkBatch batch;
  batch.a.resize(trials * shape.a);
  batch.b.resize(trials * shape.b);
  const std::size_t nb = in.block_scaled() ? static_cast<std::size_t>(shape.k / in.scale_block) : 0;
  batch.scales.a.resize(trials * static_cast<std::size_t>(shape.m) * nb);
  batch.scales.b.resize(trials * nb * static_cast<std::size_t>(shape.n));
  const std::size_t total = trials * static_cast<std::size_t>(cfg.max_len);
  for (int link = 1; link <= cfg.max_len; ++link) {
    parallel_for(trials, cfg.threads, [&](std::size_t t) { convert_operands(cfg, shape, t, *states[t], batch); });
    // The tensor-core products, all trials at once.
    const std::vector<std::uint32_t> d =
        batched_gemm(box, in, cfg.trials, shape.m, shape.n, shape.k, batch.a, batch.b, batch.scales);
    parallel_for(trials, cfg.threads, [&](std::size_t t) {
      measure_link(cfg, shape, link, std::span<const std::uint32_t>(d.data() + t * shape.d, shape.d), *states[t],
                   result.trials[t]);
    });
    if (progress) progress(trials * static_cast<std::size_t>(link), total);
  }
  return result;
}

std::vector<Point> summarize(const Result& r) {
  std::vector<Point> out;
  auto median = [](std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2) return *mid;
    return (*mid + *std::max_element(v.begin(), mid)) / 2;
  };
  for (int link = 1; link <= r.config.max_len; ++link) {
    Point p;
    p.n = link;
    p.trials = static_cast<int>(r.trials.size());
    std::vector<double> e32, eex, base;
    int saturated = 0;
    for (const Trial& t : r.trials) {
      const Link& l = t.links[static_cast<std::size_t>(link - 1)];
      saturated += l.saturated;
      if (std::isfinite(l.baseline_err_exact)) base.push_back(l.baseline_err_exact);
      if (l.overflow) continue;
      ++p.finite;
      if (std::isfinite(l.rel_err_fp32)) e32.push_back(l.rel_err_fp32);
      if (std::isfinite(l.rel_err_exact)) eex.push_back(l.rel_err_exact);
    }
    auto mean = [](const std::vector<double>& v) {
      if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
      double s = 0;
      for (double x : v) s += x;
      return s / static_cast<double>(v.size());
    };
    p.mean_rel_err_fp32 = mean(e32);
    p.mean_rel_err_exact = mean(eex);
    p.mean_baseline_err_exact = mean(base);
    p.median_rel_err_fp32 = median(e32);
    p.median_rel_err_exact = median(eex);
    p.overflow_fraction = 1.0 - static_cast<double>(p.finite) / p.trials;
    p.saturated_fraction = static_cast<double>(saturated) / p.trials;
    out.push_back(p);
  }
  return out;
}

}  // namespace tcnum::chain
