// The instruction catalog: every tensor-core MMA instruction tcnum models, by PTX name.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/format.hpp"

namespace tcnum {

enum class Family : std::uint8_t { mma, wgmma, tcgen05 };

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
};

class UnknownInstruction : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Rejects an Instruction with a Format field outside the enum (hand-built or read from bad
// memory) with std::invalid_argument naming the field. compile_plan and gemm call it once per
// call, so that the per-element code can index the format table unchecked.
void check_formats(const Instruction& in);

// Architectures as numbers: "sm_90" -> 90, "sm_90a" -> 90. Throws on anything else.
int parse_arch(std::string_view arch);
std::vector<int> known_archs();

// Every instruction available on `sm` (e.g. 90).
std::vector<Instruction> instructions_for(int sm);

// Parses and validates a name for an architecture; the error lists the valid names.
Instruction find_instruction(std::string_view name, int sm);

// Parses a name without an architecture check (any known arch).
Instruction parse_instruction(std::string_view name);

// Whether `in` is one of sm's own tensor-core instructions (available, and not a form kept only
// for compatibility): what the feature fit, the device sweeps and default_instruction take.
bool is_native(const Instruction& in, int sm);

// The instruction tcnum takes for `dtype` inputs (A and B) with D (and C) in `acc` on `sm` when
// none is named: numprobe's feature tests and profile, the chain study. Restricted to `family`
// and to `k` when given (k = 0: any). Preference, in order: the architecture's own family for
// those inputs (fp8: wgmma on sm_90, whose fp8 mma runs as f16 HMMA; tcgen05 on sm_100; mma
// elsewhere, and for every other input), native shapes, the largest K, the smallest M, then N;
// block-scaled kinds only when nothing else has the types (FP4/FP6 get the dense kind::f8f6f4).
// Throws std::invalid_argument saying why when there is none.
Instruction default_instruction(Format dtype, int sm, Format acc = Format::fp32,
                                std::optional<Family> family = std::nullopt, int k = 0);

}  // namespace tcnum
