// Element-wise profiling after Sun et al., "Dissecting Tensor Cores via Microbenchmarks"
// (IEEE TPDS 2023), §8.1, Fig. 16: multiplication, inner-product addition and accumulation
// isolated; mean error against an FP32 CPU baseline and against the exact value (MPFR).
#include <cmath>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/reference/mpfr_reference.hpp"

namespace tcnum::features {

std::string_view name_of(ProfileOp op) {
  switch (op) {
    case ProfileOp::multiply: return "multiply";
    case ProfileOp::inner: return "inner";
    case ProfileOp::accumulate: return "accumulate";
  }
  return "?";
}

std::string_view name_of(Init init) { return init == Init::low ? "low" : "fp32"; }

ProfileCell profile(const Instruction& in, const BlackBox& box, ProfileOp op, Init init, std::size_t trials,
                    std::uint64_t seed, bool c_in_input_format) {
  if (in.k < 2) throw std::invalid_argument("profile: " + in.name + " has K < 2");
  // The draws: FP32 N(0,1) values from the seeded generator, three per trial (x0, x1, x2).
  Instruction draw = in;
  draw.a_type = draw.b_type = draw.c_type = draw.d_type = Format::fp32;
  draw.k = 1;
  const auto draws = reference::frozen_v1::generate(draw, "normal", trials, seed);

  const Format fa = in.a_type, fb = in.b_type, fc = in.c_type, fd = in.d_type;
  auto to_low = [](Format f, std::uint32_t x32) {
    const bool fp8 = f == Format::e4m3 || f == Format::e5m2;
    return encode(f, to_double(Format::fp32, x32), Rounding::nearest_even, fp8);  // cvt.rn(.satfinite)
  };
  auto as_fp32 = [](Format f, std::uint32_t bits) { return encode(Format::fp32, to_double(f, bits)); };  // exact: f ⊂ fp32

  std::vector<Case> cases;
  cases.reserve(trials);
  // CPU operands (FP32 bits) per trial: a0, b0, a1, b1, c.
  struct Cpu {
    std::uint32_t a0, b0, a1, b1, c;
  };
  std::vector<Cpu> cpu;
  cpu.reserve(trials);
  const std::uint32_t one32 = encode(Format::fp32, 1.0), zero32 = 0;
  for (const auto& d : draws) {
    const std::uint32_t x0 = d.a[0], x1 = d.b[0], x2 = d.c;
    Case g;
    g.a.assign(in.k, zero_bits(fa, false));
    g.b.assign(in.k, zero_bits(fb, false));
    g.c = zero_bits(fc, false);
    Cpu c{zero32, zero32, zero32, zero32, zero32};
    const std::uint32_t A0 = to_low(fa, x0);
    const bool low = init == Init::low;
    switch (op) {
      case ProfileOp::multiply: {
        const std::uint32_t B0 = to_low(fb, x1);
        g.a[0] = A0, g.b[0] = B0;
        c.a0 = low ? as_fp32(fa, A0) : x0;
        c.b0 = low ? as_fp32(fb, B0) : x1;
        break;
      }
      case ProfileOp::inner: {
        const std::uint32_t A1 = to_low(fa, x2);
        g.a[0] = A0, g.b[0] = encode(fb, 1.0);
        g.a[1] = A1, g.b[1] = encode(fb, 1.0);
        c.a0 = low ? as_fp32(fa, A0) : x0;
        c.a1 = low ? as_fp32(fa, A1) : x2;
        c.b0 = c.b1 = one32;
        break;
      }
      case ProfileOp::accumulate: {
        // C drawn like the inputs: only changes init low (init fp32 draws every operand in FP32).
        const bool c_like_a = c_in_input_format && init == Init::low;
        const std::uint32_t C = c_like_a ? encode(fc, to_double(fa, to_low(fa, x2))) : to_low(fc, x2);
        g.a[0] = A0, g.b[0] = encode(fb, 1.0);
        g.c = C;
        c.a0 = low ? as_fp32(fa, A0) : x0;
        c.b0 = one32;
        c.c = low ? as_fp32(fc, C) : x2;
        break;
      }
    }
    cases.push_back(std::move(g));
    cpu.push_back(c);
  }
  const auto out = box.cases(in, cases);
  if (out.size() != cases.size()) throw std::runtime_error("profile: the black box returned the wrong number of results");

  ProfileCell cell;
  cell.op = op;
  cell.init = init;
  cell.trials = trials;
  MpfrValue exact(64), dv(64), diff(64);
  long double sum_cpu = 0, sum_cvt = 0, sum_exact = 0;
  for (std::size_t t = 0; t < cases.size(); ++t) {
    const Cpu& c = cpu[t];
    const std::uint32_t a32[2] = {c.a0, c.a1}, b32[2] = {c.b0, c.b1};
    // FP32 CPU: products are exact in FP32 here except multiply's, which one rounding covers;
    // the one addition of inner/accumulate is one correctly rounded FP32 addition.
    const std::uint32_t r32 = exact_dot_rounded(Format::fp32, Format::fp32, Format::fp32, a32, b32, c.c, Format::fp32,
                                                Rounding::nearest_even);
    const double r = to_double(Format::fp32, r32);
    const double d = to_double(fd, out[t]);
    const double e1 = std::fabs(d - r);
    sum_cpu += e1;
    cell.differ_cpu_fp32 += e1 != 0;
    if (fd != Format::fp32) {
      const double r16 = to_double(fd, encode(fd, r, Rounding::nearest_even));
      const double e2 = std::fabs(d - r16);
      sum_cvt += e2;
      cell.differ_cpu_fp32_cvt += e2 != 0;
    }
    exact_dot(exact, fa, fb, fc, cases[t].a, cases[t].b, cases[t].c);
    mpfr_set_bits(dv, fd, out[t]);
    mpfr_set_prec(diff, mpfr_get_prec(exact) + 64);
    mpfr_sub(diff, dv, exact, MPFR_RNDN);
    const double e3 = std::fabs(mpfr_get_d(diff, MPFR_RNDN));
    sum_exact += e3;
    cell.differ_exact += e3 != 0;
  }
  const long double n = trials ? static_cast<long double>(trials) : 1.0L;
  cell.vs_cpu_fp32 = static_cast<double>(sum_cpu / n);
  cell.vs_cpu_fp32_cvt = fd != Format::fp32 ? static_cast<double>(sum_cvt / n) : 0.0;
  cell.vs_exact = static_cast<double>(sum_exact / n);
  return cell;
}

}  // namespace tcnum::features
