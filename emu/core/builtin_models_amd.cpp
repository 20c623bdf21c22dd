// Built-in models of AMD's CDNA1-3 MFMA datapaths, as data. Literature-only: every value is
// MMA-Sim's reading of the hardware (Xie et al., arXiv 2511.10909; github.com/microsoft/MMA-Sim,
// commit c785138, mmasim/simulator/amd.py and arithmetic.py: amd_fused_dot_rd_add), carried over
// as facts, not code. No AMD device was available: no rule is validated. docs/models.md §10
// explains each value and what tools/mmasim/agreement.py measured against MMA-Sim.
#include "builtin_models_amd.hpp"

#include <stdexcept>
#include <string>

#include "instruction_amd.hpp"

namespace tcnum::detail {
namespace {

const char* kSim = "MMA-Sim (arXiv 2511.10909; microsoft/MMA-Sim c785138, mmasim/simulator/amd.py";

ModelRule literature_rule(InputClass inputs, const DatapathParams& p, const std::string& source) {
  return ModelRule{Family::mfma, inputs, std::nullopt, p, source, false, {}, std::nullopt};
}

// f32 operands: a chain of IEEE fused multiply-adds in k order (fmaf(a_k, b_k, acc), RNE):
// blocks of one product, every bit kept (frac_bits 640 spans any f32 product and addend),
// rounded to nearest into f32, IEEE signed zeros: the exact datapath in blocks of one product.
DatapathParams fma_chain() {
  DatapathParams p = exact_params();
  p.block_size = 1;
  return p;
}

// CDNA3's fused groups (amd_fused_dot_rd_add): each group's products truncated toward zero 24
// fraction bits below their largest exponent and summed; the sum rounded down to 31 bits and
// the addend (C, then each group's result) to 24 bits below the larger of the two exponents;
// added, rounded to nearest into f32, which is the next group's addend. Zeros align at 2^-126
// (MMA-Sim's exponent of every zero); a product beyond f32's range is ±Inf. Zero sums are +0;
// a negative result that underflows is -0.
DatapathParams cdna3_group(int group) {
  DatapathParams p;
  p.frac_bits = 24;
  p.block_size = group;
  p.block_rounding = Rounding::nearest_even;
  p.output_rounding = Rounding::nearest_even;
  p.addend = AddendEntry::after_products;
  p.sum_round_down_bits = 31;
  p.addend_round_down_bits = 24;
  p.zero_operand_exponent = -126;
  p.products_overflow_to_inf = true;
  return p;
}

void add_f32_rule(Model& m) {
  m.rules.push_back(literature_rule(InputClass::f32, fma_chain(),
                                    std::string(kSim) + ": f32 operation_type \"fma\", group 1), literature-only"));
}

Model cdna3() {
  Model m{"gfx942", kGfx942,
          "AMD CDNA3 (MI300, literature-only): f32 an FMA chain; xf32/f16/bf16 fused groups of 4/8 products "
          "(24 kept bits), the group sum rounded down to 31 bits and C to 24 bits below the larger exponent, "
          "RNE into f32 per group; fp8/bf8 (FNUZ) groups of 16 split into even and odd halves, C dropped more "
          "than 25 binades below the products",
          {}};
  add_f32_rule(m);
  m.rules.push_back(literature_rule(InputClass::tf32, cdna3_group(4),
                                    std::string(kSim) + ": xf32 truncate_to_tf32, group 4, fused_dot_rd_add), "
                                                        "literature-only"));
  for (InputClass c : {InputClass::f16, InputClass::bf16})
    m.rules.push_back(literature_rule(c, cdna3_group(8),
                                      std::string(kSim) + ": CDNA3 f16/bf16 group min(8, K), fused_dot_rd_add), "
                                                          "literature-only"));
  // fp8/bf8 (FNUZ): groups of 16 split into the even and the odd products, each half's sum
  // rounded down to 24 bits below the larger half's exponent; C dropped when more than 25
  // binades below the products' exponent (is_fp8 in amd_fused_dot_rd_add).
  DatapathParams fp8 = cdna3_group(16);
  fp8.product_split = 2;
  fp8.addend_drop_binades = 25;
  m.rules.push_back(literature_rule(InputClass::fp8, fp8,
                                    std::string(kSim) + ": fp8/bf8 group 16, is_fp8: even/odd halves, C dropped "
                                                        "below max_e - 25), literature-only"));
  return m;
}

}  // namespace

Model cdna_model(int arch) {
  if (arch == kGfx942) return cdna3();
  if (arch != kGfx908 && arch != kGfx90a) throw std::invalid_argument("no CDNA model for " + arch_name(arch));
  Model m{arch_name(arch), arch,
          std::string(arch == kGfx908 ? "AMD CDNA1 (MI100" : "AMD CDNA2 (MI200") +
              ", literature-only): f32 MFMAs as an FMA chain (f16/bf16 MFMAs not modelled: docs/models.md §10)",
          {}};
  add_f32_rule(m);
  return m;
}

}  // namespace tcnum::detail
