// The one rounding routine every operation funnels into (SoftFloat's roundPack): internal to the
// core, since its 128-bit magnitude is an implementation type, not part of the public API.
#pragma once

#include <cstdint>

#include "tcnum/core/format.hpp"

namespace tcnum {

// Rounds (-1)^sign * (magnitude + sticky·ε) * 2^exponent into f. `sticky` says that nonzero bits
// below magnitude's bit 0 were dropped. With satfinite, overflow gives ±max finite instead of
// ±Inf (e4m3: always, since it has no Inf). Formats with neither Inf nor NaN (FP4/FP6) always
// saturate, as PTX's cvt (.satfinite is mandatory there); below the smallest value, a format
// without zero (ue8m0) gives its smallest value.
std::uint32_t round_pack(Format f, bool sign, unsigned __int128 magnitude, int exponent, bool sticky, Rounding mode,
                         bool satfinite = false);

}  // namespace tcnum
