// f64 DMMA (tcnum/core/dmma.hpp, docs/models.md §8.6): the H100's recorded results replay bit for
// bit (corpora/h100-f64), and the cases that tell an FMA chain from a fused sum, the k order, the
// signed zeros and the NaN rules give what the device gave.
#include <gtest/gtest.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/dmma.hpp"

namespace {

namespace fs = std::filesystem;
using tcnum::dmma_element;

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

double d(std::vector<double> a, std::vector<double> b, double c) { return dmma_element(a, b, c); }

std::vector<std::uint64_t> hex_run(const std::string& field, std::size_t count) {
  if (field.size() != 16 * count) throw std::runtime_error("field of " + std::to_string(field.size()) + " digits, want 16 x " + std::to_string(count));
  std::vector<std::uint64_t> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = std::stoull(field.substr(16 * i, 16), nullptr, 16);
  return out;
}

// Every line of every corpora/h100-f64 file: "arch instruction A B C D", 16 hex digits per f64.
TEST(Dmma, H100CorporaReplay) {
  const fs::path dir = fs::path(TCNUM_SOURCE_DIR) / "corpora" / "h100-f64";
  const std::regex shape(R"(^mma\.m(\d+)n(\d+)k(\d+)\.f64\.f64\.f64\.f64$)");
  std::size_t files = 0, cases = 0, bad = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".gz") continue;
    ++files;
    gzFile f = gzopen(entry.path().c_str(), "rb");
    ASSERT_NE(f, nullptr) << entry.path();
    char buf[1 << 14];
    while (gzgets(f, buf, sizeof buf)) {
      std::string line(buf);
      if (!line.empty() && line.back() == '\n') line.pop_back();
      if (line.empty() || line[0] == '#') continue;
      std::istringstream in(line);
      std::string arch, name, a, b, c, dv;
      ASSERT_TRUE(in >> arch >> name >> a >> b >> c >> dv) << line;
      std::smatch m;
      ASSERT_TRUE(std::regex_match(name, m, shape)) << name;
      const std::size_t k = std::stoul(m[3]);
      const std::uint64_t want = hex_run(dv, 1)[0], got = dmma_element(hex_run(a, k), hex_run(b, k), hex_run(c, 1)[0]);
      ++cases;
      if (got != want && ++bad <= 5) ADD_FAILURE() << entry.path().filename() << ": " << line << "\n  model " << std::hex << got;
    }
    gzclose(f);
  }
  EXPECT_EQ(files, 4u);
  EXPECT_GE(cases, 4u * 60u);
  EXPECT_EQ(bad, 0u);
}

// c = 1 and products half an ulp of 1 and 2^-106: each FMA rounds the tie to even (1), a fused
// sum would see 1 + 2^-53 + 2^-106 and round up. The device gave 1 (fma_chain).
TEST(Dmma, AChainOfFmasNotAFusedSum) {
  EXPECT_EQ(d({0x1p-27, 0x1p-53, 0, 0}, {0x1p-26, 0x1p-53, 0, 0}, 1.0), 1.0);
  // The order is ascending k: 1 + 2^53 rounds (a tie, to even) to 2^53 before -2^53 comes, so
  // the exact sum 1 is lost; with -2^53 first, 1 - 2^53 is exact and 1 survives.
  EXPECT_EQ(d({0x1p53, 0x1p53, 0, 0}, {1.0, -1.0, 0, 0}, 1.0), 0.0);
  EXPECT_EQ(d({0x1p53, 0x1p53, 0, 0}, {-1.0, 1.0, 0, 0}, 1.0), 1.0);
  // Each product enters unrounded (fused): 3·(1/3 as a double) + (-1) is 2^-54, not 0.
  const double third = 1.0 / 3.0;
  EXPECT_EQ(d({3.0, 0, 0, 0}, {third, 0, 0, 0}, -1.0), std::fma(3.0, third, -1.0));
  EXPECT_NE(d({3.0, 0, 0, 0}, {third, 0, 0, 0}, -1.0), 0.0);
}

TEST(Dmma, SubnormalsAndSignedZeros) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(d({0x1p-537, 0, 0, 0}, {0x1p-537, 0, 0, 0}, 0.0), 0x1p-1074);  // a subnormal product is kept
  EXPECT_EQ(d({tiny, 0, 0, 0}, {0.5, 0, 0, 0}, 0.0), 0.0);                  // half the smallest: ties to even 0
  EXPECT_EQ(bits(d({-0.0, 0.0, 1.0, -1.0}, {1.0, 1.0, 0.0, 0.0}, -0.0)), bits(0.0));  // -0 + (+0) = +0 at k = 1
  EXPECT_EQ(bits(d({-1.0, -1.0, -0.0, 0.0}, {0.0, 0.0, 1.0, -1.0}, -0.0)), bits(-0.0));  // every step -0
  EXPECT_EQ(bits(d({1.0, 0, 0, 0}, {-1.0, 0, 0, 0}, 1.0)), bits(0.0));     // exact cancellation: +0
}

TEST(Dmma, InfinitiesAndNaNs) {
  const double inf = std::numeric_limits<double>::infinity();
  const double pos_nan = std::bit_cast<double>(0x7ff8000000000000ull), neg_nan = std::bit_cast<double>(0xfff8000000000000ull);
  EXPECT_EQ(d({inf, 0, 0, 0}, {2.0, 0, 0, 0}, 1.0), inf);
  EXPECT_EQ(bits(d({inf, 0, 0, 0}, {0.0, 0, 0, 0}, 1.0)), 0xfff8000000000000ull);   // ∞·0
  EXPECT_EQ(bits(d({inf, -inf, 0, 0}, {1.0, 1.0, 0, 0}, 0.0)), 0xfff8000000000000ull);  // ∞ − ∞
  EXPECT_EQ(d({1e300, 0, 0, 0}, {1e300, 0, 0, 0}, 0.0), inf);  // overflow
  // B's NaN before the running sum's, the running sum's before A's; quieted, sign kept.
  EXPECT_EQ(bits(d({neg_nan, 0, 0, 0}, {pos_nan, 0, 0, 0}, neg_nan)), 0x7ff8000000000000ull);
  EXPECT_EQ(bits(d({pos_nan, 0, 0, 0}, {1.0, 0, 0, 0}, neg_nan)), 0xfff8000000000000ull);
  EXPECT_EQ(bits(d({neg_nan, 0, 0, 0}, {1.0, 0, 0, 0}, 1.0)), 0xfff8000000000000ull);
  EXPECT_EQ(bits(d({1.0, 0, 0, 0}, {1.0, 0, 0, 0}, std::bit_cast<double>(0x7ff0000000000001ull))), 0x7ff8000000000001ull);
  EXPECT_THROW(d({1.0}, {1.0, 2.0}, 0.0), std::invalid_argument);
}

}  // namespace

// The DMMA forms beside the catalog: on their architectures in dmma_forms_for (what numprobe list
// shows), and every 32-bit path refuses their names saying where they go instead.
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/instruction.hpp"

namespace {

std::vector<std::string> names(int sm) {
  std::vector<std::string> out;
  for (const tcnum::DmmaForm& f : tcnum::dmma_forms_for(sm)) out.push_back(f.name);
  return out;
}

TEST(DmmaForms, OnTheirArchitectures) {
  const std::vector<std::string> m8{"mma.m8n8k4.f64.f64.f64.f64"};
  const std::vector<std::string> all{"mma.m8n8k4.f64.f64.f64.f64", "mma.m16n8k4.f64.f64.f64.f64",
                                     "mma.m16n8k8.f64.f64.f64.f64", "mma.m16n8k16.f64.f64.f64.f64"};
  EXPECT_TRUE(names(75).empty());
  for (int sm : {80, 86, 89}) EXPECT_EQ(names(sm), m8) << sm;
  for (int sm : {90, 100, 120}) EXPECT_EQ(names(sm), all) << sm;
  EXPECT_TRUE(names(tcnum::parse_arch("gfx942")).empty());
  const auto f = tcnum::find_dmma_form("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->k, 8);
  EXPECT_FALSE(tcnum::find_dmma_form("mma.m16n8k8.f32.f16.f16.f32").has_value());
}

TEST(DmmaForms, ThirtyTwoBitPathsSayWhereTheyGo) {
  for (const char* name : {"mma.m16n8k16.f64.f64.f64.f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"}) {
    try {
      tcnum::find_instruction(name, 90);
      ADD_FAILURE() << name << " was found in the catalog";
    } catch (const tcnum::UnknownInstruction& e) {
      EXPECT_NE(std::string(e.what()).find("tcnum::dmma_element"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(".tcf64"), std::string::npos) << e.what();
    }
    EXPECT_THROW(tcnum::parse_instruction(name), tcnum::UnknownInstruction);
  }
  std::string why;
  const std::string line = "sm_90 mma.m16n8k4.f64.f64.f64.f64 " + std::string(64, '0') + " " + std::string(64, '0') + " " +
                           std::string(16, '0') + " " + std::string(16, '0');
  EXPECT_FALSE(tcnum::parse_case_line(line, why).has_value());
  EXPECT_NE(why.find("f64 DMMA form"), std::string::npos) << why;
}

}  // namespace
