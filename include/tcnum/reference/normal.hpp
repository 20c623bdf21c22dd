// The one N(0,1) source of tcnum: the input generators' "normal" distribution (and those built
// on it), the element-wise profile and the chain study all draw from it.
//
// A double that is the same bits on every platform for a given engine state: the engine is
// std::mt19937_64 (whose output sequence the C++ standard fixes), the sampler the
// Marsaglia–Tsang ziggurat whose tables, wedge and tail tests are computed by MPFR (correctly
// rounded); its fast path (~99% of draws) is an integer comparison and one IEEE multiplication.
#pragma once
#include <cstdint>
#include <random>

namespace tcnum {

// One N(0,1) draw from `bits` (which the caller may also use for other draws in between).
double standard_normal(std::mt19937_64& bits);

// A seeded stream of N(0,1) draws.
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t seed) : bits_(seed) {}
  double operator()() { return standard_normal(bits_); }

 private:
  std::mt19937_64 bits_;
};

}  // namespace tcnum
