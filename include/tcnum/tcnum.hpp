// Umbrella header: tcnum's core (target tcnum::tcnum) and nothing else, so a consumer needs
// only zlib and the standard library. The other layers are included by name:
//   tcnum/reference/*.hpp     exact MPFR reference and input generators (tcnum::reference)
//   tcnum/characterize/*.hpp  feature tests, published recipes, fit, profile (tcnum::characterize)
//   tcnum/interop/eigen.hpp   GEMM on Eigen matrices (tcnum::eigen)
//   tcnum/probes/device.hpp   running instructions on a GPU (tcnum::probes, CUDA builds only)
//   tcnum/testing/gtest.hpp   GoogleTest assertions on matrices (link GoogleTest yourself)
//   tcnum/interop/cuda.hpp, cutlass.hpp  CUDA's and CUTLASS's value types (their headers needed)
#pragma once

#include "tcnum/core/format.hpp"
#include "tcnum/core/types.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/schedule.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/library_inputs.hpp"
#include "tcnum/core/reveal.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/sparse.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/matrix_view.hpp"
#include "tcnum/core/gemm_views.hpp"
#include "tcnum/core/epilogue.hpp"
#include "tcnum/core/kernel_match.hpp"
#include "tcnum/testing/compare.hpp"
