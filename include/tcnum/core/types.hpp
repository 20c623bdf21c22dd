// Small value types for the input/accumulator formats (CUTLASS-style: raw bits, bitcast).
#pragma once
#include <cstdint>

#include "tcnum/core/format.hpp"

namespace tcnum {

template <Format F>
struct Scalar {
  using storage_type = std::conditional_t<(F == Format::fp32 || F == Format::tf32), std::uint32_t,
                                          std::conditional_t<(F == Format::e4m3 || F == Format::e5m2),
                                                             std::uint8_t, std::uint16_t>>;
  static constexpr Format format = F;
  storage_type storage = 0;

  Scalar() = default;
  // Round to nearest even (the usual host conversion); satfinite for fp8 like CUDA's default.
  explicit Scalar(double x)
      : storage(static_cast<storage_type>(encode(F, x, Rounding::nearest_even,
                                                 F == Format::e4m3 || F == Format::e5m2))) {}
  static Scalar bitcast(std::uint32_t bits) {
    Scalar s;
    s.storage = static_cast<storage_type>(bits);
    return s;
  }
  std::uint32_t raw() const { return storage; }
  explicit operator double() const { return to_double(F, storage); }
  explicit operator float() const { return static_cast<float>(to_double(F, storage)); }
  friend bool operator==(Scalar x, Scalar y) { return x.storage == y.storage; }  // bitwise
};

using half_t = Scalar<Format::fp16>;
using bfloat16_t = Scalar<Format::bf16>;
using tfloat32_t = Scalar<Format::tf32>;
using float_e4m3_t = Scalar<Format::e4m3>;
using float_e5m2_t = Scalar<Format::e5m2>;
using float32_t = Scalar<Format::fp32>;

}  // namespace tcnum
