// The fast kernel: the plan's blocks on 16 lanes at once, in 32-bit integer and float lanes.
// Internal to the library; gemm.cpp and plan.cpp drive it.
#pragma once
#include <cstddef>
#include <array>
#include <cstdint>

#include "tcnum/core/plan.hpp"

namespace tcnum::detail {

constexpr int kLanes = 16;

// Operand planes: each raw operand decoded once into a signed significand (as a float, exact:
// at most 11 bits) and its nominal exponent (hidden-bit position, not renormalised). Zeros get
// kZeroExponent (left out of the maximum), NaN/Inf kSpecialExponent (the lane falls back).
constexpr std::int32_t kZeroExponent = -(1 << 20);
constexpr std::int32_t kSpecialExponent = 1 << 22;

// A block's largest operand exponent when it has no finite nonzero operand.
constexpr std::int32_t kEmptyBlock = -(1 << 18);

struct PlaneValue {
  float significand;
  std::int32_t exponent;
};
// fp8 -> f16 (exact), through a table of the 256 patterns.
std::uint32_t fp8_to_f16(Format storage, std::uint32_t bits);
// The plane values of the 256 e4m3 / e5m2 patterns as f16 sees them (scale 1).
extern const std::array<PlaneValue, 256> kE4m3AsF16, kE5m2AsF16;

// One format's fields as compile-time constants: raw pattern r (fields from bit 0) -> plane value.
// Without Inf, the all-ones pattern is NaN (e4m3) where the format has one (FP4/FP6 have none).
template <int kExpBits, int kFracBits, bool kHasInf, bool kHasNan = true>
inline PlaneValue decode_fields(std::uint32_t r, float scale) {
  constexpr std::uint32_t kFracMask = (1u << kFracBits) - 1u, kExpMask = (1u << kExpBits) - 1u;
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  const std::uint32_t frac = r & kFracMask, biased = (r >> kFracBits) & kExpMask;
  const bool negative = (r >> (kExpBits + kFracBits)) & 1u;
  if (kHasInf ? biased == kExpMask : (kHasNan && biased == kExpMask && frac == kFracMask)) return {0.0f, kSpecialExponent};
  if (biased == 0 && frac == 0) return {0.0f, kZeroExponent};
  const std::uint32_t sig = biased == 0 ? frac : frac | (1u << kFracBits);
  const int nominal = (biased == 0 ? 1 : static_cast<int>(biased)) - kBias;
  const float s = static_cast<float>(sig) * scale;
  return {negative ? -s : s, nominal};
}

// The decoder of one (storage, seen) pair, inlined into the loops that use it.
template <Format kStorage, Format kSeen>
struct PlaneDecode {
  PlaneValue operator()(std::uint32_t r, float scale) const {
    if constexpr (kStorage != kSeen) {
      static_assert(kSeen == Format::fp16 && (kStorage == Format::e4m3 || kStorage == Format::e5m2));
      PlaneValue v = (kStorage == Format::e4m3 ? kE4m3AsF16 : kE5m2AsF16)[r & 0xffu];
      v.significand *= scale;
      return v;
    }
    else if constexpr (kSeen == Format::bf16) return decode_fields<8, 7, true>(r & 0xffffu, scale);
    else if constexpr (kSeen == Format::fp16) return decode_fields<5, 10, true>(r & 0xffffu, scale);
    else if constexpr (kSeen == Format::tf32) return decode_fields<8, 10, true>(r >> 13, scale);
    else if constexpr (kSeen == Format::e4m3) return decode_fields<4, 3, false>(r & 0xffu, scale);
    else if constexpr (kSeen == Format::e5m2) return decode_fields<5, 2, true>(r & 0xffu, scale);
    else if constexpr (kSeen == Format::e2m1) return decode_fields<2, 1, false, false>(r & 0xfu, scale);
    else if constexpr (kSeen == Format::e2m3) return decode_fields<2, 3, false, false>(r & 0x3fu, scale);
    else if constexpr (kSeen == Format::e3m2) return decode_fields<3, 2, false, false>(r & 0x3fu, scale);
    else return decode_fields<8, 23, true>(r, scale);
  }
};

// Any other unpacking (storage -> seen, exact): through to_double, then seen's fields.
PlaneValue plane_value_converted(Format storage, Format seen, std::uint32_t bits, float scale);
struct ConvertingPlaneDecode {
  Format storage, seen;
  PlaneValue operator()(std::uint32_t r, float scale) const { return plane_value_converted(storage, seen, r, scale); }
};

// Calls fn(decoder) with the decoder of (storage, seen): same formats, fp8 unpacked to f16 (both
// inlined), or any other exact unpacking.
template <class Fn>
decltype(auto) with_plane_decoder(Format storage, Format seen, Fn&& fn) {
  if (storage != seen) {
    if (seen == Format::fp16 && storage == Format::e4m3) return fn(PlaneDecode<Format::e4m3, Format::fp16>{});
    if (seen == Format::fp16 && storage == Format::e5m2) return fn(PlaneDecode<Format::e5m2, Format::fp16>{});
    return fn(ConvertingPlaneDecode{storage, seen});
  }
  switch (seen) {
    case Format::bf16: return fn(PlaneDecode<Format::bf16, Format::bf16>{});
    case Format::fp16: return fn(PlaneDecode<Format::fp16, Format::fp16>{});
    case Format::tf32: return fn(PlaneDecode<Format::tf32, Format::tf32>{});
    case Format::e4m3: return fn(PlaneDecode<Format::e4m3, Format::e4m3>{});
    case Format::e5m2: return fn(PlaneDecode<Format::e5m2, Format::e5m2>{});
    case Format::e2m1: return fn(PlaneDecode<Format::e2m1, Format::e2m1>{});
    case Format::e2m3: return fn(PlaneDecode<Format::e2m3, Format::e2m3>{});
    case Format::e3m2: return fn(PlaneDecode<Format::e3m2, Format::e3m2>{});
    default: return fn(PlaneDecode<Format::fp32, Format::fp32>{});
  }
}

// One operand's planes as the kernel reads them (see prepare_planes).
struct OperandPlanes {
  const float* sig;
  const float* near;
  const std::int32_t* exp;
  const std::int32_t* block_max;
  // The exponents of slots 2i and 2i + 1 in one word ([i][lane], ceil(k / 2) words per k-step):
  // biased into 16-bit halves (exp_pair_half), so that one 32-bit addition adds two products'
  // exponents and one 16-bit maximum keeps the larger of each. Null: not prepared (the kernel
  // then reads exp).
  const std::uint32_t* exp_pairs = nullptr;
};
// exp_pairs' halves: a finite nonzero operand's exponent e as e + kPairBias (e clamped to ±1024:
// the formats of the fast path stay within ±300, block scales folded in); zero as 0; NaN/Inf as
// kPairSpecial. The sum of two halves: below kPairNoProduct when a factor is zero, at least
// kPairSpecialSum when one is NaN/Inf, else 2 · kPairBias + the product's exponent; no sum
// carries out of its 16 bits.
constexpr std::int32_t kPairBias = 4096, kPairSpecial = 0x7fff, kPairNoProduct = 6000, kPairSpecialSum = 0x4000;
// A block's maximum exponent at or above kSpecialFloor: a NaN/Inf product or addend (the lane
// falls back). Every finite product's exponent is far below it (|e| <= 2 · 1024), and so is
// every pair sum with a zero factor less 2 · kPairBias, far below every finite product's; a pair
// sum with a NaN/Inf factor less 2 · kPairBias is at or above it. So the pairs' maximum enters
// the block's unbiased, without markers.
constexpr std::int32_t kSpecialFloor = 1 << 12;
static_assert(kPairNoProduct - 2 * kPairBias < -2 * 1024 && kPairSpecialSum - 2 * kPairBias >= kSpecialFloor &&
              kSpecialFloor > 2 * 1024 && kSpecialExponent >= kSpecialFloor);

// A chain of k-steps for `rows` rows (1 to KernelSet::chain_rows, run in lockstep) × 16 GEMM lanes (16 columns):
// row r's A planes are a_rows[r], A's lane of that row in planes laid out as prepare_planes
// writes them (16 rows as the lanes): its element k of step s at + (s·k + k)·16, broadcast over
// the lanes, block_max at + (s·blocks + b)·16; B's at + s·k·16 ([k][lane]; block_max at
// + s·blocks·16). Step 0
// runs `first` (its C is acc), the rest `rest` (C is the running D). acc holds rows×16 values in
// C's/D's format. Returns the index of the first step at which some lane needs the reference
// (fail_masks[r] says which lanes of row r; acc holds those lanes' values from before that
// step, the others' from after it), or `steps` when every lane completed.
// finite_operands: no operand of these steps is NaN/Inf (prepare_planes said so for every step),
// so that the kernel, finding every lane's C normal or zero too, can skip those checks.
constexpr int kMaxChainRows = 8;
using GemmChainFn = int (*)(const MmaPlan& first, const MmaPlan& rest, int rows, int steps, const OperandPlanes* a_rows,
                            OperandPlanes b, std::uint32_t* acc, std::uint32_t* fail_masks, bool finite_operands);

// One step for 16 independent lanes: A's and B's planes are both [k][lane] (block_max
// [block][lane]). Returns the mask of lanes that need the reference (their acc is left as it was).
using BatchStepFn = std::uint32_t (*)(const MmaPlan& plan, OperandPlanes a, OperandPlanes b, std::uint32_t* acc);

// Which operand a k-step's planes are for: A's near planes are scaled by an addition to their
// exponent fields (kernel's add_terms), so that their magnitudes are kept at or above
// 2^kNearFloor; B's are kept as they are.
enum class OperandSide : std::uint8_t { a, b };
// The non-spread products' scale 2^s per row and block: s = xa + xb − emax (the block's largest
// A and B exponents less its largest exponent) where s <= kSpreadLimit (else the block takes
// each product's own power of two), raised to kScaleFloor where below (every term is 0 there
// either way: near_a · near_b < 2^(F+2) <= 2^30). A's near value x, 2^kNearFloor <= |x| < 2^29,
// times 2^s is then a normal float; where |x| is below 2^kNearFloor its term, x · near_b · 2^s
// with near_b < 2^11, is below 1 (0 either way), so raising x to 2^kNearFloor changes nothing.
constexpr int kSpreadLimit = 80, kScaleFloor = -32, kNearFloor = -(11 + kSpreadLimit);
static_assert(kNearFloor + kScaleFloor >= -126 && 29 + kSpreadLimit <= 127 && kScaleFloor <= -30);

// One k-step of 16 operands of format `storage` (seen by the datapath as `seen`): raw bits in
// [j][lane] order (j: schedule position) -> sig, exp and near planes in the same order and
// block_max[block][lane]: per block the largest nominal exponent of its finite nonzero operands
// (kEmptyBlock if none), and near = sig · 2^(exponent − that maximum), so that the kernel scales
// a product by one power of two per lane and block instead of one per product
// (fast_kernel_body.inc). `scale` multiplies the significands (2^product_shift for A, 1 for B).
// `scales` (null for an instruction without block scales): each operand's scale, folded in as
// the plan says (MmaPlan::scales_in_exponents, MmaPlan::scaled_groups; apply_scales).
struct ScalePlanes;
// exp_pairs (may be null: not written): the pairs of exp as OperandPlanes::exp_pairs holds them.
// Returns whether some operand (after its scale) is NaN/Inf.
using PreparePlanesFn = bool (*)(const MmaPlan& plan, OperandSide side, Format storage, Format seen, float scale,
                                 const std::uint32_t* raw, const ScalePlanes* scales, float* sig, std::int32_t* exp,
                                 float* near, std::int32_t* block_max, std::uint32_t* exp_pairs);

// The block scales of one k-step's operands, decoded ([j][lane], like their raw bits): each
// scale's significand (1 for ue8m0) and nominal exponent (kZeroExponent for a zero scale,
// kSpecialExponent for NaN), as the reference datapath sees the scale.
struct ScalePlanes {
  const float* sig;
  const std::int32_t* exp;
};
// One scale's plane value (by a table of the 256 patterns per scale format).
PlaneValue scale_value(Format scale_type, std::uint32_t bits);

// One output element (mma_element) with its K <= 64 products as the lanes, in k order (each
// block picks its products by PlanBlock::members): D into d, or false where the reference must
// answer (a NaN/Inf operand or addend, a result that is not a normal number, an all-zero block
// under IEEE zero signs).
using ElementFn = bool (*)(const MmaPlan& plan, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t c,
                           std::uint32_t& d);
// The element function for a plan's formats and K (nullptr for K > 64), chosen once by
// compile_plan (MmaPlan::element_kernel) so that a call pays no dispatch.
using ElementForFn = ElementFn (*)(const MmaPlan& plan);

struct KernelSet {
  const char* name;
  // The rows one gemm_chain call runs in lockstep (<= kMaxChainRows): 8 where AVX-512's 32
  // registers hold them; 4 in the narrower builds, whose 8-row chains only spill and double the
  // build's compile time (each row count is a separate instantiation of the chain).
  int chain_rows;
  GemmChainFn gemm_chain;
  BatchStepFn batch_step;
  PreparePlanesFn prepare_planes;
  ElementForFn element_for;
  // The OR of v[i] & mask over n values (input checks: the bits outside a format's storage).
  std::uint32_t (*or_masked)(const std::uint32_t* v, std::size_t n, std::uint32_t mask);
  // 16 rows of a row-major matrix (row l at rows + l·stride; rows past `count` read as `zero`)
  // gathered column by column: out[p·16 + l] = row l's value at column cols[p], or `zero` where
  // cols[p] is `skip` (padding), for p < n.
  void (*gather_rows)(const std::uint32_t* rows, std::size_t stride, int count, const std::size_t* cols, std::size_t n,
                      std::size_t skip, std::uint32_t zero, std::uint32_t* out);
};

// Chosen once per process from the CPU and TCNUM_SIMD.
const KernelSet& kernels();

}  // namespace tcnum::detail
