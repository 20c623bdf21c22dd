// The instruction catalog: every tensor-core MMA instruction tcnum models, by PTX name.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/format.hpp"

namespace tcnum {

// mfma: AMD CDNA matrix cores (v_mfma_*), on the gfx architectures (arch_name).
enum class Family : std::uint8_t { mma, wgmma, tcgen05, mfma };
// "mma", "wgmma", "tcgen05", "mfma" (the model JSON's and numprobe's spelling).
const char* family_name(Family f);

// AMD's MFMA instructions by their ISA names in lower case (LLVM's spelling), e.g.
// "v_mfma_f32_32x32x8f16" (gfx908/gfx90a), "v_mfma_f32_32x32x8_f16",
// "v_mfma_f32_16x16x32_fp8_bf8" (gfx942); their min_sm/max_sm are gfx numbers (parse_arch).
// One instruction as named in PTX, without .sync.aligned and layouts, e.g.
// "mma.m16n8k16.f32.bf16.bf16.f32", "wgmma.m64n128k32.f32.e4m3.e5m2",
// "tcgen05.mma.m128n256k16.f32.f16.f16" (tcgen05: kind implied by the input types). Blackwell's
// FP6/FP4 and block-scaled forms spell their kind as PTX does:
// "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3" (sm_120a),
// "tcgen05.mma.m128n64k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.ue8m0" (sm_100a).
struct Instruction {
  std::string name;
  Family family = Family::mma;
  int m = 0, n = 0, k = 0;
  Format d_type = Format::fp32;  // D (and C for mma; wgmma/tcgen05 accumulate into D)
  Format a_type = Format::fp16;
  Format b_type = Format::fp16;
  Format c_type = Format::fp32;
  int min_sm = 0;      // first architecture that has it (70, 75, 80, 89, 90, 100, 120)
  int max_sm = 1000;   // last (wgmma is sm_90a only; tcgen05 is not on sm_120)
  // The last architecture of which it is one of the own tensor-core shapes (m8n8k4: sm_70;
  // sm_75 still runs it, as a compatibility form). is_native() reads it.
  int native_max_sm = 1000;
  // Blackwell's PTX kind where the name spells it ("f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4");
  // empty for the older names whose kind the input types imply.
  std::string kind;
  // Block scaling: K elements per scale (32: MX, ue8m0; 16: NVFP4, ue4m3); 0 = not block-scaled.
  // Row i of A has k / scale_block scales of scale_type, column j of B as many (PTX ISA,
  // "block scaling": scale_A[i][k / scale_block] multiplies A[i][k], scale_B likewise B[k][j]).
  int scale_block = 0;
  Format scale_type = Format::ue8m0;
  bool block_scaled() const { return scale_block > 0; }
  int scales_per_row() const { return block_scaled() ? k / scale_block : 0; }
  // Integer MMA (s8/u8/s4/u4 inputs, s32 C and D): exact, no datapath parameters; D is
  // C + Σ a·b modulo 2^32, or clamped to the s32 range with `.satfinite` (saturate).
  // compile_plan, mma_element and replay take integer_mma_element for them (docs/models.md §8.5).
  bool saturate = false;
  bool integer() const { return is_integer(a_type); }
  // Sparse A (PTX mma.sp::ordered_metadata, wgmma.mma_async.sp): K is the logical K; A holds
  // the K/2 elements its metadata selects (tcnum/core/sparse.hpp), B all K.
  bool sparse = false;
  int a_elements() const { return sparse ? k / 2 : k; }  // A elements per row as the instruction reads them
};

class UnknownInstruction : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Rejects an Instruction with a Format field outside the enum (hand-built or read from bad
// memory) with std::invalid_argument naming the field. compile_plan and gemm call it once per
// call, so that the per-element code can index the format table unchecked.
void check_formats(const Instruction& in);

// Architectures as numbers: "sm_90" -> 90, "sm_90a" -> 90; AMD's gfx targets as their digits,
// the hex digit a as 10: "gfx908" -> 908, "gfx90a" -> 910, "gfx942" -> 942. Throws on anything else.
int parse_arch(std::string_view arch);
std::vector<int> known_archs();   // NVIDIA's, then AMD's
std::string arch_name(int arch);  // 90 -> "sm_90", 910 -> "gfx90a"
bool is_amd_arch(int arch);       // a gfx target (its instructions are the mfma family)

// Every dense instruction available on `sm` (e.g. 90): what `--instr all`, the feature tests,
// fits and default_instruction take. The sparse forms are listed apart.
std::vector<Instruction> instructions_for(int sm);
// The sparse forms available on `sm` (mma.sp::ordered_metadata on sm_80+, fp8 on sm_89+;
// wgmma.mma_async.sp on sm_90a). find_instruction and parse_instruction know both lists.
std::vector<Instruction> sparse_instructions_for(int sm);

// The N of integer wgmma (m64nNk32 .s32.{s8,u8}.{s8,u8}): 8, 16, 24, 32, 48, 64, ..., 256 (the
// PTX ISA's shapes; ptxas refuses N = 40, 56, ...). Every other wgmma type has N = 8, 16, ..., 256.
std::vector<int> integer_wgmma_n();

// Parses and validates a name for an architecture; the error lists the valid names.
Instruction find_instruction(std::string_view name, int sm);

// Parses a name without an architecture check (any known arch).
Instruction parse_instruction(std::string_view name);

// Whether sm runs mma.sync with fp8 inputs as f16 HMMAs (its SASS then shows HMMA.16816.F32,
// not QMMA): sm_90 and sm_100.
bool fp8_mma_runs_as_f16(int sm);

// Whether `in` is one of sm's own tensor-core instructions (available, and not a form kept only
// for compatibility): what the feature fit, the device sweeps and default_instruction take.
bool is_native(const Instruction& in, int sm);

// The operand formats an instruction is wanted for: A and B (they may differ, e.g. e4m3 × e5m2),
// D, and C when it must be a given format (nullopt: whichever the chosen form has).
struct OperandFormats {
  Format a, b, d;
  std::optional<Format> c;
};

// tcnum's one default instruction: what it takes for these formats on `sm` when none is named
// (numprobe's feature tests and profile, the chain study, match_kernel without SASS, Python's
// gemm and mma). Restricted to `family` and to `k` when given (k = 0: any). Preference, in
// order: not block-scaled (FP4/FP6 get the dense kind::f8f6f4; a block-scaled kind only when
// nothing else has the types), the architecture's own family (wgmma on sm_90, where fp8 mma
// runs as f16 HMMA; tcgen05 on sm_100; mma elsewhere), native shapes, the largest K, the
// smallest M, then N. M and N change no output bit (each element is one dot product of K).
// Throws std::invalid_argument saying why when there is none.
Instruction default_instruction(const OperandFormats& formats, int sm, std::optional<Family> family = std::nullopt,
                                int k = 0);

// The same for `dtype` inputs (A and B) with D in `acc`.
inline Instruction default_instruction(Format dtype, int sm, Format acc = Format::fp32,
                                       std::optional<Family> family = std::nullopt, int k = 0) {
  return default_instruction(OperandFormats{dtype, dtype, acc, std::nullopt}, sm, family, k);
}

}  // namespace tcnum
