// Shared by the feature recipes, the fit and the profiling: exact input construction and
// the running context of one characterisation.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tcnum/core/plan.hpp"
#include "tcnum/characterize/features.hpp"
#include "tcnum/core/sources.hpp"

namespace tcnum::features::detail {

using u32 = std::uint32_t;
using Pair = std::optional<std::pair<u32, u32>>;

// Bits of x in f when x is exactly representable there (finite, not NaN), else nullopt.
// Subnormals of f count as representable only with `allow_subnormal`.
std::optional<std::uint32_t> exact_bits(Format f, double x, bool allow_subnormal = true);

// "1.5 (0x3fc00000)", "NaN (0x7fffffff)", "-0 (0x8000)".
std::string show(Format f, std::uint32_t bits);
// "2^-24", "3*2^-25", "-1.75*2^3" for a double that is a small multiple of a power of two.
std::string pow2_text(double x);

// Exact inputs for one instruction.
class Planner {
 public:
  explicit Planner(const Instruction& in);

  const Instruction& in;
  Format fa, fb, fc, fd;
  int lo = 0, hi = 0;  // 2^e = a*b with normal power-of-two factors for e in [lo, hi] (clamped to ±100)

  Case blank() const;  // A, B: +0; C: +0
  // a = sa*2^ea, b = sb*2^eb with ea + eb = e, both normal, exponents as balanced as possible:
  // the product's nominal exponent (what an aligner sees) is exactly e.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> product_sig(double sa, double sb, int e,
                                                                     bool negative = false) const;
  // Any exact factorisation a*b = v (normal factors unless allow_subnormal); v != 0.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> product_value(double v, bool allow_subnormal = false) const;
  std::optional<std::uint32_t> c_bits(double v) const { return exact_bits(fc, v); }
  double d_value(std::uint32_t bits) const { return to_double(fd, bits); }
  bool d_is(std::uint32_t bits, double v) const;  // D is exactly v (for 0: either sign)

  int d_emin() const { return spec(fd).emin(); }
  int d_emax() const { return spec(fd).emax(); }
};

bool put(Case& g, int pos, const std::optional<std::pair<std::uint32_t, std::uint32_t>>& ab);

// The running state of one characterisation: the black box, what has been measured so
// far, and the reports of the recipes that already ran.
struct Ctx {
  Ctx(const Instruction& i, const BlackBox& b, const FeatureOptions& o) : in(i), box(b), opt(o), P(i) {}
  const Instruction& in;
  const BlackBox& box;
  FeatureOptions opt;
  Planner P;
  Measurement m;
  std::size_t cases = 0;
  std::vector<Case> all_cases;     // every probe, for the fit's final verification
  std::vector<std::uint32_t> all_outputs;
  std::vector<FeatureReport> done;          // reports of recipes that ran, in order
  std::vector<std::uint32_t> eval(const std::vector<Case>& cs);
  void row(FeatureReport& r, std::string label, const Case& g, std::uint32_t got, std::string reading);
  const FeatureReport* find(const std::string& feature) const;
  // Parameters as measured so far, tcnum's defaults elsewhere.
  DatapathParams params() const;
  // Product positions of block b in feed order (b < 0: counted from the last block), as
  // measured so far (one block of all K before the order recipe ran).
  std::vector<int> block(int b) const;
  DatapathParams measured_structure() const;  // k_passes, pass_interleave, block_size as measured
  int block_count() const;
};

// Pieces of a report.
const char* rounding_words(Rounding r);  // "round toward zero (truncation)", ...
const char* rounding_short(Rounding r);  // "rz", "rne"
FeatureReport start(const Ctx& ctx, const std::string& name);  // feature, instruction, sources
FeatureReport not_applicable(const Ctx& ctx, const std::string& name, const std::string& why);
int effective_kb(const Ctx& ctx);  // products in the first block, as measured so far

// One feature test: its recipe, the tests it builds on, and the papers it follows.
struct FeatureTest {
  std::string name;
  std::vector<const char*> sources;        // citations, from tcnum/core/sources.hpp
  std::vector<std::string> prerequisites;  // tests whose measurements the recipe reads: run first
  std::vector<std::string> also_measures;  // tests this one makes redundant (order: blocksize)
  FeatureReport (*run)(Ctx&);
  // The published recipes that measure the same feature, run on the same black box as
  // cross-checks (only those that apply are reported); null when there are none.
  std::vector<recipes::RecipeVerdict> (*published)(const BlackBox&, const Instruction&);
};

// The tests, each in its own file feature_<name>.cpp (blocksize and order share one recipe).
const FeatureTest& scale_test();
const FeatureTest& product_test();
const FeatureTest& align_test();
const FeatureTest& carry_test();
const FeatureTest& normalize_test();
const FeatureTest& round_test();
const FeatureTest& blocksize_test();
const FeatureTest& order_test();
const FeatureTest& subnormal_test();
const FeatureTest& special_test();
const FeatureTest& monotonic_test();

// The table of them, in the order numprobe lists them (feature_registry.cpp).
const std::vector<const FeatureTest*>& feature_tests();
const FeatureTest* find_feature_test(const std::string& name);  // nullptr when unknown
const FeatureTest& feature_test(const std::string& name);       // throws std::invalid_argument

// The report of one test on ctx's box, running its prerequisites first; a test runs once.
const FeatureReport& ensure(Ctx& ctx, const std::string& name);

}  // namespace tcnum::features::detail
