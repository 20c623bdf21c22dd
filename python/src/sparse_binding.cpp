// Sparse A from Python (sparse_binding.hpp).
#include "sparse_binding.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <stdexcept>

#include "bits.hpp"

namespace tcnum::python {
namespace {

void expect(std::size_t got, std::size_t want, const char* what) {
  if (got != want)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(got) + " elements, expected " +
                                std::to_string(want));
}

Instruction sparse_instruction(const Model& model, const std::string& name) {
  const Instruction in = find_instruction(name, model.sm);
  if (!in.sparse) throw std::invalid_argument(in.name + " is not a sparse instruction");
  return in;
}

// Row `i` of a dense A (count × K) compressed, its pattern checked; errors name the row.
CompressedRow compress_row(const Instruction& in, const std::vector<std::uint32_t>& a, std::size_t i, std::size_t k,
                           const char* what) {
  try {
    return compress_sparse_a(in, {a.data() + i * k, k});
  } catch (const std::invalid_argument& e) {
    std::string why = e.what();
    why = why.substr(why.find(": ") + 2);  // drop the instruction's name: the caller's message has it
    throw std::invalid_argument(in.name + ": " + what + " " + std::to_string(i) + ": " + why);
  }
}

// d[i] for `count` elements: a dense (count × K, 2:4 checked) when meta is none, else stored
// (count × K/2) with meta (count × groups, one value per uint8).
ArrayOut sparse_elements(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b, const BitsIn& c,
                         const std::optional<BitsIn>& meta) {
  const Instruction in = sparse_instruction(model, name);
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b"), cv = widen(c, "c");
  const std::size_t count = cv.size(), k = static_cast<std::size_t>(in.k), h = k / 2,
                    groups = static_cast<std::size_t>(sparse_meta_count(in));
  expect(bv.size(), count * k, "b");
  std::vector<std::uint32_t> mv;
  if (meta) {
    mv = widen(*meta, "meta");
    expect(av.size(), count * h, "a (stored, with meta)");
    expect(mv.size(), count * groups, "meta");
  } else {
    expect(av.size(), count * k, "a (dense)");
  }
  const DatapathParams& p = model.params_for(in);
  std::vector<std::uint32_t> d(count);
  for (std::size_t i = 0; i < count; ++i) {
    CompressedRow row;
    if (meta) {
      row.a.assign(av.begin() + static_cast<std::ptrdiff_t>(i * h), av.begin() + static_cast<std::ptrdiff_t>((i + 1) * h));
      for (std::size_t q = 0; q < groups; ++q) {
        const std::uint32_t v = mv[i * groups + q];
        if (!valid_sparse_meta(in, v))
          throw std::invalid_argument(in.name + ": meta of element " + std::to_string(i) + ": " +
                                      invalid_sparse_meta_message(in, v, static_cast<int>(q)));
        row.meta.push_back(static_cast<std::uint8_t>(v));
      }
    } else {
      row = compress_row(in, av, i, k, "row of a");
    }
    d[i] = sparse_element(p, in, row.a, {bv.data() + i * k, k}, cv[i], row.meta);
  }
  return storage_array(std::move(d), in.d_type, {count});
}

// D = A·B + C with A (m × k, row-major, 2:4 in every K-step of in.k) and B (k × n, row-major):
// the K-steps in ascending order, each step's D the next step's C, as tcnum::gemm chains
// instructions. c: none = +0.
ArrayOut sparse_gemm(const Model& model, const std::string& name, const BitsIn& a, const BitsIn& b,
                     const std::optional<BitsIn>& c, int m, int n, int k) {
  const Instruction in = sparse_instruction(model, name);
  if (m <= 0 || n <= 0 || k <= 0 || k % in.k != 0)
    throw std::invalid_argument(in.name + ": gemm needs positive sizes and K a multiple of " + std::to_string(in.k));
  const std::size_t M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k),
                    ks = static_cast<std::size_t>(in.k);
  const std::vector<std::uint32_t> av = widen(a, "a"), bv = widen(b, "b");
  expect(av.size(), M * K, "a");
  expect(bv.size(), K * N, "b");
  std::vector<std::uint32_t> d = c ? widen(*c, "c") : std::vector<std::uint32_t>(M * N, zero_bits(in.c_type, false));
  expect(d.size(), M * N, "c");
  const DatapathParams& p = model.params_for(in);
  std::vector<std::uint32_t> col(ks);
  for (std::size_t s = 0; s < K / ks; ++s)
    for (std::size_t i = 0; i < M; ++i) {
      CompressedRow row;
      try {
        row = compress_sparse_a(in, {av.data() + i * K + s * ks, ks});
      } catch (const std::invalid_argument& e) {
        const std::string why = e.what();
        throw std::invalid_argument(in.name + ": a[" + std::to_string(i) + ", " + std::to_string(s * ks) + ":" +
                                    std::to_string((s + 1) * ks) + "]: " + why.substr(why.find(": ") + 2));
      }
      for (std::size_t j = 0; j < N; ++j) {
        for (std::size_t q = 0; q < ks; ++q) col[q] = bv[(s * ks + q) * N + j];
        d[i * N + j] = sparse_element(p, in, row.a, col, d[i * N + j], row.meta);
      }
    }
  return storage_array(std::move(d), in.d_type, {M, N});
}

}  // namespace

void bind_sparse(nb::module_& m) {
  m.def("sparse_elements", &sparse_elements, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"),
        nb::arg("c"), nb::arg("meta").none());
  m.def("sparse_gemm", &sparse_gemm, nb::arg("model"), nb::arg("instruction"), nb::arg("a"), nb::arg("b"),
        nb::arg("c").none(), nb::arg("m"), nb::arg("n"), nb::arg("k"));
  m.def("sparse_instructions", [](int sm) {
    nb::list out;
    for (const Instruction& in : sparse_instructions_for(sm)) out.append(in.name);
    return out;
  }, nb::arg("sm"));
}

}  // namespace tcnum::python
