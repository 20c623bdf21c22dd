// GEMM on matrix views: gather the views into tcnum::gemm's raw row-major operands, run it,
// scatter D into the caller's view (tcnum/core/gemm_views.hpp).
#include "tcnum/core/gemm_views.hpp"

#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace tcnum::detail {
namespace {

[[noreturn]] void fail(const Instruction& in, const std::string& why) {
  throw std::invalid_argument("tcnum::gemm(" + in.name + "): " + why);
}

std::string shape(const AnyView& v) { return std::to_string(v.rows) + "×" + std::to_string(v.cols); }

std::string describe_float(float x) {
  std::ostringstream os;
  os.precision(9);
  os << x << " (" << std::hexfloat << x << ")";
  return os.str();
}

// float -> format, with the check that the value survives unless inexact results are allowed.
std::uint32_t convert(float x, Format f, const Conversion& conv, const Instruction& in, const char* operand, int i,
                      int j) {
  const bool fp8 = f == Format::e4m3 || f == Format::e5m2;
  const std::uint32_t bits = encode(f, x, conv.rounding, fp8 && conv.satfinite);
  if (std::isnan(x) || conv.allow_inexact) return bits;  // NaN: the format's canonical NaN
  const double back = to_double(f, bits);
  if (back != static_cast<double>(x) || std::signbit(back) != std::signbit(x))
    fail(in, std::string(operand) + "(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + describe_float(x) +
                 " is not exactly representable in " + std::string(name_of(f)) + " (it would become " +
                 describe_float(static_cast<float>(back)) +
                 "); round the data first, or pass tcnum::Conversion{.allow_inexact = true}");
  return bits;
}

}  // namespace

std::vector<std::uint32_t> gather(const AnyView& v, Format operand_format, const Conversion& conv,
                                  const Instruction& in, const char* operand) {
  if (v.kind == ElementKind::bits && v.format != operand_format)
    fail(in, std::string(operand) + " holds " + std::string(name_of(v.format)) + " but the instruction takes " +
                 std::string(name_of(operand_format)) + " there");
  std::vector<std::uint32_t> out(std::size_t(v.rows) * std::size_t(v.cols));
  const bool convert_floats = v.kind == ElementKind::real && operand_format != Format::fp32;
  std::size_t at = 0;
  for (int i = 0; i < v.rows; ++i)
    for (int j = 0; j < v.cols; ++j) {
      const std::uint32_t raw = v.load(i, j);
      out[at++] = convert_floats ? convert(std::bit_cast<float>(raw), operand_format, conv, in, operand, i, j) : raw;
    }
  return out;
}

void scatter(const std::vector<std::uint32_t>& values, Format format, const AnyView& out, const Instruction& in,
             const char* what) {
  if (out.kind == ElementKind::bits && out.format != format)
    fail(in, std::string(what) + " is " + std::string(name_of(format)) + " but the view given for it holds " +
                 std::string(name_of(out.format)) +
                 " (convert with an epilogue: tcnum::gemm_with_epilogue, or give a float view)");
  if (out.kind == ElementKind::real && format != Format::fp32 && format != Format::fp16 && format != Format::bf16)
    fail(in, std::string(what) + " is " + std::string(name_of(format)) + ", which a float view cannot hold exactly");
  std::size_t at = 0;
  for (int i = 0; i < out.rows; ++i)
    for (int j = 0; j < out.cols; ++j) {
      const std::uint32_t bits = values[at++];
      out.store(i, j, out.kind == ElementKind::bits || format == Format::fp32
                          ? bits
                          : std::bit_cast<std::uint32_t>(static_cast<float>(to_double(format, bits))));
    }
}

void gemm_views(const Model& model, const Instruction& in, const AnyView& a, const AnyView& b, const AnyView* c,
                const AnyView& d, const GemmOptions& opt, const Conversion& conv) {
  const int m = a.rows, k = a.cols, n = b.cols;
  if (b.rows != k || d.rows != m || d.cols != n || (c != nullptr && (c->rows != m || c->cols != n)))
    fail(in, "shapes do not agree: A " + shape(a) + ", B " + shape(b) + (c ? ", C " + shape(*c) : std::string()) +
                 ", D " + shape(d) + " (need A M×K, B K×N, C and D M×N)");
  if (d.writable == nullptr) fail(in, "D is a view of const elements");
  const std::vector<std::uint32_t> ra = gather(a, in.a_type, conv, in, "A");
  const std::vector<std::uint32_t> rb = gather(b, in.b_type, conv, in, "B");
  const std::vector<std::uint32_t> rc =
      c ? gather(*c, in.c_type, conv, in, "C")
        : std::vector<std::uint32_t>(std::size_t(m) * std::size_t(n), zero_bits(in.c_type, false));
  scatter(gemm(model, in, m, n, k, ra, rb, rc, opt), in.d_type, d, in, "D");
}

}  // namespace tcnum::detail
