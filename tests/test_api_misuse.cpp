// API misuse gets a clear std::invalid_argument, never an out-of-bounds read or a lenient
// match (issue 14 items 11 and 12).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

using namespace tcnum;

namespace {

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Before: an out-of-range Format indexed past the format table.
TEST(ApiMisuse, AnOutOfRangeFormatIsRejectedWhereItEnters) {
  for (Format f : {static_cast<Format>(100), static_cast<Format>(255)}) {
    EXPECT_NE(error_of([&] { check_format(f); }).find("invalid Format value"), std::string::npos);
    EXPECT_THROW(name_of(f), std::invalid_argument);
    EXPECT_THROW(to_double(f, 0), std::invalid_argument);
    EXPECT_THROW(encode(f, 1.0), std::invalid_argument);
  }
  for (const char* name : {"f32", "f16", "bf16", "tf32", "e4m3", "e5m2"}) EXPECT_NO_THROW(check_format(*parse_format(name)));
}

// Before: sm 95 gave "not available on sm_95; valid names there:" followed by nothing.
TEST(ApiMisuse, AnUnknownArchitectureNumberIsNamed) {
  const std::string why = error_of([] { find_instruction("mma.m16n8k8.f32.f16.f16.f32", 95); });
  EXPECT_NE(why.find("unknown architecture 'sm_95'"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_90"), std::string::npos) << why;
}

// Before: qualifiers were erased anywhere in the name and leading zeros were read as a number.
TEST(ApiMisuse, LenientNamesAreRejected) {
  EXPECT_THROW(find_instruction("mma.m16n8.rowk8.f32.f16.f16.f32", 90), UnknownInstruction);
  EXPECT_THROW(parse_instruction("mma.m16n8.rowk8.f32.f16.f16.f32"), UnknownInstruction);
  EXPECT_THROW(find_instruction("mma.m16n8k8.f32.f16.f16.f32.syncsync", 90), UnknownInstruction);
  for (const char* arch : {"sm_090", "sm_0", "sm_", "sm_90aa", "sm_+90", "SM_90"})
    EXPECT_NE(error_of([&] { parse_arch(arch); }).find("unknown architecture"), std::string::npos) << arch;
  // The documented spellings still work.
  EXPECT_EQ(find_instruction("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 90).name,
            "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_EQ(parse_arch("sm_90a"), 90);
  EXPECT_EQ(parse_arch("sm_100"), 100);
}
