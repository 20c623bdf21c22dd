// The epilogue after the MMA (tcnum/core/epilogue.hpp): fp32 scaling, bias, ReLU, conversion.
#include "tcnum/core/epilogue.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tcnum {
namespace {

// x·y + z in binary32: one rounding (fused) or two.
float mul_add(float x, float y, float z, bool fused) {
  if (fused) return std::fmaf(x, y, z);
  volatile float product = x * y;  // volatile: keeps the compiler from contracting into an fma
  return product + z;
}

}  // namespace

std::uint32_t epilogue_element(const Epilogue& ep, float acc, float c, float bias, Format out) {
  const bool has_bias = ep.bias_kind != BiasKind::none;
  float x = has_bias ? mul_add(ep.alpha, acc, bias, ep.fused) : ep.alpha * acc;
  if (ep.beta != 0.0f) x = mul_add(ep.beta, c, x, ep.fused);
  if (ep.relu && !std::isnan(x) && !(x > 0.0f)) x = 0.0f;
  const bool fp8 = out == Format::e4m3 || out == Format::e5m2;
  return encode(out, x, ep.rounding, fp8 && ep.satfinite);  // NaN: canonical NaN of `out`
}

namespace detail {
namespace {
[[noreturn]] void fail(const Instruction& in, const std::string& why) {
  throw std::invalid_argument("tcnum::gemm_with_epilogue(" + in.name + "): " + why);
}
float value_at(const AnyView& v, int i, int j) {
  const std::uint32_t raw = v.load(i, j);
  return v.kind == ElementKind::real ? std::bit_cast<float>(raw) : static_cast<float>(to_double(v.format, raw));
}
}  // namespace

void gemm_epilogue_views(const Model& model, const Instruction& in, const AnyView& a, const AnyView& b,
                         const AnyView* c, const AnyView& d, const Epilogue& ep, const GemmOptions& opt,
                         const Conversion& conv) {
  const int m = a.rows, n = b.cols;
  if (d.writable == nullptr) fail(in, "D is a view of const elements");
  if (ep.beta != 0.0f && c == nullptr) fail(in, "beta = " + std::to_string(ep.beta) + " but no C was given");
  if (c != nullptr && (c->rows != m || c->cols != n))
    fail(in, "C is " + std::to_string(c->rows) + "×" + std::to_string(c->cols) + ", D must be M×N = " +
                 std::to_string(m) + "×" + std::to_string(n));
  const std::size_t bias_len = ep.bias_kind == BiasKind::per_row ? std::size_t(m)
                               : ep.bias_kind == BiasKind::per_column ? std::size_t(n) : ep.bias.size();
  if (ep.bias.size() != bias_len)
    fail(in, "bias has " + std::to_string(ep.bias.size()) + " values, expected " + std::to_string(bias_len) +
                 (ep.bias_kind == BiasKind::per_row ? " (one per row, M)" : ep.bias_kind == BiasKind::per_column
                                                                                ? " (one per column, N)"
                                                                                : " (no bias kind set)"));
  // The accumulators, in the instruction's D format, row-major.
  std::vector<std::uint32_t> acc(std::size_t(m) * std::size_t(n));
  AnyView acc_view;
  acc_view.data = acc_view.writable = acc.data();
  acc_view.rows = m, acc_view.cols = n, acc_view.ld = n > 0 ? n : 1, acc_view.format = in.d_type;
  gemm_views(model, in, a, b, nullptr, acc_view, opt, conv);

  const Format out = d.kind == ElementKind::real ? Format::fp32 : d.format;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float x = static_cast<float>(to_double(in.d_type, acc[std::size_t(i) * n + j]));
      const float cv = ep.beta != 0.0f ? value_at(*c, i, j) : 0.0f;
      const float bias = ep.bias_kind == BiasKind::per_row      ? ep.bias[std::size_t(i)]
                         : ep.bias_kind == BiasKind::per_column ? ep.bias[std::size_t(j)]
                                                                : 0.0f;
      d.store(i, j, epilogue_element(ep, x, cv, bias, out));
    }
}

}  // namespace detail
}  // namespace tcnum
