#include "dmma_binding.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/dmma.hpp"

namespace nb = nanobind;

namespace tcnum::python {
namespace {

using Rows = nb::ndarray<const std::uint64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Column = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// n elements: a and b n×K raw binary64 bits (a row of A, a column of B each), c n; D's bits.
std::vector<std::uint64_t> dmma_elements(const Rows& a, const Rows& b, const Column& c) {
  if (a.shape(0) != b.shape(0) || a.shape(1) != b.shape(1) || c.shape(0) != a.shape(0))
    throw std::invalid_argument("dmma_elements: a and b must be n×K and c n, got " + std::to_string(a.shape(0)) + "×" +
                                std::to_string(a.shape(1)) + ", " + std::to_string(b.shape(0)) + "×" +
                                std::to_string(b.shape(1)) + ", " + std::to_string(c.shape(0)));
  const std::size_t n = a.shape(0), k = a.shape(1);
  std::vector<std::uint64_t> d(n);
  nb::gil_scoped_release unlocked;
  for (std::size_t i = 0; i < n; ++i) d[i] = dmma_element({a.data() + i * k, k}, {b.data() + i * k, k}, c.data()[i]);
  return d;
}

}  // namespace

void bind_dmma(nb::module_& m) {
  m.def("dmma_elements", &dmma_elements, nb::arg("a"), nb::arg("b"), nb::arg("c"),
        "f64 DMMA elements (tcnum::dmma_element) on raw binary64 bits: a, b n×K, c n; returns D's bits.");
}

}  // namespace tcnum::python
