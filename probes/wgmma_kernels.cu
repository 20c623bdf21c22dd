// Hopper wgmma.mma_async probe kernels: one warpgroup runs one 64×N×K tile, D = A*B + C, and
// writes back D's raw bits. Device code exists only in the sm_90a pass; every other pass gets
// kernels that merely raise a flag, which the host turns into a DeviceError.
//
// Shared-memory operands use the no-swizzle ("interleave") K-major canonical layout of the PTX
// ISA: ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in elements, T = 16 bytes / element size. A core matrix
// is 8 rows × 16 contiguous bytes (128 bytes). Every K here spans 32 bytes (k16 × 2 B, k8 × 4 B,
// k32 × 1 B), i.e. two core matrices along K, so one byte placement serves every type:
//   byte kb of row r  ->  (r / 8) * SBO + (kb / 16) * LBO + (r % 8) * 16 + kb % 16,
// LBO = 128 (K-adjacent core matrices), SBO = 256 (the next 8 rows). The host packs A and B
// into exactly this byte image, so the kernels copy 16-byte words and stay type-agnostic.
//
// Register fragments (PTX ISA "wgmma register fragments"; warp w = 0..3 of the warpgroup owns
// rows 16w..16w+15, lane = 4g + t):
//   A (RS form), every input type: register j holds the 4 bytes of row 16w + g + 8(j & 1) at
//     K-bytes 4t + 16(j >> 1) .. +3 (f16/bf16: 2 elements, tf32: 1, fp8: 4, low byte first).
//   D, f32: d[4i + v] = D(16w + g + 8(v >> 1), 8i + 2t + (v & 1)), i < N/8.
//   D, f16: d[2i + h] = D(16w + g + 8h, 8i + 2t) | D(16w + g + 8h, 8i + 2t + 1) << 16.
//   D, s32 (integer wgmma, s8/u8 inputs as fp8's bytes): as f32, one 32-bit register per element.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "run_times.hpp"
#include "wgmma_probe.hpp"

namespace tcnum::device::detail {
namespace {

// Type combinations (dtype.atype.btype) that PTX allows. bf16 accumulates into f32 only and
// tf32 into f32 only; f16 and the fp8 types (any mix of e4m3 / e5m2) into f32 or f16.
enum Kind : int {
  k_f32_f16_f16,
  k_f16_f16_f16,
  k_f32_bf16_bf16,
  k_f32_tf32_tf32,
  k_f32_e4m3_e4m3,
  k_f32_e4m3_e5m2,
  k_f32_e5m2_e4m3,
  k_f32_e5m2_e5m2,
  k_f16_e4m3_e4m3,
  k_f16_e4m3_e5m2,
  k_f16_e5m2_e4m3,
  k_f16_e5m2_e5m2,
  // Integer (s8/u8 × s8/u8 -> s32), wrap then .satfinite; N from integer_wgmma_n() only.
  k_s32_s8_s8,
  k_s32_s8_u8,
  k_s32_u8_s8,
  k_s32_u8_u8,
  k_sat_s8_s8,
  k_sat_s8_u8,
  k_sat_u8_s8,
  k_sat_u8_u8,
};

__host__ __device__ constexpr bool int_acc(int kind) { return kind >= k_s32_s8_s8 && kind <= k_sat_u8_u8; }

__host__ __device__ constexpr bool f32_acc(int kind) {
  return kind == k_f32_f16_f16 || kind == k_f32_bf16_bf16 || kind == k_f32_tf32_tf32 ||
         (kind >= k_f32_e4m3_e4m3 && kind <= k_f32_e5m2_e5m2);
}

constexpr int kThreads = 128;         // one warpgroup
constexpr int kRowBytes = 32;         // K elements of one row of A or B, in bytes
constexpr int kLbo = 128;             // leading (K) dimension byte offset
constexpr int kSbo = 256;             // stride (M/N) dimension byte offset
constexpr int kTileABytes = 64 * kRowBytes;

__host__ __device__ constexpr int smem_pos(int row, int kbyte) {
  return (row >> 3) * kSbo + (kbyte >> 4) * kLbo + (row & 7) * 16 + (kbyte & 15);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCNUM_WG_ASM(...) asm volatile(__VA_ARGS__)
#else
#define TCNUM_WG_ASM(...) \
  do {                    \
  } while (0)
#endif

// The asm operand lists: %0..%4 are A (RS: four registers; SS: the descriptor plus three unused
// fillers) and the B descriptor; the accumulator registers follow from %5, so that one list of
// literal register names serves every form. TCNUM_WG_DS<R>: "%5, ..., %(R+4)";
// TCNUM_WG_DO<R>(c): c(d[0]), ..., c(d[R-1]).
#define TCNUM_WG_DS2 "%5, %6"
#define TCNUM_WG_DS4 TCNUM_WG_DS2 ", %7, %8"
#define TCNUM_WG_DS6 TCNUM_WG_DS4 ", %9, %10"
#define TCNUM_WG_DS8 TCNUM_WG_DS6 ", %11, %12"
#define TCNUM_WG_DS10 TCNUM_WG_DS8 ", %13, %14"
#define TCNUM_WG_DS12 TCNUM_WG_DS10 ", %15, %16"
#define TCNUM_WG_DS14 TCNUM_WG_DS12 ", %17, %18"
#define TCNUM_WG_DS16 TCNUM_WG_DS14 ", %19, %20"
#define TCNUM_WG_DS18 TCNUM_WG_DS16 ", %21, %22"
#define TCNUM_WG_DS20 TCNUM_WG_DS18 ", %23, %24"
#define TCNUM_WG_DS22 TCNUM_WG_DS20 ", %25, %26"
#define TCNUM_WG_DS24 TCNUM_WG_DS22 ", %27, %28"
#define TCNUM_WG_DS26 TCNUM_WG_DS24 ", %29, %30"
#define TCNUM_WG_DS28 TCNUM_WG_DS26 ", %31, %32"
#define TCNUM_WG_DS30 TCNUM_WG_DS28 ", %33, %34"
#define TCNUM_WG_DS32 TCNUM_WG_DS30 ", %35, %36"
#define TCNUM_WG_DS34 TCNUM_WG_DS32 ", %37, %38"
#define TCNUM_WG_DS36 TCNUM_WG_DS34 ", %39, %40"
#define TCNUM_WG_DS38 TCNUM_WG_DS36 ", %41, %42"
#define TCNUM_WG_DS40 TCNUM_WG_DS38 ", %43, %44"
#define TCNUM_WG_DS42 TCNUM_WG_DS40 ", %45, %46"
#define TCNUM_WG_DS44 TCNUM_WG_DS42 ", %47, %48"
#define TCNUM_WG_DS46 TCNUM_WG_DS44 ", %49, %50"
#define TCNUM_WG_DS48 TCNUM_WG_DS46 ", %51, %52"
#define TCNUM_WG_DS50 TCNUM_WG_DS48 ", %53, %54"
#define TCNUM_WG_DS52 TCNUM_WG_DS50 ", %55, %56"
#define TCNUM_WG_DS54 TCNUM_WG_DS52 ", %57, %58"
#define TCNUM_WG_DS56 TCNUM_WG_DS54 ", %59, %60"
#define TCNUM_WG_DS58 TCNUM_WG_DS56 ", %61, %62"
#define TCNUM_WG_DS60 TCNUM_WG_DS58 ", %63, %64"
#define TCNUM_WG_DS62 TCNUM_WG_DS60 ", %65, %66"
#define TCNUM_WG_DS64 TCNUM_WG_DS62 ", %67, %68"
#define TCNUM_WG_DS66 TCNUM_WG_DS64 ", %69, %70"
#define TCNUM_WG_DS68 TCNUM_WG_DS66 ", %71, %72"
#define TCNUM_WG_DS70 TCNUM_WG_DS68 ", %73, %74"
#define TCNUM_WG_DS72 TCNUM_WG_DS70 ", %75, %76"
#define TCNUM_WG_DS74 TCNUM_WG_DS72 ", %77, %78"
#define TCNUM_WG_DS76 TCNUM_WG_DS74 ", %79, %80"
#define TCNUM_WG_DS78 TCNUM_WG_DS76 ", %81, %82"
#define TCNUM_WG_DS80 TCNUM_WG_DS78 ", %83, %84"
#define TCNUM_WG_DS82 TCNUM_WG_DS80 ", %85, %86"
#define TCNUM_WG_DS84 TCNUM_WG_DS82 ", %87, %88"
#define TCNUM_WG_DS86 TCNUM_WG_DS84 ", %89, %90"
#define TCNUM_WG_DS88 TCNUM_WG_DS86 ", %91, %92"
#define TCNUM_WG_DS90 TCNUM_WG_DS88 ", %93, %94"
#define TCNUM_WG_DS92 TCNUM_WG_DS90 ", %95, %96"
#define TCNUM_WG_DS94 TCNUM_WG_DS92 ", %97, %98"
#define TCNUM_WG_DS96 TCNUM_WG_DS94 ", %99, %100"
#define TCNUM_WG_DS98 TCNUM_WG_DS96 ", %101, %102"
#define TCNUM_WG_DS100 TCNUM_WG_DS98 ", %103, %104"
#define TCNUM_WG_DS102 TCNUM_WG_DS100 ", %105, %106"
#define TCNUM_WG_DS104 TCNUM_WG_DS102 ", %107, %108"
#define TCNUM_WG_DS106 TCNUM_WG_DS104 ", %109, %110"
#define TCNUM_WG_DS108 TCNUM_WG_DS106 ", %111, %112"
#define TCNUM_WG_DS110 TCNUM_WG_DS108 ", %113, %114"
#define TCNUM_WG_DS112 TCNUM_WG_DS110 ", %115, %116"
#define TCNUM_WG_DS114 TCNUM_WG_DS112 ", %117, %118"
#define TCNUM_WG_DS116 TCNUM_WG_DS114 ", %119, %120"
#define TCNUM_WG_DS118 TCNUM_WG_DS116 ", %121, %122"
#define TCNUM_WG_DS120 TCNUM_WG_DS118 ", %123, %124"
#define TCNUM_WG_DS122 TCNUM_WG_DS120 ", %125, %126"
#define TCNUM_WG_DS124 TCNUM_WG_DS122 ", %127, %128"
#define TCNUM_WG_DS126 TCNUM_WG_DS124 ", %129, %130"
#define TCNUM_WG_DS128 TCNUM_WG_DS126 ", %131, %132"
#define TCNUM_WG_DO2(c) c(d[0]), c(d[1])
#define TCNUM_WG_DO4(c) TCNUM_WG_DO2(c), c(d[2]), c(d[3])
#define TCNUM_WG_DO6(c) TCNUM_WG_DO4(c), c(d[4]), c(d[5])
#define TCNUM_WG_DO8(c) TCNUM_WG_DO6(c), c(d[6]), c(d[7])
#define TCNUM_WG_DO10(c) TCNUM_WG_DO8(c), c(d[8]), c(d[9])
#define TCNUM_WG_DO12(c) TCNUM_WG_DO10(c), c(d[10]), c(d[11])
#define TCNUM_WG_DO14(c) TCNUM_WG_DO12(c), c(d[12]), c(d[13])
#define TCNUM_WG_DO16(c) TCNUM_WG_DO14(c), c(d[14]), c(d[15])
#define TCNUM_WG_DO18(c) TCNUM_WG_DO16(c), c(d[16]), c(d[17])
#define TCNUM_WG_DO20(c) TCNUM_WG_DO18(c), c(d[18]), c(d[19])
#define TCNUM_WG_DO22(c) TCNUM_WG_DO20(c), c(d[20]), c(d[21])
#define TCNUM_WG_DO24(c) TCNUM_WG_DO22(c), c(d[22]), c(d[23])
#define TCNUM_WG_DO26(c) TCNUM_WG_DO24(c), c(d[24]), c(d[25])
#define TCNUM_WG_DO28(c) TCNUM_WG_DO26(c), c(d[26]), c(d[27])
#define TCNUM_WG_DO30(c) TCNUM_WG_DO28(c), c(d[28]), c(d[29])
#define TCNUM_WG_DO32(c) TCNUM_WG_DO30(c), c(d[30]), c(d[31])
#define TCNUM_WG_DO34(c) TCNUM_WG_DO32(c), c(d[32]), c(d[33])
#define TCNUM_WG_DO36(c) TCNUM_WG_DO34(c), c(d[34]), c(d[35])
#define TCNUM_WG_DO38(c) TCNUM_WG_DO36(c), c(d[36]), c(d[37])
#define TCNUM_WG_DO40(c) TCNUM_WG_DO38(c), c(d[38]), c(d[39])
#define TCNUM_WG_DO42(c) TCNUM_WG_DO40(c), c(d[40]), c(d[41])
#define TCNUM_WG_DO44(c) TCNUM_WG_DO42(c), c(d[42]), c(d[43])
#define TCNUM_WG_DO46(c) TCNUM_WG_DO44(c), c(d[44]), c(d[45])
#define TCNUM_WG_DO48(c) TCNUM_WG_DO46(c), c(d[46]), c(d[47])
#define TCNUM_WG_DO50(c) TCNUM_WG_DO48(c), c(d[48]), c(d[49])
#define TCNUM_WG_DO52(c) TCNUM_WG_DO50(c), c(d[50]), c(d[51])
#define TCNUM_WG_DO54(c) TCNUM_WG_DO52(c), c(d[52]), c(d[53])
#define TCNUM_WG_DO56(c) TCNUM_WG_DO54(c), c(d[54]), c(d[55])
#define TCNUM_WG_DO58(c) TCNUM_WG_DO56(c), c(d[56]), c(d[57])
#define TCNUM_WG_DO60(c) TCNUM_WG_DO58(c), c(d[58]), c(d[59])
#define TCNUM_WG_DO62(c) TCNUM_WG_DO60(c), c(d[60]), c(d[61])
#define TCNUM_WG_DO64(c) TCNUM_WG_DO62(c), c(d[62]), c(d[63])
#define TCNUM_WG_DO66(c) TCNUM_WG_DO64(c), c(d[64]), c(d[65])
#define TCNUM_WG_DO68(c) TCNUM_WG_DO66(c), c(d[66]), c(d[67])
#define TCNUM_WG_DO70(c) TCNUM_WG_DO68(c), c(d[68]), c(d[69])
#define TCNUM_WG_DO72(c) TCNUM_WG_DO70(c), c(d[70]), c(d[71])
#define TCNUM_WG_DO74(c) TCNUM_WG_DO72(c), c(d[72]), c(d[73])
#define TCNUM_WG_DO76(c) TCNUM_WG_DO74(c), c(d[74]), c(d[75])
#define TCNUM_WG_DO78(c) TCNUM_WG_DO76(c), c(d[76]), c(d[77])
#define TCNUM_WG_DO80(c) TCNUM_WG_DO78(c), c(d[78]), c(d[79])
#define TCNUM_WG_DO82(c) TCNUM_WG_DO80(c), c(d[80]), c(d[81])
#define TCNUM_WG_DO84(c) TCNUM_WG_DO82(c), c(d[82]), c(d[83])
#define TCNUM_WG_DO86(c) TCNUM_WG_DO84(c), c(d[84]), c(d[85])
#define TCNUM_WG_DO88(c) TCNUM_WG_DO86(c), c(d[86]), c(d[87])
#define TCNUM_WG_DO90(c) TCNUM_WG_DO88(c), c(d[88]), c(d[89])
#define TCNUM_WG_DO92(c) TCNUM_WG_DO90(c), c(d[90]), c(d[91])
#define TCNUM_WG_DO94(c) TCNUM_WG_DO92(c), c(d[92]), c(d[93])
#define TCNUM_WG_DO96(c) TCNUM_WG_DO94(c), c(d[94]), c(d[95])
#define TCNUM_WG_DO98(c) TCNUM_WG_DO96(c), c(d[96]), c(d[97])
#define TCNUM_WG_DO100(c) TCNUM_WG_DO98(c), c(d[98]), c(d[99])
#define TCNUM_WG_DO102(c) TCNUM_WG_DO100(c), c(d[100]), c(d[101])
#define TCNUM_WG_DO104(c) TCNUM_WG_DO102(c), c(d[102]), c(d[103])
#define TCNUM_WG_DO106(c) TCNUM_WG_DO104(c), c(d[104]), c(d[105])
#define TCNUM_WG_DO108(c) TCNUM_WG_DO106(c), c(d[106]), c(d[107])
#define TCNUM_WG_DO110(c) TCNUM_WG_DO108(c), c(d[108]), c(d[109])
#define TCNUM_WG_DO112(c) TCNUM_WG_DO110(c), c(d[110]), c(d[111])
#define TCNUM_WG_DO114(c) TCNUM_WG_DO112(c), c(d[112]), c(d[113])
#define TCNUM_WG_DO116(c) TCNUM_WG_DO114(c), c(d[114]), c(d[115])
#define TCNUM_WG_DO118(c) TCNUM_WG_DO116(c), c(d[116]), c(d[117])
#define TCNUM_WG_DO120(c) TCNUM_WG_DO118(c), c(d[118]), c(d[119])
#define TCNUM_WG_DO122(c) TCNUM_WG_DO120(c), c(d[120]), c(d[121])
#define TCNUM_WG_DO124(c) TCNUM_WG_DO122(c), c(d[122]), c(d[123])
#define TCNUM_WG_DO126(c) TCNUM_WG_DO124(c), c(d[124]), c(d[125])
#define TCNUM_WG_DO128(c) TCNUM_WG_DO126(c), c(d[126]), c(d[127])

#define TCNUM_WG_CF(x) "+f"(x)
#define TCNUM_WG_CR(x) "+r"(x)

template <int KIND, int N>
struct WgOp;

// One specialization per (type combination, N): ss() with A through its descriptor, rs() with
// A in registers. scale-d = 1 (D = A*B + D), imm-scale-a = imm-scale-b = 1, and for f16/bf16
// imm-trans-a = imm-trans-b = 0 (K-major); tf32 and fp8 take no transpose operands at all.
#define TCNUM_WG_OP(KIND, SHAPE_TYPES, TRANS_SS, TRANS_RS, DREG, CONS, N, R) \
  TCNUM_WG_OP_TAIL(KIND, SHAPE_TYPES, ", 1, 1, 1" TRANS_SS, ", 1, 1, 1" TRANS_RS, DREG, CONS, N, R)
// TAIL_SS / TAIL_RS: the operands after B's descriptor (scale-d, and the float forms' immediates).
#define TCNUM_WG_OP_TAIL(KIND, SHAPE_TYPES, TAIL_SS, TAIL_RS, DREG, CONS, N, R)                                \
  template <>                                                                                                   \
  struct WgOp<KIND, N> {                                                                                        \
    static __device__ __forceinline__ void ss(DREG (&d)[R], std::uint64_t ad, std::uint64_t bd) {              \
      std::uint32_t p0 = 0, p1 = 0, p2 = 0;                                                                     \
      TCNUM_WG_ASM("wgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES " {" TCNUM_WG_DS##R                      \
                   "}, %0, %1" TAIL_SS ";"                                                                       \
                   : "+l"(ad), "+l"(bd), "+r"(p0), "+r"(p1), "+r"(p2), TCNUM_WG_DO##R(CONS)                     \
                   :                                                                                            \
                   : "memory");                                                                                 \
    }                                                                                                           \
    static __device__ __forceinline__ void rs(DREG (&d)[R], std::uint32_t (&a)[4], std::uint64_t bd) {         \
      TCNUM_WG_ASM("wgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES " {" TCNUM_WG_DS##R                      \
                   "}, {%0, %1, %2, %3}, %4" TAIL_RS ";"                                                         \
                   : "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3]), "+l"(bd), TCNUM_WG_DO##R(CONS)             \
                   :                                                                                            \
                   : "memory");                                                                                 \
    }                                                                                                           \
  };
#define TCNUM_WG_F32(KIND, ST, TS, TR, N, R2, R4) TCNUM_WG_OP(KIND, ST, TS, TR, float, TCNUM_WG_CF, N, R2)
#define TCNUM_WG_F16(KIND, ST, TS, TR, N, R2, R4) TCNUM_WG_OP(KIND, ST, TS, TR, std::uint32_t, TCNUM_WG_CR, N, R4)
// Integer wgmma takes scale-d alone (no negation or transpose immediates); s32 D, one register each.
#define TCNUM_WG_S32(KIND, ST, N, R2, R4) TCNUM_WG_OP_TAIL(KIND, ST, ", 1", ", 1", std::uint32_t, TCNUM_WG_CR, N, R2)

// Every legal N: multiples of 8 from 8 to 256 (the same set for f16, bf16, tf32 and fp8).
#define TCNUM_WG_FOR_EACH_N(X, ...) \
  X(__VA_ARGS__, 8, 4, 2) X(__VA_ARGS__, 16, 8, 4) X(__VA_ARGS__, 24, 12, 6) X(__VA_ARGS__, 32, 16, 8) \
  X(__VA_ARGS__, 40, 20, 10) X(__VA_ARGS__, 48, 24, 12) X(__VA_ARGS__, 56, 28, 14) X(__VA_ARGS__, 64, 32, 16) \
  X(__VA_ARGS__, 72, 36, 18) X(__VA_ARGS__, 80, 40, 20) X(__VA_ARGS__, 88, 44, 22) X(__VA_ARGS__, 96, 48, 24) \
  X(__VA_ARGS__, 104, 52, 26) X(__VA_ARGS__, 112, 56, 28) X(__VA_ARGS__, 120, 60, 30) X(__VA_ARGS__, 128, 64, 32) \
  X(__VA_ARGS__, 136, 68, 34) X(__VA_ARGS__, 144, 72, 36) X(__VA_ARGS__, 152, 76, 38) X(__VA_ARGS__, 160, 80, 40) \
  X(__VA_ARGS__, 168, 84, 42) X(__VA_ARGS__, 176, 88, 44) X(__VA_ARGS__, 184, 92, 46) X(__VA_ARGS__, 192, 96, 48) \
  X(__VA_ARGS__, 200, 100, 50) X(__VA_ARGS__, 208, 104, 52) X(__VA_ARGS__, 216, 108, 54) X(__VA_ARGS__, 224, 112, 56) \
  X(__VA_ARGS__, 232, 116, 58) X(__VA_ARGS__, 240, 120, 60) X(__VA_ARGS__, 248, 124, 62) X(__VA_ARGS__, 256, 128, 64)

// The integer N (integer_wgmma_n(): 8, 16, 24, 32, then 48..256 step 16).
#define TCNUM_WG_FOR_EACH_INT_N(X, ...) \
  X(__VA_ARGS__, 8, 4, 2) X(__VA_ARGS__, 16, 8, 4) X(__VA_ARGS__, 24, 12, 6) X(__VA_ARGS__, 32, 16, 8) \
  X(__VA_ARGS__, 48, 24, 12) X(__VA_ARGS__, 64, 32, 16) X(__VA_ARGS__, 80, 40, 20) X(__VA_ARGS__, 96, 48, 24) \
  X(__VA_ARGS__, 112, 56, 28) X(__VA_ARGS__, 128, 64, 32) X(__VA_ARGS__, 144, 72, 36) X(__VA_ARGS__, 160, 80, 40) \
  X(__VA_ARGS__, 176, 88, 44) X(__VA_ARGS__, 192, 96, 48) X(__VA_ARGS__, 208, 104, 52) X(__VA_ARGS__, 224, 112, 56) \
  X(__VA_ARGS__, 240, 120, 60) X(__VA_ARGS__, 256, 128, 64)

TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_f16_f16, "k16.f32.f16.f16", ", 0, 0", ", 0")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F16, k_f16_f16_f16, "k16.f16.f16.f16", ", 0, 0", ", 0")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_bf16_bf16, "k16.f32.bf16.bf16", ", 0, 0", ", 0")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_tf32_tf32, "k8.f32.tf32.tf32", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_e4m3_e4m3, "k32.f32.e4m3.e4m3", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_e4m3_e5m2, "k32.f32.e4m3.e5m2", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_e5m2_e4m3, "k32.f32.e5m2.e4m3", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F32, k_f32_e5m2_e5m2, "k32.f32.e5m2.e5m2", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F16, k_f16_e4m3_e4m3, "k32.f16.e4m3.e4m3", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F16, k_f16_e4m3_e5m2, "k32.f16.e4m3.e5m2", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F16, k_f16_e5m2_e4m3, "k32.f16.e5m2.e4m3", "", "")
TCNUM_WG_FOR_EACH_N(TCNUM_WG_F16, k_f16_e5m2_e5m2, "k32.f16.e5m2.e5m2", "", "")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_s32_s8_s8, "k32.s32.s8.s8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_s32_s8_u8, "k32.s32.s8.u8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_s32_u8_s8, "k32.s32.u8.s8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_s32_u8_u8, "k32.s32.u8.u8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_sat_s8_s8, "k32.satfinite.s32.s8.s8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_sat_s8_u8, "k32.satfinite.s32.s8.u8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_sat_u8_s8, "k32.satfinite.s32.u8.s8")
TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_S32, k_sat_u8_u8, "k32.satfinite.s32.u8.u8")

// Keeps the compiler from moving accumulator reads or writes across the wgmma fences.
template <class T, int R>
__device__ __forceinline__ void pin_registers(T (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    if constexpr (std::is_same_v<T, float>) {
      asm volatile("" : "+f"(d[i])::"memory");
    } else {
      asm volatile("" : "+r"(d[i])::"memory");
    }
  }
}

__device__ __forceinline__ std::uint64_t smem_descriptor(const void* p) {
  const auto addr = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{kLbo >> 4} << 16) | (std::uint64_t{kSbo >> 4} << 32);
  // base offset (bits 49-51) 0, swizzle mode (bits 62-63) 0: no swizzle
}

using KernelFn = void (*)(const uint4*, const uint4*, const std::uint32_t*, std::uint32_t*, int, int*);

// a: tiles × 2048 bytes, b: tiles × N*32 bytes (both already in the shared-memory byte image);
// c, d: tiles × 64×N row-major words. Grid-stride over tiles, one warpgroup per block.
template <int KIND, int N, bool RS>
__global__ void __launch_bounds__(kThreads) wgmma_tile_kernel(const uint4* __restrict__ a, const uint4* __restrict__ b,
                                                              const std::uint32_t* __restrict__ c,
                                                              std::uint32_t* __restrict__ d, int tiles, int* status) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr bool kF32 = f32_acc(KIND);
  constexpr bool kWide = kF32 || int_acc(KIND);  // one 32-bit register per element (f32, s32)
  constexpr int R = kWide ? N / 2 : N / 4;
  using DReg = std::conditional_t<kF32, float, std::uint32_t>;
  __shared__ __align__(128) uint4 sa[kTileABytes / 16];
  __shared__ __align__(128) uint4 sb[N * kRowBytes / 16];

  const int tid = threadIdx.x;
  const int warp = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
  const int row = 16 * warp + g;  // and row + 8
  const std::uint64_t adesc = smem_descriptor(sa);
  const std::uint64_t bdesc = smem_descriptor(sb);

  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    sa[tid] = a[static_cast<std::size_t>(tile) * (kTileABytes / 16) + tid];
#pragma unroll
    for (int i = tid; i < N * kRowBytes / 16; i += kThreads) {
      sb[i] = b[static_cast<std::size_t>(tile) * (N * kRowBytes / 16) + i];
    }

    const std::uint32_t* ct = c + static_cast<std::size_t>(tile) * 64 * N;
    DReg acc[R];
#pragma unroll
    for (int i = 0; i < N / 8; ++i) {
      const int col = 8 * i + 2 * t;
      const uint2 lo = *reinterpret_cast<const uint2*>(ct + row * N + col);
      const uint2 hi = *reinterpret_cast<const uint2*>(ct + (row + 8) * N + col);
      if constexpr (kF32) {
        acc[4 * i + 0] = __uint_as_float(lo.x);
        acc[4 * i + 1] = __uint_as_float(lo.y);
        acc[4 * i + 2] = __uint_as_float(hi.x);
        acc[4 * i + 3] = __uint_as_float(hi.y);
      } else if constexpr (kWide) {
        acc[4 * i + 0] = lo.x, acc[4 * i + 1] = lo.y, acc[4 * i + 2] = hi.x, acc[4 * i + 3] = hi.y;
      } else {
        acc[2 * i + 0] = (lo.x & 0xFFFFu) | (lo.y << 16);
        acc[2 * i + 1] = (hi.x & 0xFFFFu) | (hi.y << 16);
      }
    }

    // Ordinary stores to shared memory, read next by the async proxy (the tensor core).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    std::uint32_t afrag[4];
    if constexpr (RS) {
      const auto* sa_bytes = reinterpret_cast<const unsigned char*>(sa);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        afrag[j] = *reinterpret_cast<const std::uint32_t*>(sa_bytes + smem_pos(row + 8 * (j & 1), 4 * t + 16 * (j >> 1)));
      }
    }

    pin_registers(acc);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    if constexpr (RS) {
      WgOp<KIND, N>::rs(acc, afrag, bdesc);
    } else {
      WgOp<KIND, N>::ss(acc, adesc, bdesc);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    pin_registers(acc);

    std::uint32_t* dt = d + static_cast<std::size_t>(tile) * 64 * N;
#pragma unroll
    for (int i = 0; i < N / 8; ++i) {
      const int col = 8 * i + 2 * t;
      uint2 lo, hi;
      if constexpr (kF32) {
        lo = make_uint2(__float_as_uint(acc[4 * i + 0]), __float_as_uint(acc[4 * i + 1]));
        hi = make_uint2(__float_as_uint(acc[4 * i + 2]), __float_as_uint(acc[4 * i + 3]));
      } else if constexpr (kWide) {
        lo = make_uint2(acc[4 * i + 0], acc[4 * i + 1]);
        hi = make_uint2(acc[4 * i + 2], acc[4 * i + 3]);
      } else {
        lo = make_uint2(acc[2 * i + 0] & 0xFFFFu, acc[2 * i + 0] >> 16);
        hi = make_uint2(acc[2 * i + 1] & 0xFFFFu, acc[2 * i + 1] >> 16);
      }
      *reinterpret_cast<uint2*>(dt + row * N + col) = lo;
      *reinterpret_cast<uint2*>(dt + (row + 8) * N + col) = hi;
    }
    __syncthreads();  // shared memory is rewritten by the next tile
  }
#else
  // Not compiled for sm_90a: say so rather than hand back C unchanged.
  if (blockIdx.x == 0 && threadIdx.x == 0) *status = 1;
#endif
}

#define TCNUM_WG_CASE(K, N, R2, R4) \
  case N:                           \
    return rs ? &wgmma_tile_kernel<K, N, true> : &wgmma_tile_kernel<K, N, false>;
template <int KIND>
KernelFn pick_kernel(int n, bool rs) {
  if constexpr (int_acc(KIND)) {
    switch (n) { TCNUM_WG_FOR_EACH_INT_N(TCNUM_WG_CASE, KIND) }
  } else {
    switch (n) { TCNUM_WG_FOR_EACH_N(TCNUM_WG_CASE, KIND) }
  }
  return nullptr;
}
#undef TCNUM_WG_CASE

// ---------------------------------------------------------------------------------------------
// Host side.

int element_bytes(Format f) {
  switch (f) {
    case Format::fp16:
    case Format::bf16: return 2;
    case Format::tf32: return 4;
    case Format::e4m3:
    case Format::e5m2:
    case Format::s8:
    case Format::u8: return 1;
    default: return 0;
  }
}

bool is_fp8(Format f) { return f == Format::e4m3 || f == Format::e5m2; }
bool is_int8(Format f) { return f == Format::s8 || f == Format::u8; }

// The name from the fields (what runs), with the given name where that differs.
std::string describe(const Instruction& in) {
  const std::string fields = "wgmma.m" + std::to_string(in.m) + "n" + std::to_string(in.n) + "k" +
                             std::to_string(in.k) + (in.saturate ? ".satfinite." : ".") + std::string(name_of(in.d_type)) + "." +
                             std::string(name_of(in.a_type)) + "." + std::string(name_of(in.b_type));
  return in.name.empty() || in.name == fields ? fields : fields + " (named " + in.name + ")";
}

[[noreturn]] void bad(const Instruction& in, const std::string& why) {
  throw std::invalid_argument("wgmma probe: cannot run " + describe(in) + ": " + why);
}

// s8/u8 × s8/u8 -> s32, K = 32, N from integer_wgmma_n().
int integer_kind_of(const Instruction& in) {
  if (!is_int8(in.a_type) || !is_int8(in.b_type)) bad(in, "integer wgmma takes s8 or u8 A and B");
  if (in.d_type != Format::s32) bad(in, "integer wgmma accumulates into s32");
  if (in.k != 32) bad(in, "K must be 32 for s8/u8 inputs");
  const std::vector<int> ns = integer_wgmma_n();
  if (std::find(ns.begin(), ns.end(), in.n) == ns.end()) bad(in, "N must be 8, 16, 24, 32 or 48..256 step 16");
  const int mix = (in.a_type == Format::u8 ? 2 : 0) + (in.b_type == Format::u8 ? 1 : 0);
  return (in.saturate ? k_sat_s8_s8 : k_s32_s8_s8) + mix;
}

int kind_of(const Instruction& in) {
  if (in.family != Family::wgmma) bad(in, "not a wgmma instruction");
  if (in.m != 64) bad(in, "M must be 64");
  if (in.c_type != in.d_type) bad(in, "wgmma accumulates into D: C must have D's type");
  if (in.integer()) return integer_kind_of(in);
  if (in.saturate) bad(in, ".satfinite is an integer form's");
  if (in.d_type != Format::fp32 && in.d_type != Format::fp16) bad(in, "D must be f32 or f16");
  const bool f32 = in.d_type == Format::fp32;
  int kind = -1, k = 0;
  if (in.a_type == Format::fp16 && in.b_type == Format::fp16) {
    kind = f32 ? k_f32_f16_f16 : k_f16_f16_f16;
    k = 16;
  } else if (in.a_type == Format::bf16 && in.b_type == Format::bf16) {
    if (!f32) bad(in, "bf16 inputs accumulate into f32 only");
    kind = k_f32_bf16_bf16;
    k = 16;
  } else if (in.a_type == Format::tf32 && in.b_type == Format::tf32) {
    if (!f32) bad(in, "tf32 inputs accumulate into f32 only");
    kind = k_f32_tf32_tf32;
    k = 8;
  } else if (is_fp8(in.a_type) && is_fp8(in.b_type)) {
    const int mix = (in.a_type == Format::e5m2 ? 2 : 0) + (in.b_type == Format::e5m2 ? 1 : 0);
    kind = (f32 ? k_f32_e4m3_e4m3 : k_f16_e4m3_e4m3) + mix;
    k = 32;
  } else {
    bad(in, "A and B types must be f16.f16, bf16.bf16, tf32.tf32, e4m3/e5m2 or s8/u8 in any mix");
  }
  if (in.k != k) bad(in, "K must be " + std::to_string(k) + " for these input types");
  if (in.n < 8 || in.n > 256 || in.n % 8 != 0) bad(in, "N must be a multiple of 8 from 8 to 256");
  return kind;
}

KernelFn kernel_for(int kind, int n, bool rs) {
  switch (kind) {
    case k_f32_f16_f16: return pick_kernel<k_f32_f16_f16>(n, rs);
    case k_f16_f16_f16: return pick_kernel<k_f16_f16_f16>(n, rs);
    case k_f32_bf16_bf16: return pick_kernel<k_f32_bf16_bf16>(n, rs);
    case k_f32_tf32_tf32: return pick_kernel<k_f32_tf32_tf32>(n, rs);
    case k_f32_e4m3_e4m3: return pick_kernel<k_f32_e4m3_e4m3>(n, rs);
    case k_f32_e4m3_e5m2: return pick_kernel<k_f32_e4m3_e5m2>(n, rs);
    case k_f32_e5m2_e4m3: return pick_kernel<k_f32_e5m2_e4m3>(n, rs);
    case k_f32_e5m2_e5m2: return pick_kernel<k_f32_e5m2_e5m2>(n, rs);
    case k_f16_e4m3_e4m3: return pick_kernel<k_f16_e4m3_e4m3>(n, rs);
    case k_f16_e4m3_e5m2: return pick_kernel<k_f16_e4m3_e5m2>(n, rs);
    case k_f16_e5m2_e4m3: return pick_kernel<k_f16_e5m2_e4m3>(n, rs);
    case k_f16_e5m2_e5m2: return pick_kernel<k_f16_e5m2_e5m2>(n, rs);
    case k_s32_s8_s8: return pick_kernel<k_s32_s8_s8>(n, rs);
    case k_s32_s8_u8: return pick_kernel<k_s32_s8_u8>(n, rs);
    case k_s32_u8_s8: return pick_kernel<k_s32_u8_s8>(n, rs);
    case k_s32_u8_u8: return pick_kernel<k_s32_u8_u8>(n, rs);
    case k_sat_s8_s8: return pick_kernel<k_sat_s8_s8>(n, rs);
    case k_sat_s8_u8: return pick_kernel<k_sat_s8_u8>(n, rs);
    case k_sat_u8_s8: return pick_kernel<k_sat_u8_s8>(n, rs);
    case k_sat_u8_u8: return pick_kernel<k_sat_u8_u8>(n, rs);
    default: return nullptr;
  }
}

void check(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return;
  const std::string why = "wgmma probe: " + what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  if (err == cudaErrorMemoryAllocation) {  // the runner shrinks the batch; clear the error for later checks
    (void)cudaGetLastError();
    throw DeviceOutOfMemory(why);
  }
  throw DeviceError(why);
}

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p != nullptr) cudaFree(p);
  }
  void allocate(std::size_t bytes, const char* what) {
    check(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)),
          std::string("cudaMalloc(") + what + ", " + std::to_string(bytes) + " bytes)");
  }
};

struct CurrentDeviceGuard {
  int previous = -1;
  ~CurrentDeviceGuard() {
    if (previous >= 0) cudaSetDevice(previous);
  }
};

// tiles × rows × K elements of esize bytes -> tiles × (rows × 32 bytes) shared-memory images.
std::vector<unsigned char> pack(const std::vector<std::uint32_t>& src, int tiles, int rows, int k, int esize) {
  const std::size_t tile_bytes = static_cast<std::size_t>(rows) * kRowBytes;
  std::vector<unsigned char> out(tile_bytes * static_cast<std::size_t>(tiles));
  for (std::size_t tile = 0; tile < static_cast<std::size_t>(tiles); ++tile) {
    unsigned char* dst = out.data() + tile * tile_bytes;
    const std::uint32_t* s = src.data() + tile * static_cast<std::size_t>(rows) * k;
    for (int r = 0; r < rows; ++r) {
      for (int kk = 0; kk < k; ++kk) {
        const std::uint32_t v = s[static_cast<std::size_t>(r) * k + kk];
        for (int j = 0; j < esize; ++j) dst[smem_pos(r, kk * esize + j)] = static_cast<unsigned char>(v >> (8 * j));
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::uint32_t> run_wgmma_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                           const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                           ASource a_source, int device) {
  const int kind = kind_of(in);
  const int n = in.n, k = in.k;
  if (tiles < 0) bad(in, "negative tile count");
  const auto ut = static_cast<std::size_t>(tiles);
  const std::size_t a_n = ut * 64 * k, b_n = ut * n * k, c_n = ut * 64 * n;
  if (a.size() != a_n || b.size() != b_n || c.size() != c_n) {
    bad(in, std::to_string(tiles) + " tiles need " + std::to_string(a_n) + " A, " + std::to_string(b_n) + " B and " +
                std::to_string(c_n) + " C elements, got " + std::to_string(a.size()) + ", " +
                std::to_string(b.size()) + " and " + std::to_string(c.size()));
  }
  const bool rs = a_source == ASource::registers;
  const KernelFn kernel = kernel_for(kind, n, rs);
  if (kernel == nullptr) bad(in, "no kernel for it (supported N: multiples of 8 from 8 to 256)");

  int count = 0;
  check(cudaGetDeviceCount(&count), "counting CUDA devices");
  if (device < 0 || device >= count) {
    throw DeviceError("wgmma probe: no CUDA device " + std::to_string(device) + " (" + std::to_string(count) +
                      " present)");
  }
  // Attributes, not cudaGetDeviceProperties: that one takes milliseconds, and campaigns call this
  // thousands of times.
  int major = 0, minor = 0, sms = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "reading the device's arch");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "reading the device's arch");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "reading the device's SM count");
  if (major != 9 || minor != 0) {
    throw DeviceError("wgmma probe: " + describe(in) + " needs an sm_90 (Hopper) GPU; device " +
                      std::to_string(device) + " is sm_" + std::to_string(major) + std::to_string(minor));
  }
  if (tiles == 0) return {};

  CurrentDeviceGuard guard;
  check(cudaGetDevice(&guard.previous), "reading the current device");
  check(cudaSetDevice(device), "selecting device " + std::to_string(device));

  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)),
        "finding the sm_90a kernel for " + describe(in) + " (is the binary built for 90a-real?)");

  RunTimer timer;
  const int esize = element_bytes(in.a_type);  // a_type and b_type have the same width here
  const std::vector<unsigned char> a_img = pack(a, tiles, 64, k, esize);
  const std::vector<unsigned char> b_img = pack(b, tiles, n, k, esize);
  timer.lap(RunPhase::pack);

  DeviceBuffer da, db, dc, dd, dstatus;
  da.allocate(a_img.size(), "A");
  db.allocate(b_img.size(), "B");
  dc.allocate(c_n * 4, "C");
  dd.allocate(c_n * 4, "D");
  dstatus.allocate(sizeof(int), "status");
  check(cudaMemcpy(da.p, a_img.data(), a_img.size(), cudaMemcpyHostToDevice), "copying A to the device");
  check(cudaMemcpy(db.p, b_img.data(), b_img.size(), cudaMemcpyHostToDevice), "copying B to the device");
  check(cudaMemcpy(dc.p, c.data(), c_n * 4, cudaMemcpyHostToDevice), "copying C to the device");
  check(cudaMemset(dd.p, 0xFF, c_n * 4), "clearing D");
  check(cudaMemset(dstatus.p, 0, sizeof(int)), "clearing the status word");
  check(cudaDeviceSynchronize(), "copying to the device");
  timer.lap(RunPhase::copy_in);

  const int grid = static_cast<int>(std::min<long long>(tiles, static_cast<long long>(sms) * 8));
  const auto* pa = static_cast<const uint4*>(da.p);
  const auto* pb = static_cast<const uint4*>(db.p);
  const auto* pc = static_cast<const std::uint32_t*>(dc.p);
  auto* pd = static_cast<std::uint32_t*>(dd.p);
  auto* ps = static_cast<int*>(dstatus.p);
  void* args[] = {&pa, &pb, &pc, &pd, &tiles, &ps};
  const std::string what = "running " + describe(in) + (rs ? " (A in registers)" : " (A in shared memory)") +
                           " on " + std::to_string(tiles) + " tiles";
  check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid), dim3(kThreads), args, 0, nullptr),
        "launching: " + what);
  check(cudaGetLastError(), "launching: " + what);
  check(cudaDeviceSynchronize(), what);
  timer.lap(RunPhase::kernel);

  int status = 0;
  check(cudaMemcpy(&status, dstatus.p, sizeof(int), cudaMemcpyDeviceToHost), "reading the status word");
  if (status != 0) {
    throw DeviceError("wgmma probe: the kernel for " + describe(in) +
                      " was not compiled for sm_90a (build with CUDA architecture 90a-real)");
  }
  std::vector<std::uint32_t> out(c_n);
  check(cudaMemcpy(out.data(), dd.p, c_n * 4, cudaMemcpyDeviceToHost), "copying D back from the device");
  timer.lap(RunPhase::copy_out);
  return out;
}

}  // namespace tcnum::device::detail
