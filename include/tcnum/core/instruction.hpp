// The instruction catalog: every tensor-core MMA instruction tcnum models, by PTX name.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/format.hpp"

namespace tcnum {

enum class Family : std::uint8_t { mma, wgmma, tcgen05 };

// One instruction as named in PTX, without .sync.aligned and layouts, e.g.
// "mma.m16n8k16.f32.bf16.bf16.f32", "wgmma.m64n128k32.f32.e4m3.e5m2",
// "tcgen05.mma.m128n256k16.f32.f16.f16" (tcgen05: kind implied by the input types).
struct Instruction {
  std::string name;
  Family family = Family::mma;
  int m = 0, n = 0, k = 0;
  Format d_type = Format::fp32;  // D (and C for mma; wgmma/tcgen05 accumulate into D)
  Format a_type = Format::fp16;
  Format b_type = Format::fp16;
  Format c_type = Format::fp32;
  int min_sm = 0;      // first architecture that has it (70, 75, 80, 89, 90, 100)
  int max_sm = 1000;   // last (wgmma is sm_90a only)
};

class UnknownInstruction : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Architectures as numbers: "sm_90" -> 90, "sm_90a" -> 90. Throws on anything else.
int parse_arch(std::string_view arch);
std::vector<int> known_archs();

// Every instruction available on `sm` (e.g. 90).
std::vector<Instruction> instructions_for(int sm);

// Parses and validates a name for an architecture; the error lists the valid names.
Instruction find_instruction(std::string_view name, int sm);

// Parses a name without an architecture check (any known arch).
Instruction parse_instruction(std::string_view name);

}  // namespace tcnum
