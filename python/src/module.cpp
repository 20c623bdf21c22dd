// The compiled half of `import tcnum`: thin wrappers over the core library on raw-bit arrays.
// Python (python/tcnum) maps dtypes to formats and checks shapes; everything per element
// happens here, with the GIL released around the arithmetic.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "bits.hpp"
#include "corpus_binding.hpp"
#include "compare_binding.hpp"
#include "dmma_binding.hpp"
#include "sparse_binding.hpp"
#include "tcnum/core/build_info.hpp"
#include "timing.hpp"

namespace tcnum::python {
namespace {

Format format_named(const std::string& name) {
  if (auto f = parse_format(name)) return *f;
  throw std::invalid_argument("unknown format '" + name + "'; valid: f32, f16, bf16, tf32, e4m3, e5m2, e2m1, e2m3, e3m2, "
                              "ue8m0, ue4m3, e4m3fnuz, e5m2fnuz");
}

nb::dict instruction_dict(const Instruction& in) {
  static const char* families[] = {"mma", "wgmma", "tcgen05", "mfma"};
  nb::dict d;
  d["name"] = in.name;
  d["family"] = families[static_cast<int>(in.family)];
  d["m"] = in.m;
  d["n"] = in.n;
  d["k"] = in.k;
  d["a"] = std::string(name_of(in.a_type));
  d["b"] = std::string(name_of(in.b_type));
  d["c"] = std::string(name_of(in.c_type));
  d["d"] = std::string(name_of(in.d_type));
  d["min_sm"] = in.min_sm;
  d["max_sm"] = in.max_sm;
  d["scale_block"] = in.scale_block;
  d["scale_type"] = in.block_scaled() ? std::string(name_of(in.scale_type)) : std::string();
  d["sparse"] = in.sparse;
  return d;
}

void expect_size(const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(got) + " elements, expected " +
                                std::to_string(want));
}

// Block-scaled elements: element i with the in.scales_per_row() scales of its row of A and of
// its column of B at i · scales_per_row (the reference datapath, as mma_element takes scales).
void scaled_elements(const MmaPlan& plan, std::size_t count, const std::vector<std::uint32_t>& av,
                     const std::vector<std::uint32_t>& bv, const std::vector<std::uint32_t>& cv,
                     const std::vector<std::uint32_t>& sa, const std::vector<std::uint32_t>& sb, std::uint32_t* d) {
  const std::size_t k = static_cast<std::size_t>(plan.instruction.k),
                    per = static_cast<std::size_t>(plan.instruction.scales_per_row());
  for (std::size_t i = 0; i < count; ++i)
    d[i] = mma_element(plan, {av.data() + i * k, k}, {bv.data() + i * k, k}, cv[i], {sa.data() + i * per, per},
                       {sb.data() + i * per, per});
}

// d[i] = mma_element(a[i, :], b[i, :], c[i]) for `count` independent elements; a block-scaled
// instruction's with scale_a[i, :] and scale_b[i, :] (both or neither).
ArrayOut mma_elements(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b, const BitsIn& c,
                      const std::optional<BitsIn>& scale_a, const std::optional<BitsIn>& scale_b) {
  const Instruction in = find_instruction(name, model.sm);
  if (scale_a.has_value() != scale_b.has_value())
    throw std::invalid_argument("tcnum.mma_element(" + in.name + "): give both scale_a and scale_b, or neither");
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b"), cv = widen(c, "c");
  const std::size_t count = cv.size(), k = static_cast<std::size_t>(in.k);
  expect_size("a", av.size(), count * k);
  expect_size("b", bv.size(), count * k);
  std::vector<std::uint32_t> sa, sb;
  if (scale_a) {
    sa = widen(*scale_a, "scale_a"), sb = widen(*scale_b, "scale_b");
    const std::size_t per = static_cast<std::size_t>(std::max(in.scales_per_row(), 0));
    expect_size("scale_a", sa.size(), count * per);
    expect_size("scale_b", sb.size(), count * per);
  }
  std::vector<std::uint32_t> d(count);
  {
    nb::gil_scoped_release unlocked;
    const MmaPlan plan = compile_plan(model, in);
    if (scale_a) scaled_elements(plan, count, av, bv, cv, sa, sb, d.data());
    else mma_batch(plan, count, av.data(), bv.data(), cv.data(), d.data());
  }
  return storage_array(std::move(d), in.d_type, {count});
}

// `tiles` whole instruction tiles: A tiles×M×K, B tiles×K×N (row-major, as Python writes
// matrices), C and D tiles×M×N.
ArrayOut mma_tiles_bits(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b, const BitsIn& c,
                   std::size_t tiles) {
  const Instruction in = find_instruction(name, model.sm);
  const std::size_t M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n),
                    K = static_cast<std::size_t>(in.k);
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b"), cv = widen(c, "c");
  expect_size("a", av.size(), tiles * M * K);
  expect_size("b", bv.size(), tiles * K * N);
  expect_size("c", cv.size(), tiles * M * N);
  std::vector<std::uint32_t> d(tiles * M * N);
  {
    nb::gil_scoped_release unlocked;
    std::vector<std::uint32_t> bt(tiles * N * K);  // mma_tiles takes each tile's B column-major (N×K)
    for (std::size_t t = 0; t < tiles; ++t) {
      const std::uint32_t* bk = bv.data() + t * K * N;
      for (std::size_t kk = 0; kk < K; ++kk)
        for (std::size_t j = 0; j < N; ++j) bt[t * N * K + j * K + kk] = bk[kk * N + j];
    }
    mma_tiles(compile_plan(model, in), tiles, av.data(), bt.data(), cv.data(), d.data());
  }
  return storage_array(std::move(d), in.d_type, {tiles, M, N});
}

// c: none = +0 everywhere (made here, saving Python an M×N array of zeros and its widening).
ArrayOut gemm_bits(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b,
                   const std::optional<BitsIn>& c, int m, int n, int k, const std::vector<int>& k_order, int split_k,
                   int threads, const std::string& schedule_json, const std::optional<BitsIn>& scale_a,
                   const std::optional<BitsIn>& scale_b) {
  const Instruction in = find_instruction(name, model.sm);
  if (scale_a.has_value() != scale_b.has_value())
    throw std::invalid_argument("tcnum.gemm(" + in.name + "): give both scale_a and scale_b, or neither");
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b");
  const std::vector<std::uint32_t> cv =
      c ? widen(*c, "c")
        : std::vector<std::uint32_t>(static_cast<std::size_t>(std::max(m, 0)) * static_cast<std::size_t>(std::max(n, 0)),
                                     zero_bits(in.c_type, false));
  GemmOptions opt;
  opt.k_order = k_order;
  opt.split_k = split_k;
  opt.threads = threads;  // 0: every core
  if (!schedule_json.empty()) opt.schedule = parse_schedule(schedule_json);
  std::vector<std::uint32_t> d;
  {
    nb::gil_scoped_release unlocked;
    if (scale_a) {
      const BlockScales scales{widen(*scale_a, "scale_a"), widen(*scale_b, "scale_b")};
      d = gemm(model, in, m, n, k, av, bv, cv, scales, opt);
    } else {
      d = gemm(model, in, m, n, k, av, bv, cv, opt);
    }
  }
  return storage_array(std::move(d), in.d_type, {static_cast<std::size_t>(m), static_cast<std::size_t>(n)});
}

// An AnyView over row-major uint32 bits (one element per uint32) of `format`.
AnyView bits_view(const std::vector<std::uint32_t>& v, std::vector<std::uint32_t>* writable, int rows, int cols,
                  Format format) {
  AnyView view;
  view.data = v.data();
  view.writable = writable != nullptr ? writable->data() : nullptr;
  view.rows = rows, view.cols = cols, view.ld = cols > 0 ? cols : 1;
  view.layout = Layout::row_major, view.format = format, view.kind = ElementKind::bits, view.element_bytes = 4;
  return view;
}

// D = epilogue(A·B, C) (tcnum::gemm_with_epilogue, epilogue.hpp): the accumulators of a zero-C
// GEMM, then alpha, bias, beta·C, ReLU and the conversion into `out_format`, in binary32.
// c (any format `c_format`, read exactly) is the epilogue's source, not the MMA's C.
ArrayOut gemm_epilogue_bits(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b,
                            const std::optional<BitsIn>& c, const std::string& c_format, int m, int n, int k,
                            const std::vector<int>& k_order, int split_k, int threads, const std::string& schedule_json,
                            float alpha, float beta,
                            const std::optional<nb::ndarray<const float, nb::c_contig, nb::device::cpu>>& bias,
                            const std::string& bias_kind, bool relu, bool fused, const std::string& rounding,
                            bool satfinite, const std::string& out_format) {
  const Instruction in = find_instruction(name, model.sm);
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b");
  const std::vector<std::uint32_t> cv = c ? widen(*c, "c") : std::vector<std::uint32_t>();
  if (c) expect_size("c", cv.size(), std::size_t(std::max(m, 0)) * std::size_t(std::max(n, 0)));
  Epilogue ep;
  ep.alpha = alpha;
  ep.beta = beta;
  if (bias_kind == "none") ep.bias_kind = BiasKind::none;
  else if (bias_kind == "per_row") ep.bias_kind = BiasKind::per_row;
  else if (bias_kind == "per_column") ep.bias_kind = BiasKind::per_column;
  else throw std::invalid_argument("bias kind '" + bias_kind + "'; valid: none, per_row, per_column");
  std::vector<float> bias_values;
  if (bias) bias_values.assign(bias->data(), bias->data() + bias->size());
  ep.bias = bias_values;
  ep.relu = relu;
  ep.fused = fused;
  if (rounding == "nearest_even") ep.rounding = Rounding::nearest_even;
  else if (rounding == "toward_zero") ep.rounding = Rounding::toward_zero;
  else throw std::invalid_argument("rounding '" + rounding + "'; valid: nearest_even, toward_zero");
  ep.satfinite = satfinite;
  const Format out = format_named(out_format);
  GemmOptions opt;
  opt.k_order = k_order;
  opt.split_k = split_k;
  opt.threads = threads;  // 0: every core
  if (!schedule_json.empty()) opt.schedule = parse_schedule(schedule_json);
  std::vector<std::uint32_t> d(std::size_t(std::max(m, 0)) * std::size_t(std::max(n, 0)));
  const AnyView va = bits_view(av, nullptr, m, k, in.a_type), vb = bits_view(bv, nullptr, k, n, in.b_type);
  const AnyView vd = bits_view(d, &d, m, n, out);
  const AnyView vc = bits_view(cv, nullptr, m, n, c ? format_named(c_format) : Format::fp32);
  {
    nb::gil_scoped_release unlocked;
    detail::gemm_epilogue_views(model, in, va, vb, c ? &vc : nullptr, vd, ep, opt, Conversion{});
  }
  return storage_array(std::move(d), out, {static_cast<std::size_t>(m), static_cast<std::size_t>(n)});
}

// The C++ kernel match (kernel_match.hpp) as a dict: the instruction, the options, the text.
nb::dict match_kernel_dict(int sm, const std::string& a, const std::string& b, const std::string& accumulator,
                           const std::string& sass) {
  const KernelMatch km = match_kernel(sm, format_named(a), format_named(b), format_named(accumulator), sass);
  nb::dict d;
  d["sm"] = km.sm;
  d["instruction"] = instruction_dict(km.instruction);
  d["k_order"] = km.options.k_order;
  d["split_k"] = km.options.split_k;
  d["explanation"] = km.explanation;
  return d;
}

}  // namespace
}  // namespace tcnum::python

NB_MODULE(_tcnum, m) {
  using namespace tcnum;
  using namespace tcnum::python;
  m.doc() = "tcnum's compiled core; use the `tcnum` package, not this module.";
  // The package caches built-in models for the life of the process; at exit, with torch loaded,
  // teardown order leaves them alive and nanobind would print (harmless) leak reports.
  nb::set_leak_warnings(false);
  m.attr("__version__") = version();  // CMakeLists.txt's project version, as pyproject.toml's (one source)
  m.def("build_info", [] {  // no build id: /proc/self/exe is the Python interpreter here
    const BuildInfo b = build_info();
    nb::dict d;
    d["version"] = b.version;
    d["git_revision"] = b.git_revision;
    d["compiler"] = b.compiler;
    d["simd"] = b.simd;
    return d;
  }, "version, git revision (at configure time), compiler and the fast kernel's SIMD path of this build");

  nb::class_<Model>(m, "Model")
      .def_static("builtin", [](int sm) { return builtin_model(sm); }, nb::arg("sm"))
      .def_static("from_json", &model_from_json, nb::arg("text"))
      .def("to_json", [](const Model& self) { return model_to_json(self); })
      .def_ro("name", &Model::name)
      .def_ro("sm", &Model::sm);

  m.def("parse_arch", [](const std::string& arch) { return parse_arch(arch); }, nb::arg("arch"));
  m.def("known_archs", &known_archs);
  m.def("arch_name", &arch_name, nb::arg("arch"));
  m.def("instructions", [](int sm) {
    nb::list out;
    for (const Instruction& in : instructions_for(sm)) out.append(instruction_dict(in));
    return out;
  }, nb::arg("sm"));
  m.def("instruction", [](const std::string& name, int sm) { return instruction_dict(find_instruction(name, sm)); },
        nb::arg("name"), nb::arg("sm"));
  m.def("default_instruction", [](const std::string& a, const std::string& b, const std::string& d,
                                  const std::optional<std::string>& c, int sm) {
    const std::optional<Format> cf = c ? std::optional<Format>(format_named(*c)) : std::nullopt;
    return instruction_dict(default_instruction(OperandFormats{format_named(a), format_named(b), format_named(d), cf}, sm));
  }, nb::arg("a"), nb::arg("b"), nb::arg("d"), nb::arg("c").none(), nb::arg("sm"));

  m.def("decode", [](const BitsIn& bits, const std::string& format) {
    const Format f = format_named(format);
    const std::vector<std::uint32_t> v = widen(bits, "bits");
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_double(f, v[i]);
    return float64_array(std::move(out), {v.size()});
  }, nb::arg("bits"), nb::arg("format"), "Exact values of raw bits (flat float64 array).");
  m.def("encode", [](nb::ndarray<const double, nb::c_contig, nb::device::cpu> x, const std::string& format,
                     bool toward_zero, bool satfinite) {
    const Format f = format_named(format);
    std::vector<std::uint32_t> out(x.size());
    const Rounding mode = toward_zero ? Rounding::toward_zero : Rounding::nearest_even;
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) out[i] = encode(f, x.data()[i], mode, satfinite);
    return storage_array(std::move(out), f, {n});
  }, nb::arg("values"), nb::arg("format"), nb::arg("toward_zero") = false, nb::arg("satfinite") = false,
        "Raw bits of float64 values rounded into a format (flat array of its storage width).");

  m.def("import_dlpack", &import_dlpack, nb::arg("x"));
  m.def("mma_elements", &mma_elements, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"),
        nb::arg("c"), nb::arg("scale_a").none() = nb::none(), nb::arg("scale_b").none() = nb::none());
  m.def("mma_tiles", &mma_tiles_bits, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"), nb::arg("c"),
        nb::arg("tiles"));
  m.def("gemm", &gemm_bits, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"), nb::arg("c").none(),
        nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("k_order"), nb::arg("split_k"), nb::arg("threads"),
        nb::arg("schedule_json") = "", nb::arg("scale_a").none() = nb::none(), nb::arg("scale_b").none() = nb::none());
  m.def("gemm_epilogue", &gemm_epilogue_bits, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"),
        nb::arg("c").none(), nb::arg("c_format"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("k_order"),
        nb::arg("split_k"), nb::arg("threads"), nb::arg("schedule_json"), nb::arg("alpha"), nb::arg("beta"),
        nb::arg("bias").none(), nb::arg("bias_kind"), nb::arg("relu"), nb::arg("fused"), nb::arg("rounding"),
        nb::arg("satfinite"), nb::arg("out_format"),
        "D = epilogue(A·B, C) as tcnum::gemm_with_epilogue computes it (raw bits of out_format).");
  m.def("match_kernel", &match_kernel_dict, nb::arg("sm"), nb::arg("a"), nb::arg("b"), nb::arg("accumulator"),
        nb::arg("sass") = "", "tcnum::match_kernel as a dict (instruction, k_order, split_k, explanation).");
  m.def("schedule_normalize", [](const std::string& text) { return schedule_to_json(parse_schedule(text)); },
        nb::arg("json"), "The schedule parsed strictly and printed back with every field (throws ValueError).");
  m.def("schedule_resolve", [](const std::string& text, const Model& model, const std::string& name, int k) {
    const ResolvedSchedule r = resolve_schedule(parse_schedule(text), find_instruction(name, model.sm), k);
    std::vector<std::vector<std::pair<int, int>>> slices;
    for (const auto& slice : r.slices) {
      slices.emplace_back();
      for (const KStep& st : slice) slices.back().emplace_back(st.begin, st.length);
    }
    return slices;
  }, nb::arg("json"), nb::arg("model"), nb::arg("instruction"), nb::arg("k"),
        "Every slice's k-steps (begin, length) for K under an instruction.");

  bind_corpus(m);
  bind_compare(m);
  bind_dmma(m);
  bind_sparse(m);
  bind_timing(m);
}
