// The fast kernel's builds, one translation unit per instruction set (fast_kernel_avx512.cpp,
// fast_kernel_avx2.cpp, fast_kernel_baseline.cpp: each includes fast_kernel_body.inc once inside
// its own namespace and target region), so that the builds compile in parallel; fast_kernel.cpp
// dispatches between them. Internal to the library.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

#include "fast_kernel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define TCNUM_KERNEL_X86 1
#include <immintrin.h>
#else
#define TCNUM_KERNEL_X86 0
#endif

// Every function defined between TCNUM_TARGET_PUSH(features) and TCNUM_TARGET_POP is compiled
// for those instruction-set features: GCC's pragma covers all code in the region; clang's
// attribute every function declared in it, lambdas too (else the AVX-512 intrinsics that they
// reach would not compile); tests/simd/check_zmm.sh checks the registers each build uses.
#define TCNUM_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define TCNUM_TARGET_PUSH(features) \
  TCNUM_PRAGMA(clang attribute push(__attribute__((target(features))), apply_to = function))
#define TCNUM_TARGET_POP TCNUM_PRAGMA(clang attribute pop)
#else
#define TCNUM_TARGET_PUSH(features) TCNUM_PRAGMA(GCC push_options) TCNUM_PRAGMA(GCC target(features))
#define TCNUM_TARGET_POP TCNUM_PRAGMA(GCC pop_options)
#endif

namespace tcnum::detail {

// Each build's entry points. avx512 and avx2 exist on x86 only; off x86 the baseline build is
// the one build, named "portable".
const KernelSet& avx512_kernels();
const KernelSet& avx2_kernels();
const KernelSet& baseline_kernels();

}  // namespace tcnum::detail
