// Choosing the instruction to emulate for a kernel: from the architecture, the operand and
// accumulator types, and optionally the MMA mnemonic its SASS shows (cuobjdump -sass), the
// catalog instruction and the GEMM options (k-order, split-K) of a straightforward kernel.
//
//   const tcnum::KernelMatch km = tcnum::match_kernel(90, Format::bf16, Format::bf16, Format::fp32,
//                                                     "HGMMA.64x128x16.F32.BF16");
//   tcnum::gemm(km, A, B, D);     // = tcnum::gemm(km.model(), km.instruction, A, B, D, km.options)
//
// Only the family (mma / wgmma / tcgen05), the input types, the accumulator type and the
// instruction's K change output bits: M and N do not (every element is its own chain of
// k-steps), so a kernel using wgmma.m64n256k16 is matched by wgmma.m64n128k16 as well.
#pragma once
#include <string>
#include <string_view>

#include "tcnum/core/epilogue.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/gemm_views.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

struct KernelMatch {
  int sm = 0;
  Instruction instruction;
  // What a straightforward kernel does: k-steps in ascending k (the main loop walks the K
  // tiles upward, each tile's k-steps upward), no split-K. Change them to match yours.
  GemmOptions options;
  std::string explanation;  // which instruction, why, and what was assumed
  const Model& model() const { return builtin_model(sm); }
};

// a, b: operand formats; accumulator: fp32 or fp16. sass: empty, or the MMA mnemonic of the
// kernel's SASS, e.g. "HMMA.16816.F32.BF16", "HMMA.1688.F32.TF32", "HMMA.16816.F16",
// "HGMMA.64x128x16.F32.BF16", "HGMMA.64x64x8.F32.TF32", "QGMMA.64x128x32.F32.E4M3.E4M3",
// "QMMA.16832.F32.E4M3.E5M2", "HMMA.884.F32.F32" (or a whole line of cuobjdump -sass: the
// token holding "MMA" is read). Without it, tcnum's default instruction for the types
// (default_instruction, instruction.hpp: the architecture's own family, i.e. mma.sync before
// sm_90, wgmma on sm_90a, tcgen05.mma on sm_100; the largest K). Throws std::invalid_argument
// when `sm` is not an architecture with a built-in model (one of known_archs(), checked
// first), when the mnemonic cannot be read or contradicts the types, or
// the architecture has no such instruction (UnknownInstruction for a mnemonic's instruction it
// lacks).
KernelMatch match_kernel(int sm, Format a, Format b, Format accumulator, std::string_view sass = {});

// The oracle of a matched kernel: gemm / gemm_with_epilogue (gemm_views.hpp, epilogue.hpp)
// with km's model, instruction and options.
template <class TA, class TB, class TD>
void gemm(const KernelMatch& km, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TD> d, const Conversion& conv = {}) {
  gemm(km.model(), km.instruction, a, b, d, km.options, conv);
}
template <class TA, class TB, class TC, class TD>
void gemm(const KernelMatch& km, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TC> c, MatrixView<TD> d,
          const Conversion& conv = {}) {
  gemm(km.model(), km.instruction, a, b, c, d, km.options, conv);
}
template <class TA, class TB, class TC, class TD>
void gemm_with_epilogue(const KernelMatch& km, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TC> c, MatrixView<TD> d,
                        const Epilogue& ep, const Conversion& conv = {}) {
  gemm_with_epilogue(km.model(), km.instruction, a, b, c, d, ep, km.options, conv);
}
// The same without a source C (ep.beta must be 0).
template <class TA, class TB, class TD>
void gemm_with_epilogue(const KernelMatch& km, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TD> d, const Epilogue& ep,
                        const Conversion& conv = {}) {
  gemm_with_epilogue(km.model(), km.instruction, a, b, d, ep, km.options, conv);
}

}  // namespace tcnum
