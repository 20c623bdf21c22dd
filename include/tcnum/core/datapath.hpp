// Which datapath computes an element: every element, batch, tile and GEMM call takes one.
#pragma once
#include <cstdint>

namespace tcnum {

// `fast`: the fast kernel where the plan and the operands allow it, and the reference datapath
// for every element it hands back (NaN/Inf, a result that is not a normal number, a plan that
// is not fast). `reference`: the reference datapath for every element, term by term with exact
// wide sums: the scalar oracle the fast kernel is tested against (tests/test_fast_path.cpp).
// Both give the same bits.
enum class Datapath : std::uint8_t { fast, reference };

}  // namespace tcnum
