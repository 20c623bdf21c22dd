// FNV-1a over generated cases, for the tests that pin a generator stream's bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tcnum/core/case.hpp"

class StreamHash {
 public:
  void add(std::uint64_t word) {
    for (int i = 0; i < 8; ++i) value_ = (value_ ^ ((word >> (8 * i)) & 0xffu)) * 0x100000001b3ull;
  }
  void add_words(const std::uint32_t* p, std::size_t n) {
    add(n);
    for (std::size_t i = 0; i < n; ++i) add(p[i]);
  }
  void add_words(const std::vector<std::uint32_t>& v) { add_words(v.data(), v.size()); }
  void add_bytes(const std::vector<std::uint8_t>& v) {
    add(v.size());
    for (std::uint8_t x : v) add(x);
  }
  void add_text(std::string_view s) {
    add(s.size());
    for (char ch : s) add(static_cast<unsigned char>(ch));
  }
  void add_case(const tcnum::Case& c) {
    add_words(c.a), add_words(c.b), add(c.c), add_words(c.scale_a), add_words(c.scale_b), add_bytes(c.meta);
  }
  std::uint64_t value() const { return value_; }

 private:
  std::uint64_t value_ = 0xcbf29ce484222325ull;
};
