// splitmix64 (Steele, Lea and Flood; Vigna's constants): the fuzz layer's one seed mixer and
// small stream, fully specified so that every platform draws the same bits. Private to emu/fuzz.
#pragma once
#include <cstdint>

namespace tcnum::fuzz::detail {

// Advances `state` and returns its next output.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace tcnum::fuzz::detail
