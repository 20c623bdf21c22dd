// An instruction of an architecture as the parameter of a value-parameterised test.
#pragma once
#include <ostream>

#include "tcnum/core/instruction.hpp"

namespace tcnum::test {

struct ArchInstruction {
  int sm;
  Instruction in;
};

// Names the parameter in test output and ctest's test names (gtest would print its raw bytes).
inline void PrintTo(const ArchInstruction& t, std::ostream* os) { *os << "sm_" << t.sm << " " << t.in.name; }

}  // namespace tcnum::test
