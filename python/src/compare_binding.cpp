#include "compare_binding.hpp"

#include <nanobind/stl/string.h>

#include <stdexcept>
#include <string>

#include <tcnum/testing/compare.hpp>

#include "bits.hpp"

namespace tcnum::python {
namespace {

// A rows×cols row-major view of a contiguous raw-bit array of format f.
AnyView bits_view(const BitsIn& bits, Format f, int rows, int cols, const char* what) {
  const int bytes = static_cast<int>(bits.dtype().bits / 8);
  if (bytes * 8 != spec(f).storage_bits || bits.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(rows) + "×" + std::to_string(cols) +
                                " raw " + std::string(name_of(f)) + " bits");
  AnyView v;
  v.data = bits.data();
  v.rows = rows, v.cols = cols, v.ld = cols;
  v.format = f;
  v.kind = ElementKind::bits;
  v.element_bytes = bytes;
  return v;
}

nb::dict classes(const ValueClasses& c) {
  nb::dict d;
  d["nan"] = c.nan;
  d["inf"] = c.inf;
  d["negative_zero"] = c.negative_zero;
  return d;
}

nb::dict compare_bits(const BitsIn& expected, const BitsIn& actual, const std::string& format, int rows, int cols,
                      std::uint64_t max_ulps, bool any_nan, bool any_zero_sign, std::size_t max_listed) {
  const auto f = parse_format(format);
  if (!f) throw std::invalid_argument("unknown format '" + format + "'");
  const Tolerance tolerance{max_ulps, any_nan, any_zero_sign};
  CompareReport r;
  {
    const AnyView e = bits_view(expected, *f, rows, cols, "expected"), a = bits_view(actual, *f, rows, cols, "actual");
    nb::gil_scoped_release unlocked;
    r = compare(e, a, tolerance, max_listed);
  }
  nb::dict d;
  d["differing"] = r.differing;
  d["not_identical"] = r.not_identical;
  d["max_ulps"] = r.max_ulps;
  d["max_relative_error"] = r.max_relative_error;
  d["class_mismatches"] = r.class_mismatches;
  d["expected_classes"] = classes(r.expected_classes);
  d["actual_classes"] = classes(r.actual_classes);
  d["tolerance"] = tolerance.to_string();
  d["text"] = r.to_string();
  nb::list first;
  for (const ElementDifference& e : r.first) {
    nb::object ulps = e.ulps ? nb::cast(*e.ulps) : nb::none();
    first.append(nb::make_tuple(e.row, e.col, e.expected_bits, e.actual_bits, e.expected, e.actual, ulps));
  }
  d["first"] = first;
  return d;
}

}  // namespace

void bind_compare(nb::module_& m) {
  m.def("compare", &compare_bits, nb::arg("expected"), nb::arg("actual"), nb::arg("format"), nb::arg("rows"),
        nb::arg("cols"), nb::arg("max_ulps"), nb::arg("any_nan"), nb::arg("any_zero_sign"), nb::arg("max_listed"));
}

}  // namespace tcnum::python
