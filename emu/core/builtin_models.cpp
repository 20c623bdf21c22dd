// Built-in per-architecture models: the datapath's parameters as data, with their sources.
// docs/models.md explains every value and its evidence; `validated` marks values that
// tcnum's own recorded corpora confirm bit for bit.
#include <map>
#include <stdexcept>

#include "tcnum/core/model.hpp"

namespace tcnum {
namespace {

DatapathParams params(int frac_bits, int block_size) {
  DatapathParams p;
  p.frac_bits = frac_bits;
  p.block_size = block_size;
  return p;
}

ModelRule rule(std::optional<Family> fam, std::optional<InputClass> in, DatapathParams p, std::string source) {
  return ModelRule{fam, in, std::nullopt, p, std::move(source), false};
}

const char* kFasi = "Fasi et al. 2021 (PeerJ CS)";
const char* kKM = "Khattak & Mikaitis, arXiv 2512.07004";
const char* kMmaSim = "Xie et al., MMA-Sim, arXiv 2511.10909";

Model volta() {
  Model m{"sm_70", 70, "Volta (V100): 4-product blocks, 23 kept fraction bits, RZ", {}};
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(23, 4), std::string(kFasi) + "; " + kKM));
  return m;
}

Model turing() {
  // Block 8: MMA-Sim fuses all K = 8 of m16n8k8 (16-byte fused dot product); Fasi et al.'s
  // T4 vectors use at most 4 products and cannot tell 4 from 8.
  Model m{"sm_75", 75, "Turing (T4): 8-product blocks (all of m16n8k8), 24 kept fraction bits, RZ", {}};
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(24, 8), std::string(kMmaSim) + "; " + kFasi));
  return m;
}

Model ampere_like(const char* name, int sm, const char* desc) {
  Model m{name, sm, desc, {}};
  m.rules.push_back(rule(std::nullopt, InputClass::tf32, params(24, 4), std::string(kKM) + "; " + kMmaSim));
  // Ada fp8: 13 kept fraction bits (MMA-Sim: F = 13 with an e8m13 block result; Khattak &
  // Mikaitis' L40S model: neab = -10). The e8m13 cut of the block result itself would be
  // block_result_frac_bits = 13 (as sm_90's fp8 wgmma has); no Ada corpus has tested it yet
  // (docs/models.md §4.2).
  m.rules.push_back(rule(std::nullopt, InputClass::fp8, params(13, 16),
                         std::string(kMmaSim) + " (Ada fp8); " + kKM + " (L40S model)"));
  // f16 D: every block result is rounded to f16, to nearest even, before the next block
  // (MMA-Sim: split-K halves with RNE-FP16; Khattak & Mikaitis: c = d recursion in the output format).
  DatapathParams f16_out = params(24, 8);
  f16_out.block_format = Format::fp16;
  f16_out.block_rounding = Rounding::nearest_even;
  m.rules.push_back(ModelRule{std::nullopt, InputClass::f16, Format::fp16, f16_out,
                              std::string(kMmaSim) + "; " + kKM, false});
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(24, 8), std::string(kFasi) + "; " + kKM));
  return m;
}

Model hopper() {
  Model m{"sm_90", 90, "Hopper (H100/H200): 16-product blocks (8 for tf32), 25 kept fraction bits, RZ; "
                       "fp8 wgmma keeps 13 fraction bits over 32-product blocks and 13-bit block results; "
                       "fp8 mma is two interleaved f16 HMMA passes then an RNE add of C; "
                       "alignment exponent floor -133; zero results are +0", {}};
  // Validated on an H100 by corpora/h100 (docs/models.md, "Hopper: evidence").
  const std::string corpus = "tcnum corpora/h100 (H100 80GB HBM3, driver 580.159.04)";
  auto hopper_params = [](int frac_bits, int block_size) {
    DatapathParams p = params(frac_bits, block_size);
    p.negative_zero_results = false;  // no -0 in 960k device results; underflow to zero gives +0
    // Khattak & Mikaitis' min_exp_limit; the corpora bound it to [-133, -131] (bf16/tf32 with
    // fp32-subnormal results).
    p.align_exponent_floor = -133;
    return p;
  };
  DatapathParams fp8_wgmma = hopper_params(13, 32);
  fp8_wgmma.block_result_frac_bits = 13;  // device D has at most 13 fraction bits for f32 D
  m.rules.push_back({Family::wgmma, InputClass::fp8, std::nullopt, fp8_wgmma,
                     std::string(kMmaSim) + "; DeepSeek-V3 report; " + corpus, true});
  m.rules.push_back({std::nullopt, InputClass::tf32, std::nullopt, hopper_params(25, 8),
                     std::string(kKM) + "; " + corpus, true});
  // mma.sync fp8 on sm_90 (ptxas SASS): F2FP.F16.E4M3/E5M2.UNPACK_B to f16, then two chained
  // HMMAs (16816 for k32, 1688 for k16) starting from C = RZ, the first over the products with
  // k % 4 in {0, 1}, the second over k % 4 in {2, 3}; then FADD (f32 D) or HADD2 (f16 D) of C.
  DatapathParams fp8_mma = hopper_params(25, 16);
  fp8_mma.unpack_format = Format::fp16;
  fp8_mma.k_passes = 2;
  fp8_mma.pass_interleave = 2;
  fp8_mma.addend = AddendEntry::ieee_add;
  DatapathParams fp8_mma_f16 = fp8_mma;  // HMMA.F16: each pass rounds to f16 (RNE), as f16 mma
  fp8_mma_f16.block_format = Format::fp16;
  fp8_mma_f16.block_rounding = Rounding::nearest_even;
  const std::string fp8_mma_src = "Luo et al., Table 14 (lowering to HMMA); ptxas 13.0 SASS; " + corpus;
  m.rules.push_back({Family::mma, InputClass::fp8, Format::fp16, fp8_mma_f16, fp8_mma_src, true});
  m.rules.push_back({Family::mma, InputClass::fp8, std::nullopt, fp8_mma, fp8_mma_src, true});
  // f16 inputs with f16 D: terms below 2^(-21-25) are dropped (alignment floor -21), found by
  // numprobe fit on the H100 (docs/numprobe.md §4.2; e.g. 2^-23 + 2^-47 + 2^-25 -> 0x0002).
  DatapathParams f16_out = hopper_params(25, 16);
  f16_out.align_exponent_floor = -21;
  m.rules.push_back({std::nullopt, InputClass::f16, Format::fp16, f16_out,
                     "numprobe fit on the H100 (docs/numprobe.md); " + corpus, true});
  m.rules.push_back({std::nullopt, std::nullopt, std::nullopt, hopper_params(25, 16),
                     std::string(kKM) + "; " + kMmaSim + "; " + corpus, true});
  return m;
}

Model blackwell() {
  Model m{"sm_100", 100, "Blackwell (B200): as Hopper for f16/bf16/tf32; fp8 with 25 kept bits", {}};
  m.rules.push_back(rule(std::nullopt, InputClass::tf32, params(25, 8), kKM));
  m.rules.push_back(rule(std::nullopt, InputClass::fp8, params(25, 32), kMmaSim));
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(25, 16), kKM));
  return m;
}

}  // namespace

DatapathParams exact_params() {
  DatapathParams p;
  p.frac_bits = 640;
  p.block_size = 0;
  p.block_rounding = Rounding::nearest_even;
  p.output_rounding = Rounding::nearest_even;
  return p;
}

const Model& builtin_model(int sm) {
  static const std::map<int, Model> models = {
      {70, volta()},
      {75, turing()},
      {80, ampere_like("sm_80", 80, "Ampere (A100): 8-product blocks (4 for tf32), 24 kept fraction bits, RZ")},
      {86, ampere_like("sm_86", 86, "Ampere (GA10x): as sm_80")},
      {89, ampere_like("sm_89", 89, "Ada (L4/L40): as sm_80, plus fp8 mma (16-product blocks, 13 kept fraction bits)")},
      {90, hopper()},
      {100, blackwell()},
  };
  auto it = models.find(sm);
  if (it == models.end()) throw std::invalid_argument("no built-in model for sm_" + std::to_string(sm));
  return it->second;
}

InputClass input_class(const Instruction& in) {
  switch (in.a_type) {
    case Format::bf16: return InputClass::bf16;
    case Format::tf32: return InputClass::tf32;
    case Format::e4m3:
    case Format::e5m2: return InputClass::fp8;
    default: return InputClass::f16;
  }
}

const DatapathParams& Model::params_for(const Instruction& in) const {
  const InputClass ic = input_class(in);
  for (const ModelRule& r : rules)
    if ((!r.family || *r.family == in.family) && (!r.inputs || *r.inputs == ic) &&
        (!r.d_type || *r.d_type == in.d_type))
      return r.params;
  throw std::invalid_argument("model " + name + " has no rule for " + in.name);
}

}  // namespace tcnum
