// CUDA interop (opt-in; needs the CUDA toolkit's headers, host code of a .cu or plain C++):
// bit casts between CUDA's __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2 and tcnum's
// value types, and matrix views straight over arrays of the CUDA types.
//
//   std::vector<__nv_bfloat16> a_host(M * K);            // copied back from the device
//   auto A = tcnum::row_major(a_host, M, K);             // a bf16 view, no copy
//   tcnum::bfloat16_t x = tcnum::to_tcnum(a_host[0]);    // same bits
//   __nv_bfloat16 y = tcnum::to_cuda(x);
//
// Every cast copies the storage bits unchanged (NaN payloads and -0 included): no conversion,
// no rounding. In CMake: target_include_directories(... CUDA::toolkit's include dirs), or
// compile the including file with nvcc.
#pragma once
#if !__has_include(<cuda_fp16.h>)
#error "tcnum/interop/cuda.hpp needs the CUDA toolkit's headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h) on the include path"
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "tcnum/core/matrix_view.hpp"
#include "tcnum/core/types.hpp"

namespace tcnum {

inline half_t to_tcnum(__half x) { return half_t::bitcast(static_cast<__half_raw>(x).x); }
inline bfloat16_t to_tcnum(__nv_bfloat16 x) { return bfloat16_t::bitcast(static_cast<__nv_bfloat16_raw>(x).x); }
inline float_e4m3_t to_tcnum(__nv_fp8_e4m3 x) { return float_e4m3_t::bitcast(x.__x); }
inline float_e5m2_t to_tcnum(__nv_fp8_e5m2 x) { return float_e5m2_t::bitcast(x.__x); }

inline __half to_cuda(half_t x) {
  __half_raw r;
  r.x = x.storage;
  return __half(r);
}
inline __nv_bfloat16 to_cuda(bfloat16_t x) {
  __nv_bfloat16_raw r;
  r.x = x.storage;
  return __nv_bfloat16(r);
}
inline __nv_fp8_e4m3 to_cuda(float_e4m3_t x) {
  __nv_fp8_e4m3 r;
  r.__x = x.storage;
  return r;
}
inline __nv_fp8_e5m2 to_cuda(float_e5m2_t x) {
  __nv_fp8_e5m2 r;
  r.__x = x.storage;
  return r;
}

// Views over arrays of the CUDA types (their object representation is the format's bits).
template <>
struct element_traits<__half> : format_bits_traits<Format::fp16> {};
template <>
struct element_traits<__nv_bfloat16> : format_bits_traits<Format::bf16> {};
template <>
struct element_traits<__nv_fp8_e4m3> : format_bits_traits<Format::e4m3> {};
template <>
struct element_traits<__nv_fp8_e5m2> : format_bits_traits<Format::e5m2> {};

static_assert(sizeof(__half) == 2 && sizeof(__nv_bfloat16) == 2 && sizeof(__nv_fp8_e4m3) == 1 &&
              sizeof(__nv_fp8_e5m2) == 1);

}  // namespace tcnum
