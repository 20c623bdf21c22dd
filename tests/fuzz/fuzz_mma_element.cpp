// libFuzzer: mma_element and gemm with a random model that passed validation. The bytes choose
// an instruction of the catalog, a model's parameters (kept only when model_from_json accepts
// them and compile_plan takes them for that instruction) and the operands. Besides "no crash,
// no UB", these laws hold:
//  * the compiled plan (the fast kernel where it applies) gives the reference datapath's bits;
//  * gemm of one element over one k-step, fast and reference paths, gives mma_element's bits;
//  * under the exact model (exact_params()) the result is MPFR's correctly rounded sum
//    (exact_dot_rounded), for every instruction of the catalog.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/integer_mma.hpp"
#include "tcnum/reference/mpfr_reference.hpp"

namespace {

// Reads the input front to back; zeros once it is used up.
struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  template <class T>
  T take() {
    T v{};
    const std::size_t k = std::min(sizeof(T), n);
    if (k) std::memcpy(&v, p, k);  // p may be null for an empty input
    p += k;
    n -= k;
    return v;
  }
};

const std::vector<tcnum::Instruction>& catalog() {
  static const std::vector<tcnum::Instruction> all = [] {
    std::vector<tcnum::Instruction> v;
    std::set<std::string> seen;
    for (int sm : tcnum::known_archs())
      for (const tcnum::Instruction& in : tcnum::instructions_for(sm))
        if (seen.insert(in.name).second) v.push_back(in);
    return v;
  }();
  return all;
}

// Parameters from the bytes, on purpose a little beyond kModelLimits: the loader must refuse those.
tcnum::DatapathParams params_from(Bytes& in) {
  constexpr int kFormats = 11;
  tcnum::DatapathParams p;
  p.frac_bits = in.take<std::uint16_t>() % 720;
  p.block_size = in.take<std::uint16_t>() % 1100;
  p.block_format = static_cast<tcnum::Format>(in.take<std::uint8_t>() % kFormats);
  const auto flags = in.take<std::uint16_t>();
  p.block_rounding = flags & 1 ? tcnum::Rounding::nearest_even : tcnum::Rounding::toward_zero;
  p.output_rounding = flags & 2 ? tcnum::Rounding::nearest_even : tcnum::Rounding::toward_zero;
  p.output_direct = flags & 4;
  p.addend = static_cast<tcnum::AddendEntry>((flags >> 3) % 3);
  p.flush_subnormal_inputs = flags & 32;
  p.overflow_to_inf = flags & 64;
  p.negative_zero_results = flags & 128;
  p.block_result_frac_bits = in.take<std::uint8_t>() % 60;
  const auto unpack = in.take<std::uint8_t>();
  if (unpack < 2 * kFormats) p.unpack_format = static_cast<tcnum::Format>(unpack % kFormats);
  p.k_passes = 1 + in.take<std::uint8_t>() % 70;
  p.pass_interleave = 1 + in.take<std::uint8_t>() % 70;
  const auto floor = in.take<std::int32_t>();
  if (flags & 256) p.align_exponent_floor = floor % 110000;
  p.scale_group = in.take<std::uint8_t>() % 70;
  return p;
}

std::vector<std::uint32_t> operand(Bytes& in, tcnum::Format f, int count) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = in.take<std::uint32_t>() & tcnum::storage_mask(f);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes bytes{data, size};
  const tcnum::Instruction& in = catalog()[bytes.take<std::uint16_t>() % catalog().size()];
  const tcnum::DatapathParams wanted = params_from(bytes);
  const auto a = operand(bytes, in.a_type, in.k), b = operand(bytes, in.b_type, in.k);
  const std::uint32_t c = bytes.take<std::uint32_t>() & tcnum::storage_mask(in.c_type);
  const auto sa = operand(bytes, in.scale_type, in.scales_per_row()), sb = operand(bytes, in.scale_type, in.scales_per_row());

  // Integer instructions: exact under any parameters (integer_mma.hpp), nothing for MPFR to round.
  if (in.integer()) {
    if (tcnum::mma_element(wanted, in, a, b, c) != tcnum::integer_mma_element(in, a, b, c)) std::abort();
    return 0;
  }
  // The exact model against MPFR.
  tcnum::DatapathParams exact = tcnum::exact_params();
  if (in.block_scaled()) {
    const std::uint32_t got = tcnum::mma_element(exact, in, a, b, c, sa, sb);
    const std::uint32_t want = tcnum::exact_dot_rounded(in.a_type, in.b_type, in.c_type, a, b, c,
                                                        tcnum::ScaleVectors{in.scale_type, in.scale_block, sa, sb},
                                                        in.d_type, tcnum::Rounding::nearest_even);
    const bool both_zero = ((got | want) & 0x7fffffffu) == 0;  // as tests/test_block_scaled.cpp
    if (got != want && !both_zero) std::abort();
  } else if (tcnum::mma_element(exact, in, a, b, c) !=
             tcnum::exact_dot_rounded(in.a_type, in.b_type, in.c_type, a, b, c, in.d_type, tcnum::Rounding::nearest_even)) {
    std::abort();
  }

  // A random model, as a user's model file would bring it: through the loader's validation.
  tcnum::Model model;
  try {
    model = tcnum::model_from_json(tcnum::model_to_json(
        tcnum::Model{"fuzz", 90, "", {tcnum::ModelRule{std::nullopt, std::nullopt, std::nullopt, wanted, "fuzz", false, {}, std::nullopt}}}));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const tcnum::DatapathParams& p = model.rules.at(0).params;
  std::optional<tcnum::MmaPlan> plan;
  try {
    plan = tcnum::compile_plan(p, in);
  } catch (const std::invalid_argument&) {
    return 0;  // e.g. K not a multiple of k_passes × pass_interleave for this instruction
  }
  std::uint32_t d = 0;
  if (in.block_scaled()) {
    d = tcnum::mma_element(p, in, a, b, c, sa, sb);
    if (tcnum::mma_element(*plan, a, b, c, sa, sb) != d) std::abort();
  } else {
    d = tcnum::mma_element(*plan, a, b, c, tcnum::Datapath::reference);
    if (tcnum::mma_element(*plan, a, b, c) != d || tcnum::mma_element(p, in, a, b, c) != d) std::abort();
  }
  for (auto path : {tcnum::GemmOptions::Path::fast, tcnum::GemmOptions::Path::reference}) {
    tcnum::GemmOptions opt;
    opt.path = path;
    opt.threads = 1;
    const auto g = in.block_scaled() ? tcnum::gemm(model, in, 1, 1, in.k, a, b, {c}, tcnum::BlockScales{sa, sb}, opt)
                                     : tcnum::gemm(model, in, 1, 1, in.k, a, b, {c}, opt);
    // gemm writes a NaN as D's canonical NaN, as mma_element does.
    if (g.size() != 1 || g[0] != d) std::abort();
  }
  return 0;
}
