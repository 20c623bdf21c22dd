// Random matrices for the tests of the view-level API: N(0,1) values rounded to nearest even
// into one of tcnum's value types, from a fixed seed.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace tcnum::test {

template <class T>
std::vector<T> random_normal(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<T> v(count);
  for (auto& x : v) x = T(normal(rng));
  return v;
}

}  // namespace tcnum::test
