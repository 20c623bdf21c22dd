// effective_params(p, in) resets the fields of p that cannot change any result of `in` (fit and
// compare_models rely on it to call two models equal). Its laws, over parameters near the
// built-in models and every instruction of every architecture:
//  - it leaves mma_element's results unchanged, on the generators' distributions (which reach
//    truncation, cancellation, subnormals, overflow and specials) and on RapidCheck's cases;
//  - it is idempotent.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/reference/generators.hpp"
#include "test_support.hpp"

namespace {

using namespace tcnum;
using tcnum::features::effective_params;

struct ArchInstruction {
  int sm;
  Instruction in;
};

const std::vector<ArchInstruction>& every_instruction() {
  static const std::vector<ArchInstruction> all = [] {
    std::vector<ArchInstruction> v;
    for (int sm : known_archs())
      for (const Instruction& in : instructions_for(sm)) v.push_back({sm, in});
    return v;
  }();
  return all;
}

// Every value of f is a value of u (unpacking f into u is exact).
bool embeds(Format u, Format f) {
  const FormatSpec &su = spec(u), &sf = spec(f);
  return su.emax() >= sf.emax() && su.frac_bits >= sf.frac_bits && su.emin() - su.frac_bits <= sf.emin() - sf.frac_bits;
}

// Parameters near a built-in model, as the fit reports them and compare_models sees them: the
// rule the instruction's own architecture uses, with one to four fields changed at random over
// the ranges the models use and beyond (F up to the exact datapath's 640). unpack_format only
// where the conversion is exact, and block results in a format that holds every D, as the
// datapath and every model have them.
DatapathParams pick_params(const Instruction& in, int sm) {
  DatapathParams p = builtin_model(sm).params_for(in);
  const int changes = *rc::gen::inRange(1, 5);
  for (int i = 0; i < changes; ++i) {
    switch (*rc::gen::inRange(0, 14)) {
      case 0: p.frac_bits = *rc::gen::weightedElement<int>({{6, *rc::gen::inRange(8, 40)}, {1, 640}}); break;
      case 1: p.block_size = *rc::gen::elementOf(std::vector<int>{0, 1, 2, 4, 8, 16, 32, 64}); break;
      case 2: p.block_format = *rc::gen::elementOf(std::vector<Format>{Format::fp32, Format::fp16}); break;
      case 3: p.block_rounding = *rc::gen::elementOf(std::vector<Rounding>{Rounding::nearest_even, Rounding::toward_zero}); break;
      case 4: p.output_rounding = *rc::gen::elementOf(std::vector<Rounding>{Rounding::nearest_even, Rounding::toward_zero}); break;
      case 5: p.output_direct = !p.output_direct; break;
      case 6:
        p.addend = *rc::gen::elementOf(
            std::vector<AddendEntry>{AddendEntry::first_block, AddendEntry::last_block, AddendEntry::ieee_add});
        break;
      case 7: p.flush_subnormal_inputs = !p.flush_subnormal_inputs; break;
      case 8: p.overflow_to_inf = !p.overflow_to_inf; break;
      case 9: p.block_result_frac_bits = *rc::gen::weightedElement<int>({{1, 0}, {1, *rc::gen::inRange(5, 24)}}); break;
      case 10: p.negative_zero_results = !p.negative_zero_results; break;
      case 11: {
        const Format unpack = *rc::gen::elementOf(std::vector<Format>{Format::fp16, Format::fp32});
        if (p.unpack_format) p.unpack_format.reset();
        else if (embeds(unpack, in.a_type) && embeds(unpack, in.b_type)) p.unpack_format = unpack;
        break;
      }
      case 12:
        p.k_passes = *rc::gen::element(1, 2, 4);
        p.pass_interleave = *rc::gen::element(1, 2, 4);
        break;
      default:
        if (p.align_exponent_floor) p.align_exponent_floor.reset();
        else p.align_exponent_floor = *rc::gen::inRange(-160, 20);
    }
  }
  RC_PRE(embeds(p.block_format, in.d_type));
  RC_PRE(in.k % (p.k_passes * p.pass_interleave) == 0);  // the datapath's own precondition
  return p;
}

RC_GTEST_PROP(EffectiveParams, LeavesResultsUnchanged, ()) {
  const auto [sm, in] = *rc::gen::elementOf(every_instruction());
  const DatapathParams p = pick_params(in, sm);
  const DatapathParams e = effective_params(p, in);
  RC_TAG(in.name);
  RC_LOG() << in.name << "\n  given     " << features::params_text(p) << "\n  effective "
           << features::params_text(e) << "\n";
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  for (const std::string& dist : distribution_names())
    for (const GeneratedCase& g : generate(in, dist, 12, seed)) {
      const std::uint32_t given = mma_element(p, in, g.a, g.b, g.c), effective = mma_element(e, in, g.a, g.b, g.c);
      RC_ASSERT(test::hex(given) + " (" + dist + ")" == test::hex(effective) + " (" + dist + ")");
    }
  for (int i = 0; i < 4; ++i) {
    const test::PickedCase pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 2}}));
    RC_ASSERT(test::hex(mma_element(p, in, pc.a, pc.b, pc.c)) == test::hex(mma_element(e, in, pc.a, pc.b, pc.c)));
  }
}

RC_GTEST_PROP(EffectiveParams, IsIdempotent, ()) {
  const auto [sm, in] = *rc::gen::elementOf(every_instruction());
  const DatapathParams e = effective_params(pick_params(in, sm), in);
  RC_ASSERT(features::params_text(effective_params(e, in)) == features::params_text(e));
  RC_ASSERT(effective_params(e, in) == e);
}

}  // namespace
