// Chain matrix multiplication (Sun et al., "Dissecting Tensor Cores via Microbenchmarks",
// TPDS 2023, §8.2, Fig. 17): D_1 = A·B_1, D_i = D_{i-1}·B_i with fresh N(0,1) matrices B_i,
// every product computed with one tensor-core instruction, and the relative L2 error of the
// whole D_N (their equation 1) against an FP32 CPU chain and against the exact chain (MPFR).
//
// Shapes: A is rows×K, every B_i is K×K, so every D_i is rows×K (K: the instruction's K by
// default; the paper's m16n8k8 gives A 16×8, B_i 8×8, D_i 16×8, one instruction per link).
// The next link's A is D_{i-1} converted to the instruction's A format (round to nearest even,
// satfinite for fp8), after per-tensor scaling when a scaling is chosen (Transformer-Engine
// style: scale = max_finite / amax, dequantised in fp32 after the product). See
// docs/chain-study.md for the whole set-up and the results.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::chain {

// How A and the B_i are drawn. low: N(0,1) rounded (RNE) straight to the input format, and the
// references use these same values. fp32: N(0,1) rounded to fp32; the references use the fp32
// values, the tensor core their conversion (RNE) to the input format.
enum class Init : std::uint8_t { low, fp32 };

// Per-tensor scaling before every conversion to the input format. none: plain conversion.
// amax: scale = max_finite(format) / amax(tensor) in fp32 (Transformer Engine's current scaling,
// margin 0); the product is dequantised as fp32(acc · fp32(1/s_A · 1/s_B)). pow2: the same with
// the scale rounded down to a power of two (the scaling itself is then exact).
// block: the block-scaled instructions' own scaling (the only one they take), per block of
// in.scale_block elements along K (each row of A, each column of B): MX (ue8m0 scales): OCP MX
// v1.0 §6.3, X = 2^(floor(log2 amax_block) - emax_elem), q = satfinite(RNE(x / X)); NVFP4 (ue4m3
// scales): NVIDIA's two-level recipe, a per-tensor fp32 scale g = 448·6 / amax_tensor, block scale
// s = ue4m3(RNE(amax_block / 6 · g)), q = satfinite(RNE(x · g / s)), and D dequantised as
// fp32(acc · fp32(1/g_A · 1/g_B)).
enum class Scaling : std::uint8_t { none, amax, pow2, block };

std::string_view name_of(Init i);
std::string_view name_of(Scaling s);
std::optional<Init> parse_init(std::string_view s);
std::optional<Scaling> parse_scaling(std::string_view s);

// The instruction of a dtype when only its family is named (numprobe chain --instr mma|wgmma):
// tcnum::default_instruction with fp32 accumulation, and K = 8 on mma for fp16, bf16 and tf32
// (Sun et al.'s m16n8k8, the one shape the three share, whose B_i is square). So "mma" gives
// mma.m16n8k8 (fp16/bf16/tf32) or mma.m16n8k32 (fp8), "wgmma" gives wgmma.m64n8k16 / m64n8k8
// (tf32) / m64n8k32 (fp8). Throws std::invalid_argument when sm has none (or for fp32).
Instruction study_instruction(Format dtype, Family family, int sm);

struct Config {
  Instruction instr;
  int rows = 16;        // M of A and of every D_i
  int k = 0;            // K (= N): 0 means instr.k
  int max_len = 20;     // chain lengths 1..max_len are all reported
  int trials = 1000;
  Init init = Init::low;
  Scaling scaling = Scaling::none;
  std::uint64_t seed = 1;
  bool fp32_reference = true;   // the paper's baseline
  bool exact_reference = true;  // MPFR (the most expensive part)
  int threads = 0;              // 0: all hardware threads
};

struct Link {
  double rel_err_fp32 = std::numeric_limits<double>::quiet_NaN();
  double rel_err_exact = std::numeric_limits<double>::quiet_NaN();
  // The FP32 CPU chain's own error: ||D^fp32 - D^exact|| / ||D^fp32|| (both references on).
  double baseline_err_exact = std::numeric_limits<double>::quiet_NaN();
  bool overflow = false;    // D_n has an Inf or NaN element
  bool saturated = false;   // a satfinite conversion into this link's A or B clamped at ±max finite
  std::uint64_t d_hash = 0; // FNV-1a of the instruction's raw D bits (before any dequantisation)
};

struct Trial {
  std::vector<Link> links;  // links[n-1] is chain length n
  int first_overflow = 0;   // first n whose D_n holds an Inf/NaN; 0: none up to max_len
};

struct Result {
  Config config;
  std::vector<Trial> trials;
};

// done/total count trial-links (trials × max_len); called from the calling thread.
using Progress = std::function<void(std::size_t done, std::size_t total)>;

// Runs every trial of one configuration, link by link: each link's products of all trials are
// one batched_gemm over `box` (tcnum/core/black_box.hpp: emulator_box(model), exact_box() or
// device::device_box()), so a device launches once per link. Deterministic for a given seed,
// whatever `threads`. Throws std::invalid_argument on bad sizes.
Result run(const Config& cfg, const BlackBox& box, const Progress& progress = {});

// Per chain length: means over the trials whose D_n is finite.
struct Point {
  int n = 0;
  int trials = 0;
  int finite = 0;
  double mean_rel_err_fp32 = 0, mean_rel_err_exact = 0;
  double median_rel_err_fp32 = 0, median_rel_err_exact = 0;
  double mean_baseline_err_exact = 0;  // the FP32 chain against the exact one (all trials)
  double overflow_fraction = 0;  // trials whose D_n is not finite
  double saturated_fraction = 0;
};
std::vector<Point> summarize(const Result& r);

// Relative L2 error of Sun et al.'s equation 1: ||low - ref||_2 / ||low||_2 (the denominator is
// the low-precision result, as in the paper). NaN when `low` holds a non-finite value.
// std::invalid_argument when the spans differ in length.
double relative_l2_error(std::span<const double> low, std::span<const double> ref);

// The seed of one trial's generator (SplitMix64 of seed and trial).
std::uint64_t trial_seed(std::uint64_t seed, int trial);

}  // namespace tcnum::chain
