// CUTLASS interop (opt-in; needs CUTLASS's headers, found by the including project): bit
// casts between cutlass::half_t, bfloat16_t, tfloat32_t, float_e4m3_t, float_e5m2_t and
// tcnum's value types, and matrix views straight over arrays of the CUTLASS types (e.g. a
// cutlass::HostTensor's host_data()).
//
//   std::vector<cutlass::bfloat16_t> a(M * K);
//   auto A = tcnum::row_major(a, M, K);                  // a bf16 view, no copy
//   tcnum::bfloat16_t x = tcnum::to_tcnum(a[0]);         // same bits
//   cutlass::bfloat16_t y = tcnum::to_cutlass(x);
//
// Every cast copies the storage bits unchanged (NaN payloads and -0 included). Tested against
// the CUTLASS headers of github.com/NVIDIA/cutlass (tests/test_cutlass_interop.cpp, built
// when CMake finds them: -DTCNUM_CUTLASS_INCLUDE_DIR=<cutlass>/include).
#pragma once
#if !__has_include(<cutlass/numeric_types.h>)
#error "tcnum/interop/cutlass.hpp needs CUTLASS's headers on the include path (<cutlass checkout>/include)"
#endif
#include <cutlass/numeric_types.h>

#include <cstdint>

#include "tcnum/core/matrix_view.hpp"
#include "tcnum/core/types.hpp"

namespace tcnum {

inline half_t to_tcnum(cutlass::half_t x) { return half_t::bitcast(x.raw()); }
inline bfloat16_t to_tcnum(cutlass::bfloat16_t x) { return bfloat16_t::bitcast(x.raw()); }
inline tfloat32_t to_tcnum(cutlass::tfloat32_t x) { return tfloat32_t::bitcast(x.raw()); }
inline float_e4m3_t to_tcnum(cutlass::float_e4m3_t x) { return float_e4m3_t::bitcast(x.raw()); }
inline float_e5m2_t to_tcnum(cutlass::float_e5m2_t x) { return float_e5m2_t::bitcast(x.raw()); }

inline cutlass::half_t to_cutlass(half_t x) { return cutlass::half_t::bitcast(x.storage); }
inline cutlass::bfloat16_t to_cutlass(bfloat16_t x) { return cutlass::bfloat16_t::bitcast(x.storage); }
inline cutlass::tfloat32_t to_cutlass(tfloat32_t x) { return cutlass::tfloat32_t::bitcast(x.storage); }
inline cutlass::float_e4m3_t to_cutlass(float_e4m3_t x) { return cutlass::float_e4m3_t::bitcast(x.storage); }
inline cutlass::float_e5m2_t to_cutlass(float_e5m2_t x) { return cutlass::float_e5m2_t::bitcast(x.storage); }

template <>
struct element_traits<cutlass::half_t> : format_bits_traits<Format::fp16> {};
template <>
struct element_traits<cutlass::bfloat16_t> : format_bits_traits<Format::bf16> {};
template <>
struct element_traits<cutlass::tfloat32_t> : format_bits_traits<Format::tf32> {};
template <>
struct element_traits<cutlass::float_e4m3_t> : format_bits_traits<Format::e4m3> {};
template <>
struct element_traits<cutlass::float_e5m2_t> : format_bits_traits<Format::e5m2> {};

static_assert(sizeof(cutlass::half_t) == 2 && sizeof(cutlass::bfloat16_t) == 2 && sizeof(cutlass::tfloat32_t) == 4 &&
              sizeof(cutlass::float_e4m3_t) == 1 && sizeof(cutlass::float_e5m2_t) == 1);

}  // namespace tcnum
