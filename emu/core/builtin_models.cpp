// Built-in per-architecture models: the datapath's parameters as data, with their sources.
// docs/models.md explains every value and its evidence; `validated` marks values that
// tcnum's own recorded corpora confirm bit for bit.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "builtin_models_amd.hpp"
#include "instruction_amd.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {
namespace {

// Every NVIDIA model: zero results are +0. The H100 never gave -0 in 1.5 M device results
// (corpora/h100, all-(-0) sums and underflows included); MMA-Sim, validated bit for bit on ten
// architectures, always writes +0; Khattak & Mikaitis' models return +0 for zero sums. No
// source reports an IEEE -0 from a tensor core (docs/models.md §7.3).
DatapathParams params(int frac_bits, int block_size, std::optional<int> floor = std::nullopt) {
  DatapathParams p;
  p.frac_bits = frac_bits;
  p.block_size = block_size;
  p.negative_zero_results = false;
  p.align_exponent_floor = floor;
  return p;
}

ModelRule rule(std::optional<Family> fam, std::optional<InputClass> in, DatapathParams p, std::string source) {
  return ModelRule{fam, in, std::nullopt, p, std::move(source), false, {}, std::nullopt};
}

ModelRule rule_for_d(std::optional<Family> fam, InputClass in, Format d, DatapathParams p, std::string source) {
  return ModelRule{fam, in, d, p, std::move(source), false, {}, std::nullopt};
}

// Records that a device corpus reproduced `names` bit for bit: each name is attached to the
// rule that evaluates it, which becomes validated.
void validated_by(Model& m, const std::string& gpu, const std::string& corpus, bool normal_range_only,
                  const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const Instruction in = parse_instruction(name);
    auto& r = const_cast<ModelRule&>(m.rule_for(in));
    auto v = std::find_if(r.validations.begin(), r.validations.end(),
                          [&](const Validation& x) { return x.gpu == gpu && x.corpus == corpus; });
    if (v == r.validations.end()) v = r.validations.insert(r.validations.end(), {gpu, corpus, {}, normal_range_only});
    v->instructions.push_back(name);
    r.validated = true;
  }
}

const char* kFasi = "Fasi et al. 2021 (PeerJ CS)";
const char* kKM = "Khattak & Mikaitis, arXiv 2512.07004";
const char* kMmaSim = "Xie et al., MMA-Sim, arXiv 2511.10909";
const std::string kKMData = "Khattak & Mikaitis' device results (corpora/README.md)";

// The instructions of Khattak & Mikaitis' files for one GPU (corpora/<folder>, normal-range inputs).
void km_corpus(Model& m, const std::string& gpu, const std::string& folder, const std::vector<std::string>& names) {
  validated_by(m, gpu, folder, true, names);
}

const std::vector<std::string> kKMAmpere = {"mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f16.f16.f16.f16",
                                            "mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k4.f32.tf32.tf32.f32"};

Model volta() {
  Model m{"sm_70", 70, "Volta (V100): 4-product blocks, 23 kept fraction bits, RZ; zero results are +0", {}};
  // f16 D: Khattak & Mikaitis' V100 model floors the alignment exponent at -19 (f32 D: none).
  m.rules.push_back(rule_for_d(std::nullopt, InputClass::f16, Format::fp16, params(23, 4, -19),
                               std::string(kFasi) + "; " + kKM + " (V100TC.m: min_exp_limit -19 for f16 D)"));
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(23, 4), std::string(kFasi) + "; " + kKM));
  km_corpus(m, "V100 (sm_70)", "v100", {"mma.m8n8k4.f32.f16.f16.f32", "mma.m8n8k4.f16.f16.f16.f16"});
  return m;
}

Model turing() {
  // Block 8: MMA-Sim fuses all K = 8 of m16n8k8 (16-byte fused dot product); Fasi et al.'s
  // T4 vectors use at most 4 products and cannot tell 4 from 8. No published floor for Turing.
  Model m{"sm_75", 75, "Turing (T4): 8-product blocks (all of m16n8k8), 24 kept fraction bits, RZ; zero results are +0", {}};
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(24, 8), std::string(kMmaSim) + "; " + kFasi));
  return m;
}

// sm_80, sm_86, sm_89: Khattak & Mikaitis' A100/A2/Ada/L40S models floor the alignment
// exponent at -132, and at -20 for f16 inputs with f16 D (A100TC.m, AdaTC.m, L40STC.m).
Model ampere_like(const char* name, int sm, const char* desc) {
  Model m{name, sm, desc, {}};
  const std::string floors = std::string(kKM) + " (min_exp_limit -132; -20 for f16 D)";
  m.rules.push_back(rule(std::nullopt, InputClass::tf32, params(24, 4, -132), std::string(kKM) + "; " + kMmaSim));
  if (sm == 89) {
    // Ada fp8 (native QMMA.16832): two 16-product blocks, 13 kept fraction bits. f32 D: each
    // block result is cut (RZ) to 13 fraction bits (e8m13); f16 D: each block result is
    // rounded to f16 with RNE. Both found in the RTX 1000 Ada / L40S results (docs/models.md §7.2).
    DatapathParams fp8_f16 = params(13, 16, -132);
    fp8_f16.block_format = Format::fp16;
    fp8_f16.block_rounding = Rounding::nearest_even;
    m.rules.push_back(rule_for_d(Family::mma, InputClass::fp8, Format::fp16, fp8_f16,
                                 std::string(kMmaSim) + " (Ada fp8 F = 13); " + kKM + " (AdaTC.m: fma 16, neab -10, rne); " + kKMData));
    DatapathParams fp8_f32 = params(13, 16, -132);
    fp8_f32.block_result_frac_bits = 13;
    m.rules.push_back(rule(Family::mma, InputClass::fp8, fp8_f32,
                           std::string(kMmaSim) + " (RZ-E8M13); " + kKM + " (AdaTC.m: fma 16, neab -10); " + kKMData));
  }
  // f16 D: every block result is rounded to f16, to nearest even, before the next block
  // (MMA-Sim: split-K halves with RNE-FP16; Khattak & Mikaitis: c = d recursion in the output format).
  DatapathParams f16_out = params(24, 8, -20);
  f16_out.block_format = Format::fp16;
  f16_out.block_rounding = Rounding::nearest_even;
  m.rules.push_back(rule_for_d(std::nullopt, InputClass::f16, Format::fp16, f16_out, std::string(kMmaSim) + "; " + floors));
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(24, 8, -132), std::string(kFasi) + "; " + floors));
  if (sm == 80) km_corpus(m, "A100 (sm_80)", "a100", kKMAmpere);
  if (sm == 86) km_corpus(m, "A2 (sm_86)", "a2", kKMAmpere);
  if (sm == 89) {
    std::vector<std::string> ada = kKMAmpere;
    for (const char* t : {"e4m3", "e5m2"})
      for (const char* d : {"f32", "f16"}) ada.push_back(std::string("mma.m16n8k32.") + d + "." + t + "." + t + "." + d);
    km_corpus(m, "RTX 1000 Ada (sm_89)", "rtx1000ada", ada);
    km_corpus(m, "L40S (sm_89)", "l40s",
              {"mma.m16n8k16.f32.f16.f16.f32", "mma.m16n8k16.f16.f16.f16.f16", "mma.m16n8k16.f32.bf16.bf16.f32",
               "mma.m16n8k4.f32.tf32.tf32.f32", "mma.m16n8k32.f32.e4m3.e4m3.f32", "mma.m16n8k32.f32.e5m2.e5m2.f32"});
  }
  return m;
}

// Khattak & Mikaitis' min_exp_limit on H100/H200/B200: -133; -21 for f16 inputs with f16 D.
DatapathParams hopper_params(int frac_bits, int block_size) { return params(frac_bits, block_size, -133); }

// mma.sync fp8 on sm_90 and sm_100 (ptxas SASS): F2FP.F16.E4M3/E5M2.UNPACK_B to f16, then two
// chained HMMAs (16816 for k32, 1688 for k16) starting from C = RZ, the first over the
// products with k % 4 in {0, 1}, the second over k % 4 in {2, 3}; then FADD (f32 D) or HADD2
// (f16 D) of C.
void fp8_mma_emulation(Model& m, const std::string& source) {
  DatapathParams fp8_mma = hopper_params(25, 16);
  fp8_mma.unpack_format = Format::fp16;
  fp8_mma.k_passes = 2;
  fp8_mma.pass_interleave = 2;
  fp8_mma.addend = AddendEntry::ieee_add;
  DatapathParams fp8_mma_f16 = fp8_mma;  // HMMA.F16: each pass rounds to f16 (RNE), as f16 mma
  fp8_mma_f16.block_format = Format::fp16;
  fp8_mma_f16.block_rounding = Rounding::nearest_even;
  m.rules.push_back(rule_for_d(Family::mma, InputClass::fp8, Format::fp16, fp8_mma_f16, source));
  m.rules.push_back(rule(Family::mma, InputClass::fp8, fp8_mma, source));
}

// f16 inputs with f16 D: terms below 2^(-21-25) are dropped (alignment floor -21).
DatapathParams hopper_f16_out() {
  DatapathParams p = hopper_params(25, 16);
  p.align_exponent_floor = -21;
  return p;
}

const std::vector<std::string> kKMHopper = {
    "mma.m16n8k16.f32.f16.f16.f32",    "mma.m16n8k16.f16.f16.f16.f16",    "mma.m16n8k16.f32.bf16.bf16.f32",
    "mma.m16n8k4.f32.tf32.tf32.f32",   "mma.m16n8k32.f16.e4m3.e4m3.f16", "mma.m16n8k32.f16.e5m2.e5m2.f16"};

Model hopper() {
  Model m{"sm_90", 90, "Hopper (H100/H200): 16-product blocks (8 for tf32), 25 kept fraction bits, RZ; "
                       "fp8 wgmma keeps 13 fraction bits over 32-product blocks and 13-bit block results; "
                       "fp8 mma is two interleaved f16 HMMA passes then an RNE add of C; "
                       "alignment exponent floor -133; zero results are +0", {}};
  // Validated on an H100 by corpora/h100 (docs/models.md, "Hopper: evidence").
  const std::string corpus = "tcnum corpora/h100 (H100 80GB HBM3, driver 580.159.04)";
  DatapathParams fp8_wgmma = hopper_params(13, 32);
  fp8_wgmma.block_result_frac_bits = 13;  // device D has at most 13 fraction bits for f32 D
  m.rules.push_back(rule(Family::wgmma, InputClass::fp8, fp8_wgmma, std::string(kMmaSim) + "; DeepSeek-V3 report; " + corpus));
  m.rules.push_back(rule(std::nullopt, InputClass::tf32, hopper_params(25, 8), std::string(kKM) + "; " + corpus));
  fp8_mma_emulation(m, "Luo et al., Table 14 (lowering to HMMA); ptxas 13.0 SASS; " + corpus);
  // f16 D floor -21 found by numprobe fit on the H100 (docs/numprobe.md §4.2; e.g.
  // 2^-23 + 2^-47 + 2^-25 -> 0x0002), as Khattak & Mikaitis' H100TC.m.
  m.rules.push_back(rule_for_d(std::nullopt, InputClass::f16, Format::fp16, hopper_f16_out(),
                               "numprobe fit on the H100 (docs/numprobe.md); " + corpus));
  m.rules.push_back(rule(std::nullopt, std::nullopt, hopper_params(25, 16), std::string(kKM) + "; " + kMmaSim + "; " + corpus));
  std::vector<std::string> h100;  // every instruction of corpora/h100 (mma/, wgmma/ at N = 8, 64, 256)
  for (const char* k : {"k8", "k16"})
    for (const char* t : {".f32.f16.f16.f32", ".f16.f16.f16.f16", ".f32.bf16.bf16.f32"}) h100.push_back(std::string("mma.m16n8") + k + t);
  h100.push_back("mma.m16n8k4.f32.tf32.tf32.f32");
  h100.push_back("mma.m16n8k8.f32.tf32.tf32.f32");
  const char* fp8[] = {"e4m3", "e5m2"};
  for (const char* a : fp8)
    for (const char* b : fp8) h100.push_back(std::string("mma.m16n8k32.f32.") + a + "." + b + ".f32");
  for (const char* n : {"8", "64", "256"}) {
    const std::string wg = std::string("wgmma.m64n") + n;
    for (const char* t : {"k16.f16.f16.f16", "k16.f32.f16.f16", "k16.f32.bf16.bf16", "k8.f32.tf32.tf32"}) h100.push_back(wg + t);
    for (const char* d : {"f16", "f32"})
      for (const char* a : fp8)
        for (const char* b : fp8) h100.push_back(wg + "k32." + d + "." + a + "." + b);
  }
  validated_by(m, "H100 80GB HBM3 (sm_90)", "h100", false, h100);
  // Sparse A (corpora/h100-sparse, docs/models.md §9): the rules above over the K/2 selected
  // products, every mma.sp form and wgmma.mma_async.sp at N = 8, 64, 256.
  std::vector<std::string> sparse;
  for (const Instruction& in : sparse_instructions_for(90))
    if (!in.integer() && (in.family == Family::mma || in.n == 8 || in.n == 64 || in.n == 256)) sparse.push_back(in.name);
  validated_by(m, "H100 80GB HBM3 (sm_90)", "h100-sparse", false, sparse);
  std::vector<std::string> km = kKMHopper;
  km.insert(km.end(), {"wgmma.m64n8k32.f32.e4m3.e4m3", "wgmma.m64n8k32.f32.e5m2.e5m2"});
  km_corpus(m, "H100 (sm_90)", "h100-km", km);
  km_corpus(m, "H200 (sm_90)", "h200-km", km);
  return m;
}

// Blackwell's FP6/FP4 and block-scaled kinds, from MMA-Sim alone (literature-only: no tcnum
// corpus, no other published model; docs/models.md §8). kind::f8f6f4 as its fp8 (25 kept bits,
// whole K fused); mxf8f6f4: each product carries both scales' exponents (scale_group 1);
// mxf4/mxf4nvf4: 35 kept bits, 16-product exact groups aligned by the scale exponents.
constexpr const char* kMmaSimBlockScale =
    "MMA-Sim (arXiv 2511.10909; microsoft/MMA-Sim simulator/nv.py, functions.py: nv_fused_dot_add with "
    "scales, nv_fused_dot_add_with_block_scale), literature-only";

DatapathParams block_scaled_params(int frac_bits, int scale_group) {
  DatapathParams p = params(frac_bits, 0);
  p.scale_group = scale_group;
  return p;
}

void blackwell_scaled_rules(Model& m, std::optional<Family> fam) {
  m.rules.push_back(rule(fam, InputClass::mxf8f6f4, block_scaled_params(25, 1), kMmaSimBlockScale));
  m.rules.push_back(rule(fam, InputClass::mxf4, block_scaled_params(35, 16), kMmaSimBlockScale));
}

Model blackwell() {
  Model m{"sm_100", 100, "Blackwell (B200): as Hopper for f16/bf16/tf32 mma and fp8 mma (HMMA emulation); "
                         "tcgen05 fp8 with 25 kept bits; alignment exponent floor -133; zero results are +0", {}};
  const std::string km_floor = std::string(kKM) + " (B200TC.m: min_exp_limit -133; -21 for f16 D)";
  // ptxas 13.0 emits for sm_100 exactly the SASS of sm_90 for fp8 mma.sync (docs/models.md §7.1).
  fp8_mma_emulation(m, "ptxas 13.0 SASS (= sm_90's); " + kKMData);
  m.rules.push_back(rule(std::nullopt, InputClass::tf32, hopper_params(25, 8), km_floor));
  m.rules.push_back(rule(std::nullopt, InputClass::fp8, hopper_params(25, 32), std::string(kMmaSim) + "; " + km_floor));
  m.rules.push_back(rule(Family::tcgen05, InputClass::f6f4, hopper_params(25, 32),
                         std::string(kMmaSimBlockScale) + " (as fp8); floor: " + km_floor + " (measured on fp8 only)"));
  blackwell_scaled_rules(m, Family::tcgen05);
  m.rules.push_back(rule_for_d(std::nullopt, InputClass::f16, Format::fp16, hopper_f16_out(), km_floor));
  m.rules.push_back(rule(std::nullopt, std::nullopt, hopper_params(25, 16), km_floor));
  std::vector<std::string> b200 = kKMHopper;
  b200.insert(b200.end(), {"mma.m16n8k32.f32.e4m3.e4m3.f32", "mma.m16n8k32.f32.e5m2.e5m2.f32"});
  km_corpus(m, "B200 (sm_100)", "b200", b200);
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

// RTX Blackwell (sm_120, RTX 50xx): MMA-Sim's nv_rtxblackwell model, the only source: every
// mma.sync fuses its whole K with 25 kept fraction bits (no split-K, no fp8 HMMA emulation, no
// alignment floor), RZ into f32, RNE into f16; block-scaled kinds as sm_100's tcgen05.
Model rtx_blackwell() {
  Model m{"sm_120", 120, "RTX Blackwell (RTX 50xx, literature-only): whole-K fused sums with 25 kept bits, "
                         "RZ f32 / RNE f16; mxf8f6f4 scales per product, mxf4/mxf4nvf4 35 kept bits over "
                         "16-product scaled groups; zero results are +0", {}};
  blackwell_scaled_rules(m, std::nullopt);
  m.rules.push_back(rule(std::nullopt, std::nullopt, params(25, 0),
                         "MMA-Sim (arXiv 2511.10909; simulator/nv.py: RTX Blackwell, 25 fractional bits, "
                         "no split-K), literature-only"));
  return m;
}

// Every architecture with integer mma (sm_75+): its first rule says the integer instructions are
// exact (integer_mma.hpp; the parameters are not read). sm_90's is validated by corpora/h100-int:
// every integer mma.sync form, and integer wgmma at the N recorded there (8, 64, 256; the live check
// ran every N, docs/models.md §8.5); the sparse integer wgmma at N = 8, 64, 256 and the 16 integer
// s8/u8 mma.sp forms by corpora/h100-sparse (docs/models.md §9; the s4/u4 ones, 4:8 in pairs, have no
// probe kernel).
Model with_integer_rule(Model m) {
  if (m.sm < 75) return m;
  m.rules.insert(m.rules.begin(),
                 rule(std::nullopt, InputClass::integer, exact_params(),
                      "PTX ISA (mma integer types, .satfinite): exact sums, D = C + sum mod 2^32 or clamped to s32"));
  if (m.sm == 90) {
    std::vector<std::string> names, sparse;
    for (const Instruction& in : instructions_for(90))
      if (in.integer() && (in.family == Family::mma || in.n == 8 || in.n == 64 || in.n == 256)) names.push_back(in.name);
    validated_by(m, "H100 80GB HBM3 (sm_90)", "h100-int", false, names);
    for (const Instruction& in : sparse_instructions_for(90))  // s8/u8 mma.sp; wgmma.sp: the N of the sparse probes
      if ((in.a_type == Format::s8 || in.a_type == Format::u8) && (in.family == Family::mma || in.n == 8 || in.n == 64 || in.n == 256))
        sparse.push_back(in.name);
    validated_by(m, "H100 80GB HBM3 (sm_90)", "h100-sparse", false, sparse);
  }
  return m;
}

const Model& builtin_model(int sm) {
  static const std::map<int, Model> models = [] {
    std::map<int, Model> all = {
      {70, volta()},
      {75, turing()},
      {80, ampere_like("sm_80", 80, "Ampere (A100): 8-product blocks (4 for tf32), 24 kept fraction bits, RZ; "
                                    "alignment exponent floor -132 (-20 for f16 D); zero results are +0")},
      {86, ampere_like("sm_86", 86, "Ampere (GA10x, A2): as sm_80")},
      {89, ampere_like("sm_89", 89, "Ada (RTX 1000 Ada, L40S): as sm_80, plus fp8 mma (16-product blocks, 13 kept "
                                    "fraction bits; f32 D: e8m13 block results; f16 D: each block rounded to f16)")},
      {90, hopper()},
      {100, blackwell()},
      {120, rtx_blackwell()},
      {detail::kGfx908, detail::cdna_model(detail::kGfx908)},
      {detail::kGfx90a, detail::cdna_model(detail::kGfx90a)},
      {detail::kGfx942, detail::cdna_model(detail::kGfx942)},
    };
    for (auto& [arch, m] : all)
      if (!is_amd_arch(arch)) m = with_integer_rule(std::move(m));
    return all;
  }();
  auto it = models.find(sm);
  if (it == models.end()) throw std::invalid_argument("no built-in model for " + arch_name(sm));
  return it->second;
}

const char* input_class_name(InputClass c) {
  switch (c) {
    case InputClass::f16: return "f16";
    case InputClass::bf16: return "bf16";
    case InputClass::tf32: return "tf32";
    case InputClass::fp8: return "fp8";
    case InputClass::f6f4: return "f6f4";
    case InputClass::mxf8f6f4: return "mxf8f6f4";
    case InputClass::mxf4: return "mxf4";
    case InputClass::integer: return "int";
    case InputClass::f32: return "f32";
  }
  return "?";
}

InputClass input_class(const Instruction& in) {
  if (in.integer()) return InputClass::integer;
  if (in.block_scaled()) return in.kind == "mxf8f6f4" ? InputClass::mxf8f6f4 : InputClass::mxf4;
  if (!in.kind.empty()) return InputClass::f6f4;  // kind::f8f6f4 spelled out (FP6/FP4, or sm_120)
  switch (in.a_type) {
    case Format::bf16: return InputClass::bf16;
    case Format::tf32: return InputClass::tf32;
    case Format::e4m3:
    case Format::e5m2:
    case Format::e4m3fnuz:
    case Format::e5m2fnuz: return InputClass::fp8;
    case Format::fp16: return InputClass::f16;
    case Format::fp32: return InputClass::f32;
    default: throw std::invalid_argument(in.name + ": no input class for " + std::string(name_of(in.a_type)));
  }
}

const ModelRule& Model::rule_for(const Instruction& in) const {
  check_formats(in);  // where a (possibly hand-built) instruction enters through the model
  const InputClass ic = input_class(in);
  for (const ModelRule& r : rules)
    if ((!r.family || *r.family == in.family) && (!r.inputs || *r.inputs == ic) &&
        (!r.d_type || *r.d_type == in.d_type) && (!r.sparse || *r.sparse == in.sparse))
      return r;
  throw std::invalid_argument("model " + name + " has no rule for " + in.name);
}

const DatapathParams& Model::params_for(const Instruction& in) const { return rule_for(in).params; }

std::string validation_summary(const std::vector<Validation>& v) {
  if (v.empty()) return "not validated on a device";
  std::string s = "validated on ";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? "; " : "") + v[i].gpu + " [corpora/" + v[i].corpus + (v[i].normal_range_only ? ", normal-range inputs only]" : "]");
  return s;
}

std::vector<Validation> Model::validations_for(const Instruction& in) const {
  std::vector<Validation> out;
  for (const Validation& v : rule_for(in).validations)
    if (std::find(v.instructions.begin(), v.instructions.end(), in.name) != v.instructions.end()) out.push_back(v);
  return out;
}

}  // namespace tcnum
