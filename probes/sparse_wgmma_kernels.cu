// Hopper wgmma.mma_async.sp probe kernels (sm_90a): one warpgroup per 64×N tile, A's stored
// elements in registers (the RS form), B from shared memory, D = A·B + C, raw bits in and out.
// Sparsity selector 0, scale-d 1, no negation, B K-major (imm-trans-b 0 where it exists).
//
// Fragments: the stored A (64 × K/2) has the register fragment of the dense wgmma of K/2: register
// j of lane 4g + t in warp w holds the 4 bytes of row 16w + g + 8(j & 1) at K-bytes 4t + 16(j >> 1).
// The host hands them over already packed (tiles × 128 lanes × 4 words), with each lane's
// metadata word (tiles × 128; per warp as mma.sp of the same K, sparse_layouts.hpp). B: N rows of
// 64 K-bytes (f16/bf16 k32, tf32 k16, fp8 k64 alike) in the no-swizzle K-major layout, core
// matrices of 8 rows × 16 bytes, LBO 128 (K-adjacent), SBO 512 (the next 8 rows); the host
// packs that byte image. C/D as the dense probes (wgmma_kernels.cu).
// Generated operand lists: the WgSpOp specializations below (N = 8, 64, 256). Integer (s8/u8, K = 64
// logical) D is s32, one register per element as f32.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "sparse_mma_probe.hpp"

namespace tcnum::device::detail {
namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCNUM_WGSP_ASM(...) asm volatile(__VA_ARGS__)
#else
#define TCNUM_WGSP_ASM(...) \
  do {                      \
  } while (0)
#endif

enum WgSpKind : int { k_f32_f16_f16, k_f16_f16_f16, k_f32_bf16_bf16, k_f32_tf32_tf32, k_f32_e4m3_e4m3, k_f32_e4m3_e5m2, k_f32_e5m2_e4m3, k_f32_e5m2_e5m2, k_f16_e4m3_e4m3, k_f16_e4m3_e5m2, k_f16_e5m2_e4m3, k_f16_e5m2_e5m2, k_s32_s8_s8, k_s32_s8_u8, k_s32_u8_s8, k_s32_u8_u8, k_sat_s8_s8, k_sat_s8_u8, k_sat_u8_s8, k_sat_u8_u8 };

template <int KIND, int N>
struct WgSpOp;

// clang-format off
template <>
struct WgSpOp<k_f32_f16_f16, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k32.f32.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_f16_f16, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k32.f32.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_f16_f16, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k32.f32.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_f16_f16, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 2;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k32.f16.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k32.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, %6, %7, 0, 1, 1, 1, 0;"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_f16_f16, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 16;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k32.f16.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k32.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 0, 1, 1, 1, 0;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_f16_f16, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 64;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k32.f16.f16.f16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k32.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, %69, 0, 1, 1, 1, 0;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_bf16_bf16, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k32.f32.bf16.bf16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_bf16_bf16, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k32.f32.bf16.bf16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_bf16_bf16, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k32.f32.bf16.bf16";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1, 0;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_tf32_tf32, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k16.f32.tf32.tf32";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_tf32_tf32, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k16.f32.tf32.tf32";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k16.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_tf32_tf32, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k16.f32.tf32.tf32";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k16.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e4m3, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f32.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e4m3, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f32.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e4m3, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f32.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e5m2, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f32.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e5m2, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f32.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e4m3_e5m2, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f32.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f32.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e4m3, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f32.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e5m2.e4m3 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e4m3, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f32.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e5m2.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e4m3, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f32.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f32.e5m2.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e5m2, 8> {
  using DReg = float;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f32.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e5m2.e5m2 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e5m2, 64> {
  using DReg = float;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f32.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e5m2.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f32_e5m2_e5m2, 256> {
  using DReg = float;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f32.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f32.e5m2.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1, 1, 1;"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e4m3, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 2;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f16.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e4m3.e4m3 {%0, %1}, {%2, %3, %4, %5}, %6, %7, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e4m3, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 16;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f16.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f16.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e4m3, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 64;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f16.e4m3.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f16.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, %69, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e5m2, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 2;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f16.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e4m3.e5m2 {%0, %1}, {%2, %3, %4, %5}, %6, %7, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e5m2, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 16;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f16.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f16.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e4m3_e5m2, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 64;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f16.e4m3.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f16.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, %69, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e4m3, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 2;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f16.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e5m2.e4m3 {%0, %1}, {%2, %3, %4, %5}, %6, %7, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e4m3, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 16;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f16.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f16.e5m2.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e4m3, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 64;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f16.e5m2.e4m3";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f16.e5m2.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, %69, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e5m2, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 2;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.f16.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e5m2.e5m2 {%0, %1}, {%2, %3, %4, %5}, %6, %7, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e5m2, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 16;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.f16.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.f16.e5m2.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_f16_e5m2_e5m2, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 64;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.f16.e5m2.e5m2";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.f16.e5m2.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, %69, 0, 1, 1, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
// Integer (s8/u8 -> s32, wrap and .satfinite): sp-meta, sp-sel 0, scale-d 1; no other immediates.
template <>
struct WgSpOp<k_s32_s8_s8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_s8_s8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_s8_s8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_s8_u8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_s8_u8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_s8_u8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_s8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.u8.s8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_s8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.s32.u8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_s8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.s32.u8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_u8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.u8.u8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_u8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_s32_u8_u8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_s8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.satfinite.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.s8.s8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_s8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.satfinite.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.satfinite.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_s8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.satfinite.s32.s8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.satfinite.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_u8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.satfinite.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.s8.u8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_u8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.satfinite.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.satfinite.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_s8_u8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.satfinite.s32.s8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.satfinite.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_s8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.satfinite.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.u8.s8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_s8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.satfinite.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.satfinite.s32.u8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_s8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.satfinite.s32.u8.s8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.satfinite.s32.u8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_u8, 8> {
  using DReg = std::uint32_t;
  static constexpr int R = 4;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n8k64.satfinite.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.u8.u8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_u8, 64> {
  using DReg = std::uint32_t;
  static constexpr int R = 32;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n64k64.satfinite.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n64k64.satfinite.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, %37, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};
template <>
struct WgSpOp<k_sat_u8_u8, 256> {
  using DReg = std::uint32_t;
  static constexpr int R = 128;
  static constexpr const char* name = "wgmma.mma_async.sp.m64n256k64.satfinite.s32.u8.u8";
  static __device__ __forceinline__ void run(DReg (&d)[R], const std::uint32_t (&a)[4], std::uint64_t bd, std::uint32_t me) {
    TCNUM_WGSP_ASM("wgmma.mma_async.sp.sync.aligned.m64n256k64.satfinite.s32.u8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, %133, 0, 1;"
                   : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(me)
                   : "memory");
  }
};

// clang-format on

constexpr int kThreads = 128;
constexpr int kLbo = 128, kSbo = 512;
#define TCNUM_WGSP_ROW_BYTES 64

[[maybe_unused]] __device__ __forceinline__ std::uint64_t smem_descriptor(const void* p) {
  const auto addr = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{kLbo >> 4} << 16) | (std::uint64_t{kSbo >> 4} << 32);
}

template <class T, int R>
__device__ __forceinline__ void pin(T (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    if constexpr (std::is_same_v<T, float>) {
      asm volatile("" : "+f"(d[i])::"memory");
    } else {
      asm volatile("" : "+r"(d[i])::"memory");
    }
  }
}

template <int KIND, int N>
__global__ void __launch_bounds__(kThreads) wgsp_kernel(const std::uint32_t* __restrict__ a, const uint4* __restrict__ b,
                                                        const std::uint32_t* __restrict__ c,
                                                        const std::uint32_t* __restrict__ meta,
                                                        std::uint32_t* __restrict__ d, int tiles, int* status) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Op = WgSpOp<KIND, N>;
  using DReg = typename Op::DReg;
  constexpr bool kF32 = std::is_same_v<DReg, float>;
  constexpr int R = Op::R;
  constexpr bool kWide = R == N / 2;  // one register per element: f32, s32
  __shared__ __align__(128) uint4 sb[N * TCNUM_WGSP_ROW_BYTES / 16];
  const int tid = threadIdx.x, warp = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
  const int row = 16 * warp + g;
  const std::uint64_t bdesc = smem_descriptor(sb);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (int i = tid; i < N * TCNUM_WGSP_ROW_BYTES / 16; i += kThreads) sb[i] = b[static_cast<std::size_t>(tile) * (N * TCNUM_WGSP_ROW_BYTES / 16) + i];
    const std::uint32_t* ct = c + static_cast<std::size_t>(tile) * 64 * N;
    DReg acc[R];
#pragma unroll
    for (int i = 0; i < N / 8; ++i) {
      const int col = 8 * i + 2 * t;
      const std::uint32_t l0 = ct[row * N + col], l1 = ct[row * N + col + 1];
      const std::uint32_t h0 = ct[(row + 8) * N + col], h1 = ct[(row + 8) * N + col + 1];
      if constexpr (kF32) {
        acc[4 * i + 0] = __uint_as_float(l0), acc[4 * i + 1] = __uint_as_float(l1);
        acc[4 * i + 2] = __uint_as_float(h0), acc[4 * i + 3] = __uint_as_float(h1);
      } else if constexpr (kWide) {
        acc[4 * i + 0] = l0, acc[4 * i + 1] = l1, acc[4 * i + 2] = h0, acc[4 * i + 3] = h1;
      } else {
        acc[2 * i + 0] = (l0 & 0xFFFFu) | (l1 << 16);
        acc[2 * i + 1] = (h0 & 0xFFFFu) | (h1 << 16);
      }
    }
    std::uint32_t afrag[4];
    const std::size_t lane = static_cast<std::size_t>(tile) * kThreads + tid;
#pragma unroll
    for (int j = 0; j < 4; ++j) afrag[j] = a[lane * 4 + j];
    const std::uint32_t me = meta[lane];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    pin(acc);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    Op::run(acc, afrag, bdesc, me);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    pin(acc);
    std::uint32_t* dt = d + static_cast<std::size_t>(tile) * 64 * N;
#pragma unroll
    for (int i = 0; i < N / 8; ++i) {
      const int col = 8 * i + 2 * t;
      if constexpr (kF32) {
        dt[row * N + col] = __float_as_uint(acc[4 * i + 0]), dt[row * N + col + 1] = __float_as_uint(acc[4 * i + 1]);
        dt[(row + 8) * N + col] = __float_as_uint(acc[4 * i + 2]);
        dt[(row + 8) * N + col + 1] = __float_as_uint(acc[4 * i + 3]);
      } else if constexpr (kWide) {
        dt[row * N + col] = acc[4 * i + 0], dt[row * N + col + 1] = acc[4 * i + 1];
        dt[(row + 8) * N + col] = acc[4 * i + 2], dt[(row + 8) * N + col + 1] = acc[4 * i + 3];
      } else {
        dt[row * N + col] = acc[2 * i] & 0xFFFFu, dt[row * N + col + 1] = acc[2 * i] >> 16;
        dt[(row + 8) * N + col] = acc[2 * i + 1] & 0xFFFFu, dt[(row + 8) * N + col + 1] = acc[2 * i + 1] >> 16;
      }
    }
    __syncthreads();
  }
#else
  if (blockIdx.x == 0 && threadIdx.x == 0) *status = 1;
#endif
}

template <int KIND, int N>
cudaError_t launch(const std::uint32_t* a, const void* b, const std::uint32_t* c, const std::uint32_t* meta,
                   std::uint32_t* d, int tiles, int* status, cudaStream_t stream) {
  if (tiles <= 0) return cudaSuccess;
  const int blocks = tiles < 4096 ? tiles : 4096;
  wgsp_kernel<KIND, N><<<blocks, kThreads, 0, stream>>>(a, static_cast<const uint4*>(b), c, meta, d, tiles, status);
  return cudaGetLastError();
}

template <int KIND, int N>
SparseWgmmaKernel wg_entry() {
  return {WgSpOp<KIND, N>::name, N, &launch<KIND, N>};
}

}  // namespace

const SparseWgmmaKernel* find_sparse_wgmma_kernel(std::string_view name) {
#define TCNUM_WGSP_ENTRIES(K) wg_entry<K, 8>(), wg_entry<K, 64>(), wg_entry<K, 256>(),
  static const SparseWgmmaKernel all[] = {TCNUM_WGSP_ENTRIES(k_f32_f16_f16) TCNUM_WGSP_ENTRIES(k_f16_f16_f16) TCNUM_WGSP_ENTRIES(k_f32_bf16_bf16) TCNUM_WGSP_ENTRIES(k_f32_tf32_tf32) TCNUM_WGSP_ENTRIES(k_f32_e4m3_e4m3) TCNUM_WGSP_ENTRIES(k_f32_e4m3_e5m2) TCNUM_WGSP_ENTRIES(k_f32_e5m2_e4m3) TCNUM_WGSP_ENTRIES(k_f32_e5m2_e5m2) TCNUM_WGSP_ENTRIES(k_f16_e4m3_e4m3) TCNUM_WGSP_ENTRIES(k_f16_e4m3_e5m2) TCNUM_WGSP_ENTRIES(k_f16_e5m2_e4m3) TCNUM_WGSP_ENTRIES(k_f16_e5m2_e5m2) TCNUM_WGSP_ENTRIES(k_s32_s8_s8) TCNUM_WGSP_ENTRIES(k_s32_s8_u8) TCNUM_WGSP_ENTRIES(k_s32_u8_s8) TCNUM_WGSP_ENTRIES(k_s32_u8_u8) TCNUM_WGSP_ENTRIES(k_sat_s8_s8) TCNUM_WGSP_ENTRIES(k_sat_s8_u8) TCNUM_WGSP_ENTRIES(k_sat_u8_s8) TCNUM_WGSP_ENTRIES(k_sat_u8_u8)};
#undef TCNUM_WGSP_ENTRIES
  for (const SparseWgmmaKernel& k : all)
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace tcnum::device::detail
