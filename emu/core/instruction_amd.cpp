// AMD's MFMA instructions: the CDNA1 (gfx908), CDNA2 (gfx90a) and CDNA3 (gfx942) ISA names in
// LLVM's lower-case spelling, with the shapes and types their names state. Sources: AMD
// Instinct MI100 ISA ("CDNA1"), MI200 ISA ("CDNA2") and MI300 ISA ("CDNA3") reference guides,
// the matrix-instruction tables; MMA-Sim's mmasim/isa/amd.py (commit c785138) lists the same
// names. Each output element is one dot product of K: the "_Nb" (N blocks) forms compute N
// independent M x N blocks and change no output bit, so M and N here are one block's.
// Left out: f64 (no f64 format in tcnum), integer (i8) MFMAs, CDNA1/2 f16/bf16 (docs/models.md
// §10: no datapath model that could be checked).
#include "instruction_amd.hpp"

#include <optional>
#include <sstream>
#include <string>

namespace tcnum::detail {
namespace {

// One MFMA: D (and C) in f32; `name` is the ISA's, without the v_mfma_ prefix.
Instruction mfma(const std::string& name, int m, int n, int k, Format ab, int min_arch, int max_arch,
                 std::optional<Format> b_only = std::nullopt) {
  Instruction in;
  in.name = "v_mfma_" + name;
  in.family = Family::mfma;
  in.m = m, in.n = n, in.k = k;
  in.d_type = in.c_type = Format::fp32;
  in.a_type = in.b_type = ab;
  if (b_only) in.b_type = *b_only;
  in.min_sm = min_arch, in.max_sm = max_arch;
  return in;
}

struct Shape {
  int m, n, k, blocks;
};

// "32x32x1" plus the CDNA3 "_2b" for blocks > 1.
std::string shape_text(const Shape& s, bool cdna3) {
  std::ostringstream os;
  os << s.m << 'x' << s.n << 'x' << s.k;
  if (cdna3) {
    if (s.blocks > 1) os << '_' << s.blocks << 'b';
    os << '_';
  }
  return os.str();
}

}  // namespace

void add_amd_mfma(std::vector<Instruction>& all) {
  using F = Format;
  // CDNA1/CDNA2 (gfx908, gfx90a): f32 inputs, D/C f32: v_mfma_f32_<M>x<N>x<K>f32.
  const Shape cdna12_f32[] = {{32, 32, 2, 1}, {32, 32, 1, 2}, {16, 16, 4, 1}, {16, 16, 1, 4}, {4, 4, 1, 16}};
  for (const Shape& s : cdna12_f32)
    all.push_back(mfma("f32_" + shape_text(s, false) + "f32", s.m, s.n, s.k, F::fp32, kGfx908, kGfx90a));
  // CDNA3 (gfx942): v_mfma_f32_<M>x<N>x<K>[_<B>b]_<type>.
  const Shape cdna3_f32[] = {{32, 32, 1, 2}, {16, 16, 1, 4}, {4, 4, 1, 16}, {32, 32, 2, 1}, {16, 16, 4, 1}};
  for (const Shape& s : cdna3_f32)
    all.push_back(mfma("f32_" + shape_text(s, true) + "f32", s.m, s.n, s.k, F::fp32, kGfx942, kGfx942));
  // xf32: f32 registers whose low 13 fraction bits the unit ignores, i.e. tf32 operands.
  for (const Shape& s : {Shape{16, 16, 8, 1}, Shape{32, 32, 4, 1}})
    all.push_back(mfma("f32_" + shape_text(s, true) + "xf32", s.m, s.n, s.k, F::tf32, kGfx942, kGfx942));
  const Shape cdna3_16bit[] = {{32, 32, 4, 2}, {16, 16, 4, 4}, {4, 4, 4, 16}, {32, 32, 8, 1}, {16, 16, 16, 1}};
  for (const auto& [type, f] : {std::pair{"f16", F::fp16}, std::pair{"bf16", F::bf16}})
    for (const Shape& s : cdna3_16bit)
      all.push_back(mfma("f32_" + shape_text(s, true) + type, s.m, s.n, s.k, f, kGfx942, kGfx942));
  // fp8 (E4M3 FNUZ) and bf8 (E5M2 FNUZ), every A x B pair: v_mfma_f32_<shape>_<a>_<b>.
  const std::pair<const char*, Format> fp8s[] = {{"bf8", F::e5m2fnuz}, {"fp8", F::e4m3fnuz}};
  for (const Shape& s : {Shape{16, 16, 32, 1}, Shape{32, 32, 16, 1}})
    for (const auto& [a_name, a] : fp8s)
      for (const auto& [b_name, b] : fp8s)
        all.push_back(mfma("f32_" + shape_text(s, true) + a_name + "_" + b_name, s.m, s.n, s.k, a, kGfx942, kGfx942, b));
}

}  // namespace tcnum::detail
