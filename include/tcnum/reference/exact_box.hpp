// The exact black box (tcnum/core/black_box.hpp): every product and C summed exactly, rounded
// once to D's format (round to nearest even, overflow to Inf): the ideal tensor core, computed by
// MPFR. It equals emulator_box(exact_params()) on every case, which test_chain checks.
#pragma once
#include "tcnum/core/black_box.hpp"

namespace tcnum {

// `threads`: for large batches (0: every core). Block-scaled cases apply their scales exactly
// (unit scales when a case has none).
BlackBox exact_box(int threads = 0);

}  // namespace tcnum
