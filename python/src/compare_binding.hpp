// tcnum::compare (the C++ compare report) on raw-bit arrays, for tcnum.testing.
#pragma once
#include <nanobind/nanobind.h>

namespace tcnum::python {
void bind_compare(nanobind::module_& m);
}
