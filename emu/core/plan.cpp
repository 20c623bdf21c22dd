// Compiling a plan, and running single elements and batches through it.
#include "tcnum/core/plan.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "fast_kernel.hpp"
#include "reference_element.hpp"
#include "scaled_group.hpp"

namespace tcnum {
namespace {

[[noreturn]] void invalid(const Instruction& in, const std::string& why) {
  throw std::invalid_argument(in.name + ": " + why);
}

bool narrow_float(Format f) { return f == Format::fp32 || f == Format::fp16; }

// The operand formats the fast kernel's planes were built and tested for.
bool fast_operand(Format f) {
  switch (f) {
    case Format::fp16:
    case Format::bf16:
    case Format::tf32:
    case Format::e4m3:
    case Format::e5m2:
    case Format::e2m1:
    case Format::e2m3:
    case Format::e3m2: return true;
    default: return false;
  }
}

// Why the instruction's inputs keep it off the fast kernel ("" if they do not).
std::string fast_inputs(const MmaPlan& plan) {
  const DatapathParams& p = plan.params;
  const Instruction& in = plan.instruction;
  // One term per product and power-of-two scales: a scale is an exponent offset of its operand.
  if (in.block_scaled() && p.scale_group == 1 && spec(in.scale_type).frac_bits != 0)
    return "block scales with significand bits, one term per product";
  // Scaled groups hold their operands as fixed-point integers: formats without NaN/Inf.
  if (in.block_scaled() && p.scale_group > 1 && (spec(plan.a_seen).has_nan || spec(plan.b_seen).has_nan))
    return "scaled groups of operands with NaN/Inf";
  if (!fast_operand(plan.a_seen) || !fast_operand(plan.b_seen)) return "operand formats outside the planes' decoders";
  if (p.flush_subnormal_inputs) return "flush_subnormal_inputs";
  if (!p.overflow_to_inf) return "overflow_to_inf = false (saturating sums)";
  if (p.addend == AddendEntry::last_block) return "C enters in a block of its own (addend last_block)";
  if (p.addend == AddendEntry::after_products) return "C joins each block after its products (addend after_products)";
  if (p.zero_operand_exponent) return "zero operands take part in the alignment (zero_operand_exponent)";
  if (p.products_overflow_to_inf) return "products beyond the block format are Inf (products_overflow_to_inf)";
  if (!narrow_float(in.c_type) || !narrow_float(in.d_type) || !narrow_float(p.block_format))
    return "C, D or the block format is not fp32/f16";
  return "";
}

// Scaled groups (scale_group > 1): a group's sum of fixed-point products times both scales'
// significands must be an exact float integer, and a block's aligned group terms plus C's an
// exact double (returns why not).
std::string prove_group_bounds(MmaPlan& plan, int block) {
  const Instruction& in = plan.instruction;
  const int F = plan.params.frac_bits, group = plan.params.scale_group, fs = spec(in.scale_type).frac_bits;
  const double group_sum = detail::scaled_group_bound(plan.a_seen, plan.b_seen, in.scale_type, group);
  if (group_sum >= std::ldexp(1.0, 24)) return "a scaled group's sum could exceed float's exact integers";
  plan.group_shift = F + detail::smallest_subnormal_exponent(plan.a_seen) +
                     detail::smallest_subnormal_exponent(plan.b_seen) - 2 * fs;
  if (plan.group_shift > 62) return "a scaled group's aligned term could exceed 63 bits";
  const double terms = (block / group) * std::ldexp(group_sum, std::max(plan.group_shift, 0)) + std::ldexp(1.0, F + 1);
  if (terms >= std::ldexp(1.0, 53)) return "a block's aligned group terms could exceed 53 bits";
  plan.scaled_groups = plan.wide_sum = true;  // summed in 64-bit lanes, rounded from double
  return "";
}

// Proves how a block's aligned terms sum exactly: in int32, or guarded (wide_sum), or not at
// all (returns why).
std::string prove_sum_bounds(MmaPlan& plan, int block) {
  if (plan.params.frac_bits > 28) return "more than 28 kept fraction bits";
  const int fa = spec(plan.a_seen).frac_bits, fb = spec(plan.b_seen).frac_bits, F = plan.params.frac_bits;
  // Products of two significands of at most 11 bits are exact in a float.
  if (fa > 10 || fb > 10) return "operands (after unpack_format) wider than 11 significant bits";
  plan.product_shift = F - fa - fb;
  // Every aligned product term is below (2^(fa+1) - 1)(2^(fb+1) - 1)·2^shift; C's term (or the
  // previous block's) is below 2^(F+1).
  const double largest = std::ldexp((std::ldexp(1.0, fa + 1) - 1) * (std::ldexp(1.0, fb + 1) - 1), plan.product_shift);
  const double addend = std::ldexp(1.0, F + 1);
  plan.wide_sum = largest * block >= std::ldexp(1.0, 31);
  // The 16-lane step's int32 runs: as many products as provably sum below 2^31. A lane of a
  // single element holds up to 4 products (K <= 64).
  if (plan.wide_sum) {
    plan.wide_run = static_cast<int>(std::floor(std::ldexp(1.0, 31) / largest - 0x1p-20));
    if (plan.wide_run < 4) return "4 aligned product terms could exceed int32";
  }
  if (largest * block + addend >= std::ldexp(1.0, 53)) return "a block's aligned terms could exceed 53 bits";
  plan.sum_fits_int32 = !plan.wide_sum && largest * block + addend < std::ldexp(1.0, 31);
  return "";
}

// Why the fast kernel cannot run this (params, instruction), or "" when it can. Fills the
// plan's program as it goes.
std::string build_program(MmaPlan& plan, int block) {
  const DatapathParams& p = plan.params;
  const Instruction& in = plan.instruction;
  if (std::string why = fast_inputs(plan); !why.empty()) return why;
  const bool groups = in.block_scaled() && p.scale_group > 1;
  if (std::string why = groups ? prove_group_bounds(plan, block) : prove_sum_bounds(plan, block); !why.empty()) return why;
  plan.scales_in_exponents = in.block_scaled() && !groups;
  const bool c_after = p.addend == AddendEntry::ieee_add;
  const int k = in.k, blocks = k / block;
  for (int blk = 0; blk < blocks; ++blk) {
    detail::PlanBlock b;
    using Addend = detail::PlanBlock::Addend;
    b.addend = blk > 0 ? Addend::previous : c_after ? Addend::zero : Addend::c;
    b.first = blk * block;
    b.last = b.first + block;
    if (k <= 64)
      for (int j = b.first; j < b.last; ++j) b.members |= std::uint64_t{1} << plan.schedule[static_cast<std::size_t>(j)];
    const bool last = blk == blocks - 1;
    if (!last || in.d_type == p.block_format || !p.output_direct || c_after) {
      if (last && !c_after && in.d_type != p.block_format) return "the last block result is converted to D";
      b.target = p.block_format;
      b.nearest_even = p.block_rounding == Rounding::nearest_even;
      b.target_frac_bits = spec(p.block_format).frac_bits;
      if (p.block_result_frac_bits > 0) {
        // RNE to the cut and again to the format is a double rounding, whatever the cut's width;
        // toward zero, the narrower of the two truncations is all that remains.
        if (b.nearest_even) return "a rounded (RNE) cut of block results";
        b.target_frac_bits = std::min(b.target_frac_bits, p.block_result_frac_bits);
      }
    } else {
      b.target = in.d_type;
      b.nearest_even = p.output_rounding == Rounding::nearest_even;
      b.target_frac_bits = spec(in.d_type).frac_bits;
    }
    plan.blocks.push_back(b);
  }
  if (c_after) {
    if (in.c_type != in.d_type || plan.blocks.back().target != in.d_type)
      return "C added after a chain whose format differs from C/D";
    if (p.output_rounding != Rounding::nearest_even) return "C added with a rounding other than RNE";
  }
  plan.c_added_after = c_after;
  return "";
}

// fp8 -> f16 is exact; a table of the 256 patterns per fp8 format avoids to_double per operand.
std::uint32_t unpack_bits(Format storage, Format seen, std::uint32_t bits) {
  if (storage == seen) return bits;
  if (seen == Format::fp16 && (storage == Format::e4m3 || storage == Format::e5m2)) {
    static const auto tables = [] {
      std::array<std::array<std::uint16_t, 256>, 2> t{};
      for (std::uint32_t v = 0; v < 256; ++v) {
        t[0][v] = static_cast<std::uint16_t>(encode(Format::fp16, to_double(Format::e4m3, v)));
        t[1][v] = static_cast<std::uint16_t>(encode(Format::fp16, to_double(Format::e5m2, v)));
      }
      return t;
    }();
    return tables[storage == Format::e4m3 ? 0 : 1][bits & 0xff];
  }
  return encode(seen, to_double(storage, bits));
}

}  // namespace

std::vector<int> product_schedule(const DatapathParams& p, int k) {
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(std::max(k, 0)));
  for (int pass = 0; pass < p.k_passes; ++pass)
    for (int i = 0; i < k; ++i)
      if ((i / p.pass_interleave) % p.k_passes == pass) order.push_back(i);
  return order;
}

int block_length(const DatapathParams& p, int k) {
  const int pass_len = k / std::max(p.k_passes, 1);
  return p.block_size <= 0 ? pass_len : std::min(p.block_size, pass_len);
}

std::vector<int> product_blocks(const DatapathParams& p, int k) {
  const std::vector<int> order = product_schedule(p, k);
  const int block = std::max(block_length(p, k), 1);
  std::vector<int> id(static_cast<std::size_t>(std::max(k, 0)));
  for (std::size_t j = 0; j < order.size(); ++j) id[static_cast<std::size_t>(order[j])] = static_cast<int>(j) / block;
  return id;
}

namespace {
// Integer MMA: no datapath to compile; every element takes integer_mma_element (exact), through
// the reference datapath (detail::reference_element). The formats must be all integer
// (s8/u8/s4/u4 A and B, s32 C and D).
MmaPlan integer_plan(const DatapathParams& p, const Instruction& in) {
  auto operand = [](Format f) { return f == Format::s8 || f == Format::u8 || f == Format::s4 || f == Format::u4; };
  if (!operand(in.a_type) || !operand(in.b_type) || in.c_type != Format::s32 || in.d_type != Format::s32)
    invalid(in, "integer MMA takes s8/u8/s4/u4 A and B and s32 C and D");
  if (in.k <= 0) invalid(in, "k must be positive");
  MmaPlan plan;
  plan.instruction = in;
  plan.params = p;
  plan.reference_only = "integer MMA: exact sums (integer_mma_element), no datapath";
  return plan;
}
}  // namespace

MmaPlan compile_plan(const DatapathParams& p, const Instruction& in) {
  check_formats(in);  // once here: the per-element code indexes the format table unchecked
  if (in.integer() || is_integer(in.b_type) || is_integer(in.c_type) || is_integer(in.d_type))
    return integer_plan(p, in);
  if (in.sparse)  // its A holds K/2 elements placed by metadata: the plan is that of its selected products
    invalid(in, "a sparse instruction has no plan of its own: compile selected_form(in) and gather B by the metadata "
                "(tcnum/core/sparse.hpp: sparse_element)");
  check_format(p.block_format);
  if (p.unpack_format) check_format(*p.unpack_format);
  if (in.k <= 0) invalid(in, "k must be positive");
  if (p.frac_bits < 0 || p.frac_bits > 688) invalid(in, "model frac_bits out of range 0..688");
  if (p.k_passes < 1 || p.pass_interleave < 1 || p.k_passes > in.k || p.pass_interleave > in.k ||
      in.k % (p.k_passes * p.pass_interleave) != 0)
    invalid(in, "K is not a multiple of k_passes * pass_interleave");
  const int pass_len = in.k / p.k_passes;
  const int block = block_length(p, in.k);
  if (pass_len % block != 0) invalid(in, "a block would straddle two passes");
  // As the datapath checks it (datapath.cpp): here too, so that no plan compiles that it refuses.
  if (p.addend == AddendEntry::after_products && (in.block_scaled() || p.k_passes > 1))
    invalid(in, "addend after_products is for plain (not block-scaled, one-pass) blocks");
  if (in.block_scaled()) {
    if (p.scale_group < 1 || in.scale_block % p.scale_group != 0 || block % p.scale_group != 0)
      invalid(in, "scale_group must divide the scale block (" + std::to_string(in.scale_block) + ") and the block (" +
                      std::to_string(block) + ")");
    if (p.k_passes != 1 || p.unpack_format) invalid(in, "block-scaled instructions take one pass, no unpack_format");
    detail::check_scaled_group_range(in, p.scale_group);
  }

  MmaPlan plan;
  plan.instruction = in;
  plan.params = p;
  plan.schedule = product_schedule(p, in.k);
  plan.a_seen = p.unpack_format.value_or(in.a_type);
  plan.b_seen = p.unpack_format.value_or(in.b_type);
  plan.align_floor = p.align_exponent_floor ? std::max(*p.align_exponent_floor, MmaPlan::kNoFloor + 1) : MmaPlan::kNoFloor;
  plan.reference_only = build_program(plan, block);
  plan.fast = plan.reference_only.empty();
  if (!plan.fast) plan.blocks.clear();
  else if (!in.block_scaled()) plan.element_kernel = detail::kernels().element_for(plan);
  return plan;
}

namespace detail {

namespace {
PlaneValue decoded_scale(Format scale_type, std::uint32_t bits) {
  const Decoded d = decode(scale_type, bits);
  if (d.is_nan()) return {0.0f, kSpecialExponent};
  if (d.is_zero()) return {0.0f, kZeroExponent};
  return {static_cast<float>(d.significand), d.exponent + spec(scale_type).frac_bits};
}
}  // namespace

PlaneValue scale_value(Format scale_type, std::uint32_t bits) {
  static const auto tables = [] {
    std::array<std::array<PlaneValue, 256>, 2> t{};
    for (std::uint32_t v = 0; v < 256; ++v) t[0][v] = decoded_scale(Format::ue8m0, v), t[1][v] = decoded_scale(Format::ue4m3, v);
    return t;
  }();
  if (scale_type == Format::ue8m0) return tables[0][bits & 0xffu];
  if (scale_type == Format::ue4m3) return tables[1][bits & 0xffu];
  return decoded_scale(scale_type, bits);
}

std::uint32_t fp8_to_f16(Format storage, std::uint32_t bits) { return unpack_bits(storage, Format::fp16, bits); }

namespace {
std::array<PlaneValue, 256> fp8_planes(Format storage) {
  std::array<PlaneValue, 256> t{};
  for (std::uint32_t p = 0; p < 256; ++p) t[p] = PlaneDecode<Format::fp16, Format::fp16>{}(fp8_to_f16(storage, p), 1.0f);
  return t;
}
}  // namespace
const std::array<PlaneValue, 256> kE4m3AsF16 = fp8_planes(Format::e4m3), kE5m2AsF16 = fp8_planes(Format::e5m2);

PlaneValue plane_value_converted(Format storage, Format seen, std::uint32_t bits, float scale) {
  const std::uint32_t r = unpack_bits(storage, seen, bits);
  switch (seen) {
    case Format::bf16: return PlaneDecode<Format::bf16, Format::bf16>{}(r, scale);
    case Format::fp16: return PlaneDecode<Format::fp16, Format::fp16>{}(r, scale);
    case Format::tf32: return PlaneDecode<Format::tf32, Format::tf32>{}(r, scale);
    case Format::e4m3: return PlaneDecode<Format::e4m3, Format::e4m3>{}(r, scale);
    case Format::e5m2: return PlaneDecode<Format::e5m2, Format::e5m2>{}(r, scale);
    case Format::e2m1: return PlaneDecode<Format::e2m1, Format::e2m1>{}(r, scale);
    case Format::e2m3: return PlaneDecode<Format::e2m3, Format::e2m3>{}(r, scale);
    case Format::e3m2: return PlaneDecode<Format::e3m2, Format::e3m2>{}(r, scale);
    default: return PlaneDecode<Format::fp32, Format::fp32>{}(r, scale);
  }
}

}  // namespace detail

std::size_t mma_batch(const MmaPlan& plan, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
                      const std::uint32_t* c, std::uint32_t* d, Datapath path) {
  const Instruction& in = plan.instruction;
  const auto k = static_cast<std::size_t>(in.k);
  if (path == Datapath::reference || !plan.fast || in.block_scaled()) {  // (the reference asks for missing scales)
    for (std::size_t t = 0; t < count; ++t)
      d[t] = detail::reference_element(plan, {a + t * k, k}, {b + t * k, k}, c[t]);
    return count;
  }
  using detail::kLanes;
  const float a_scale = std::ldexp(1.0f, plan.product_shift);
  thread_local std::vector<float> as, bs, an, bn;
  thread_local std::vector<std::int32_t> ae, be, amax, bmax;
  thread_local std::vector<std::uint32_t> raw_a, raw_b;
  for (auto* v : {&as, &bs, &an, &bn}) v->resize(k * kLanes);
  for (auto* v : {&ae, &be}) v->resize(k * kLanes);
  for (auto* v : {&amax, &bmax}) v->resize(plan.blocks.size() * kLanes);
  for (auto* v : {&raw_a, &raw_b}) v->resize(k * kLanes);
  const std::uint32_t a_zero = zero_bits(in.a_type, false), b_zero = zero_bits(in.b_type, false);
  const auto& kern = detail::kernels();
  std::size_t slow = 0;
  for (std::size_t t0 = 0; t0 < count; t0 += kLanes) {
    const std::size_t lanes = std::min<std::size_t>(kLanes, count - t0);
    std::uint32_t acc[kLanes] = {};
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t t = t0 + l;
      if (l < lanes) acc[l] = c[t];
      for (std::size_t j = 0; j < k; ++j) {  // spare lanes: all-zero products, results unused
        const auto src = static_cast<std::size_t>(plan.schedule[j]);
        raw_a[j * kLanes + l] = l < lanes ? a[t * k + src] : a_zero;
        raw_b[j * kLanes + l] = l < lanes ? b[t * k + src] : b_zero;
      }
    }
    kern.prepare_planes(plan, detail::OperandSide::a, in.a_type, plan.a_seen, a_scale, raw_a.data(), nullptr,
                        as.data(), ae.data(), an.data(), amax.data(), nullptr);
    kern.prepare_planes(plan, detail::OperandSide::b, in.b_type, plan.b_seen, 1.0f, raw_b.data(), nullptr, bs.data(),
                        be.data(), bn.data(), bmax.data(), nullptr);
    std::uint32_t fail = kern.batch_step(plan, {as.data(), an.data(), ae.data(), amax.data()},
                                         {bs.data(), bn.data(), be.data(), bmax.data()}, acc);
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t t = t0 + l;
      const bool reference = (fail >> l) & 1u;
      slow += reference;
      d[t] = reference ? detail::reference_element(plan, {a + t * k, k}, {b + t * k, k}, c[t]) : acc[l];
    }
  }
  return slow;
}

namespace {
// mma_element's fast path, inlined into both entry points (an exported function calling
// another exported one pays a call through the PLT under -fPIC).
inline bool fast_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                         std::uint32_t c, std::uint32_t& d) {
  const Instruction& in = plan.instruction;
  if (static_cast<int>(a.size()) != in.k || static_cast<int>(b.size()) != in.k)
    invalid(in, "expected " + std::to_string(in.k) + " elements of A and of B");
  return plan.element_kernel && plan.element_kernel(plan, a.data(), b.data(), c, d);
}
}  // namespace

bool detail::fast_element_only(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                               std::uint32_t c, std::uint32_t& d) {
  std::uint32_t out = 0;
  if (!fast_element(plan, a, b, c, out)) return false;
  d = out;
  return true;
}

std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c, Datapath path) {
  std::uint32_t d = 0;
  if (path == Datapath::fast && fast_element(plan, a, b, c, d)) return d;
  return detail::reference_element(plan, a, b, c);
}

std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c, std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b,
                          Datapath) {
  return detail::reference_element(plan, a, b, c, scale_a, scale_b);
}

}  // namespace tcnum
