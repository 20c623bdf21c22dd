// The feature tests, one table: numprobe features, the fit and the tests find every test here.
// A new test is a file feature_<name>.cpp exporting a FeatureTest, and one line below.
#include <algorithm>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/sparse.hpp"

namespace tcnum::features {
namespace detail {

const std::vector<const FeatureTest*>& feature_tests() {
  static const std::vector<const FeatureTest*> tests = {
      &scale_test(),     &product_test(),   &align_test(), &carry_test(),     &normalize_test(), &round_test(),
      &blocksize_test(), &order_test(), &subnormal_test(), &special_test(),   &monotonic_test()};
  return tests;
}

const FeatureTest* find_feature_test(const std::string& name) {
  for (const FeatureTest* t : feature_tests())
    if (t->name == name) return t;
  return nullptr;
}

const FeatureTest& feature_test(const std::string& name) {
  if (const FeatureTest* t = find_feature_test(name)) return *t;
  throw std::invalid_argument("unknown feature test '" + name + "'");
}

namespace {

// The published recipes of `test`, run on the same box; only those that apply are reported.
std::vector<recipes::RecipeVerdict> published_for(Ctx& ctx, const FeatureTest& test) {
  if (!test.published) return {};
  BlackBox f;  // ctx's box, counting the cases as ctx.eval does
  f.cases = [&ctx](const Instruction&, std::span<const Case> cs) {
    return ctx.eval(std::vector<Case>(cs.begin(), cs.end()));
  };
  std::vector<recipes::RecipeVerdict> kept;
  for (auto& v : test.published(f, ctx.in)) {
    if (!v.applicable) continue;
    v.probes.clear();
    kept.push_back(std::move(v));
  }
  return kept;
}

}  // namespace

const FeatureReport& ensure(Ctx& ctx, const std::string& name) {
  if (const FeatureReport* r = ctx.find(name)) return *r;
  for (const FeatureReport& done : ctx.done) {  // a test that measures this one too
    const auto& also = feature_test(done.feature).also_measures;
    if (std::find(also.begin(), also.end(), name) != also.end()) return done;
  }
  const FeatureTest& test = feature_test(name);
  for (const std::string& p : test.prerequisites) ensure(ctx, p);
  const std::size_t c0 = ctx.cases;
  FeatureReport r = test.run(ctx);
  r.cases = ctx.cases - c0;
  if (ctx.opt.published) {
    const std::size_t before = ctx.cases;
    r.published = published_for(ctx, test);
    r.cases += ctx.cases - before;
  }
  ctx.done.push_back(std::move(r));
  return ctx.done.back();
}

}  // namespace detail

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const detail::FeatureTest* t : detail::feature_tests()) v.push_back(t->name);
    return v;
  }();
  return names;
}

bool is_feature(const std::string& name) { return detail::find_feature_test(name) != nullptr; }

std::string feature_source(const std::string& name) {
  const detail::FeatureTest* t = detail::find_feature_test(name);
  if (!t) return "";
  std::string s;
  for (const char* src : t->sources) s += (s.empty() ? "" : "; ") + std::string(src);
  return s;
}

namespace {

// An integer instruction's report: nothing for a floating-point recipe to read.
FeatureReport integer_report(const Instruction& in, const std::string& name) {
  FeatureReport r;
  r.feature = name;
  r.instruction = in.name;
  r.applicable = false;
  r.source = feature_source(name);
  r.verdict = "not applicable: " + in.name +
              " is an integer MMA, whose sum is exact (every product and C summed in integers, then wrapped "
              "to s32 or, with .satfinite, saturated): it has no alignment, rounding, block or special values "
              "to discover (docs/models.md §8.5); numprobe record and check test it on a GPU.";
  return r;
}

}  // namespace

std::vector<FeatureReport> run_features(const Instruction& in, const BlackBox& box, const std::vector<std::string>& names,
                                        const FeatureOptions& opt) {
  for (const auto& n : names)
    if (!is_feature(n)) throw std::invalid_argument("unknown feature test '" + n + "'");
  std::vector<FeatureReport> out;
  if (in.integer()) {
    for (const auto& n : names) out.push_back(integer_report(in, n));
    return out;
  }
  // A sparse instruction's tests read the datapath of its selected products (selected_products_box).
  // (Ctx holds both by reference: they live here.)
  const Instruction form = in.sparse ? selected_form(in) : in;
  const BlackBox view = in.sparse ? selected_products_box(in, box) : BlackBox{};
  detail::Ctx ctx(form, in.sparse ? view : box, opt);
  for (const auto& n : names) {
    out.push_back(detail::ensure(ctx, n));
    if (in.sparse) {
      FeatureReport& r = out.back();
      r.verdict = "On the " + std::to_string(form.k) + " products its metadata selects (every valid pattern in turn): " + r.verdict;
      r.facts.push_back({"selected_products", static_cast<std::int64_t>(form.k)});
    }
  }
  return out;
}

}  // namespace tcnum::features
