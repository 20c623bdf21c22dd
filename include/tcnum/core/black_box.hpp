// The one black-box interface: what an instruction returns for cases (one output element each),
// as raw bits. Three implementations: emulator_box (a model, through its compiled plans),
// exact_box (tcnum/reference/exact_box.hpp: every product kept, one rounding, by MPFR) and
// device_box (tcnum/probes/device_box.hpp: a GPU). Feature tests, published recipes, fits, the chain
// study and device checks run on a BlackBox, so the same code characterises a model, the ideal
// tensor core and a real one. GEMMs compose over a box (batched_gemm), as CUTLASS's host
// reference composes its GEMM from an injected inner-product op; tcnum::gemm itself stays the
// emulator's own fast driver.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// The scales of a batch of block-scaled products (raw in.scale_type bits), V = in.scale_block:
// batch × (A's m × k/V, row-major) and batch × (B's k/V × n, row-major); empty for other
// instructions.
struct BatchScales {
  std::vector<std::uint32_t> a, b;
};

struct BlackBox {
  // D's raw bits (in.d_type) for every case of `in`, in order; one call is one batch (one
  // device launch). A block-scaled case without scales gets unit scales (2^0).
  std::function<std::vector<std::uint32_t>(const Instruction& in, std::span<const Case> cases)> cases;
  // Optional, for speed only: what batched_gemm computes, done by the box's own GEMM (whole tiles
  // on a device, tcnum::gemm's fast kernel on the emulator). Empty: batched_gemm uses `cases`.
  std::function<std::vector<std::uint32_t>(const Instruction& in, int batch, int m, int n, int k,
                                           std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                           const BatchScales& scales)>
      gemm;
};

// The emulator with a model's rules, or with one set of parameters for every instruction.
// `threads`: for large batches (0: every core, tcnum/core/parallel.hpp).
BlackBox emulator_box(const Model& model, int threads = 0);
BlackBox emulator_box(const DatapathParams& params, int threads = 0);

// The emulator's D for one case under `params`, without a box (for loops over many parameter
// sets): the fast kernel where it applies; block-scaled cases take the reference datapath, with
// unit scales when the case has none.
std::uint32_t emulate_case(const DatapathParams& params, const Instruction& in, const Case& c);

// One case through a box.
std::uint32_t evaluate(const BlackBox& box, const Instruction& in, const Case& c);

// `batch` independent products D_t = A_t·B_t with C = +0: A_t m×k row-major (in.a_type), B_t k×n
// row-major (in.b_type), D_t m×n row-major (in.d_type); K in k-steps of in.k, ascending, each
// step's D the next step's C (as tcnum::gemm and the hardware chain them). k must be a multiple
// of in.k; block-scaled instructions need `scales`. Through box.gemm when the box has one, else
// one case per element and k-step.
std::vector<std::uint32_t> batched_gemm(const BlackBox& box, const Instruction& in, int batch, int m, int n, int k,
                                        std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                        const BatchScales& scales = {});

}  // namespace tcnum
