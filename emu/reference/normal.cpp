// The one N(0,1) source (tcnum/reference/normal.hpp): a ziggurat with MPFR-computed tables.
#include "tcnum/reference/normal.hpp"

#include <array>

#include "tcnum/reference/mpfr_reference.hpp"

namespace tcnum {
namespace {

// The Marsaglia–Tsang (2000) ziggurat for N(0,1), 128 layers, with its tables computed
// by MPFR (correctly rounded, hence identical everywhere). The fast path (~99%) is an
// integer comparison and one IEEE double multiplication (exactly specified); the wedge
// and tail tests evaluate exp and log in MPFR. The result is the same double on every
// conforming platform.
struct ZigguratTables {
  static constexpr double kR = 3.442619855899;         // right edge of the base layer
  static constexpr double kV = 9.91256303526217e-3;    // area of every layer
  static constexpr double kScale = 0x1p53;             // |hz| < 2^53
  std::array<std::uint64_t, 128> k{};
  std::array<double, 128> w{}, f{};

  ZigguratTables() {
    MpfrValue dn(64), tn(64), q(64), t(64), e(64);
    mpfr_set_d(dn, kR, MPFR_RNDN);
    mpfr_set_d(tn, kR, MPFR_RNDN);
    gauss(e, dn);                            // exp(-r^2/2)
    mpfr_d_div(q, kV, e, MPFR_RNDN);         // q = v / exp(-r^2/2)
    mpfr_div(t, dn, q, MPFR_RNDN);
    mpfr_mul_d(t, t, kScale, MPFR_RNDN);
    k[0] = mpfr_get_uj(t, MPFR_RNDZ);
    k[1] = 0;
    mpfr_div_d(t, q, kScale, MPFR_RNDN);
    w[0] = mpfr_get_d(t, MPFR_RNDN);
    w[127] = kR / kScale;                    // exact: a power-of-two scale
    f[0] = 1.0;
    f[127] = mpfr_get_d(e, MPFR_RNDN);
    for (int i = 126; i >= 1; --i) {
      // dn = sqrt(-2 ln(v / dn + exp(-dn^2/2)))
      gauss(e, dn);
      mpfr_d_div(t, kV, dn, MPFR_RNDN);
      mpfr_add(t, t, e, MPFR_RNDN);
      mpfr_log(t, t, MPFR_RNDN);
      mpfr_mul_si(t, t, -2, MPFR_RNDN);
      mpfr_sqrt(dn, t, MPFR_RNDN);
      mpfr_div(t, dn, tn, MPFR_RNDN);
      mpfr_mul_d(t, t, kScale, MPFR_RNDN);
      k[i + 1] = mpfr_get_uj(t, MPFR_RNDZ);
      mpfr_set(tn, dn, MPFR_RNDN);
      gauss(e, dn);
      f[i] = mpfr_get_d(e, MPFR_RNDN);
      mpfr_div_d(t, dn, kScale, MPFR_RNDN);
      w[i] = mpfr_get_d(t, MPFR_RNDN);
    }
  }
  // out = exp(-x^2 / 2)
  static void gauss(mpfr_ptr out, mpfr_srcptr x) {
    mpfr_sqr(out, x, MPFR_RNDN);
    mpfr_div_si(out, out, -2, MPFR_RNDN);
    mpfr_exp(out, out, MPFR_RNDN);
  }
};

const ZigguratTables& zig() {
  static const ZigguratTables t;
  return t;
}

// MPFR scratch for the wedge and tail tests, one set per thread.
struct Scratch {
  MpfrValue u{64}, a{64}, b{64};
};

// Uniform in (0, 1): (2n + 1) / 2^54.
void uniform_open(mpfr_ptr out, std::mt19937_64& g) {
  mpfr_set_ui_2exp(out, static_cast<unsigned long>(((g() >> 11) << 1) | 1u), -54, MPFR_RNDN);  // exact
}

// Beyond r: x = -ln(u1) / r, y = -ln(u2) until 2y >= x^2; returns ±(r + x).
double tail(bool negative, std::mt19937_64& g, Scratch& s) {
  for (;;) {
    uniform_open(s.a, g);
    mpfr_log(s.a, s.a, MPFR_RNDN);
    mpfr_div_d(s.a, s.a, -ZigguratTables::kR, MPFR_RNDN);  // x
    uniform_open(s.b, g);
    mpfr_log(s.b, s.b, MPFR_RNDN);
    mpfr_mul_si(s.b, s.b, -2, MPFR_RNDN);                  // 2y
    mpfr_sqr(s.u, s.a, MPFR_RNDN);                         // x^2
    if (mpfr_greaterequal_p(s.b, s.u)) {
      mpfr_add_d(s.a, s.a, ZigguratTables::kR, MPFR_RNDN);
      const double v = mpfr_get_d(s.a, MPFR_RNDN);
      return negative ? -v : v;
    }
  }
}

}  // namespace

double standard_normal(std::mt19937_64& g) {
  const ZigguratTables& z = zig();
  for (;;) {
    const std::uint64_t r = g();
    const int i = static_cast<int>(r & 127u);
    const std::int64_t hz = static_cast<std::int64_t>(r) >> 10;  // uniform in [-2^53, 2^53)
    const std::uint64_t mag = hz < 0 ? static_cast<std::uint64_t>(-hz) : static_cast<std::uint64_t>(hz);
    const double x = static_cast<double>(hz) * z.w[i];  // hz is exact in a double
    if (mag < z.k[i]) return x;                          // inside the layer's rectangle
    thread_local Scratch s;
    if (i == 0) return tail(hz < 0, g, s);
    // Wedge: accept if f[i] + u (f[i-1] - f[i]) < exp(-x^2/2).
    uniform_open(s.u, g);
    mpfr_set_d(s.a, z.f[i - 1], MPFR_RNDN);
    mpfr_sub_d(s.a, s.a, z.f[i], MPFR_RNDN);
    mpfr_mul(s.a, s.a, s.u, MPFR_RNDN);
    mpfr_add_d(s.a, s.a, z.f[i], MPFR_RNDN);
    mpfr_set_d(s.b, x, MPFR_RNDN);
    ZigguratTables::gauss(s.b, s.b);
    if (mpfr_less_p(s.a, s.b)) return x;
  }
}

}  // namespace tcnum
