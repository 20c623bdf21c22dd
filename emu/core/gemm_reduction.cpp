// What a GEMM call does around its chains (tcnum/core/schedule.hpp): the reference k-step, and
// an element's chain results combined into D: promotion into fp32, the slices' reduction, C.
#include "tcnum/core/dot.hpp"
#include "gemm_call.hpp"
#include "reference_element.hpp"

namespace tcnum::detail {
namespace {

// x rounded (RNE) to `r` (D's format for ReductionFormat::d). Every sum passed here is of two
// fp32 or narrower values, exact in double or rounded once to double: rounding that again to
// fp32 or narrower is one correct rounding (53 >= 2·24 + 2).
double round_to(ReductionFormat r, Format d, double x) {
  const Format f = r == ReductionFormat::fp32 ? Format::fp32
                   : r == ReductionFormat::d  ? d
                   : r == ReductionFormat::fp16 ? Format::fp16
                                                : Format::bf16;
  return to_double(f, encode(f, x));
}

double add_f32(double x, double y) { return round_to(ReductionFormat::fp32, Format::fp32, x + y); }

}  // namespace

std::uint32_t GemmCall::reference_step(std::size_t i, std::size_t j, int t, bool from_c, std::uint32_t acc) const {
  const KStep& step = steps[static_cast<std::size_t>(t)];
  const auto off = static_cast<std::size_t>(step.begin), len = static_cast<std::size_t>(step.length);
  thread_local std::vector<std::uint32_t> arow, bcol;  // this k-step's A row and B column, zero-padded
  arow.resize(ik);
  bcol.resize(ik);
  for (std::size_t kk = 0; kk < ik; ++kk) {
    arow[kk] = kk < len ? a[i * K + off + kk] : a_zero;
    bcol[kk] = kk < len ? b[(off + kk) * N + j] : b_zero;
  }
  const Instruction& which = from_c ? in : chained;
  if (scales == nullptr) return detail::reference_element(params, which, arow, bcol, acc);
  const auto per = static_cast<std::size_t>(in.scales_per_row()), s0 = off / static_cast<std::size_t>(in.scale_block);
  return detail::reference_element(params, which, arow, bcol, acc, {scales->a.data() + i * scales_per_k + s0, per},
                                   {scale_bt.data() + j * scales_per_k + s0, per});
}

std::uint32_t GemmCall::combine(const std::uint32_t* results, std::uint32_t c_bits) const {
  if (single_chain()) return results[0];
  const Format d = in.d_type;
  // Each slice's partial: its chains added in fp32 (promotion), or its one chain as it is.
  thread_local std::vector<double> partial, stack;
  partial.assign(schedule.slices.size(), 0.0);
  for (std::size_t ch = 0; ch < chains.size(); ++ch) {
    const auto s = static_cast<std::size_t>(chains[ch].slice);
    const double v = to_double(d, results[ch]);  // f16 and fp32 values are exact in fp32
    partial[s] = ch == 0 || chains[ch - 1].slice != chains[ch].slice ? v : add_f32(partial[s], v);
  }
  if (schedule.source.c_entry == CEntry::first_partial) partial[0] = add_f32(partial[0], to_double(in.c_type, c_bits));
  if (schedule.source.partial_format != ReductionFormat::fp32)
    for (double& p : partial) p = round_to(schedule.source.partial_format, d, p);
  if (schedule.source.serial) partial[0] = round_to(schedule.source.reduction_format, d, partial[0]);  // slice 0's write
  stack.clear();
  for (const int op : schedule.reduction_program) {
    if (op >= 0) {
      stack.push_back(partial[static_cast<std::size_t>(op)]);
      continue;
    }
    const double right = stack.back();
    stack.pop_back();
    stack.back() = round_to(schedule.source.reduction_format, d, stack.back() + right);
  }
  double sum = stack.back();
  if (schedule.source.c_entry == CEntry::after_reduction)
    sum = add_f32(round_to(schedule.source.sum_format, d, sum), to_double(in.c_type, c_bits));
  return encode(d, sum, Rounding::nearest_even);  // NaN -> canonical; f16: RNE, overflow -> Inf
}

}  // namespace tcnum::detail
